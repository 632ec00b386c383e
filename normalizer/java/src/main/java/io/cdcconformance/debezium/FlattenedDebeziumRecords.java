package io.cdcconformance.debezium;

import io.cdcconformance.shared.Readers;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF7;
import scala.collection.Seq;

/**
 * {@code debezium-json} with the format option {@code flattened}: the records a connector wrote through Debezium's
 * {@code ExtractNewRecordState} SMT, whose settings the seventh argument gives ({@link Flattening}). Without the option
 * the pipeline reads with {@link DebeziumRecords}, one argument fewer.
 */
public final class FlattenedDebeziumRecords extends DebeziumRecords
        implements UDF7<byte[], byte[], Seq<Row>, String, Integer, Long, String, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset, String flattened) {
        return Readers.record(getClass().getSimpleName(), topic, partition, offset,
                () -> new Record(key, value, headers, topic, partition, offset, null, flattening(flattened)).output());
    }
}
