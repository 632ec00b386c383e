package io.cdcconformance.shared;

/**
 * The record rules every JSON format's value meets first, in this order: a value at all ({@code MISSING_FIELD}), UTF-8
 * text ({@code NOT_UTF8}), a JSON object of the format's shape ({@code MALFORMED_JSON}), no member named twice
 * ({@code DUPLICATE_KEY}). One statement of them for the JSON readers (CES, DataWorks, canal and CloudCanal, Debezium's
 * value and key); each format's page lists them before its own rules.
 */
public final class JsonRecordRules {
    private JsonRecordRules() {
    }

    /** {code, detail} of the first of the rules a value breaks, or null; {@code parsed} is null when {@code value} is. */
    public static String[] valueVerdict(byte[] value, Json.Document parsed, boolean ofTheShape) {
        if (value == null || parsed == null) {
            return Records.rule("MISSING_FIELD", "record has no value");
        }
        if (!Json.isUtf8(value) || parsed.loneSurrogate) {
            return notUtf8("value");
        }
        if (!ofTheShape) {
            return Records.rule("MALFORMED_JSON", "value is not a JSON object");
        }
        if (parsed.repeatsAMember) {
            return namesAMemberTwice("value");
        }
        return null;
    }

    /** A key or value that is no UTF-8 text (a lone surrogate escape is none either). */
    public static String[] notUtf8(String part) {
        return Records.rule("NOT_UTF8", part + " is not UTF-8, or escapes a lone surrogate (no UTF-8 text holds one)");
    }

    public static String[] namesAMemberTwice(String part) {
        return Records.rule("DUPLICATE_KEY", "an object in the " + part + " names a member twice");
    }
}
