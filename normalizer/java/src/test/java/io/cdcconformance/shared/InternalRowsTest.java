package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cdcconformance.ReadersFuzzTest;
import io.cdcconformance.canal.CanalRecords;
import io.cdcconformance.ces.CesAvroRecords;
import io.cdcconformance.ces.CesRecords;
import io.cdcconformance.cloudcanal.CloudCanalDebeziumRecords;
import io.cdcconformance.cloudcanal.CloudCanalRecords;
import io.cdcconformance.dataworks.DataWorksRecords;
import io.cdcconformance.debezium.DebeziumRecords;
import io.cdcconformance.dts.DtsRecords;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF6;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.collection.Seq;

/**
 * {@link InternalRows} turns every output the readers build from the fuzz seeds (the conformance cases' records), and
 * values at their edges, into the internal values Spark reads them as; {@link InternalReaders} gives the reader's own
 * output, converted. That this is what Spark's own conversion gives is held end to end, beside the readers' UDFs, by
 * tests/integration/test_internal_calls.py (Spark's converter needs most of Spark, which this classpath does not hold).
 */
public class InternalRowsTest {
    private static final DataType TEXT = DataTypes.StringType;
    private static final DataType INT = DataTypes.IntegerType;
    private static final DataType BOOL = DataTypes.BooleanType;

    /** A struct of (name, type) pairs (Spark's DDL parser needs log4j's core, which this classpath lacks). */
    static StructType struct(Object... namesAndTypes) {
        StructType type = new StructType();
        for (int i = 0; i < namesAndTypes.length; i += 2) {
            type = type.add((String) namesAndTypes[i], (DataType) namesAndTypes[i + 1]);
        }
        return type;
    }

    private static StructType texts(String... names) {
        StructType type = new StructType();
        for (String name : names) {
            type = type.add(name, TEXT);
        }
        return type;
    }

    private static final DataType IMAGE = DataTypes.createMapType(TEXT, TEXT);
    // normalizer/jvm_functions.py's RECORD_OUTPUT over the model's EVENT_SCHEMA (a Python test holds Events.FIELDS to
    // it): only the types matter to a conversion
    public static final StructType RECORD_OUTPUT = struct("code", TEXT, "detail", TEXT, "events", DataTypes.createArrayType(struct(
            "event_id", TEXT, "format", TEXT, "format_version", TEXT, "kind", TEXT, "op", TEXT, "snapshot", BOOL,
            "source", texts("system", "server", "database", "schema", "table"),
            "columns", DataTypes.createArrayType(struct("name", TEXT, "position", INT, "source_type", TEXT,
                    "logical_type", TEXT, "nullable", BOOL, "pk_position", INT)),
            "key", DataTypes.createArrayType(texts("name", "value")), "before", IMAGE, "after", IMAGE,
            "pk_change", texts("group", "role"), "position", texts("commit", "event", "seq"), "tx_id", TEXT,
            "commit_ts", DataTypes.TimestampType, "emit_ts", DataTypes.TimestampType, "ddl", texts("statement", "change"),
            "message", texts("prefix", "content"),
            "origin", DataTypes.createArrayType(struct("topic", TEXT, "partition", INT, "offset", DataTypes.LongType)))));
    // the record stages of the formats that group (normalizer/ces.py, normalizer/dataworks.py)
    public static final StructType CES_STAGE = struct("code", TEXT, "detail", TEXT, "logicalid", TEXT, "seg_index", INT,
            "seg_final", BOOL, "data", DataTypes.BinaryType, "source", TEXT, "id", TEXT, "operation", TEXT, "type", TEXT,
            "time", TEXT, "total", INT);
    public static final StructType DATAWORKS_STAGE = texts("code", "detail", "half", "group_key");

