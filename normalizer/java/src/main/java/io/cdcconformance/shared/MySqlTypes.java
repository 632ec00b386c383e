package io.cdcconformance.shared;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MySQL column types as MySQL writes them (canal's {@code mysqlType}, CloudCanal's {@code dbValType}: {@code int(11)},
 * {@code bigint(20) unsigned}, {@code decimal(10,2)}, {@code datetime(6)}), and JDBC codes where a column has no type
 * text: the logical type of each, and ENUM and SET values as canal's binlog decoder writes them. The tables and rules
 * of the SQL decoders these replaced (their Python module, gone since issue 20: {@code MYSQL_TEXT}, {@code JDBC}, {@code mysql_logical_type}, {@code mysql_enum_text},
 * {@code mysql_set_text}), which the SQL decoders share; the reasons are there and in docs/formats/canal-json.md.
 *
 * <p>A table's type texts repeat in every message of it, so each text's logical type is worked out once per JVM.
 */
public final class MySqlTypes {
    private MySqlTypes() {
    }

    /** base -> (signed, unsigned) */
    private static final String[][] INTEGERS = {
        {"tinyint", "INT16", "INT16"}, {"int1", "INT16", "INT16"}, {"bool", "INT16", "INT16"}, {"boolean", "INT16", "INT16"},
        {"smallint", "INT16", "INT32"}, {"int2", "INT16", "INT32"},
        {"mediumint", "INT32", "INT32"}, {"middleint", "INT32", "INT32"}, {"int3", "INT32", "INT32"},
        {"int", "INT32", "INT64"}, {"integer", "INT32", "INT64"}, {"int4", "INT32", "INT64"},
        {"bigint", "INT64", "DECIMAL(20,0)"}, {"int8", "INT64", "DECIMAL(20,0)"},
        {"float", "FLOAT32", "FLOAT32"}, {"float4", "FLOAT32", "FLOAT32"},
        {"double", "FLOAT64", "FLOAT64"}, {"double precision", "FLOAT64", "FLOAT64"}, {"float8", "FLOAT64", "FLOAT64"},
        {"real", "FLOAT64", "FLOAT64"},  // REAL is DOUBLE unless the server runs with REAL_AS_FLOAT
    };
    private static final String[] STRINGS = {"char", "character", "nchar", "national char", "national character", "varchar",
        "character varying", "char varying", "nvarchar", "national varchar", "national character varying",
        "national char varying", "nchar varchar", "nchar varying", "tinytext", "text", "mediumtext", "longtext", "long",
        "long varchar"};
    private static final String[] BINARIES = {"binary", "varbinary", "char byte", "tinyblob", "blob", "mediumblob", "longblob",
        "long varbinary", "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
        "geometrycollection", "geomcollection"};
    public static final Map<String, String> PLAIN = new HashMap<>();
    /** Decimal types: their default precision and scale. */
    private static final Map<String, int[]> DECIMALS = new HashMap<>();
    /** TIME / TIMESTAMP types: logical name, default and largest fraction digits. */
    private static final Map<String, Object[]> FRACTIONAL = new HashMap<>();
    public static final Map<String, String> JDBC = Map.ofEntries(
            Map.entry("-6", "INT16"), Map.entry("5", "INT16"), Map.entry("4", "INT32"), Map.entry("-5", "INT64"),
            Map.entry("7", "FLOAT64"), Map.entry("6", "FLOAT64"), Map.entry("8", "FLOAT64"), Map.entry("16", "BOOLEAN"),
            Map.entry("1", "STRING"), Map.entry("12", "STRING"), Map.entry("-1", "STRING"), Map.entry("-15", "STRING"),
            Map.entry("-9", "STRING"), Map.entry("-16", "STRING"), Map.entry("2005", "STRING"), Map.entry("2011", "STRING"),
            Map.entry("91", "DATE"), Map.entry("92", "TIME(6)"), Map.entry("93", "TIMESTAMP(6)"));

    static {
        for (String[] integer : INTEGERS) {
            PLAIN.put(integer[0], integer[1]);
            PLAIN.put(integer[0] + " unsigned", integer[2]);
        }
        PLAIN.put("serial", "DECIMAL(20,0)");  // BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE
        PLAIN.put("bit", "DECIMAL(20,0)");
        PLAIN.put("year", "INT16");
        PLAIN.put("date", "DATE");
        for (String name : STRINGS) {
            PLAIN.put(name, "STRING");
        }
        PLAIN.put("set", "STRING");
        PLAIN.put("enum", "ENUM");
        PLAIN.put("json", "JSON");
        for (String name : BINARIES) {
            PLAIN.put(name, "BYTES");
        }
        for (String base : new String[] {"decimal", "dec", "numeric", "fixed"}) {
            DECIMALS.put(base, new int[] {10, 0});
            DECIMALS.put(base + " unsigned", new int[] {10, 0});
        }
        // fractional seconds precision 0..6 (MySQL 8.0 Reference Manual 13.2.6)
        FRACTIONAL.put("time", new Object[] {"TIME", 0, 6});
        FRACTIONAL.put("datetime", new Object[] {"TIMESTAMP", 0, 6});
        FRACTIONAL.put("timestamp", new Object[] {"TIMESTAMP", 0, 6});
    }

