package io.cdcconformance.shared;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

import org.apache.avro.Schema;

/**
 * What is wrong with an Avro binary datum, read with a schema without trusting its declared sizes.
 *
 * <p>Spark's {@code from_avro} allocates the array or buffer a block declares before reading its items: a
 * count of 2,147,483,639 in five bytes makes it ask for gigabytes, and the {@code OutOfMemoryError} ends
 * the executor JVM (PERMISSIVE mode catches exceptions, not errors). It also passes the bytes of an Avro
 * string on without checking that they are UTF-8, so invalid bytes reach the output as U+FFFD.
 *
 * <p>This walker steps through the datum by its schema over the bytes themselves: every count and length
 * is checked against the bytes that remain before anything else happens, nothing is allocated for
 * them, and every string is checked to be UTF-8. The readers call {@link #guarded}, which checks and builds the
 * datum in that one walk; {@link #problem} (the check alone) and {@link #read} (Avro's own reader) are the two steps
 * it replaced, kept as the reference AvroGuardTest holds it to; {@link #tree} checks and builds the JSON reader's tree
 * instead. Nothing from the record is ever deserialized into anything but Avro's generic data or that tree (maps,
 * lists, strings), let alone classes.
 */
public final class AvroGuard {
    /** A record schema's field names, in order, as the readers' maps share them ({@link SmallMap#of}). */
    public static SmallMap.Names fieldNames(Schema record) {
        return new SmallMap.Names(record.getFields().stream().map(Schema.Field::name).toList());
    }

    /** Nothing wrong. */
    public static final String OK = "OK";
    /** The bytes are not exactly one datum of the schema. */
    public static final String MALFORMED = "MALFORMED";
    /** A datum, but a string in it is not UTF-8. */
    public static final String NOT_UTF8 = "NOT_UTF8";

    private static final int MAX_DEPTH = 64;

    private final byte[] bytes;
    private int position;
    private boolean utf8 = true;
    /** Set while building a tree ({@link #tree}): how it renders what the walk reads. */
    private Tree tree;

    /**
     * How {@link #tree} renders a datum: the walk builds its records (maps over each record schema's shared
     * {@link #names}), arrays (lists), nulls ({@link Json#NULL}), strings (their text) and integers ({@link #integer})
     * itself, straight from the bytes; any other value is read as Avro's generic datum and handed to {@link #generic}.
     */
    public interface Tree {
        SmallMap.Names names(Schema record);

        /** An int's or a long's value. */
        Object integer(long value);

        /** A value of any other type (boolean, float, double, bytes, fixed, enum, map), as Avro's generic datum. */
        Object generic(Schema schema, Object datum);
    }

    /** The JSON reader's tree of a datum: every value but records, arrays and null as the generic datum's text
     * ({@code toString}: an int's digits, a string's text); records over {@code names}. CES's Avro data is read so. */
    public static Tree texts(Function<Schema, SmallMap.Names> names) {
        java.util.Objects.requireNonNull(names);
        return new Tree() {
            @Override
            public SmallMap.Names names(Schema record) {
                return names.apply(record);
            }

            @Override
            public Object integer(long value) {
                return Long.toString(value);
            }

            @Override
            public Object generic(Schema schema, Object datum) {
                return datum == null ? Json.NULL : datum.toString();
            }
        };
    }

    private AvroGuard(byte[] bytes, int from) {
        this.bytes = bytes;
        this.position = from;
    }

    /** {@link #OK} when {@code datum} is exactly one datum of {@code schema} whose strings are all UTF-8; else
     * {@link #MALFORMED} or {@link #NOT_UTF8}. */
    public static String problem(byte[] datum, Schema schema) {
        return problem(datum, 0, schema);
    }

    /** The same for the bytes of {@code datum} from {@code from} on (a header before them: the wire format's 5). */
    public static String problem(byte[] datum, int from, Schema schema) {
        try {
            AvroGuard guard = new AvroGuard(datum, from);
            guard.walk(schema, 0);
            return guard.position != guard.bytes.length ? MALFORMED : guard.utf8 ? OK : NOT_UTF8;
        } catch (RuntimeException e) {
            return MALFORMED;
        }
    }

    // Avro's reader for each schema, and a decoder to reuse, per task thread (neither is thread-safe; making a
    // reader resolves its schema again)
    private static final ThreadLocal<java.util.Map<Schema, org.apache.avro.generic.GenericDatumReader<Object>>> READERS =
            ThreadLocal.withInitial(java.util.IdentityHashMap::new);
    private static final ThreadLocal<org.apache.avro.io.BinaryDecoder> DECODER = new ThreadLocal<>();

