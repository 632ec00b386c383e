package io.cdcconformance.bench;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF8;
import scala.collection.Seq;

/** A record reader of 7 arguments, replayed ({@link ReplayedReader}); the last argument names it. */
public final class Replayed8 extends ReplayedReader implements UDF8<byte[], byte[], Seq<Row>, String, Integer, Long, String, String, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset, String option0, String reader) {
        return replayed(reader, new Object[]{key, value, headers, topic, partition, offset, option0});
    }
}
