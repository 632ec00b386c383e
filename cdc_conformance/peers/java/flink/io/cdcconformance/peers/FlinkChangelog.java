package io.cdcconformance.peers;

import static java.time.format.DateTimeFormatter.ISO_LOCAL_DATE_TIME;
import static java.time.format.DateTimeFormatter.ISO_LOCAL_TIME;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.canal.CanalJsonDeserializationSchema;
import org.apache.flink.formats.json.debezium.DebeziumJsonDeserializationSchema;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * One record through Flink's own {@code debezium-json} or {@code canal-json} deserialization schema (flink-json), as a
 * Flink SQL table over the topic runs it: {@code timestamp-format.standard} as the producer spells a timestamp as text
 * (SQL, the default, for canal's {@code 2020-01-01 12:00:00}; ISO-8601 for Debezium, whose only timestamps written as
 * text are {@code io.debezium.time.ZonedTimestamp}'s ISO 8601), and
 * {@code ignore-parse-errors} as given (false by default: the job stops at the record; true: the record is skipped
 * without a word, which a topic carrying records the format cannot read needs), and its changelog rows as canonical
 * changes, in JSON.
 *
 * <p>Loaded by {@link FlinkPeerUdf} in a class loader of its own over the Flink jars (never on Spark's classpath).
 * The table's DDL is the one its user declared for the topic's table ({@code declared}, a Flink row type such as
 * {@code ROW<id BIGINT, price DECIMAL(10, 2)>}, which cdc_conformance/peers/flink_tables.py derives from the table's
 * first record, as a user types a table by its source's types); without one, every column the record names, in the
 * order it names them, typed STRING. {@code schema-include} is on when the record is Connect's schema-and-payload
 * envelope. A value is given as text in the form the model's comparison reads (a date's ISO text, a decimal's plain
 * digits, bytes as ISO-8859-1 text).
 *
 * <p>Output: {@code {"changes":[{"op":"INSERT|UPDATE|DELETE","before":{..},"after":{..}}],"error":null}}; a
 * {@code -U} followed by a {@code +U} is one update. An exception of Flink's is the error, its class and message.
 */
public final class FlinkChangelog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SCHEMAS_HELD = 512;
    // one instance per thread, as Flink runs one per task: a schema is not thread-safe (one shared by Spark's two task
    // threads emitted another record's row beside a record's own)
    private static final ThreadLocal<Map<String, DeserializationSchema<RowData>>> SCHEMAS =
            ThreadLocal.withInitial(LinkedHashMap::new);

    private FlinkChangelog() {
    }

    public static String decode(String format, boolean ignoreParseErrors, String declared, byte[] value) {
        ObjectNode out = JSON.createObjectNode();
        ArrayNode changes = out.putArray("changes");
        out.putNull("error");
        if (value == null) {
            return out.toString(); // both schemas skip a tombstone
        }
        try {
            JsonNode root = parsedOrNull(value);
            boolean schemaInclude = "debezium-json".equals(format) && root != null && root.path("payload").isObject();
            RowType table = declared == null || declared.isBlank()
                    ? untyped(columns(format, schemaInclude ? root.get("payload") : root))
                    : (RowType) LogicalTypeParser.parse(declared, FlinkChangelog.class.getClassLoader());
            List<RowData> rows = new ArrayList<>();
            schema(format, schemaInclude, ignoreParseErrors, table).deserialize(value, new Collector<RowData>() {
                @Override
                public void collect(RowData row) {
                    rows.add(row);
                }

                @Override
                public void close() {
                }
            });
            addChanges(changes, rows, table);
        } catch (Exception | StackOverflowError error) {
            out.put("error", IsolatedPeer.failure(error));  // the error Flink throws and its cause
            changes.removeAll();
        }
        return out.toString();
    }

    /**
     * The record as JSON, for the DDL alone; null where it is not JSON. Flink's schema decides what such a record
     * is: its error, or with ignore-parse-errors no row and no error (the Flink SQL job peer showed a record this
     * parse refused where Flink skips it).
     */
    private static JsonNode parsedOrNull(byte[] value) {
        try {
            return JSON.readTree(value);
        } catch (java.io.IOException | RuntimeException | StackOverflowError notJson) {
            return null;
        }
    }

    /** The columns of the user's DDL: every member of the record's row images, in order of appearance. */
    private static List<String> columns(String format, JsonNode root) {
        Set<String> names = new LinkedHashSet<>();
        if (root != null && root.isObject()) {
            if ("canal-json".equals(format)) {
                addNames(names, root.get("mysqlType"));
                for (String images : new String[] {"data", "old"}) {
                    JsonNode rows = root.get(images);
                    if (rows != null && rows.isArray()) {
                        rows.forEach(row -> addNames(names, row));
                    }
                }
            } else {
                addNames(names, root.get("after"));
                addNames(names, root.get("before"));
            }
        }
        return new ArrayList<>(names);
    }

    private static void addNames(Set<String> names, JsonNode object) {
        if (object != null && object.isObject()) {
            object.fieldNames().forEachRemaining(names::add);
        }
    }

    private static RowType untyped(List<String> columns) {
        DataTypes.Field[] fields = columns.stream().map(name -> DataTypes.FIELD(name, DataTypes.STRING()))
                .toArray(DataTypes.Field[]::new);
        return (RowType) DataTypes.ROW(fields).getLogicalType();
    }

    private static DeserializationSchema<RowData> schema(String format, boolean schemaInclude, boolean ignoreParseErrors,
                                                         RowType table) throws Exception {
        String key = format + '\u0000' + schemaInclude + '\u0000' + ignoreParseErrors + '\u0000' + table.asSerializableString();
        Map<String, DeserializationSchema<RowData>> held = SCHEMAS.get();
        DeserializationSchema<RowData> schema = held.get(key);
        if (schema == null) {
            if (held.size() >= SCHEMAS_HELD) {
                held.clear();
            }
            DataType row = TypeConversions.fromLogicalToDataType(table);
            InternalTypeInfo<RowData> produced = InternalTypeInfo.of(table);
            schema = "canal-json".equals(format)
                    ? CanalJsonDeserializationSchema.builder(row, new ArrayList<>(), produced)
                            .setIgnoreParseErrors(ignoreParseErrors).build()
                    : new DebeziumJsonDeserializationSchema(row, new ArrayList<>(), produced, schemaInclude,
                            ignoreParseErrors, TimestampFormat.ISO_8601);
            schema.open(noContext());
            held.put(key, schema);
        }
        return schema;
    }

    /** The formats' open() reads nothing of its context (it builds their ObjectMapper). */
    private static DeserializationSchema.InitializationContext noContext() {
        return (DeserializationSchema.InitializationContext) Proxy.newProxyInstance(FlinkChangelog.class.getClassLoader(),
                new Class<?>[] {DeserializationSchema.InitializationContext.class}, (proxy, method, args) -> null);
    }

    private static void addChanges(ArrayNode changes, List<RowData> rows, RowType columns) {
        for (int i = 0; i < rows.size(); i++) {
            RowData row = rows.get(i);
            RowKind kind = row.getRowKind();
            ObjectNode change = changes.addObject();
            if (kind == RowKind.INSERT) {
                change.put("op", "INSERT").set("after", image(row, columns));
            } else if (kind == RowKind.DELETE) {
                change.put("op", "DELETE").set("before", image(row, columns));
            } else {
                change.put("op", "UPDATE");
                if (kind == RowKind.UPDATE_BEFORE) {
                    change.set("before", image(row, columns));
                    if (i + 1 < rows.size() && rows.get(i + 1).getRowKind() == RowKind.UPDATE_AFTER) {
                        change.set("after", image(rows.get(++i), columns));
                    }
                } else {
                    change.set("after", image(row, columns));
                }
            }
        }
    }

    private static ObjectNode image(RowData row, RowType columns) {
        ObjectNode image = JSON.createObjectNode();
        for (int i = 0; i < columns.getFieldCount(); i++) {
            String name = columns.getFieldNames().get(i);
            LogicalType type = columns.getTypeAt(i);
            Object value = RowData.createFieldGetter(type, i).getFieldOrNull(row);
            if (value == null) {
                image.putNull(name);
            } else {
                image.put(name, text(type, value));
            }
        }
        return image;
    }

    /** A typed value as text: what a user's SELECT shows of it, in the spelling the model's comparison reads. */
    private static String text(LogicalType type, Object value) {
        switch (type.getTypeRoot()) {
            case DECIMAL:
                return ((DecimalData) value).toBigDecimal().toPlainString();
            case DATE:
                return LocalDate.ofEpochDay((Integer) value).toString();
            case TIME_WITHOUT_TIME_ZONE:
                return ISO_LOCAL_TIME.format(LocalTime.ofNanoOfDay((Integer) value * 1_000_000L));  // seconds always
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return ISO_LOCAL_DATE_TIME.format(((TimestampData) value).toLocalDateTime());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return ((TimestampData) value).toInstant().toString();
            case BINARY:
            case VARBINARY:
                return new String((byte[]) value, StandardCharsets.ISO_8859_1);
            case ARRAY: {  // ARRAY<STRING> (a MySQL SET): its elements as a JSON array
                ArrayData array = (ArrayData) value;
                ArrayNode elements = JSON.createArrayNode();
                for (int i = 0; i < array.size(); i++) {
                    elements.add(array.isNullAt(i) ? null : array.getString(i).toString());
                }
                return elements.toString();
            }
            default:
                return value.toString();  // StringData, the boxed numbers and booleans
        }
    }
}
