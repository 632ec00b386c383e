package io.cdcconformance.shared;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * JSON as the normalizer reads it: one pass of Jackson into a small tree that keeps what Spark's JSON reader
 * loses.
 *
 * <p>Spark's {@code from_json} passes a fractional number through a double when it reads it as text ({@code 12.30}
 * becomes {@code 12.3}, 40 digits become 17, {@code 1e-400} becomes {@code 0.0}), keeps one of two members of the
 * same name without a word, and ignores text after the first value. Here a number keeps its token exactly as
 * written ({@link Number}), a member named twice at any depth is reported ({@link Document#repeatsAMember}), and
 * anything after the value makes the text malformed. Objects keep their members' order (a key's column order).
 *
 * <p>JSON null is {@link #NULL}; an absent member is Java's null. Nothing read is ever turned into anything but
 * strings, lists and maps.
 */
public final class Json {
    /** JSON's null, told apart from a member that is not there. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    /** A JSON number, its token exactly as written. */
    public static final class Number {
        public final String token;

        Number(String token) {
            this.token = token;
        }

        @Override
        public String toString() {
            return token;
        }
    }

    /** A number of another reader (an Avro datum's int or double) as the token JsonConverter writes for it. */
    public static Number number(String token) {
        return new Number(token);
    }

    /** A tree built by another reader (an Avro datum as JsonConverter would have written it): a document of one
     * value, no member named twice, no lone surrogate (the reader checked its strings). */
    public static Document built(Object root) {
        return new Document(root, new Reading());
    }

    /** A parsed text: its root value (null when the text is not JSON), and what was wrong with it. */
    public static final class Document {
        public final Object root;
        public final boolean repeatsAMember;
        /** A member name or string, as decoded, holds a lone UTF-16 surrogate ({@code "\\ud800"} escapes one): no
         * UTF-8 text holds one. Checked on what Jackson decoded, never on the raw text, which an escaped backslash
         * before {@code \\u} fools. */
        public final boolean loneSurrogate;

        Document(Object root, Reading reading) {
            this.root = root;
            this.repeatsAMember = reading.repeatsAMember;
            this.loneSurrogate = reading.loneSurrogate;
        }

        /** The root as an object, or null when the text is no JSON object. */
        @SuppressWarnings("unchecked")
        public Map<String, Object> object() {
            return root instanceof Map ? (Map<String, Object>) root : null;
        }
    }

    private static final StreamReadConstraints UNLIMITED_TOKENS = StreamReadConstraints.builder()
            .maxNumberLength(Integer.MAX_VALUE).maxStringLength(Integer.MAX_VALUE).build();
    // NaN and Infinity as bare tokens: Spark's reader takes them (allowNonNumericNumbers), and so do producers'
    // JSON libraries that write doubles without quoting them (Python's json.dumps)
    public static final JsonFactory STRICT = JsonFactory.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .streamReadConstraints(UNLIMITED_TOKENS).build();
    /** Kafka Connect's header converter writes structs escaping only backslashes and quotes (a tab stays raw). */
    public static final JsonFactory CONTROL_CHARACTERS_RAW = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .streamReadConstraints(UNLIMITED_TOKENS).build();
    private static final JsonFactory WRITER = JsonFactory.builder().build();

    private Json() {
    }

    /** What one parse found besides the tree. */
    public static final class Reading {
        boolean repeatsAMember;
        boolean loneSurrogate;
        /** False when the text cannot decode to a surrogate ({@link #mayDecodeASurrogate}). */
        boolean checkSurrogates = true;
    }

    private static final Document NOT_JSON = new Document(null, new Reading());

    /** JSON text as UTF-8 bytes. Jackson would detect UTF-16 and UTF-32 from zero bytes among the first four and read
     * such a record as JSON; every producer here writes UTF-8, where a JSON text holds no zero byte outside a string
     * (a raw U+0000 is not allowed in one either), so a zero byte there is no JSON. A byte-order mark is none either. */
    public static Document read(byte[] bytes) {
        for (int i = 0; i < Math.min(4, bytes.length); i++) {
            if (bytes[i] == 0) {
                return NOT_JSON;
            }
        }
        if (bytes.length >= 3 && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF) {
            return NOT_JSON;
        }
        return read(bytes, mayDecodeASurrogate(bytes));
    }

    /** {@link #read(byte[])}, its strings checked for a lone surrogate or not (the test of the prescan checks all). */
    static Document read(byte[] bytes, boolean checkSurrogates) {
        try (JsonParser parser = STRICT.createParser(bytes)) {
            return document(parser, checkSurrogates);
        } catch (IOException | RuntimeException e) {
            return NOT_JSON;
        }
    }

    private static final java.lang.invoke.VarHandle LITTLE_ENDIAN_LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /** Whether Jackson could decode a surrogate from these bytes: from a {@code \\u} escape, a three-byte sequence
     * led by 0xED (U+D000..U+DFFF, surrogates included: Jackson does not refuse them), or a four-byte one led by 0xF4
     * or above (past U+10FFFF Jackson's pair starts with a low surrogate). Text without any of them, most records, has
     * no string to check for a lone surrogate. */
    static boolean mayDecodeASurrogate(byte[] bytes) {
        int i = 0;
        // eight bytes at a time (SWAR); a word is looked at byte by byte only when it has a byte that is not ASCII, a
        // backslash followed by a 'u' within it, or a backslash as its last byte (its 'u' would open the next word).
        // Text in a string in JSON (CES's data) escapes its quotes: a word with a backslash alone is most of such text
        // and no mark. The zero-byte masks may flag a byte above a true match too (a borrow): such a word is looked at
        // byte by byte, never skipped; a true mark is always flagged.
        for (; i + 8 <= bytes.length; i += 8) {
            long word = (long) LITTLE_ENDIAN_LONGS.get(bytes, i);
            long backslashes = zeroBytes(word ^ 0x5C5C5C5C5C5C5C5CL);
            long letterU = zeroBytes(word ^ 0x7575757575757575L);
            if (((word & HIGH_BITS) | (backslashes & ((letterU >>> 8) | Long.MIN_VALUE))) != 0 && surrogateMark(bytes, i, i + 8)) {
                return true;
            }
        }
        return surrogateMark(bytes, i, bytes.length);
    }

    private static final long HIGH_BITS = 0x8080808080808080L;

    /** The high bit of each byte of {@code v} that is zero (and, after a zero byte, perhaps of a byte that is not). */
    private static long zeroBytes(long v) {
        return (v - 0x0101010101010101L) & ~v & HIGH_BITS;
    }

    /** A mark of {@link #mayDecodeASurrogate} starting in {@code bytes[from, to)}. */
    private static boolean surrogateMark(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            byte b = bytes[i];
            if (b < 0 || b == '\\') {  // one or two comparisons for the ASCII most text is
                int unsigned = b & 0xFF;
                if (unsigned == 0xED || unsigned >= 0xF4 || b == '\\' && i + 1 < bytes.length && bytes[i + 1] == 'u') {
                    return true;
                }
            }
        }
        return false;
    }


    public static Document read(String text, JsonFactory factory) {
        if (text == null) {
            return NOT_JSON;
        }
        try (JsonParser parser = factory.createParser(text)) {
            return document(parser, true);
        } catch (IOException | RuntimeException e) {
            return NOT_JSON;
        }
    }

    public static Document read(String text) {
        return read(text, STRICT);
    }

    private static Document document(JsonParser parser, boolean checkSurrogates) throws IOException {
        JsonToken first = parser.nextToken();
        if (first == null) {
            return NOT_JSON;
        }
        Reading reading = new Reading();
        reading.checkSurrogates = checkSurrogates;
        Object root = value(parser, first, reading);
        if (parser.nextToken() != null) {
            return new Document(null, reading);  // text after the value: not one JSON value
        }
        return new Document(root, reading);
    }

    private static Object value(JsonParser parser, JsonToken token, Reading reading) throws IOException {
        switch (token) {
            case START_OBJECT: {
                Map<String, Object> members = new SmallMap<>();
                for (JsonToken next = parser.nextToken(); next != JsonToken.END_OBJECT; next = parser.nextToken()) {
                    String name = parser.currentName();
                    reading.loneSurrogate |= reading.checkSurrogates && !ModelGrammar.wellFormed(name);
                    Object member = value(parser, parser.nextToken(), reading);
                    if (members.put(name, member) != null) {
                        reading.repeatsAMember = true;
                    }
                }
                return members;
            }
            case START_ARRAY: {
                List<Object> items = new ArrayList<>();
                for (JsonToken next = parser.nextToken(); next != JsonToken.END_ARRAY; next = parser.nextToken()) {
                    items.add(value(parser, next, reading));
                }
                return items;
            }
            case VALUE_STRING: {
                String text = parser.getText();
                reading.loneSurrogate |= reading.checkSurrogates && !ModelGrammar.wellFormed(text);
                return text;
            }
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return new Number(parser.getText());
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return NULL;
            default:
                throw new IOException("unexpected token " + token);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Reading values of the tree
    // ---------------------------------------------------------------------------------------------------------

    /** A value as text, as Spark's reader gives a member it reads as a string, but exact: a string's own text,
     * a number's token, {@code true}/{@code false}, an object or array as compact JSON; null for JSON null. */
    public static String text(Object value) {
        if (value == null || value == NULL) {
            return null;
        }
        if (value instanceof String) {
            return (String) value;
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = WRITER.createGenerator(out)) {
            write(generator, value);
        } catch (IOException e) {
            throw new IllegalStateException(e);  // a StringWriter does not fail
        }
        return out.toString();
    }

    /** {@link #text}, but an object's members in name order at every level: the text of a value that no spelling of
     * its record changes (a struct or object kept as JSON, whose member order is no data). */
    public static String canonicalText(Object value) {
        if (!(value instanceof Map) && !(value instanceof List)) {
            return text(value);
        }
        return text(sorted(value));
    }

    private static Object sorted(Object value) {
        if (value instanceof Map) {
            Map<String, Object> members = new java.util.TreeMap<>();
            for (Map.Entry<?, ?> member : ((Map<?, ?>) value).entrySet()) {
                members.put((String) member.getKey(), sorted(member.getValue()));
            }
            return members;
        }
        if (value instanceof List) {
            List<Object> items = new java.util.ArrayList<>(((List<?>) value).size());
            for (Object item : (List<?>) value) {
                items.add(sorted(item));
            }
            return items;
        }
        return value;
    }

    private static void write(JsonGenerator generator, Object value) throws IOException {
        if (value == NULL) {
            generator.writeNull();
        } else if (value instanceof String) {
            generator.writeString((String) value);
        } else if (value instanceof Number) {
            generator.writeNumber(((Number) value).token);
        } else if (value instanceof Boolean) {
            generator.writeBoolean((Boolean) value);
        } else if (value instanceof Map) {
            generator.writeStartObject();
            for (Map.Entry<?, ?> member : ((Map<?, ?>) value).entrySet()) {
                generator.writeFieldName((String) member.getKey());
                write(generator, member.getValue());
            }
            generator.writeEndObject();
        } else {
            generator.writeStartArray();
            for (Object item : (List<?>) value) {
                write(generator, item);
            }
            generator.writeEndArray();
        }
    }

    /** The object {@code value} is, or null (absent, JSON null, or another kind of value). */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : null;
    }

    @SuppressWarnings("unchecked")
    public static List<Object> array(Object value) {
        return value instanceof List ? (List<Object>) value : null;
    }

    /** Member {@code name} of {@code object} as text ({@link #text}); null when either is missing. */
    public static String text(Map<String, Object> object, String name) {
        return object == null ? null : text(object.get(name));
    }

    /** Whether {@code value} is present and not JSON null. */
    public static boolean present(Object value) {
        return value != null && value != NULL;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Bytes and text
    // ---------------------------------------------------------------------------------------------------------

    /** Whether the bytes are UTF-8 (no overlong forms, no encoded surrogates), as Spark's {@code is_valid_utf8}. */
    public static boolean isUtf8(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                try {
                    StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
                    return true;
                } catch (CharacterCodingException e) {
                    return false;
                }
            }
        }
        return true;
    }
}
