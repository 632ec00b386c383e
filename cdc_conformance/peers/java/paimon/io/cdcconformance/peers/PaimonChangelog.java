package io.cdcconformance.peers;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.kafka.shaded.org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.flink.streaming.connectors.kafka.KafkaDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.paimon.flink.action.cdc.CdcSourceRecord;
import org.apache.paimon.flink.action.cdc.TypeMapping;
import org.apache.paimon.flink.action.cdc.format.AbstractRecordParser;
import org.apache.paimon.flink.action.cdc.format.DataFormat;
import org.apache.paimon.flink.action.cdc.format.aliyun.AliyunDataFormat;
import org.apache.paimon.flink.action.cdc.format.canal.CanalDataFormat;
import org.apache.paimon.flink.action.cdc.format.debezium.DebeziumJsonDataFormat;
import org.apache.paimon.flink.sink.cdc.CdcRecord;
import org.apache.paimon.flink.sink.cdc.RichCdcMultiplexRecord;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.types.RowKind;

/**
 * Apache Paimon's CDC ingestion of one Kafka record, as its Kafka synchronization actions run it
 * ({@code kafka_sync_table}/{@code kafka_sync_database} with {@code value.format} canal-json, debezium-json or
 * aliyun-json): the format's Kafka deserializer ({@code DataFormat.createKafkaDeserializer}, with the action's empty
 * configuration) makes the record a {@code CdcSourceRecord}, and the format's record parser
 * ({@code createParser(TypeMapping.defaultMapping(), no computed columns)}) makes it Paimon's rows: a row kind and the
 * columns as text, which Paimon's sink casts to the table's types when it writes them. No Flink job runs: the parser is
 * a {@code FlatMapFunction} called with a collector, one instance per thread, as Flink runs one per task.
 *
 * <p>Output: {@code {"changes":[{"op":"INSERT|UPDATE|DELETE","before":{..},"after":{..}}],"error":null}}, an
 * UPDATE_BEFORE row and the UPDATE_AFTER row that follows it one update, and so a DELETE and the INSERT that follows it
 * (how Paimon's canal and Debezium parsers write an update); or the exception Paimon throws, which fails
 * the action's job ({@code "changes":[]}, {@code "error"}: its class and message, and its innermost cause's).
 */
public final class PaimonChangelog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ThreadLocal<Map<String, Reader>> READERS = ThreadLocal.withInitial(HashMap::new);

    private PaimonChangelog() {
    }

    /** A format's deserializer and parser, as the action builds them once per job. */
    private static final class Reader {
        final KafkaDeserializationSchema<CdcSourceRecord> deserializer;
        final AbstractRecordParser parser;

        Reader(DataFormat format) {
            deserializer = format.createKafkaDeserializer(new Configuration());
            parser = format.createParser(TypeMapping.defaultMapping(), Collections.emptyList());
        }
    }

    public static String decode(String format, String topic, byte[] key, byte[] value) {
        ObjectNode out = JSON.createObjectNode();
        ArrayNode changes = out.putArray("changes");
        out.putNull("error");
        try {
            Reader reader = READERS.get().computeIfAbsent(format, name -> new Reader(dataFormat(name)));
            List<CdcSourceRecord> sources = new ArrayList<>();
            reader.deserializer.deserialize(new ConsumerRecord<>(topic, 0, 0L, key, value), collector(sources));
            List<CdcRecord> rows = new ArrayList<>();
            for (CdcSourceRecord source : sources) {
                List<RichCdcMultiplexRecord> parsed = new ArrayList<>();
                reader.parser.flatMap(source, collector(parsed));
                for (RichCdcMultiplexRecord row : parsed) {
                    rows.add(row.toRichCdcRecord().toCdcRecord());
                }
            }
            addChanges(changes, rows);
        } catch (Exception | StackOverflowError | LinkageError error) {  // each fails Paimon's job: a refusal
            out.put("error", IsolatedPeer.failure(error));  // what the failed job's log says
            changes.removeAll();
        }
        return out.toString();
    }

    private static DataFormat dataFormat(String name) {
        switch (name) {
            case "canal-json":
                return new CanalDataFormat();
            case "debezium-json":
                return new DebeziumJsonDataFormat();
            case "aliyun-json":
                return new AliyunDataFormat();
            default:
                throw new IllegalArgumentException("no Paimon format " + name + " here");
        }
    }

    private static <T> Collector<T> collector(List<T> into) {
        return new Collector<T>() {
            @Override
            public void collect(T item) {
                into.add(item);
            }

            @Override
            public void close() {
            }
        };
    }

    private static void addChanges(ArrayNode changes, List<CdcRecord> rows) {
        for (int i = 0; i < rows.size(); i++) {
            CdcRecord row = rows.get(i);
            RowKind kind = row.kind();
            ObjectNode change = changes.addObject();
            if (kind == RowKind.INSERT) {
                change.put("op", "INSERT").set("after", image(row));
            } else if (kind == RowKind.DELETE && i + 1 < rows.size() && rows.get(i + 1).kind() == RowKind.INSERT) {
                // one record's DELETE and the INSERT after it: Paimon's update (its parsers write an update as the old
                // row's delete and the new row's insert, so that a key change moves the row): compared as one update,
                // as a Flink changelog's -U and +U are. A record holds one operation, so no two changes meet here
                change.put("op", "UPDATE").set("before", image(row));
                change.set("after", image(rows.get(++i)));
            } else if (kind == RowKind.DELETE) {
                change.put("op", "DELETE").set("before", image(row));
            } else {
                change.put("op", "UPDATE");
                if (kind == RowKind.UPDATE_BEFORE) {
                    change.set("before", image(row));
                    if (i + 1 < rows.size() && rows.get(i + 1).kind() == RowKind.UPDATE_AFTER) {
                        change.set("after", image(rows.get(++i)));
                    }
                } else {
                    change.set("after", image(row));
                }
            }
        }
    }

    private static ObjectNode image(CdcRecord row) {
        ObjectNode image = JSON.createObjectNode();
        for (Map.Entry<String, String> column : row.data().entrySet()) {
            if (column.getValue() == null) {
                image.putNull(column.getKey());
            } else {
                image.put(column.getKey(), column.getValue());
            }
        }
        return image;
    }
}
