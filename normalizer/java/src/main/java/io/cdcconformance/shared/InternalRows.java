package io.cdcconformance.shared;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Function1;

/**
 * A reader's {@code Row} as Spark's internal row, for a reader called by a Catalyst expression ({@link InternalReaders}).
 *
 * <p>What Spark's own conversion of a UDF's result does ({@code CatalystTypeConverters}, 8-19% of a normalizer pass in
 * issue 61's profiles), for the values readers build, with the dispatch on the type done once per schema instead of
 * per value: texts to {@code UTF8String}, instants to microseconds, lists to array data, maps to map data, rows to
 * internal rows. Any other value (a {@code java.sql.Timestamp}, a Scala collection) goes to Spark's own converter for
 * its type, so the result is Spark's whatever a reader returns ({@code InternalRowsTest} holds the two equal).
 */
public final class InternalRows {
    private static final Map<String, Converter> BY_SCHEMA = new ConcurrentHashMap<>();

    private InternalRows() {
    }

    /** One value of one type, external to internal; null stays null. */
    @FunctionalInterface
    public interface Converter {
        Object toInternal(Object value);
    }

    /** The converter of a schema given as Spark's JSON of a data type; built once per schema and JVM. */
    public static Converter of(String schemaJson) {
        return BY_SCHEMA.computeIfAbsent(schemaJson, json -> converter(DataType.fromJson(json)));
    }

    public static Converter converter(DataType type) {
        SparksOwn spark = new SparksOwn(type);
        if (type instanceof StringType) {
            return value -> value instanceof String ? UTF8String.fromString((String) value) : spark.apply(value);
        }
        if (type instanceof TimestampType) {
            return value -> value instanceof Instant ? micros((Instant) value) : spark.apply(value);
        }
        if (type instanceof StructType) {
            return struct((StructType) type, spark);
        }
        if (type instanceof ArrayType) {
            Converter element = converter(((ArrayType) type).elementType());
            return value -> value instanceof List ? array((List<?>) value, element) : spark.apply(value);
        }
        if (type instanceof MapType) {
            MapType map = (MapType) type;
            Converter key = converter(map.keyType());
            Converter item = converter(map.valueType());
            return value -> value instanceof Map ? map((Map<?, ?>) value, key, item) : spark.apply(value);
        }
        return spark::apply;  // numbers, booleans, binaries: the same object inside and out, whatever Spark does with it
    }

    /** Spark's own conversion of a type, made when a value first needs it (it reads the session's SQLConf). */
    private static final class SparksOwn {
        private final DataType type;
        private volatile Function1<Object, Object> converter;

        SparksOwn(DataType type) {
            this.type = type;
        }

        Object apply(Object value) {
            Function1<Object, Object> made = converter;
            if (made == null) {
                made = CatalystTypeConverters.createToCatalystConverter(type);
                converter = made;
            }
            return made.apply(value);
        }
    }

    private static Converter struct(StructType type, SparksOwn spark) {
        Converter[] fields = new Converter[type.fields().length];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = converter(type.fields()[i].dataType());
        }
        return value -> {
            if (!(value instanceof Row)) {
                return spark.apply(value);
            }
            Row row = (Row) value;
            Object[] internal = new Object[fields.length];
            for (int i = 0; i < fields.length; i++) {
                Object field = row.get(i);
                internal[i] = field == null ? null : fields[i].toInternal(field);
            }
            return new GenericInternalRow(internal);
        };
    }

    private static GenericArrayData array(List<?> list, Converter element) {
        Object[] internal = new Object[list.size()];
        int i = 0;
        for (Object item : list) {
            internal[i++] = item == null ? null : element.toInternal(item);
        }
        return new GenericArrayData(internal);
    }

    private static ArrayBasedMapData map(Map<?, ?> map, Converter key, Converter item) {
        Object[] keys = new Object[map.size()];
        Object[] values = new Object[map.size()];
        int i = 0;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (entry.getKey() == null) {
                throw new IllegalArgumentException("Cannot use null as map key");  // as Spark's conversion refuses it
            }
            keys[i] = key.toInternal(entry.getKey());
            values[i++] = entry.getValue() == null ? null : item.toInternal(entry.getValue());
        }
        return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
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
