package io.cdcconformance.peers;

import java.nio.ByteBuffer;
import java.util.Base64;

import com.aliyun.dts.subscribe.clients.formats.avro.Record;
import com.aliyun.dts.subscribe.clients.record.DefaultUserRecord;
import com.aliyun.dts.subscribe.clients.record.RecordField;
import com.aliyun.dts.subscribe.clients.record.RowImage;
import com.aliyun.dts.subscribe.clients.record.value.BinaryEncodingObject;
import com.aliyun.dts.subscribe.clients.record.value.UnixTimestamp;
import com.aliyun.dts.subscribe.clients.record.value.Value;
import com.aliyun.dts.subscribe.clients.record.value.ValueType;
import com.aliyun.dts.subscribe.clients.record.value.WKBGeometry;
import com.aliyun.dts.subscribe.clients.recordgenerator.AvroDeserializer;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;

/**
 * A DTS Avro record as the consumer of DTS's own subscription SDK (aliyun-dts-subscribe-sdk-java) reads it: the SDK's
 * {@code AvroDeserializer} turns the value into its {@code Record}, and the {@code DefaultUserRecord} its record
 * listener is handed gives the operation ({@code AvroRecordParser.getOperationType}) and the before and after
 * {@code RowImage}s, each value as a sink takes it from the SDK ({@link #text}). INSERT, UPDATE and DELETE are row changes; the other operations (DDL, BEGIN, COMMIT, HEARTBEAT,
 * CHECKPOINT, and UNKNOWN, which is what the SDK makes of every other, INIT's full-load rows included) are none.
 * A {@code NoneValue} (a MINIMAL row image's "no value here": the SDK's own comment says it means nothing) is left out
 * of the image, as its users must: its {@code toString()} is Java's default, the object's hash. An exception of the
 * SDK's is the record's refusal: its consumer thread stops there.
 *
 * <p>Output: {@code {"changes":[{"op":"INSERT|UPDATE|DELETE","before":{..},"after":{..}}],"error":null}}.
 */
public final class DtsChangelog {
    private static final Gson JSON = new GsonBuilder().serializeNulls().disableHtmlEscaping().create();
    // one per thread: the SDK's consumer runs one, and its datum reader is not thread-safe
    private static final ThreadLocal<AvroDeserializer> DESERIALIZERS = ThreadLocal.withInitial(AvroDeserializer::new);

    private DtsChangelog() {
    }

    public static String decode(byte[] value) {
        JsonObject out = new JsonObject();
        JsonArray changes = new JsonArray();
        out.add("changes", changes);
        out.add("error", JsonNull.INSTANCE);
        if (value == null) {
            return JSON.toJson(out);
        }
        try {
            // the SDK's deserializer wraps whatever the read throws (an array's declared length past the VM's limit
            // included: Avro 1.8 allocates it first) in a RuntimeException
            Record record = DESERIALIZERS.get().deserialize(value);
            DefaultUserRecord user = new DefaultUserRecord(null, 0L, record, null);
            switch (user.getOperationType()) {
                case INSERT:
                    changes.add(change("INSERT", null, image(user, user.getAfterImage())));
                    break;
                case UPDATE:
                    changes.add(change("UPDATE", image(user, user.getBeforeImage()), image(user, user.getAfterImage())));
                    break;
                case DELETE:
                    changes.add(change("DELETE", image(user, user.getBeforeImage()), null));
                    break;
                default:
                    break;  // no row change
            }
        } catch (Exception | StackOverflowError error) {  // the consumer's thread stops: a refusal
            out.addProperty("error", IsolatedPeer.failure(error));
            out.add("changes", new JsonArray());
        }
        return JSON.toJson(out);
    }

    private static JsonObject change(String op, JsonObject before, JsonObject after) {
        JsonObject change = new JsonObject();
        change.addProperty("op", op);
        change.add("before", before == null ? JsonNull.INSTANCE : before);
        change.add("after", after == null ? JsonNull.INSTANCE : after);
        return change;
    }

    /**
     * A value as the sink takes it, in the spelling the comparison reads: bytes (a BLOB's, a geometry's WKB) as their
     * base64, where the SDK's {@code toString()} prints hex, or WKT for a geometry; a TIMESTAMP as the instant of the
     * {@code java.sql.Timestamp} the SDK gives ({@code toJdbcTimestamp}), where {@code toString()} prints it in the JVM's
     * zone without naming it; every other value as the SDK's text.
     */
    private static String text(Value<?> value) {
        if (value instanceof BinaryEncodingObject || value instanceof WKBGeometry) {
            ByteBuffer bytes = ((ByteBuffer) value.getData()).duplicate();
            bytes.rewind();
            byte[] data = new byte[bytes.remaining()];
            bytes.get(data);
            return Base64.getEncoder().encodeToString(data);
        }
        if (value instanceof UnixTimestamp) {
            return ((UnixTimestamp) value).toJdbcTimestamp().toInstant().toString();
        }
        return value.toString();
    }

    private static JsonObject image(DefaultUserRecord user, RowImage image) {
        if (image == null) {
            return null;
        }
        JsonObject columns = new JsonObject();
        for (RecordField field : user.getSchema().getFields()) {
            Value<?> value = image.getValue(field);
            if (value == null) {
                columns.add(field.getFieldName(), JsonNull.INSTANCE);
            } else if (value.getType() != ValueType.NONE) {
                columns.addProperty(field.getFieldName(), text(value));
            }
        }
        return columns;
    }
}
