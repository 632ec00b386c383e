package io.cdcconformance.shared;

/**
 * Hand-written matchers for the patterns of model-grammar.json that every event meets (integers, decimals, dates and
 * times, floats, base64): the exit validator ran {@code java.util.regex} on every value and cost a quarter of the
 * ces-avro throughput. Each method matches exactly what its pattern matches; ModelGrammarTest compares them with
 * the file's patterns on its fixtures and on random texts, so the file stays the definition.
 */
final class GrammarFastPaths {
    private GrammarFastPaths() {
    }

    /** Whether the template named {@code name} has a matcher here. */
    public static boolean covers(String name) {
        switch (name) {
            case "INT8": case "INT16": case "INT32": case "INT64": case "DECIMAL": case "FLOAT32": case "FLOAT64":
            case "BOOLEAN": case "BYTES": case "DATE": case "TIME": case "TIMESTAMP": case "TIMESTAMP_TZ":
                return true;
            default:
                return false;
        }
    }

    /** The pattern of template {@code name} (with its parameters: s the scale, -1 for none; f the fraction digits). */
    public static boolean matches(String name, String text, int s, int f) {
        switch (name) {
            case "INT8": case "INT16": case "INT32": case "INT64":
                return integer(text, 0) == text.length();
            case "DECIMAL":
                return decimal(text, s);
            case "FLOAT32": case "FLOAT64":
                return javaDouble(text);
            case "BOOLEAN":
                return text.equals("true") || text.equals("false");
            case "BYTES":
                return base64(text);
            case "DATE":
                return date(text, 0) && text.length() == 10;
            case "TIME":
                return duration(text, f);
            case "TIMESTAMP":
                if (text.equals("infinity") || text.equals("-infinity")) {
                    return true;
                }
                return date(text, 0) && text.length() == 20 + f && text.charAt(10) == 'T' && clock(text, 11)
                        && fraction(text, 19, f);
            case "TIMESTAMP_TZ":
                if (text.equals("infinity") || text.equals("-infinity")) {
                    return true;
                }
                int digits = text.length() - 21;
                return (digits == 6 || digits == 9) && date(text, 0) && text.charAt(10) == 'T' && clock(text, 11)
                        && fraction(text, 19, digits) && text.charAt(text.length() - 1) == 'Z';
            default:
                throw new IllegalArgumentException(name);
        }
    }

    /** Whether {@code text} surely matches the position part's pattern ({@code commit}: {@code [0-9A-F]{20}|[^:]{1,512}:[0-9]{20}};
     * {@code event}: {@code [0-9A-F]{20}|[0-9]{10}}; {@code seq}: {@code [0-9]{20}}). False is no verdict: the pattern
     * decides (a prefix of 512 code points may be longer in chars). */
    public static boolean surePosition(String part, String text) {
        int n = text.length();
        switch (part) {
            case "commit":
                return n == 20 && upperHex(text) || n >= 22 && n - 21 <= 512 && text.charAt(n - 21) == ':'
                        && digits(text, n - 20, 20) && text.lastIndexOf(':', n - 22) < 0;
            case "event":
                return n == 20 && upperHex(text) || n == 10 && digits(text, 0, 10);
            case "seq":
                return n == 20 && digits(text, 0, 20);
            default:
                return false;
        }
    }

