package io.cdcconformance.bench;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF9;
import scala.collection.Seq;

/** A record reader of 8 arguments, replayed ({@link ReplayedReader}); the last argument names it. */
public final class Replayed9 extends ReplayedReader implements UDF9<byte[], byte[], Seq<Row>, String, Integer, Long, String, String, String, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset, String option0, String option1, String reader) {
        return replayed(reader, new Object[]{key, value, headers, topic, partition, offset, option0, option1});
    }
}
