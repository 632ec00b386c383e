import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cdc.connectors.mysql.source.MySqlSource;
import org.apache.flink.cdc.connectors.mysql.table.StartupOptions;
import org.apache.flink.cdc.debezium.JsonDebeziumDeserializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;

/**
 * Flink CDC's MySQL source as its users run it (the real-producer tier, docs/producers.md): a local Flink mini-cluster
 * reads a table's snapshot and then its binlog with {@code JsonDebeziumDeserializationSchema}, and each record's JSON
 * text is appended to a file, one line each, as a Flink Kafka sink of those strings would write the records' values.
 * Arguments: host port user password databases tables output-file include-schema (true|false), the databases and
 * the tables ({@code db.table}) as Flink CDC takes them, regular expressions. It runs until killed.
 */
public final class FlinkCdcCapture {
    private FlinkCdcCapture() {
    }

    /** Appends each record as a line; one sink instance (parallelism 1), so the file holds them in the source's order. */
    static final class LineSink implements SinkFunction<String> {
        private final String path;
        private transient OutputStream out;

        LineSink(String path) {
            this.path = path;
        }

        @Override
        public synchronized void invoke(String value, Context context) throws Exception {
            if (out == null) {
                out = new FileOutputStream(path, true);
            }
            out.write((value + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    public static void main(String[] args) throws Exception {
        MySqlSource<String> source = MySqlSource.<String>builder()
                .hostname(args[0]).port(Integer.parseInt(args[1])).username(args[2]).password(args[3])
                .databaseList(args[4]).tableList(args[5])
                .serverTimeZone("UTC")
                .startupOptions(StartupOptions.initial())
                .deserializer(new JsonDebeziumDeserializationSchema(Boolean.parseBoolean(args[7])))
                .build();
        Configuration configuration = new Configuration();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, configuration);
        env.enableCheckpointing(1000);
        // a failure ends the capture with its cause (the default with checkpoints restarts forever, silently)
        env.setRestartStrategy(org.apache.flink.api.common.restartstrategy.RestartStrategies.noRestart());
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "mysql-cdc").setParallelism(1)
                .addSink(new LineSink(args[6])).setParallelism(1);
        env.execute("cdc-conformance flink-cdc capture");
    }
}