    private static boolean upperHex(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!digit(c) && (c < 'A' || c > 'F')) {
                return false;
            }
        }
        return true;
    }

    /** {@code -?(0|[1-9][0-9]*)} from {@code at}: the index after it, or -1. */
    private static int integer(String text, int at) {
        int i = at < text.length() && text.charAt(at) == '-' ? at + 1 : at;
        if (i >= text.length() || !digit(text.charAt(i))) {
            return -1;
        }
        if (text.charAt(i) == '0') {
            return i + 1;
        }
        while (i < text.length() && digit(text.charAt(i))) {
            i++;
        }
        return i;
    }

    /** {@code -?(0|[1-9][0-9]*)([.][0-9]{s})?}, or {@code ([.][0-9]+)?} when s is -1. */
    private static boolean decimal(String text, int s) {
        int i = integer(text, 0);
        if (i < 0 || i == text.length()) {
            return i == text.length();
        }
        if (text.charAt(i) != '.' || i + 1 == text.length()) {
            return false;
        }
        for (int j = i + 1; j < text.length(); j++) {
            if (!digit(text.charAt(j))) {
                return false;
            }
        }
        return s < 0 || text.length() - i - 1 == s;
    }

    /** {@code NaN|-?Infinity|-?(0|[1-9][0-9]*)[.][0-9]+(E-?[1-9][0-9]*)?}. */
    private static boolean javaDouble(String text) {
        if (text.equals("NaN") || text.equals("Infinity") || text.equals("-Infinity")) {
            return true;
        }
        int i = integer(text, 0);
        if (i < 0 || i >= text.length() || text.charAt(i) != '.') {
            return false;
        }
        int j = i + 1;
        while (j < text.length() && digit(text.charAt(j))) {
            j++;
        }
        if (j == i + 1) {
            return false;
        }
        if (j == text.length()) {
            return true;
        }
        if (text.charAt(j) != 'E') {
            return false;
        }
        int k = j + 1 < text.length() && text.charAt(j + 1) == '-' ? j + 2 : j + 1;
        if (k >= text.length() || text.charAt(k) < '1' || text.charAt(k) > '9') {
            return false;
        }
        while (k < text.length() && digit(text.charAt(k))) {
            k++;
        }
        return k == text.length();
    }

    /** {@code ([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?}. */
    public static boolean base64(String text) {
        int n = text.length();
        if (n % 4 != 0) {
            return false;
        }
        int padding = n > 0 && text.charAt(n - 1) == '=' ? (n > 1 && text.charAt(n - 2) == '=' ? 2 : 1) : 0;
        for (int i = 0; i < n - padding; i++) {
            char c = text.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || digit(c) || c == '+' || c == '/')) {
                return false;
            }
        }
        return true;
    }

    /** Rule canonical_base64 for a text of the BYTES pattern: the bits the padding leaves unused are zero, so that
     * decoding and encoding again gives the text back (what {@code Canonical.bytesOfBase64} checks by doing it). */
    public static boolean unusedBitsZero(String text) {
        int n = text.length();
        if (n == 0 || text.charAt(n - 1) != '=') {
            return true;
        }
        boolean two = text.charAt(n - 2) == '=';
        int last = sextet(text.charAt(two ? n - 3 : n - 2));
        return (last & (two ? 0x0F : 0x03)) == 0;
    }

    private static int sextet(char c) {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (digit(c)) {
            return c - '0' + 52;
        }
        return c == '+' ? 62 : 63;
    }

    /** {@code [0-9]{4}-[0-9]{2}-[0-9]{2}} at {@code at} (the text may go on). */
    private static boolean date(String text, int at) {
        return text.length() >= at + 10 && digits(text, at, 4) && text.charAt(at + 4) == '-' && digits(text, at + 5, 2)
                && text.charAt(at + 7) == '-' && digits(text, at + 8, 2);
    }

    /** {@code [0-9]{2}:[0-9]{2}:[0-9]{2}} at {@code at}. */
    /** {@code -?[0-9]{2,3}:[0-9]{2}:[0-9]{2}[.][0-9]{f}} (the duration rule is ModelGrammar's). */
    private static boolean duration(String text, int f) {
        int at = text.startsWith("-") ? 1 : 0;
        int colon = text.indexOf(':');
        int hourDigits = colon - at;
        return (hourDigits == 2 || hourDigits == 3) && digits(text, at, hourDigits) && text.length() == colon + 7 + f
                && digits(text, colon + 1, 2) && text.charAt(colon + 3) == ':' && digits(text, colon + 4, 2)
                && fraction(text, colon + 6, f);
    }

    private static boolean clock(String text, int at) {
        return text.length() >= at + 8 && digits(text, at, 2) && text.charAt(at + 2) == ':' && digits(text, at + 3, 2)
                && text.charAt(at + 5) == ':' && digits(text, at + 6, 2);
    }

    /** {@code [.][0-9]{f}} at {@code at}. */
    private static boolean fraction(String text, int at, int f) {
        return text.length() >= at + 1 + f && text.charAt(at) == '.' && digits(text, at + 1, f);
    }

    private static boolean digits(String text, int at, int count) {
        for (int i = at; i < at + count; i++) {
            if (!digit(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }
}
