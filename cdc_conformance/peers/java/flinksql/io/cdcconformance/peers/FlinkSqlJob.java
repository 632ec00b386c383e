package io.cdcconformance.peers;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Flink SQL jobs as a Flink user runs them over CDC topics: a Kafka table with the format and the typed columns its
 * user declares, {@code SELECT *} from it on Flink's local mini-cluster, its changelog rows collected
 * (cdc_conformance/peers/flink_sql.py drives it).
 *
 * <p>Requests come on standard input, one JSON document a line; each answer is one JSON line on standard output.
 * A request is one job: {@code {"bootstrap": "...", "tables": [{"id": 0, "topic": "...", "format": "debezium-json",
 * "options": {"debezium-json.ignore-parse-errors": "true", ...}, "columns": "`id` BIGINT, ...", "ranges": [[partition,
 * first offset, end offset], ...], "where": [["value.source.table", "orders"], ...]}, ...]}}: a Kafka table for each,
 * read over exactly those offsets (the end exclusive), filtered on the format's metadata where a topic carries several
 * source tables, their changelogs in one stream. Its answer: {@code {"rows": [{"table": 0, "kind": "+I", "partition":
 * 0, "offset": 7, "values": {"id": "1", ...}}], "error": null}}, or the job's failure as {@code error} (every message
 * of its cause chain: Flink's own names the record it could not read). The record's partition and offset are the
 * Kafka connector's metadata columns, which a user declares the same way.
 */
public final class FlinkSqlJob {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String PARTITION = "__cdc_conformance_partition";
    static final String OFFSET = "__cdc_conformance_offset";
    static final String METADATA = "__cdc_conformance_metadata_";