    /** The internal value as plain Java: texts as Strings, arrays as lists, maps as lists of entries, rows as lists. */
    static Object plain(Object internal, DataType type) {
        if (internal == null) {
            return null;
        }
        if (type instanceof StructType) {
            InternalRow row = (InternalRow) internal;
            StructType struct = (StructType) type;
            List<Object> fields = new ArrayList<>();
            for (int i = 0; i < struct.fields().length; i++) {
                fields.add(plain(row.isNullAt(i) ? null : at(row, i, struct.fields()[i].dataType()), struct.fields()[i].dataType()));
            }
            return fields;
        }
        if (type instanceof ArrayType) {
            ArrayData array = (ArrayData) internal;
            List<Object> items = new ArrayList<>();
            for (int i = 0; i < array.numElements(); i++) {
                items.add(plain(array.isNullAt(i) ? null : at(array, i, ((ArrayType) type).elementType()), ((ArrayType) type).elementType()));
            }
            return items;
        }
        if (type instanceof MapType) {
            MapData map = (MapData) internal;
            return List.of(plain(map.keyArray(), DataTypes.createArrayType(((MapType) type).keyType())),
                    plain(map.valueArray(), DataTypes.createArrayType(((MapType) type).valueType())));
        }
        if (internal instanceof UTF8String) {
            assertEquals(DataTypes.StringType, type);
            return internal.toString();
        }
        if (internal instanceof byte[]) {
            return Arrays.toString((byte[]) internal);
        }
        return internal;
    }

    /** A value by its type's own getter (the generic {@code get} needs Scala's reflection, not on this classpath). */
    private static Object at(SpecializedGetters from, int i, DataType type) {
        if (type instanceof StructType) {
            return from.getStruct(i, ((StructType) type).fields().length);
        }
        if (type instanceof ArrayType) {
            return from.getArray(i);
        }
        if (type instanceof MapType) {
            return from.getMap(i);
        }
        if (type == DataTypes.StringType) {
            return from.getUTF8String(i);
        }
        if (type == DataTypes.IntegerType) {
            return from.getInt(i);
        }
        if (type == DataTypes.LongType || type == DataTypes.TimestampType) {
            return from.getLong(i);
        }
        if (type == DataTypes.BooleanType) {
            return from.getBoolean(i);
        }
        assertEquals(DataTypes.BinaryType, type);
        return from.getBinary(i);
    }