    /** The datum of {@code schema} in {@code datum}, which the guard found to be exactly one ({@link #problem}). */
    public static Object read(byte[] datum, Schema schema) throws java.io.IOException {
        return read(datum, 0, schema);
    }

    /** The same from {@code from} on, the bytes before it left unread (no copy of the rest). */
    public static Object read(byte[] datum, int from, Schema schema) throws java.io.IOException {
        org.apache.avro.io.BinaryDecoder decoder = org.apache.avro.io.DecoderFactory.get()
                .binaryDecoder(datum, from, datum.length - from, DECODER.get());
        DECODER.set(decoder);
        return READERS.get().computeIfAbsent(schema, org.apache.avro.generic.GenericDatumReader::new).read(null, decoder);
    }

    /** What {@link #guarded} found: the problem ({@link #OK}, {@link #MALFORMED}, {@link #NOT_UTF8}), and the datum
     * when it is OK. */
    public record Guarded(String problem, Object datum) {
    }

    /** The most items of a type that takes no bytes (null, an empty record or fixed) one datum may hold: such
     * items are free to declare, and each would still be built (no producer's schema here has them). */
    static final int MAX_SIZELESS_ITEMS = 1 << 16;

    /**
     * {@link #problem} and {@link #read} in one walk (issue 61: the guard's walk and Avro's reader after it were a
     * fifth of a dts-avro pass): every count, length and string is checked as in {@link #walk} before anything is
     * built for it, and the datum is built as Avro's {@code GenericDatumReader} builds it (the same classes, through
     * {@code GenericData}: Utf8 strings unless the schema asks for String, ByteBuffer bytes, GenericData's records,
     * arrays, enums and fixed, HashMap maps). AvroGuardTest holds the two ways equal.
     */
    public static Guarded guarded(byte[] datum, int from, Schema schema) {
        return guarded(new AvroGuard(datum, from), schema);
    }

    /**
     * {@link #guarded}, the datum built as a tree of the readers' documents ({@link Json}) instead of Avro's generic
     * data, as {@code tree} renders it: the JSON reader's tree ({@link #texts}: ces-avro), or the document Kafka
     * Connect's JsonConverter writes (debezium-avro). A generic datum walked a second time to build the tree was a
     * fifth of the ces-avro event reader (issue 61) and, with the guard's walk, 17% of the debezium-avro reader: no Utf8
     * is made for a string read once as text, no boxed number for an integer. AvroGuardTest holds each tree to the generic datum's for every type.
     */
    public static Guarded tree(byte[] datum, int from, Schema schema, Tree tree) {
        AvroGuard guard = new AvroGuard(datum, from);
        guard.tree = java.util.Objects.requireNonNull(tree);
        return guarded(guard, schema);
    }

    private static Guarded guarded(AvroGuard guard, Schema schema) {
        try {
            Object value = guard.value(schema, 0);
            if (guard.position != guard.bytes.length) {
                return new Guarded(MALFORMED, null);
            }
            return guard.utf8 ? new Guarded(OK, value) : new Guarded(NOT_UTF8, null);
        } catch (RuntimeException e) {
            return new Guarded(MALFORMED, null);
        }
    }

    private static final org.apache.avro.generic.GenericData DATA = org.apache.avro.generic.GenericData.get();
    private int sizelessItems;

    /** The types the tree builds itself; any other value is the generic datum, rendered by {@link Tree#generic}. */
    private static final java.util.Set<Schema.Type> TREE_TYPES = java.util.EnumSet.of(Schema.Type.NULL, Schema.Type.INT,
            Schema.Type.LONG, Schema.Type.STRING, Schema.Type.UNION, Schema.Type.RECORD, Schema.Type.ARRAY);

