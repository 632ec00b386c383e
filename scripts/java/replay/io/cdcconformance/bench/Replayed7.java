package io.cdcconformance.bench;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF7;
import scala.collection.Seq;

/** A record reader of 6 arguments, replayed ({@link ReplayedReader}); the last argument names it. */
public final class Replayed7 extends ReplayedReader implements UDF7<byte[], byte[], Seq<Row>, String, Integer, Long, String, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset, String reader) {
        return replayed(reader, new Object[]{key, value, headers, topic, partition, offset});
    }
}
