package io.cdcconformance.ces;

import io.cdcconformance.shared.*;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF6;
import scala.collection.Seq;

/**
 * {@code ces-avro}, one record: the Kafka value is the Avro binary datum of the published {@code ChangeEvent} record
 * (its schema beside this file, {@code ces-change-event.avsc}), walked by the Avro guard before Avro's reader reads
 * it. Only the envelope's encoding differs from {@link CesRecords}.
 */
public class CesAvroRecords extends CesRecords implements UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final Schema CHANGE_EVENT = schema("ces-change-event");

    public static Schema schema(String name) {
        try (InputStream in = CesAvroRecords.class.getResourceAsStream(name + ".avsc")) {
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new IllegalStateException(name + ".avsc is not in the normalizer's jar", e);
        }
    }

    /** The datum of {@code schema} in {@code bytes} when the guard finds nothing wrong; else null ({@code found[0]}
     * says what the guard found). */
    public static GenericRecord read(byte[] bytes, Schema schema, String[] found) {
        AvroGuard.Guarded guarded = AvroGuard.guarded(bytes, 0, schema);
        found[0] = guarded.problem();
        return (GenericRecord) guarded.datum();
    }

    @Override
    public Envelope envelope(byte[] value) {
        Envelope envelope = new Envelope();
        if (value == null) {
            envelope.problem = Records.rule("MISSING_FIELD", "record has no value");
            return envelope;
        }
        String[] found = new String[1];
        GenericRecord datum = read(value, CHANGE_EVENT, found);
        if (AvroGuard.NOT_UTF8.equals(found[0])) {
            envelope.problem = Records.rule("NOT_UTF8", "a string of the ChangeEvent datum is not UTF-8");
            return envelope;
        }
        if (datum == null) {
            envelope.problem = Records.rule("MALFORMED_AVRO", "value is not an Avro ChangeEvent datum");
            return envelope;
        }
        envelope.members = new LinkedHashMap<>();
        for (Schema.Field field : CHANGE_EVENT.getFields()) {
            if (!field.name().equals("data")) {
                envelope.members.put(field.name(), String.valueOf(datum.get(field.pos())));
            }
        }
        ByteBuffer data = ((ByteBuffer) datum.get(CHANGE_EVENT.getField("data").pos())).duplicate();
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        envelope.data = bytes;
        envelope.members.put("data", "");  // present: the record has a data level
        return envelope;
    }
}