    /** The external value as {@link #plain} renders the internal one, by Spark's rules for the values readers build. */
    static Object expected(Object value, DataType type) {
        if (value == null) {
            return null;
        }
        if (type instanceof StructType) {
            StructType struct = (StructType) type;
            List<Object> fields = new ArrayList<>();
            for (int i = 0; i < struct.fields().length; i++) {
                fields.add(expected(((Row) value).get(i), struct.fields()[i].dataType()));
            }
            return fields;
        }
        if (type instanceof ArrayType) {
            List<Object> items = new ArrayList<>();
            for (Object item : (List<?>) value) {
                items.add(expected(item, ((ArrayType) type).elementType()));
            }
            return items;
        }
        if (type instanceof MapType) {
            List<Object> keys = new ArrayList<>();
            List<Object> values = new ArrayList<>();
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                keys.add(entry.getKey());
                values.add(entry.getValue());
            }
            return List.of(keys, values);
        }
        if (value instanceof Instant) {
            Instant at = (Instant) value;
            return Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000L), at.getNano() / 1000);
        }
        if (value instanceof byte[]) {
            return Arrays.toString((byte[]) value);
        }
        if (value instanceof String) {  // as UTF-8, as Spark holds it: a lone surrogate (a record stage's raw text) is '?'
            return new String(((String) value).getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
        }
        return value;
    }

    private static final Map<StructType, InternalRows> WRITERS = new HashMap<>();

    /** The reader's output written as Spark's row reads back as the output, field by field (the fuzz targets' oracle
     * too: ReadersFuzzTest). */
    public static void assertWrittenAsRead(StructType type, Row output, String what) {
        InternalRows writer = WRITERS.computeIfAbsent(type, InternalRows::new);
        List<?> want = (List<?>) expected(output, type);
        List<?> got = (List<?>) plain(writer.toInternal(output), type);
        for (int i = 0; i < type.fields().length; i++) {
            assertEquals(want.get(i), got.get(i), what + " " + type.fields()[i].name());
        }
    }

    private static int everySeed(String target, UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> reader,
                                 StructType type) throws Exception {
        int events = 0;
        for (byte[] value : ReadersFuzzTest.seeds(target)) {
            Row output = reader.call(null, value, null, "t", 0, 0L);
            assertWrittenAsRead(type, output, target);
            if (output.get(2) instanceof List) {
                events += ((List<?>) output.get(2)).size();
            }
        }
        return events;
    }

    @Test
    void everyReaderOutputOfTheSeedsConvertsToWhatItSays() throws Exception {
        int events = everySeed("canalJson", new CanalRecords(), RECORD_OUTPUT)
                + everySeed("cloudcanalJson", new CloudCanalRecords(), RECORD_OUTPUT)
                + everySeed("cloudcanalDebezium", new CloudCanalDebeziumRecords(), RECORD_OUTPUT)
                + everySeed("debeziumJson", new DebeziumRecords(), RECORD_OUTPUT)
                + everySeed("dtsAvro", new DtsRecords(), RECORD_OUTPUT);
        everySeed("cesJson", new CesRecords(), CES_STAGE);
        everySeed("cesAvro", new CesAvroRecords(), CES_STAGE);
        everySeed("dataworksJson", new DataWorksRecords(), DATAWORKS_STAGE);
        assertTrue(events > 500, "the seeds' outputs hold events of every kind: " + events);
    }

    @Test
    void textsInstantsListsAndMapsAtTheirEdges() {
        StructType type = struct("at", DataTypes.TimestampType, "texts", DataTypes.createArrayType(TEXT), "image", IMAGE,
                "n", DataTypes.LongType, "b", DataTypes.BinaryType);
        Map<String, String> image = new java.util.LinkedHashMap<>();
        image.put("a", null);
        image.put("\uD83D\uDE00", "\u00e9");
        image.put("", "");
        InternalRows converter = new InternalRows(type);
        for (Instant at : new Instant[] {Instant.parse("0001-01-01T00:00:00Z"), Instant.parse("9999-12-31T23:59:59.999999999Z"),
                Instant.ofEpochSecond(-1, 1), Instant.EPOCH, null}) {
            Row row = RowFactory.create(at, Arrays.asList("x", null, "", "\uD83D\uDE00"), image, Long.MIN_VALUE, new byte[] {0, -1});
            assertEquals(expected(row, type), plain(converter.toInternal(row), type), String.valueOf(at));
        }
        InternalRow empty = converter.toInternal(RowFactory.create(null, List.of(), Map.of(), null, new byte[0]));
        assertEquals(0, empty.getArray(1).numElements());
        assertEquals(0, empty.getMap(2).numElements());
        Map<String, String> nullKey = new HashMap<>();
        nullKey.put(null, "v");
        assertThrows(IllegalArgumentException.class, () -> converter.toInternal(RowFactory.create(null, null, nullKey, null, null)));
    }

    /** A shared list of columns (a writer schema's, {@link SharedColumns}) is written once and its bytes copied after:
     * they read back alike wherever a row puts them, after texts of other lengths, beside another shared list and a
     * plain one. */
    @Test
    void aSharedListReadsBackAlikeWhereverItIsCopied() {
        StructType column = struct("name", DataTypes.StringType, "position", DataTypes.IntegerType, "nullable", DataTypes.BooleanType);
        StructType type = struct("lead", DataTypes.StringType, "columns", DataTypes.createArrayType(column), "tail", TEXT);
        SharedColumns shared = new SharedColumns(List.of(RowFactory.create("id", 1, false), RowFactory.create("\uD83D\uDE00", null, true),
                RowFactory.create("", 3, null)));
        SharedColumns other = new SharedColumns(List.of(RowFactory.create("k", 7, true)));
        InternalRows converter = new InternalRows(type);
        String[] leads = {"", "a much longer text than the first, to move the array along the buffer", "a", null, "\u00e9"};
        for (int n = 0; n < 12; n++) {
            List<Row> columns = n % 4 == 3 ? other : n % 4 == 2 ? List.copyOf(shared) : shared;
            Row row = RowFactory.create(leads[n % leads.length], columns, "t" + n);
            assertEquals(expected(row, type), plain(converter.toInternal(row), type), "row " + n);
        }
    }

    @Test
    void microsAreSparksAtTheEndsOfAnInstant() {
        // Spark's DateTimeUtils.instantToMicros: the ends of a long of microseconds (the first through Spark's detour),
        // and the microsecond before the epoch
        assertEquals(Long.MIN_VALUE, InternalRows.micros(Instant.ofEpochSecond(-9_223_372_036_855L, 224_192_000)));
        assertEquals(Long.MAX_VALUE, InternalRows.micros(Instant.ofEpochSecond(9_223_372_036_854L, 775_807_000)));
        assertEquals(-1, InternalRows.micros(Instant.ofEpochSecond(-1, 999_999_000)));
        assertThrows(ArithmeticException.class, () -> InternalRows.micros(Instant.MAX));
        assertThrows(ArithmeticException.class, () -> InternalRows.micros(Instant.MIN));
        assertThrows(ArithmeticException.class, () -> InternalRows.micros(Instant.ofEpochSecond(-9_223_372_036_855L, 224_191_000)));
    }

    @Test
    void aReaderCalledWithInternalValuesGivesItsOwnOutputConverted() {
        String keyChange = "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"before\",\"fields\":"
                + "[{\"type\":\"int32\",\"field\":\"id\"}]}]},\"payload\":{\"op\":\"d\",\"source\":{\"connector\":\"postgresql\","
                + "\"lsn\":200},\"before\":{\"id\":1}}}";
        byte[] value = keyChange.getBytes(StandardCharsets.UTF_8);
        byte[] header = "{\"id\":2}".getBytes(StandardCharsets.UTF_8);
        GenericArrayData headers = new GenericArrayData(new Object[] {
                new GenericInternalRow(new Object[] {UTF8String.fromString("__debezium.newkey"), header}), null});
        Seq<Row> external = InternalReaders.headers(headers);
        assertEquals(2, external.size());
        assertEquals("__debezium.newkey", external.apply(0).getString(0));
        assertEquals(null, external.apply(1));
        byte[] key = "{\"id\":1}".getBytes(StandardCharsets.UTF_8);
        Row own = new DebeziumRecords().call(key, value, external, "pg.public.t", 3, 9L);
        UTF8String schema = UTF8String.fromString(RECORD_OUTPUT.json());
        UTF8String reader = UTF8String.fromString("io.cdcconformance.debezium.DebeziumRecords");
        for (String topic : new String[] {"pg.public.t", "pg.public.t", "other"}) {  // the topic's text is kept while it repeats
            InternalRow internal = InternalReaders.read(reader, schema, key, value, headers, UTF8String.fromString(topic), 3, 9L);
            Row expected = topic.equals("other") ? new DebeziumRecords().call(key, value, external, topic, 3, 9L) : own;
            assertEquals(expected(expected, RECORD_OUTPUT), plain(internal, RECORD_OUTPUT), topic);
        }
        assertEquals(1, ((List<?>) own.get(2)).size(), () -> "the key change's delete half: " + own.get(0) + " " + own.get(1));
        assertEquals(0, InternalReaders.headers(new GenericArrayData(new Object[0])).size());
        assertEquals(null, InternalReaders.headers(null));
    }

    @Test
    void onlyThisPackagesRecordReadersAreMade() {
        UTF8String schema = UTF8String.fromString(RECORD_OUTPUT.json());
        for (String name : new String[] {"java.lang.Runtime", "io.cdcconformance.shared.Events", "io.cdcconformance.nothing.Here"}) {
            assertThrows(IllegalArgumentException.class, () -> InternalReaders.read(UTF8String.fromString(name), schema,
                    null, new byte[0], null, UTF8String.fromString("t"), 0, 0L), name);
        }
    }
}
