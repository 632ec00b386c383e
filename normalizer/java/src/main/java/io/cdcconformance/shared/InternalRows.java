package io.cdcconformance.shared;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeArrayWriter;
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter;
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeWriter;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Function1;

/**
 * A reader's {@code Row} written as Spark's {@code UnsafeRow}, for a reader called by a Catalyst expression
 * ({@link InternalReaders}).
 *
 * <p>After a UDF, Spark converts a reader's {@code Row} into generic internal rows ({@code CatalystTypeConverters}: a
 * {@code UTF8String}, an array or a row object per value, 8-19% of a normalizer pass in issue 61's profiles), and its
 * generated code then copies those, value by value, into the {@code UnsafeRow}s it passes on. This writes the
 * {@code UnsafeRow} at once, as Spark's own generated projection lays it out ({@code GenerateUnsafeProjection}: a
 * struct's fixed-width slots and null bits, an array's header, a map's key-array size before its two arrays), with
 * Spark's public-in-practice writers, the same in Spark 3.5 and 4.x. A value of a class the readers do not build (a
 * {@code java.sql.Timestamp}, a Scala collection) makes the whole row Spark's own conversion instead.
 *
 * <p>One instance per thread: it writes into its own buffer, and each row it returns is a copy.
 */
public final class InternalRows {
    private final UnsafeRowWriter top;
    private final Node[] fields;
    private final DataType type;
    private Function1<Object, Object> sparksOwn;  // made on first need: it reads the session's SQLConf

    public InternalRows(StructType type) {
        this.type = type;
        this.top = new UnsafeRowWriter(type.fields().length, 256);
        this.fields = fieldNodes(type, top);
    }

    /** The row as Spark's internal row: an {@code UnsafeRow} of its own, or what Spark's conversion makes of it. */
    public InternalRow toInternal(Row row) {
        top.reset();
        top.zeroOutNullBytes();
        try {
            writeFields(fields, top, row);
        } catch (Unwritten e) {
            return sparksOwn(row);
        }
        return top.getRow().copy();
    }

    private InternalRow sparksOwn(Row row) {
        if (sparksOwn == null) {
            sparksOwn = CatalystTypeConverters.createToCatalystConverter(type);
        }
        return (InternalRow) sparksOwn.apply(row);
    }

    /** A value of a class this writer leaves to Spark's conversion. */
    private static final class Unwritten extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private static final Unwritten INSTANCE = new Unwritten();