    private static final TypeCache LOGICAL = new TypeCache(MySqlTypes::computeLogicalType);

    /** {@code types.mysql_logical_type}: the logical type of a MySQL type text, null for a type the table lacks. */
    public static String logicalType(String typeText) {
        return LOGICAL.get(typeText);
    }

    /** The JDBC code's logical type (no precision, no sign: decimals and unsigned widths are not typed from them). */
    public static String jdbcLogicalType(String code) {
        return code == null ? null : JDBC.get(code);
    }

    private static String computeLogicalType(String typeText) {
        String base = baseName(typeText);
        String plain = PLAIN.get(base);
        if (plain != null) {
            return plain;
        }
        int[] decimal = DECIMALS.get(base);
        if (decimal != null) {
            Integer precision = Canonical.typeArgument(typeText, 1, decimal[0]);
            Integer scale = Canonical.typeArgument(typeText, 2, decimal[1]);
            return precision >= 1 && scale >= 0 && scale <= precision ? "DECIMAL(" + precision + "," + scale + ")" : null;
        }
        Object[] fractional = FRACTIONAL.get(base);
        if (fractional != null) {
            Integer digits = Canonical.typeArgument(typeText, 1, (Integer) fractional[1]);
            return digits >= 0 && digits <= (Integer) fractional[2] ? fractional[0] + "(" + (digits > 6 ? 9 : 6) + ")" : null;
        }
        return null;
    }

    /** The longest type text read: MySQL keeps a table's whole definition, ENUM and SET labels included, within
     * 65,535 bytes (the .frm limit, "Limits Imposed by .frm File Structure"); quoting at most doubles it. A longer
     * text is no type MySQL declares: no logical type (UNKNOWN_COLUMN_TYPE). */
    public static final int MAX_TYPE_TEXT = 2 * 65_535;
    private static final List<String> MODIFIERS = List.of("unsigned", "signed", "zerofill");

    /** {@code types.mysql_base_name}: 'bigint(20) unsigned' -> 'bigint unsigned'; 'decimal(10,2)' -> 'decimal';
     * 'ENUM('a')' -> 'enum'; 'int(10) UNSIGNED ZEROFILL' -> 'int unsigned'; '' when the text starts otherwise.
     *
     * <p>The base is the shortest run of letters, digits and spaces from the first letter that is followed (after
     * whitespace) by an opening parenthesis, a modifier word or the end; unsigned is the word {@code unsigned}
     * outside the arguments (an ENUM label may be that word). One pass, no regular expression: the patterns this
     * replaces backtracked ('int', 80,000 spaces and '!' held a task for 100 s; 'varchar' and 80,000 '(' 20 s). */
    public static String baseName(String typeText) {
        if (typeText.length() > MAX_TYPE_TEXT) {
            return "";
        }
        String lower = typeText.toLowerCase(Locale.ROOT);
        int open = lower.indexOf('(');
        int close = lower.lastIndexOf(')');
        String outside = open >= 0 && close > open ? lower.substring(0, open) + lower.substring(close + 1) : lower;
        String base = base(lower);
        return hasWord(outside, "unsigned") ? base + " unsigned" : base;
    }

    private static String base(String lower) {
        int n = lower.length();
        int start = 0;
        while (start < n && isSpace(lower.charAt(start))) {
            start++;
        }
        if (start == n || !isLetter(lower.charAt(start))) {
            return "";
        }
        for (int g = start; g < n && (isLetterOrDigit(lower.charAt(g)) || lower.charAt(g) == ' '); g++) {
            if (isLetterOrDigit(lower.charAt(g)) && (g + 1 == n || !isLetterOrDigit(lower.charAt(g + 1)))) {
                int k = g + 1;
                while (k < n && isSpace(lower.charAt(k))) {
                    k++;
                }
                if (k == n || lower.charAt(k) == '(' || modifierAt(lower, k)) {
                    return collapseSpaces(lower, start, g + 1);
                }
            }
        }
        return "";
    }

