package io.cdcconformance.ces;

import io.cdcconformance.shared.*;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF6;
import scala.collection.Seq;

/**
 * {@code ces-json}, one record (stage 1 of normalizer/ces.py): the CloudEvent envelope (structured mode, JSON), its
 * segment attributes and the record-level rules. Segments are grouped by {@code logicalid} and assembled in
 * normalizer.assembly; {@link CesChanges} reads each logical event. docs/formats/ces.md records every decision.
 *
 * <p>Returns {@code code, detail, logicalid, seg_index, seg_final, data, source, id, operation, type, time, total}:
 * {@code data} as bytes (the JSON text's here, the Avro datum's in {@link CesAvroRecords}), so that the fragments of
 * a split event concatenate.
 */
public class CesRecords implements UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final String TYPE_PREFIX = "com.microsoft.SQL.CES.DML.V";
    public static final Shape ENVELOPE = Shape.struct("specversion", Shape.TEXT, "type", Shape.TEXT, "source", Shape.TEXT,
            "id", Shape.TEXT, "logicalid", Shape.TEXT, "time", Shape.TEXT, "datacontenttype", Shape.TEXT, "operation", Shape.TEXT,
            "segmentindex", Shape.TEXT, "finalsegment", Shape.TEXT, "splitindex", Shape.TEXT, "splittotalcnt", Shape.TEXT,
            "data", Shape.TEXT);

    /** The envelope's members as text (null when the record is not one), and the record's own problem, if any. */
    public static final class Envelope {
        Map<String, String> members;
        String[] problem;

        byte[] data;  // the data level's bytes: the JSON text's, or the Avro datum's

        String get(String name) {
            return members == null ? null : members.get(name);
        }

        byte[] data() {
            return data != null || get("data") == null ? data : get("data").getBytes(StandardCharsets.UTF_8);
        }
    }

    @Override
    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset) {
        return Readers.stage(getClass().getSimpleName(), 12, topic, partition, offset, () -> read(value));
    }

    private Row read(byte[] value) {
        Envelope envelope = envelope(value);
        String[] verdict = envelope.problem != null ? envelope.problem : commonRules(envelope);
        Integer index = segmentIndex(envelope);
        Boolean last = finalSegment(envelope);
        return RowFactory.create(verdict == null ? null : verdict[0], verdict == null ? null : verdict[1], envelope.get("logicalid"),
                index, last, envelope.data(), envelope.get("source"), envelope.get("id"), envelope.get("operation"),
                envelope.get("type"), envelope.get("time"), Canonical.boundedInt(envelope.get("splittotalcnt"),
                        Integer.MIN_VALUE, Integer.MAX_VALUE));
    }

    /** The JSON encoding: the record rules every JSON format meets, then the envelope's members as text. */
    public Envelope envelope(byte[] value) {
        Envelope envelope = new Envelope();
        if (value == null) {
            envelope.problem = Records.rule("MISSING_FIELD", "record has no value");
            return envelope;
        }
        Json.Document parsed = Json.read(value);
        Map<String, Object> document = parsed.object();
        if (document != null && ENVELOPE.fits(document)) {
            envelope.members = Records.textMap(document);
        }
        envelope.problem = JsonRecordRules.valueVerdict(value, parsed, envelope.members != null);
        return envelope;
    }

    public static String[] commonRules(Envelope e) {
        String type = e.get("type");
        if (type == null || !type.startsWith(TYPE_PREFIX)) {
            return Records.rule("UNKNOWN_EVENT_TYPE", "CloudEvents type " + type);
        }
        if (e.get("id") == null || e.get("logicalid") == null || e.get("operation") == null || e.get("data") == null) {
            return Records.rule("MISSING_FIELD", "id, logicalid, operation and data are required");
        }
        if (segmentIndex(e) == null || finalSegment(e) == null) {
            return Records.rule("MISSING_FIELD", "no segmentindex/finalsegment (or splitindex/splittotalcnt)");
        }
        if (!CesChanges.OPERATIONS.containsKey(e.get("operation"))) {
            return Records.rule("UNKNOWN_OPERATION", "operation " + e.get("operation"));
        }
        return null;
    }

    public static Integer plusOne(Integer value) {
        return value == null || value == Integer.MAX_VALUE ? null : value + 1;
    }

    /** Current attributes are 1-based (captures); legacy splitindex is 0-based, so it is shifted. */
    public static Integer segmentIndex(Envelope e) {
        Integer index = Canonical.boundedInt(e.get("segmentindex"), Integer.MIN_VALUE, Integer.MAX_VALUE);
        return index != null ? index : plusOne(Canonical.boundedInt(e.get("splitindex"), Integer.MIN_VALUE, Integer.MAX_VALUE));
    }

    public static Boolean finalSegment(Envelope e) {
        if (e.get("finalsegment") != null) {
            return e.get("finalsegment").toLowerCase(java.util.Locale.ROOT).equals("true");
        }
        if (e.get("splittotalcnt") != null) {
            Integer total = Canonical.boundedInt(e.get("splittotalcnt"), Integer.MIN_VALUE, Integer.MAX_VALUE);
            Integer next = plusOne(Canonical.boundedInt(e.get("splitindex"), Integer.MIN_VALUE, Integer.MAX_VALUE));
            if (total != null && total == 0) {
                return true;
            }
            return total == null || next == null ? null : next.equals(total);
        }
        return null;
    }
}
