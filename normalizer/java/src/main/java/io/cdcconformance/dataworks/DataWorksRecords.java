package io.cdcconformance.dataworks;

import io.cdcconformance.shared.*;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF6;
import scala.collection.Seq;

/**
 * {@code dataworks-json}, one record (stage 1 of normalizer/dataworks.py): whether it is an update half, the group it
 * belongs to (halves by table and sequenceId; any other record with its identical copies), and the record-level
 * rules. {@link DataWorksChanges} reads each group once it is assembled. docs/formats/dataworks-json.md.
 */
public class DataWorksRecords implements UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final Set<String> BEFORE_HALF = Set.of("UPDATE_BEFOR", "UPDATE_BEFORE");  // the doc's spelling, and a fix's
    public static final Set<String> UNMAPPED = RowsRecords.UNMAPPED_EVENT_TYPES;
    private static final Shape IMAGE = Shape.struct("dataColumn", Shape.MAP);
    public static final Shape SHAPE = Shape.struct(
            "schema", Shape.struct("dataColumn", Shape.arrayOf(Shape.struct("name", Shape.TEXT, "type", Shape.TEXT)),
                    "primaryKey", Shape.arrayOf(Shape.TEXT), "source", Shape.struct("dbType", Shape.TEXT, "dbVersion", Shape.TEXT,
                            "dbName", Shape.TEXT, "schemaName", Shape.TEXT, "tableName", Shape.TEXT)),
            "payload", Shape.struct("before", IMAGE, "after", IMAGE, "sequenceId", Shape.TEXT, "scn", Shape.TEXT, "op", Shape.TEXT,
                    "timestamp", Shape.struct("eventTime", Shape.TEXT, "systemTime", Shape.TEXT, "checkpointTime", Shape.TEXT),
                    "ddl", Shape.struct("text", Shape.TEXT, "ddlMeta", Shape.TEXT)),
            "version", Shape.TEXT);

    /** The known ops: canal's EventType with UPDATE split in two halves, and the transaction marks. */
    public static boolean known(String op) {
        return op != null && (DataWorksChanges.OPERATIONS.containsKey(op) || BEFORE_HALF.contains(op) || UNMAPPED.contains(op));
    }

    @Override
    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset) {
        return Readers.stage(getClass().getSimpleName(), 4, topic, partition, offset, () -> read(key, value));
    }

    private Row read(byte[] key, byte[] value) {
        Json.Document parsed = value == null ? null : Json.read(value);
        Map<String, Object> document = parsed == null ? null : parse(parsed);
        String[] verdict = verdict(value, document, parsed);
        String half = document == null ? null : half(document);
        return RowFactory.create(verdict == null ? null : verdict[0], verdict == null ? null : verdict[1], half,
                verdict == null ? groupKey(half, document, key, value) : null);
    }

    /** The value's document when it is one of the format's shape, else null. */
    public static Map<String, Object> parse(Json.Document parsed) {
        Map<String, Object> document = parsed.object();
        return document != null && SHAPE.fits(document) ? document : null;
    }

    public static Map<String, Object> at(Map<String, Object> document, String... path) {
        Map<String, Object> node = document;
        for (String name : path) {
            node = node == null ? null : Json.object(node.get(name));
        }
        return node;
    }

    public static String op(Map<String, Object> document) {
        return Json.text(at(document, "payload"), "op");
    }

    /** BEFORE for UPDATE_BEFOR; AFTER for an UPDATE_AFTER without a before image (the two-record mode's second half). */
    public static String half(Map<String, Object> document) {
        String op = op(document);
        if (op != null && BEFORE_HALF.contains(op)) {
            return "BEFORE";
        }
        return "UPDATE_AFTER".equals(op) && at(document, "payload", "before") == null ? "AFTER" : null;
    }

    public static String[] verdict(byte[] value, Map<String, Object> document, Json.Document parsed) {
        String[] record = JsonRecordRules.valueVerdict(value, parsed, document != null);
        if (record != null) {
            return record;
        }
        String op = op(document);
        if (op == null) {
            return Records.rule("MISSING_FIELD", "payload.op is required");
        }
        if (!known(op)) {
            return Records.rule("UNKNOWN_OPERATION", "op " + op);
        }
        if (UNMAPPED.contains(op)) {
            return Records.rule("UNMAPPED_CONTROL_EVENT", "op " + op + " has no canonical kind");
        }
        Map<String, Object> times = at(document, "payload", "timestamp");
        if (Json.text(times, "eventTime") == null) {
            return Records.rule("MISSING_FIELD", "payload.timestamp.eventTime is required");
        }
        if (beyondDoubleRange(document, "before") || beyondDoubleRange(document, "after")) {
            return Records.rule("UNDECODABLE_VALUE",
                    "a row image holds a number no double holds (1e-400 underflows to zero, 1e400 overflows)");
        }
        if (timeUndecodable(Json.text(times, "eventTime")) || timeUndecodable(Json.text(times, "systemTime"))) {
            return Records.rule("UNDECODABLE_VALUE", "eventTime/systemTime are not epoch milliseconds of years 0001-9999 (or -1)");
        }
        String sequenceId = Json.text(at(document, "payload"), "sequenceId");
        if (Canonical.widerThan(sequenceId, 20)) {
            return Records.rule("UNDECODABLE_VALUE", "sequenceId has more than 20 digits");
        }
        if (half(document) != null && (sequenceId == null || at(document, "schema", "source") == null)) {
            return Records.rule("MISSING_FIELD", "an update half needs sequenceId and schema.source to be paired");
        }
        if (BEFORE_HALF.contains(op) && at(document, "payload", "after") != null) {
            return Records.rule("UNEXPECTED_IMAGE", op + " with an after image");
        }
        return null;
    }

    /** A row image holding a number no double holds: `1e-400` is no zero anybody wrote. */
    public static boolean beyondDoubleRange(Map<String, Object> document, String image) {
        Map<String, Object> columns = at(document, "payload", image, "dataColumn");
        if (columns != null) {
            for (Object value : columns.values()) {
                if (value instanceof Json.Number && Canonical.beyondDoubleRange(value.toString())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** payload.timestamp.* in epoch ms; -1 is DataWorks' "no time" (a record without a binlog time). */
    public static boolean timeUndecodable(String raw) {
        return raw != null && !raw.equals("-1") && Canonical.epochToInstant(raw, 1_000L) == null;
    }

    /** Halves pair by table and sequenceId; identical records (at-least-once re-sends) share a group and become one
     * event (invariant 3, docs/invariants.md). */
    public static String groupKey(String half, Map<String, Object> document, byte[] key, byte[] value) {
        if (half != null) {
            Map<String, Object> source = at(document, "schema", "source");
            List<String> names = new ArrayList<>();
            for (String part : new String[] {"dbName", "schemaName", "tableName"}) {
                if (Json.text(source, part) != null) {
                    names.add(Json.text(source, part));
                }
            }
            return "H|" + String.join(".", names) + "|" + Json.text(at(document, "payload"), "sequenceId");
        }
        // the digest of "<base64 key>|<base64 value>" (or of the value's base64 alone), fed in parts: the same key as
        // a checkpoint's state holds, without the text of the whole record built for it
        java.security.MessageDigest digest = Digests.sha256();
        if (key != null) {
            digest.update(Base64.getEncoder().encode(key));
            digest.update((byte) '|');
        }
        digest.update(Base64.getEncoder().encode(value));
        return "C|" + HexFormat.of().formatHex(digest.digest());
    }
}