        private Unwritten() {
            super(null, null, false, false);  // a signal, not an error: no stack trace
        }
    }

    /** Writes one non-null value of its type at an ordinal of the writer it was made for (a struct's, an array's); a
     * value of another class throws {@link Unwritten}. Each node tests its own class with {@code instanceof}: one
     * generic check for all (Class.isInstance) was 2% of a dts-avro pass, its class unknown where it was compiled. */
    private abstract static class Node {
        abstract void write(UnsafeWriter into, int ordinal, Object value);

        /** A null at an ordinal of an array writer (a struct's null is its own bit). */
        void setNullInArray(UnsafeArrayWriter into, int ordinal) {
            into.setNull8Bytes(ordinal);
        }
    }

    private static Node[] fieldNodes(StructType type, UnsafeWriter writer) {
        Node[] nodes = new Node[type.fields().length];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = node(type.fields()[i].dataType(), writer);
        }
        return nodes;
    }

    private static void writeFields(Node[] fields, UnsafeRowWriter writer, Row row) {
        if (row.length() != fields.length) {
            throw Unwritten.INSTANCE;  // Spark's conversion says what is wrong with it
        }
        for (int i = 0; i < fields.length; i++) {
            Object value = row.get(i);
            if (value == null) {
                writer.setNullAt(i);
            } else {
                fields[i].write(writer, i, value);
            }
        }
    }

    /** The node of a type whose values are written into {@code parent} (the writer of the struct or array holding it). */
    private static Node node(DataType type, UnsafeWriter parent) {
        if (type instanceof StringType) {
            return new Node() {
                @Override
                void write(UnsafeWriter into, int ordinal, Object value) {
                    if (value instanceof String) {
                        into.write(ordinal, ((String) value).getBytes(StandardCharsets.UTF_8));
                    } else if (value instanceof UTF8String) {
                        into.write(ordinal, (UTF8String) value);
                    } else {
                        throw Unwritten.INSTANCE;
                    }
                }
            };
        }
        if (type instanceof IntegerType) {
            return new Node() {
                @Override
                void write(UnsafeWriter into, int ordinal, Object value) {
                    if (!(value instanceof Integer)) {
                        throw Unwritten.INSTANCE;
                    }
                    into.write(ordinal, (int) (Integer) value);
                }

                @Override
                void setNullInArray(UnsafeArrayWriter into, int ordinal) {
                    into.setNull4Bytes(ordinal);
                }
            };
        }
        if (type instanceof LongType) {
            return new Node() {
                @Override
                void write(UnsafeWriter into, int ordinal, Object value) {
                    if (!(value instanceof Long)) {
                        throw Unwritten.INSTANCE;
                    }
                    into.write(ordinal, (long) (Long) value);
                }
            };
        }
        if (type instanceof BooleanType) {
            return new Node() {
                @Override
                void write(UnsafeWriter into, int ordinal, Object value) {
                    if (!(value instanceof Boolean)) {
                        throw Unwritten.INSTANCE;
                    }
                    into.write(ordinal, (boolean) (Boolean) value);
                }

                @Override
                void setNullInArray(UnsafeArrayWriter into, int ordinal) {
                    into.setNull1Bytes(ordinal);
                }
            };
        }
        if (type instanceof TimestampType) {
            return new Node() {
                @Override
                void write(UnsafeWriter into, int ordinal, Object value) {
                    if (!(value instanceof Instant)) {
                        throw Unwritten.INSTANCE;
                    }
                    into.write(ordinal, micros((Instant) value));
                }
            };
        }
        if (type instanceof BinaryType) {
            return new Node() {
                @Override
                void write(UnsafeWriter into, int ordinal, Object value) {
                    if (!(value instanceof byte[])) {
                        throw Unwritten.INSTANCE;
                    }
                    into.write(ordinal, (byte[]) value);
                }
            };
        }
        if (type instanceof StructType) {
            return struct((StructType) type, parent);
        }
        if (type instanceof ArrayType) {
            return array((ArrayType) type, parent);
        }
        if (type instanceof MapType) {
            return map((MapType) type, parent);
        }
        return new Node() {  // no type of the readers' outputs: Spark's conversion
            @Override
            void write(UnsafeWriter into, int ordinal, Object value) {
                throw Unwritten.INSTANCE;
            }
        };
    }

    private static Node struct(StructType type, UnsafeWriter parent) {
        UnsafeRowWriter writer = new UnsafeRowWriter(parent, type.fields().length);
        Node[] fields = fieldNodes(type, writer);
        return new Node() {
            @Override
            void write(UnsafeWriter into, int ordinal, Object value) {
                int previous = into.cursor();
                writer.resetRowWriter();
                if (!(value instanceof Row)) {
                    throw Unwritten.INSTANCE;
                }
                writeFields(fields, writer, (Row) value);
                into.setOffsetAndSizeFromPreviousCursor(ordinal, previous);
            }
        };
    }

    private static Node array(ArrayType type, UnsafeWriter parent) {
        Elements elements = new Elements(type.elementType(), parent);
        return new Node() {
            // the last shared list written here, and its bytes: an unsafe array's offsets are its own, relative to its
            // start, so its bytes are the same wherever they are put (a writer schema's columns, every event's alike)
            private SharedColumns shared;
            private byte[] sharedBytes;

            @Override
            void write(UnsafeWriter into, int ordinal, Object value) {
                int previous = into.cursor();
                if (!(value instanceof List)) {
                    throw Unwritten.INSTANCE;
                }
                if (value == shared) {
                    into.grow(sharedBytes.length);
                    Platform.copyMemory(sharedBytes, Platform.BYTE_ARRAY_OFFSET, into.getBuffer(), previous, sharedBytes.length);
                    into.increaseCursor(sharedBytes.length);
                } else {
                    elements.write((List<?>) value);
                    if (value instanceof SharedColumns columns) {
                        sharedBytes = new byte[into.cursor() - previous];
                        Platform.copyMemory(into.getBuffer(), previous, sharedBytes, Platform.BYTE_ARRAY_OFFSET, sharedBytes.length);
                        shared = columns;
                    }
                }
                into.setOffsetAndSizeFromPreviousCursor(ordinal, previous);
            }
        };
    }

    private static Node map(MapType type, UnsafeWriter parent) {
        Elements keys = new Elements(type.keyType(), parent);
        Elements values = new Elements(type.valueType(), parent);
        return new Node() {
            @Override
            void write(UnsafeWriter into, int ordinal, Object value) {
                if (!(value instanceof Map)) {
                    throw Unwritten.INSTANCE;
                }
                Map<?, ?> map = (Map<?, ?>) value;
                int previous = into.cursor();
                into.grow(8);  // the key array's size in bytes, known once it is written
                into.increaseCursor(8);
                int keysStart = into.cursor();
                keys.writer.initialize(map.size());
                int i = 0;
                for (Object key : map.keySet()) {
                    if (key == null) {
                        throw new IllegalArgumentException("Cannot use null as map key");  // as Spark's conversion refuses it
                    }
                    keys.write(i++, key);
                }
                Platform.putLong(into.getBuffer(), keysStart - 8, into.cursor() - keysStart);
                values.writer.initialize(map.size());
                i = 0;
                for (Object item : map.values()) {  // in the keys' order: the map is not changed in between
                    values.write(i++, item);
                }
                into.setOffsetAndSizeFromPreviousCursor(ordinal, previous);
            }
        };
    }

    /** An array's elements, written by an array writer of their slot's width into the parent's buffer. */
    private static final class Elements {
        final Node element;
        final UnsafeArrayWriter writer;

        Elements(DataType type, UnsafeWriter parent) {
            this.writer = new UnsafeArrayWriter(parent, slotWidth(type));
            this.element = node(type, writer);
        }

        void write(List<?> items) {
            writer.initialize(items.size());
            int i = 0;
            for (Object item : items) {
                write(i++, item);
            }
        }

        void write(int ordinal, Object item) {
            if (item == null) {
                element.setNullInArray(writer, ordinal);
            } else {
                element.write(writer, ordinal, item);
            }
        }
    }

    /** A type's slot in an array: GenerateUnsafeProjection's element size (a variable-length value's offset and size). */
    private static int slotWidth(DataType type) {
        return type instanceof IntegerType ? 4 : type instanceof BooleanType ? 1 : 8;
    }

    /** The second of the first microsecond a long holds: its product with a million alone would overflow. */
    private static final long MIN_SECONDS = Math.floorDiv(Long.MIN_VALUE, 1_000_000L);

    /** Spark's {@code DateTimeUtils.instantToMicros}: exact, or an ArithmeticException as Spark throws (the model's
     * instants are years 1-9999, checked at the exit, far inside a long of microseconds). */
    static long micros(Instant instant) {
        long seconds = instant.getEpochSecond();
        long nanosInMicros = instant.getNano() / 1000;
        if (seconds == MIN_SECONDS) {  // Spark's own detour (SPARK-35679)
            return Math.addExact(Math.multiplyExact(seconds + 1, 1_000_000L), nanosInMicros - 1_000_000L);
        }
        return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), nanosInMicros);
    }
}
