package io.cdcconformance.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Function1;

/**
 * The reader ceiling without Spark's conversion: what a reader writing Spark's internal rows directly (as spark-avro's
 * expression does) would reach if reading cost nothing. Called by a Catalyst {@code StaticInvoke} (a bench-only plan,
 * scripts/reader_ceiling.py), it returns the record's output that {@link ReplayedReader} kept, converted to an internal
 * row once, from then on replayed as it is.
 */
public final class ReplayedInternal {
    private static final Map<String, InternalRow> OUTPUTS = new ConcurrentHashMap<>();
    private static final Map<String, Function1<Object, Object>> CONVERTERS = new ConcurrentHashMap<>();

    /** The reader and topic whose rows are kept: one at a time, as {@link ReplayedReader}'s. */
    private static volatile String kept = "";

    private ReplayedInternal() {
    }

    public static InternalRow read(UTF8String reader, UTF8String schema, UTF8String topic, int partition, long offset) {
        String readerTopic = reader + "|" + topic;
        if (!kept.equals(readerTopic)) {
            keepOnly(readerTopic);
        }
        String record = partition + "/" + offset;
        InternalRow output = OUTPUTS.get(record);
        if (output == null) {
            Row kept = ReplayedReader.kept(reader.toString(), topic.toString(), partition, offset);
            if (kept == null) {
                throw new IllegalStateException("no output kept for " + readerTopic + " " + record + ": run the replayed reader's pass first");
            }
            Function1<Object, Object> converter = CONVERTERS.computeIfAbsent(schema.toString(),
                    json -> CatalystTypeConverters.createToCatalystConverter(DataType.fromJson(json)));
            output = (InternalRow) converter.apply(kept);
            OUTPUTS.put(record, output);
        }
        return output;
    }

    private static synchronized void keepOnly(String readerTopic) {
        if (!kept.equals(readerTopic)) {
            OUTPUTS.clear();
            kept = readerTopic;
        }
    }
}
