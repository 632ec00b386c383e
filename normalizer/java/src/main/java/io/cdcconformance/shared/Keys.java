package io.cdcconformance.shared;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The key rules for decoders read on the JVM (they were SQL in cdc_conformance/keys.py, which keeps the oracle's
 * Python {@code group}): the {@code pk_change.group} of a key change
 * (the same digest as {@code keys.group_sql} and the oracle's {@code keys.group}), whether an update changed its
 * key, and whether a before image names the row it changed. Images are maps of column name to text (null for
 * SQL NULL); a null map is an image that is not there.
 */
public final class Keys {
    /** Where a source gives both halves of a key change one position, {@code position.seq} orders them. */
    public static final String OLD_SEQ = "00000000000000000000";
    public static final String NEW_SEQ = "00000000000000000001";

    private Keys() {
    }

    /** {@code keys.group_sql}: the first 16 hex digits of SHA-256 over the parts (null as '') and both keys as
     * sorted {@code k=v} text, joined by '|'; a key that is not there is left out, as {@code concat_ws} does. */
    @SuppressWarnings("unchecked")
    public static String group(String[] parts, Map<String, String> oldKey, Map<String, String> newKey) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                text.append('|');
            }
            text.append(parts[i] == null ? "" : parts[i]);
        }
        for (Map<String, String> key : java.util.Arrays.asList(oldKey, newKey)) {  // asList keeps the nulls
            if (key != null) {
                text.append('|').append(sortedMapText(key));
            }
        }
        return HexFormat.of().formatHex(Digests.sha256(text.toString().getBytes(StandardCharsets.UTF_8))).substring(0, 16);
    }

    /** {@code ct.sorted_map_text}: {@code k=v,k=v} sorted as Spark sorts strings (by UTF-8 bytes, which is code
     * point order), NULL values as {@code null}. */
    public static String sortedMapText(Map<String, String> key) {
        List<String> entries = new ArrayList<>(key.size());
        for (Map.Entry<String, String> entry : key.entrySet()) {
            entries.add(entry.getKey() + "=" + (entry.getValue() == null ? "null" : entry.getValue()));
        }
        entries.sort(Keys::compareCodePoints);
        return String.join(",", entries);
    }

    public static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    /** {@code keys.key_changed}: every key column known before (and after, where the after image supplies it), and
     * one supplied after that differs. Anything less is an update with partial images. */
    public static boolean keyChanged(List<String> keyNames, Map<String, String> before, Map<String, String> after) {
        if (keyNames == null || keyNames.isEmpty() || before == null || after == null) {
            return false;
        }
        boolean changed = false;
        for (String name : keyNames) {
            String old = before.get(name);
            boolean supplied = after.containsKey(name);
            String now = after.get(name);
            if (old == null || (supplied && now == null)) {
                return false;
            }
            changed |= supplied && !now.equals(old);
        }
        return changed;
    }

    /** {@code keys.old_key_missing}: a before image that is there but lacks a key column or holds NULL for one. */
    public static boolean oldKeyMissing(List<String> keyNames, Map<String, String> before) {
        if (keyNames == null || keyNames.isEmpty() || before == null) {
            return false;
        }
        for (String name : keyNames) {
            if (before.get(name) == null) {
                return true;
            }
        }
        return false;
    }

    /** {@code keys.key_value}: key column {@code name}'s value in a change: the after image's, or the before image's
     * where the after image does not supply it (a DELETE; a MINIMAL after image, whose key columns are there only when
     * they changed). */
    public static String value(String name, Map<String, String> before, Map<String, String> after, String op) {
        if (!"DELETE".equals(op) && after != null && after.containsKey(name)) {
            return after.get(name);
        }
        return before == null ? null : before.get(name);
    }

    /** The key entries of a change, in the key's column order ({@link #value}); null without key names. */
    public static List<org.apache.spark.sql.Row> entries(List<String> names, Map<String, String> before, Map<String, String> after,
                                                         String op) {
        if (names == null) {
            return null;
        }
        List<org.apache.spark.sql.Row> entries = new ArrayList<>(names.size());
        for (String name : names) {
            entries.add(Events.keyEntry(name, value(name, before, after, op)));
        }
        return entries;
    }

    /** The key columns an image holds, in its order; null for no image. */
    public static Map<String, String> only(Map<String, String> image, List<String> names) {
        if (image == null) {
            return null;
        }
        Map<String, String> key = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, String> entry : image.entrySet()) {
            if (names.contains(entry.getKey())) {
                key.put(entry.getKey(), entry.getValue());
            }
        }
        return key;
    }

    /** {@code keys.new_key_map}: the key after a key change, columns the after image lacks taken from the before one. */
    public static Map<String, String> afterChange(List<String> names, Map<String, String> before, Map<String, String> after) {
        Map<String, String> key = new java.util.LinkedHashMap<>();
        for (String name : new java.util.LinkedHashSet<>(names)) {
            key.put(name, value(name, before, after, "INSERT"));
        }
        return key;
    }

    /** A key that identifies a row: present, not empty, no NULL value. */
    public static boolean known(Map<String, String> key) {
        return key != null && !key.isEmpty() && !key.containsValue(null);
    }
}
