package io.cdcconformance.shared;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF6;
import org.apache.spark.sql.api.java.UDF7;
import org.apache.spark.sql.api.java.UDF8;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Function1;
import scala.collection.Seq;

/**
 * A record reader (or a group reader) called by a Catalyst expression in a classic Spark session
 * (normalizer/jvm_functions.py): Spark's internal values in, its internal row out. Called as a Java UDF, a reader's
 * arguments and its {@code Row} are converted by Spark on every record, field by field, into and out of Java's types
 * (8-19% of a pass, issue 61); here the record's columns arrive as Spark holds them and the output is written once, as
 * an {@code UnsafeRow}, by {@link InternalRows}. The reader is the same object with the same {@code call}, so its
 * output is the UDF's, row for row. Through Spark Connect, which cannot build an expression, the UDF runs.
 *
 * <p>Each task thread keeps its own instance of each reader (readers keep per-instance caches and are not shared
 * across threads; as UDFs Spark gives each task its own copy). Only classes of this package that are record readers
 * are made: the reader's name is the decoder's literal, never anything from a message.
 */
public final class InternalReaders {
    private static final String PACKAGE = "io.cdcconformance.";
    private static final ThreadLocal<Calls> CALLS = ThreadLocal.withInitial(Calls::new);
    private static final Map<String, StructType> SCHEMAS = new ConcurrentHashMap<>();

    private InternalReaders() {
    }

    /** This thread's readers by name, and the one it called last, found by its name's literal (the same object on every
     * call of one expression) without decoding the name again. */
    private static final class Calls {
        final Map<String, Called> byName = new HashMap<>();
        UTF8String lastName;
        Called last;
    }

    /** A reader on this thread, its output's writer, and the topic it last read (decoded once while it repeats). */
    private static final class Called {
        final Object reader;
        final InternalRows output;
        Function1<Object, Object> input;  // a group reader's: Spark's conversion of its argument
        UTF8String topic;
        String topicText;

        Called(Object reader, InternalRows output) {
            this.reader = reader;
            this.output = output;
        }

        String topic(UTF8String topic) {
            if (topic == null) {
                return null;
            }
            if (!topic.equals(this.topic)) {
                this.topic = topic.clone();  // Spark may reuse the buffer under a value it hands over
                this.topicText = topic.toString();
            }
            return topicText;
        }
    }

    public static InternalRow read(UTF8String reader, UTF8String schema, byte[] key, byte[] value, ArrayData headers,
                                   UTF8String topic, int partition, long offset) {
        Called called = called(reader, schema, UDF6.class);
        @SuppressWarnings("unchecked")
        UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> udf =
                (UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row>) called.reader;
        try {
            return output(called, udf.call(key, value, headers(headers), called.topic(topic), partition, offset));
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    public static InternalRow read(UTF8String reader, UTF8String schema, byte[] key, byte[] value, ArrayData headers,
                                   UTF8String topic, int partition, long offset, UTF8String first) {
        Called called = called(reader, schema, UDF7.class);
        @SuppressWarnings("unchecked")
        UDF7<byte[], byte[], Seq<Row>, String, Integer, Long, String, Row> udf =
                (UDF7<byte[], byte[], Seq<Row>, String, Integer, Long, String, Row>) called.reader;
        try {
            return output(called, udf.call(key, value, headers(headers), called.topic(topic), partition, offset, text(first)));
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    public static InternalRow read(UTF8String reader, UTF8String schema, byte[] key, byte[] value, ArrayData headers,
                                   UTF8String topic, int partition, long offset, UTF8String first, UTF8String second) {
        Called called = called(reader, schema, UDF8.class);
        @SuppressWarnings("unchecked")
        UDF8<byte[], byte[], Seq<Row>, String, Integer, Long, String, String, Row> udf =
                (UDF8<byte[], byte[], Seq<Row>, String, Integer, Long, String, String, Row>) called.reader;
        try {
            return output(called, udf.call(key, value, headers(headers), called.topic(topic), partition, offset, text(first),
                    text(second)));
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    /** A group reader ({@code UDF1}: its struct, or its array of members) over Spark's internal value of type
     * {@code input}, converted as Spark converts a UDF's argument (a row that knows its field names). */
    public static InternalRow group(UTF8String reader, UTF8String input, UTF8String schema, InternalRow group) {
        return group(reader, input, schema, (Object) group);
    }

    public static InternalRow group(UTF8String reader, UTF8String input, UTF8String schema, ArrayData group) {
        return group(reader, input, schema, (Object) group);
    }

    private static InternalRow group(UTF8String reader, UTF8String input, UTF8String schema, Object group) {
        Called called = called(reader, schema, UDF1.class);
        if (called.input == null) {
            called.input = CatalystTypeConverters.createToScalaConverter(DataType.fromJson(input.toString()));
        }
        @SuppressWarnings("unchecked")
        UDF1<Object, Row> udf = (UDF1<Object, Row>) called.reader;
        try {
            return output(called, udf.call(called.input.apply(group)));
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    private static InternalRow output(Called called, Row output) {
        return called.output.toInternal(output);
    }

    /** What a reader's {@code call} throws unchecked as it is (a reader catches a record's failures itself: what
     * passes is the service's, {@link ServiceUnavailable}); a checked one, which no reader declares, wrapped. */
    private static RuntimeException unchecked(Exception e) {
        return e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
    }

    private static String text(UTF8String literal) {
        return literal == null ? null : literal.toString();
    }

    private static Called called(UTF8String reader, UTF8String schema, Class<?> arity) {
        Calls calls = CALLS.get();
        if (calls.lastName != reader) {
            String name = reader.toString();
            Called called = calls.byName.get(name);
            if (called == null) {
                called = new Called(instance(name, arity), new InternalRows(SCHEMAS.computeIfAbsent(schema.toString(),
                        json -> (StructType) DataType.fromJson(json))));
                calls.byName.put(name, called);
            }
            calls.lastName = reader;
            calls.last = called;
        }
        return calls.last;
    }

    private static Object instance(String name, Class<?> arity) {
        if (!name.startsWith(PACKAGE)) {
            throw new IllegalArgumentException(name + " is not a reader of " + PACKAGE);
        }
        try {
            Class<?> type = Class.forName(name, true, InternalReaders.class.getClassLoader());
            if (!arity.isAssignableFrom(type)) {
                throw new IllegalArgumentException(name + " is not a " + arity.getSimpleName() + " record reader");
            }
            return type.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("no record reader " + name, e);
        }
    }

    /** The Kafka headers (key, value) as the UDF receives them: rows in a Scala sequence, null as null. */
    @SuppressWarnings("deprecation")  // JavaConverters: deprecated in Scala 2.13 (Spark 4), the one converter 2.12 (Spark 3.5) has too
    static Seq<Row> headers(ArrayData headers) {
        if (headers == null) {
            return null;
        }
        List<Row> rows = new ArrayList<>(headers.numElements());
        for (int i = 0; i < headers.numElements(); i++) {
            if (headers.isNullAt(i)) {
                rows.add(null);
                continue;
            }
            InternalRow header = headers.getStruct(i, 2);
            rows.add(RowFactory.create(header.isNullAt(0) ? null : header.getUTF8String(0).toString(),
                    header.isNullAt(1) ? null : header.getBinary(1)));
        }
        return scala.collection.JavaConverters.asScalaBuffer(rows).toList();
    }
}
