package io.cdcconformance.shared;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** What every format's reader does alike with a record's parts: a rule's verdict, an object's members as text. */
public final class Records {
    private Records() {
    }

    public static String[] rule(String code, String detail) {
        return new String[] {code, detail};
    }

    /** An object's members as text (JSON null as null); null for anything but an object. */
    public static Map<String, String> textMap(Object value) {
        Map<String, Object> object = Json.object(value);
        if (object == null) {
            return null;
        }
        if (object instanceof SmallMap<Object> small) {
            return small.withValues(Json::text);
        }
        Map<String, String> texts = new SmallMap<>(object.size());
        for (Map.Entry<String, Object> member : object.entrySet()) {
            texts.put(member.getKey(), Json.text(member.getValue()));
        }
        return texts;
    }

    public static String emptyAsNull(String text) {
        return text == null || text.isEmpty() ? null : text;
    }

    public static String stripLeadingSpaces(String text) {
        int i = 0;
        while (i < text.length() && text.charAt(i) == ' ') {
            i++;
        }
        return text.substring(i);
    }

    public static String upperWithoutColons(String text) {
        return text == null ? null : text.replace(":", "").toUpperCase(Locale.ROOT);
    }
}
