package io.cdcconformance.peers;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * A Debezium JSON record as a Kafka Connect sink reads it: Kafka Connect's own {@code JsonConverter}
 * ({@code value.converter}, {@code schemas.enable} set as the producer wrote the topic: true for a record in the
 * {@code {"schema":..,"payload":..}} envelope, false otherwise) turns the value into Connect data, and the sink takes
 * the change event's {@code op}, {@code before} and {@code after} from it, as Debezium's JDBC sink does
 * ({@code c} and {@code r} insert, {@code u} updates, {@code d} deletes; a tombstone or another op is no row change).
 *
 * <p>Values are Connect's: with schemas, the converter decodes Connect's own logical types (a {@code Decimal}'s base64
 * to a {@code BigDecimal}, {@code Date}, {@code Time} and {@code Timestamp} to {@code java.util.Date}), written here as
 * their text (ISO dates and times, plain decimals, bytes in base64, a struct, array or map as the JSON the converter
 * writes without schemas); Debezium's semantic types ({@code io.debezium.time.*}) stay the numbers the schema gives.
 * Without schemas, a value is what Jackson reads. A {@code DataException} (or any exception) of the converter or of
 * reading the event fails the sink task: a refusal, its message the task's log line.
 *
 * <p>Output: {@code {"changes":[{"op":"INSERT|UPDATE|DELETE","before":{..},"after":{..}}],"error":null}}.
 */
public final class ConnectChangelog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ENVELOPE_SCHEMA = "schema";
    private static final String ENVELOPE_PAYLOAD = "payload";
    private static final ThreadLocal<Map<Boolean, JsonConverter>> CONVERTERS = ThreadLocal.withInitial(HashMap::new);

    private ConnectChangelog() {
    }

    public static String decode(String topic, byte[] value) {
        ObjectNode out = JSON.createObjectNode();
        ArrayNode changes = out.putArray("changes");
        out.putNull("error");
        try {
            SchemaAndValue data = converter(withSchemas(value)).toConnectData(topic, value);
            if (data.value() != null) {
                addChange(changes, data.value());
            }
        } catch (Exception | StackOverflowError error) {  // each fails the sink task: a refusal
            out.put("error", IsolatedPeer.failure(error));
            changes.removeAll();
        }
        return out.toString();
    }

    /** schemas.enable as the topic's producer set it: whether the record is in the converter's envelope (a
     * {@code payload}, and its {@code schema}: the converter refuses an envelope that lacks either). */
    private static boolean withSchemas(byte[] value) {
        if (value == null) {
            return false;
        }
        try {
            var tree = JSON.readTree(value);
            return tree != null && tree.isObject() && (tree.has(ENVELOPE_SCHEMA) || tree.has(ENVELOPE_PAYLOAD));
        } catch (java.io.IOException e) {
            return false;  // the converter says what is wrong with it
        }
    }

    private static JsonConverter converter(boolean schemas) {
        return CONVERTERS.get().computeIfAbsent(schemas, enabled -> {
            JsonConverter converter = new JsonConverter();
            converter.configure(Map.of("schemas.enable", String.valueOf(enabled)), false);
            return converter;
        });
    }

    private static void addChange(ArrayNode changes, Object event) {
        String op = String.valueOf(member(event, "op"));
        String kind = switch (op) {
            case "c", "r" -> "INSERT";
            case "u" -> "UPDATE";
            case "d" -> "DELETE";
            default -> null;  // a truncate, a message, or no op: no row change for a sink
        };
        if (kind == null) {
            return;
        }
        ObjectNode change = changes.addObject().put("op", kind);
        if (!"INSERT".equals(kind)) {
            change.set("before", image(member(event, "before")));
        }
        if (!"DELETE".equals(kind)) {
            change.set("after", image(member(event, "after")));
        }
    }

    /** A field of the event: a Struct's by its schema, a Map's by key. Connect's {@code Struct.get} of a field its
     * schema does not declare throws, as it does in the sink: Debezium's envelope schema declares them all, so the
     * converter keeps no payload member its schema leaves out. */
    private static Object member(Object event, String name) {
        if (event instanceof Struct struct) {
            return struct.get(name);
        }
        if (event instanceof Map<?, ?> map) {
            return map.get(name);
        }
        throw new IllegalArgumentException("the record's value is no change event: " + event.getClass().getSimpleName());
    }

    private static ObjectNode image(Object row) {
        if (row == null) {
            return null;
        }
        ObjectNode image = JSON.createObjectNode();
        if (row instanceof Struct struct) {
            for (Field field : struct.schema().fields()) {
                image.put(field.name(), text(struct.get(field), field.schema()));
            }
        } else if (row instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> column : map.entrySet()) {
                image.put(String.valueOf(column.getKey()), text(column.getValue(), null));
            }
        } else {
            throw new IllegalArgumentException("a row image is no struct: " + row.getClass().getSimpleName());
        }
        return image;
    }

    /** A Connect value as text: what a sink writing it as text would write. */
    private static String text(Object value, Schema schema) {
        if (value == null) {
            return null;
        }
        String logical = schema == null ? null : schema.name();
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Date date) {
            // Connect's Date, Time and Timestamp are a column's local date, time and date-time at UTC's offset
            LocalDateTime local = LocalDateTime.ofInstant(date.toInstant(), ZoneOffset.UTC);
            if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(logical)) {
                return local.toLocalDate().toString();
            }
            if (org.apache.kafka.connect.data.Time.LOGICAL_NAME.equals(logical)) {
                return DateTimeFormatter.ISO_LOCAL_TIME.format(local.toLocalTime());
            }
            return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(local);
        }
        if (value instanceof byte[] bytes) {
            return Base64.getEncoder().encodeToString(bytes);
        }
        if (value instanceof ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            return Base64.getEncoder().encodeToString(bytes);
        }
        if (value instanceof Struct || value instanceof Map || value instanceof List) {
            return new String(converter(false).fromConnectData("", schema, value), StandardCharsets.UTF_8);
        }
        return value.toString();
    }
}
