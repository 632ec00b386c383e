package io.cdcconformance.debezium;

import io.cdcconformance.shared.AvroGuard;
import io.cdcconformance.shared.Json;
import io.cdcconformance.shared.Readers;
import io.cdcconformance.shared.Records;

import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF8;
import scala.collection.Seq;

/**
 * {@code debezium-avro}: one Kafka record of Debezium through Kafka Connect's Avro converter (key and value each in the
 * Confluent wire format: magic byte 0, the writer schema's 4-byte id in the schema registry, the Avro datum). Each
 * schema is found by its id in the registry the seventh argument names (the eighth: the flattening SMT's settings,
 * {@link Flattening}) ({@link SchemaRegistryClient}, cached per
 * executor); the datum, read with it, is built as the document JsonConverter would have written ({@link AvroConnect}), and
 * debezium-json's reader does the rest. docs/formats/debezium-avro.md gives every decision and its source.
 */
public final class DebeziumAvroRecords extends DebeziumRecords
        implements UDF8<byte[], byte[], Seq<Row>, String, Integer, Long, String, String, Row> {
    private static final long serialVersionUID = 1L;
    static final byte MAGIC = 0;
    static final int HEADER = 5;

    @Override
    protected String formatId() {
        return "debezium-avro";
    }

    @Override
    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset, String registry,
                    String flattened) {
        return Readers.record(getClass().getSimpleName(), topic, partition, offset,
                () -> new Record(key, value, headers, topic, partition, offset, registry, flattening(flattened)).output());
    }

    @Override
    protected boolean textual(byte[] bytes) {
        return true;  // Avro's strings are checked by the guard (NOT_UTF8 is the wire problem then)
    }

    /** The part's wire format, its schema and datum read, as JsonConverter's document; null with the record's
     * quarantine set when any of it fails ({@code MALFORMED_AVRO}, {@code UNKNOWN_SCHEMA_ID}, {@code MALFORMED_KEY}). */
    @Override
    protected Json.Document document(byte[] bytes, String part, Record record) {
        String problem = null;
        Object payload = null;
        Schema schema = null;
        if (bytes.length < HEADER || bytes[0] != MAGIC) {
            problem = "MALFORMED_AVRO:the " + part + " is not in the schema registry's wire format (magic byte 0, a 4-byte schema id)";
        } else {
            int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
            schema = SchemaRegistryClient.schema((String) record.context, id);
            if (schema == null) {
                problem = "UNKNOWN_SCHEMA_ID:the " + part + "'s schema id " + Integer.toUnsignedString(id)
                        + " names no Avro schema in the schema registry";
            } else if (schema.getType() != Schema.Type.RECORD) {  // Connect's key and envelope are structs
                problem = "UNKNOWN_MESSAGE_SHAPE:the " + part + "'s schema (id " + Integer.toUnsignedString(id) + ") is no record";
            } else {
                AvroGuard.Guarded guarded = AvroGuard.tree(bytes, HEADER, schema, AvroConnect.TREE);
                if (AvroGuard.NOT_UTF8.equals(guarded.problem())) {
                    problem = "NOT_UTF8:a string of the " + part + "'s Avro datum is not UTF-8";
                } else if (!AvroGuard.OK.equals(guarded.problem())) {
                    problem = "MALFORMED_AVRO:the " + part + " is not one Avro datum of its schema (schema id " + Integer.toUnsignedString(id) + ")";
                } else {
                    payload = guarded.datum();  // already the document's payload (AvroConnect.TREE)
                }
            }
        }
        if (problem != null) {
            if (record.wireProblem == null || "value".equals(part)) {  // the value's problem first (read after the key's), as debezium-json's rules
                record.wireProblem = keyed(problem, part);
            }
            return Json.built(null);
        }
        return Json.built(AvroConnect.document(schema, payload));
    }

    /** A key that cannot be read is {@code MALFORMED_KEY}, whatever stops it, as debezium-json's. */
    private static String[] keyed(String problem, String part) {
        int colon = problem.indexOf(':');
        String code = "key".equals(part) && !problem.startsWith("NOT_UTF8") ? "MALFORMED_KEY" : problem.substring(0, colon);
        return Records.rule(code, problem.substring(colon + 1));
    }
}