    private Object value(Schema schema, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalStateException("schema nested too deep");
        }
        if (tree != null && !TREE_TYPES.contains(schema.getType())) {
            return generic(schema, depth);
        }
        switch (schema.getType()) {
            case NULL:
                return tree != null ? Json.NULL : null;
            case BOOLEAN: {
                int b = take();
                if ((b & 0xFE) != 0) {
                    throw new IllegalStateException("boolean byte");
                }
                return b == 1;
            }
            case INT:
                return tree != null ? tree.integer(avroInt()) : (Object) avroInt();
            case LONG:
                return tree != null ? tree.integer(varint()) : (Object) varint();
            case FLOAT:
                return Float.intBitsToFloat((int) littleEndian(4));
            case DOUBLE:
                return Double.longBitsToDouble(littleEndian(8));
            case FIXED:
                return DATA.createFixed(null, copy(schema.getFixedSize()), schema);
            case BYTES:
                return java.nio.ByteBuffer.wrap(copy(avroLength()));
            case STRING:
                return text(schema);
            case ENUM:
                return DATA.createEnum(schema.getEnumSymbols().get(avroIndex(schema.getEnumSymbols().size())), schema);
            case UNION: {
                List<Schema> branches = schema.getTypes();
                return value(branches.get(avroIndex(branches.size())), depth + 1);
            }
            case RECORD: {
                if (tree != null) {
                    List<Schema.Field> fields = schema.getFields();
                    Object[] values = new Object[fields.size()];
                    for (int i = 0; i < values.length; i++) {
                        values[i] = value(fields.get(i).schema(), depth + 1);
                    }
                    return SmallMap.of(tree.names(schema), values);
                }
                Object record = DATA.newRecord(null, schema);
                for (Schema.Field field : schema.getFields()) {
                    DATA.setField(record, field.name(), field.pos(), value(field.schema(), depth + 1));
                }
                return record;
            }
            case ARRAY:
                return items(schema, depth);
            case MAP:
                return members(schema, depth);
            default:
                throw new IllegalStateException("unknown type");
        }
    }

    /** A value the tree does not build itself: built as {@link #guarded} builds it (a map's values too), then
     * rendered by the tree. */
    private Object generic(Schema schema, int depth) {
        Tree rendering = tree;
        tree = null;
        Object generic = value(schema, depth);
        tree = rendering;
        return rendering.generic(schema, generic);
    }

    @SuppressWarnings("unchecked")
    private Object items(Schema schema, int depth) {
        Schema items = schema.getElementType();
        java.util.Collection<Object> array = null;
        for (long count = blockCount(items, null); count != 0; count = blockCount(items, null)) {
            if (array == null) {
                array = newArray((int) count, schema);
            }
            for (long i = 0; i < count; i++) {
                array.add(value(items, depth + 1));
            }
        }
        return array != null ? array : newArray(0, schema);
    }

    @SuppressWarnings("unchecked")
    private java.util.Collection<Object> newArray(int count, Schema schema) {
        return tree != null ? new java.util.ArrayList<>(count) : (java.util.Collection<Object>) DATA.newArray(null, count, schema);
    }

    @SuppressWarnings("unchecked")
    private Object members(Schema schema, int depth) {
        java.util.Map<Object, Object> map = null;
        for (long count = blockCount(schema.getValueType(), schema); count != 0; count = blockCount(schema.getValueType(), schema)) {
            if (map == null) {
                map = (java.util.Map<Object, Object>) DATA.newMap(null, (int) count);
            }
            for (long i = 0; i < count; i++) {
                Object key = text(schema);
                map.put(key, value(schema.getValueType(), depth + 1));
            }
        }
        return map != null ? map : DATA.newMap(null, 0);
    }

    /** A block's count, checked as {@link #blocks} checks it, and bounded for items that take no bytes. */
    private long blockCount(Schema items, Schema map) {
        long count = varint();
        if (count < 0) {
            count = -count;
            length();
        }
        if (count > bytes.length - position) {
            if (!zeroSized(items, map)) {
                throw new IllegalStateException("count beyond the bytes left");
            }
            sizelessItems += (int) Math.min(count, MAX_SIZELESS_ITEMS + 1L);
            if (sizelessItems > MAX_SIZELESS_ITEMS) {
                throw new IllegalStateException("too many items that take no bytes");
            }
        }
        return count;
    }

    /** A string as Avro's reader gives it for {@code schema} (a string, or a map whose keys are read): Utf8, or
     * String when the schema's {@code avro.java.string} says so. */
    private Object text(Schema schema) {
        int length = avroLength();
        int start = position;
        skip(length);
        checkUtf8(start, length);
        if (tree != null) {
            return new String(bytes, start, length, StandardCharsets.UTF_8);  // Utf8.toString, without the Utf8
        }
        String javaString = schema.getProp(org.apache.avro.generic.GenericData.STRING_PROP);
        if (javaString != null && org.apache.avro.generic.GenericData.StringType.valueOf(javaString)  // unknown: Avro throws
                == org.apache.avro.generic.GenericData.StringType.String) {
            return new String(bytes, start, length, StandardCharsets.UTF_8);
        }
        return new org.apache.avro.util.Utf8(java.util.Arrays.copyOfRange(bytes, start, start + length));
    }

    /** An int as Avro's decoder reads one (an int, a length, an index): at most 5 bytes, and within an int. */
    private int avroInt() {
        int start = position;
        long value = varint();
        if (position - start > 5 || value != (int) value) {
            throw new IllegalStateException("no int");
        }
        return (int) value;
    }

    private int avroLength() {
        return checkedLength(avroInt());
    }

    private int avroIndex(int size) {
        return checkedIndex(avroInt(), size);
    }

    private int take() {
        if (position >= bytes.length) {
            throw new IllegalStateException("out of bytes");
        }
        return bytes[position++] & 0xFF;
    }

    private byte[] copy(int count) {
        if (count < 0 || count > bytes.length - position) {
            throw new IllegalStateException("out of bytes");
        }
        byte[] part = java.util.Arrays.copyOfRange(bytes, position, position + count);
        position += count;
        return part;
    }

    private long littleEndian(int count) {
        if (count > bytes.length - position) {
            throw new IllegalStateException("out of bytes");
        }
        long value = 0;
        for (int i = 0; i < count; i++) {
            value |= (long) (bytes[position + i] & 0xFF) << (8 * i);
        }
        position += count;
        return value;
    }

    private void walk(Schema schema, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalStateException("schema nested too deep");
        }
        switch (schema.getType()) {
            case NULL -> { }
            case BOOLEAN -> {
                if ((take() & 0xFE) != 0) {
                    throw new IllegalStateException("boolean byte");
                }
            }
            case INT -> {
                long value = varint();
                if (value != (int) value) {
                    throw new IllegalStateException("int out of range");
                }
            }
            case LONG -> varint();
            case FLOAT -> skip(4);
            case DOUBLE -> skip(8);
            case FIXED -> skip(schema.getFixedSize());
            case BYTES -> skip(length());
            case STRING -> string();
            case ENUM -> index(schema.getEnumSymbols().size());
            case UNION -> {
                List<Schema> branches = schema.getTypes();
                walk(branches.get(index(branches.size())), depth + 1);
            }
            case RECORD -> {
                for (Schema.Field field : schema.getFields()) {
                    walk(field.schema(), depth + 1);
                }
            }
            case ARRAY -> blocks(schema.getElementType(), null, depth);
            case MAP -> blocks(schema.getValueType(), schema, depth);
            default -> throw new IllegalStateException("unknown type");
        }
    }

    /** Array or map blocks: a count (negative: followed by the block's byte size), items, until a 0 count. */
    private void blocks(Schema items, Schema map, int depth) {
        for (long count = varint(); count != 0; count = varint()) {
            if (count < 0) {
                count = -count;
                length();  // the block's size in bytes; the items are read anyway
            }
            // every item takes at least one byte unless its type takes none: a count beyond the bytes left is a lie
            if (count > bytes.length - position && !zeroSized(items, map)) {
                throw new IllegalStateException("count beyond the bytes left");
            }
            for (long i = 0; i < count; i++) {
                if (map != null) {
                    string();
                }
                walk(items, depth + 1);
            }
        }
    }

    private static boolean zeroSized(Schema items, Schema map) {
        return map == null && (items.getType() == Schema.Type.NULL
                || (items.getType() == Schema.Type.FIXED && items.getFixedSize() == 0)
                || (items.getType() == Schema.Type.RECORD && items.getFields().isEmpty()));
    }

    private void string() {
        int length = length();
        int start = position;
        skip(length);
        checkUtf8(start, length);
    }

    private void checkUtf8(int start, int length) {
        if (utf8 && !ascii(start, length)) {
            CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
            try {
                decoder.decode(ByteBuffer.wrap(bytes, start, length));
            } catch (CharacterCodingException e) {
                utf8 = false;
            }
        }
    }

    /** Most strings are ASCII: those are UTF-8 without a decoder (one was made per string, and the guard runs on
     * every record of the Avro formats). */
    private boolean ascii(int start, int length) {
        for (int i = start; i < start + length; i++) {
            if (bytes[i] < 0) {
                return false;
            }
        }
        return true;
    }

    private int index(int size) {
        return checkedIndex(varint(), size);
    }

    private int length() {
        return checkedLength(varint());
    }

    private static int checkedIndex(long value, int size) {
        if (value < 0 || value >= size) {
            throw new IllegalStateException("index out of range");
        }
        return (int) value;
    }

    private int checkedLength(long value) {
        if (value < 0 || value > bytes.length - position) {
            throw new IllegalStateException("length beyond the bytes left");
        }
        return (int) value;
    }

    private void skip(int count) {
        if (count < 0 || count > bytes.length - position) {
            throw new IllegalStateException("out of bytes");
        }
        position += count;
    }

    /** A zig-zag varint of at most 10 bytes (a long). */
    private long varint() {
        long raw = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (position >= bytes.length) {
                throw new IllegalStateException("out of bytes");
            }
            int b = bytes[position++] & 0xFF;
            raw |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new IllegalStateException("varint longer than 10 bytes");
    }
}