    private FlinkSqlJob() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);  // Flink's and Kafka's own printing stays off the answers' stream
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Configuration configuration = new Configuration();
        configuration.set(CoreOptions.DEFAULT_PARALLELISM, 1);
        StreamTableEnvironment sql = StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment(configuration));
        int tables = 0;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (!line.isBlank()) {
                JsonNode request = JSON.readTree(line);
                out.println(run(sql, request, tables).toString());
                tables += request.get("tables").size();
            }
        }
    }

    /** One job: every table of the request read, their changelogs in one stream, collected. */
    static ObjectNode run(StreamTableEnvironment sql, JsonNode request, int first) {
        ObjectNode answer = JSON.createObjectNode();
        ArrayNode rows = answer.putArray("rows");
        answer.putNull("error");
        List<String> names = new ArrayList<>();
        try {
            DataStream<String> changes = null;
            for (JsonNode table : request.get("tables")) {
                String name = "cdc_table_" + (first + names.size());
                names.add(name);
                sql.executeSql(ddl(request.get("bootstrap").asText(), table, name));
                Table read = sql.sqlQuery("SELECT * FROM `" + name + "`" + where(table.get("where")));
                DataStream<String> changelog = sql.toChangelogStream(read)
                        .map(new Change(table.get("id").asInt(), read.getResolvedSchema().getColumnNames()));
                changes = changes == null ? changelog : changes.union(changelog);
            }
            if (changes != null) {
                try (CloseableIterator<String> collected = changes.executeAndCollect("cdc-conformance peer")) {
                    while (collected.hasNext()) {
                        rows.add(JSON.readTree(collected.next()));
                    }
                }
            }
        } catch (Throwable error) {
            rows.removeAll();
            answer.put("error", messages(error));
        } finally {
            names.forEach(name -> sql.executeSql("DROP TEMPORARY TABLE IF EXISTS `" + name + "`"));
        }
        return answer;
    }

    /** A changelog row as JSON: its table's id, its kind, the record's partition and offset, its values as text. */
    static final class Change implements MapFunction<Row, String> {
        private final int table;
        private final String[] names;

        Change(int table, List<String> names) {
            this.table = table;
            this.names = names.toArray(new String[0]);
        }

        @Override
        public String map(Row row) {
            ObjectNode out = JSON.createObjectNode();
            out.put("table", table).put("kind", row.getKind().shortString());
            ObjectNode values = JSON.createObjectNode();
            for (int i = 0; i < names.length; i++) {
                Object value = row.getField(i);
                if (PARTITION.equals(names[i])) {
                    out.put("partition", (Integer) value);
                } else if (OFFSET.equals(names[i])) {
                    out.put("offset", (Long) value);
                } else if (names[i].startsWith(METADATA)) {
                    continue;  // a source table's name, which the query filters on
                } else if (value == null) {
                    values.putNull(names[i]);
                } else {
                    values.put(names[i], text(value));
                }
            }
            out.set("values", values);
            return out.toString();
        }
    }

    static String ddl(String bootstrap, JsonNode request, String table) {
        StringBuilder ranges = new StringBuilder();
        StringBuilder ends = new StringBuilder();
        for (JsonNode range : request.get("ranges")) {
            String partition = "partition:" + range.get(0).asInt() + ",offset:";
            ranges.append(ranges.length() == 0 ? "" : ";").append(partition).append(range.get(1).asLong());
            ends.append(ends.length() == 0 ? "" : ";").append(partition).append(range.get(2).asLong());
        }
        StringBuilder with = new StringBuilder();
        option(with, "connector", "kafka");
        option(with, "topic", request.get("topic").asText());
        option(with, "properties.bootstrap.servers", bootstrap);
        option(with, "scan.startup.mode", "specific-offsets");
        option(with, "scan.startup.specific-offsets", ranges.toString());
        option(with, "scan.bounded.mode", "specific-offsets");
        option(with, "scan.bounded.specific-offsets", ends.toString());
        option(with, "format", request.get("format").asText());
        request.get("options").fields().forEachRemaining(o -> option(with, o.getKey(), o.getValue().asText()));
        String columns = request.get("columns").asText();
        StringBuilder metadata = new StringBuilder();
        for (int i = 0; i < request.get("where").size(); i++) {
            metadata.append(", `").append(METADATA).append(i).append("` STRING METADATA FROM ")
                    .append(literal(request.get("where").get(i).get(0).asText())).append(" VIRTUAL");
        }
        return "CREATE TEMPORARY TABLE `" + table + "` (" + (columns.isBlank() ? "" : columns + ", ")
                + "`" + PARTITION + "` INT METADATA FROM 'partition' VIRTUAL, `" + OFFSET
                + "` BIGINT METADATA FROM 'offset' VIRTUAL" + metadata + ") WITH (" + with + ")";
    }

    /** The filter on the source table's name, for a topic that carries several tables (none otherwise). */
    static String where(JsonNode where) {
        List<String> terms = new ArrayList<>();
        for (int i = 0; i < where.size(); i++) {
            JsonNode value = where.get(i).get(1);
            terms.add("`" + METADATA + i + "`" + (value.isNull() ? " IS NULL" : " = " + literal(value.asText())));
        }
        return terms.isEmpty() ? "" : " WHERE " + String.join(" AND ", terms);
    }

    private static void option(StringBuilder with, String key, String value) {
        with.append(with.length() == 0 ? "" : ", ").append(literal(key)).append(" = ").append(literal(value));
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    /** A value of a collected row as text, in the spelling the model's comparison reads (FlinkChangelog.text's). */
    static String text(Object value) {
        if (value instanceof BigDecimal) {
            return ((BigDecimal) value).toPlainString();
        }
        if (value instanceof LocalTime) {
            return DateTimeFormatter.ISO_LOCAL_TIME.format((LocalTime) value);
        }
        if (value instanceof LocalDateTime) {
            return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format((LocalDateTime) value);
        }
        if (value instanceof byte[]) {
            return new String((byte[]) value, StandardCharsets.ISO_8859_1);
        }
        if (value instanceof Object[]) {
            ArrayNode elements = JSON.createArrayNode();
            for (Object element : (Object[]) value) {
                elements.add(element == null ? null : element.toString());
            }
            return elements.toString();
        }
        return value.toString();  // String, the boxed numbers and booleans, LocalDate, Instant
    }

    /** Every message of the cause chain, outermost first. */
    static String messages(Throwable error) {
        List<String> said = new ArrayList<>();
        for (Throwable cause = error; cause != null && said.size() < 12; cause = cause.getCause()) {
            said.add(cause.getClass().getName() + ": " + cause.getMessage());
            if (cause.getCause() == cause) {
                break;
            }
        }
        return String.join("\n", said);
    }
}
