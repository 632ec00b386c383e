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
    private static final KeptOutputs<InternalRow> OUTPUTS = new KeptOutputs<>();
    private static final Map<String, Function1<Object, Object>> CONVERTERS = new ConcurrentHashMap<>();

    private ReplayedInternal() {
    }

    public static InternalRow read(UTF8String reader, UTF8String schema, UTF8String topic, int partition, long offset) {
        String readerTopic = reader + "|" + topic;
        String record = partition + "/" + offset;
        InternalRow output = OUTPUTS.get(readerTopic, record);
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
}