    private static String collapseSpaces(String text, int from, int to) {
        StringBuilder out = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            if (text.charAt(i) != ' ' || text.charAt(i - 1) != ' ') {
                out.append(text.charAt(i));
            }
        }
        return out.toString();
    }

    private static boolean modifierAt(String text, int at) {
        for (String modifier : MODIFIERS) {
            if (text.startsWith(modifier, at) && !isWordChar(text, at + modifier.length())) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code word} occurs in {@code text} as a whole word (regex {@code \\b} boundaries). */
    private static boolean hasWord(String text, String word) {
        for (int at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
            if (!isWordChar(text, at - 1) && !isWordChar(text, at + word.length())) {
                return true;
            }
        }
        return false;
    }

    /** Regex {@code \\w} at index {@code i} (false outside the text). */
    private static boolean isWordChar(String text, int i) {
        return i >= 0 && i < text.length() && (isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_'
                || (text.charAt(i) >= 'A' && text.charAt(i) <= 'Z'));
    }

    private static boolean isLetterOrDigit(char c) {
        return isLetter(c) || (c >= '0' && c <= '9');
    }

    /** Regex {@code \\s}. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    private static boolean isLetter(char c) {
        return c >= 'a' && c <= 'z';
    }


    // Possessive loops: inside a label, '' is always a doubled quote (a closing quote is followed by , or ))
    private static final Pattern LABEL = Pattern.compile("'([^']*+(?:''[^']*+)*+)'");

    /** The declared labels of {@code enum('a','b')} / {@code set('x','y')}, in order. */
    public static List<String> labels(String typeText) {
        List<String> labels = new ArrayList<>();
        Matcher label = LABEL.matcher(typeText);
        while (label.find()) {
            labels.add(label.group(1).replace("''", "'"));
        }
        return labels;
    }

    /** {@code types.mysql_enum_text}: canal's 1-based index as the label it stands for (0 is MySQL's invalid-value
     * ''); null for an index the type does not declare. Digits are always the index, since canal writes nothing else
     * (RowsLogBuffer: {@code MYSQL_TYPE_ENUM} as an int): in {@code enum('0','1')} the value 1 is {@code '0'} (when a
     * declared label was preferred, both rows of such a flag column read '1': issue 49). A text that is no number is
     * kept when it is a declared label. */
    public static String enumText(String raw, String typeText) {
        if (raw == null) {
            return null;
        }
        List<String> labels = labels(typeText == null ? "" : typeText);
        if (!Canonical.isDigits(raw)) {
            return labels.contains(raw) ? raw : null;
        }
        Integer index = Canonical.boundedInt(raw, 0, Integer.MAX_VALUE);
        if (index == null) {
            return null;
        }
        return index == 0 ? "" : index <= labels.size() ? labels.get(index - 1) : null;
    }

    private static final BigInteger MAX_SET_MASK = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /** {@code types.mysql_set_text}: canal's unsigned bitmask of members (up to 64) as the comma-joined labels in
     * declaration order; a bit the type does not declare is null. Digits are always the bitmask (RowsLogBuffer:
     * {@code MYSQL_TYPE_SET}), whatever the labels look like: in {@code set('2','1')} the value 1 is {@code 2}
     * (issue 49). A text that is no number is kept when each of its members is a declared label. */
    public static String setText(String raw, String typeText) {
        if (raw == null) {
            return null;
        }
        List<String> labels = labels(typeText == null ? "" : typeText);
        if (!Canonical.isDigits(raw)) {
            return raw.isEmpty() || labels.containsAll(List.of(raw.split(",", -1))) ? raw : null;
        }
        if (raw.length() > 20 || new BigInteger(raw).compareTo(MAX_SET_MASK) > 0) {
            return null;
        }
        String bits = new StringBuilder(new BigInteger(raw).toString(2)).reverse().toString();
        if (bits.length() > labels.size()) {
            return null;
        }
        List<String> members = new ArrayList<>();
        for (int i = 0; i < bits.length(); i++) {
            if (bits.charAt(i) == '1') {
                members.add(labels.get(i));
            }
        }
        return String.join(",", members);
    }

    static final Pattern ZERO_DATE =
            Pattern.compile("^(0000-[0-9]{2}-[0-9]{2}|[0-9]{4}-00-[0-9]{2}|[0-9]{4}-[0-9]{2}-00)([ T].*)?$");

    /** {@code ct.mysql_zero_date}: a MySQL zero date or date-time in a DATE or TIMESTAMP column (SQL NULL, as
     * Debezium's MySQL connector gives it). */
    public static boolean isZeroDate(String raw, String logical) {
        return raw != null && logical != null && (logical.equals("DATE") || logical.startsWith("TIMESTAMP("))
                && mayBeZeroDate(raw) && ZERO_DATE.matcher(raw).find();
    }

    /** False when no part of the date is zero: the pattern cannot match (it is asked of every date value). */
    static boolean mayBeZeroDate(String raw) {
        return raw.length() >= 10 && (raw.startsWith("0000") || raw.startsWith("00", 5) || raw.startsWith("00", 8));
    }
}
