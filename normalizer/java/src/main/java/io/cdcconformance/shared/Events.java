package io.cdcconformance.shared;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Canonical events (model v1, cdc_conformance/model.py) built on the JVM, as Spark rows in the model's field order.
 * The decoders' UDFs are registered with the model's schema (normalizer/jvm_functions.py), so a field out of
 * place fails the job at once; {@link #FIELDS} is checked against {@code EVENT_SCHEMA} by a test.
 */
public final class Events {
    public static final List<String> FIELDS = List.of("event_id", "format", "format_version", "kind", "op", "snapshot",
            "source", "columns", "key", "before", "after", "pk_change", "position", "tx_id", "commit_ts", "emit_ts", "ddl",
            "message", "origin");

    private static final Map<String, Integer> INDEXES = indexes();

    private Events() {
    }

    private static Map<String, Integer> indexes() {
        Map<String, Integer> indexes = new java.util.HashMap<>();
        for (int i = 0; i < FIELDS.size(); i++) {
            indexes.put(FIELDS.get(i), i);
        }
        return Map.copyOf(indexes);
    }

    /** One event: set fields by name, then {@link #row}. */
    public static final class Event {
        private final Object[] values = new Object[FIELDS.size()];

        public Event set(String field, Object value) {
            Integer index = INDEXES.get(field);  // a hash the literal keeps, not a scan of the names (every field of every event)
            if (index == null) {
                throw new IllegalArgumentException("no event field " + field);
            }
            values[index] = value;
            return this;
        }

        public Event copy() {
            Event copy = new Event();
            System.arraycopy(values, 0, copy.values, 0, values.length);
            return copy;
        }

        public Row row() {
            return RowFactory.create(values);
        }
    }

    public static Row source(String system, String server, String database, String schema, String table) {
        return RowFactory.create(system, server, database, schema, table);
    }

    /** A column of the model: name (never null), position, source type, logical type, nullable, key position. */
    public static Row column(String name, Integer position, String sourceType, String logicalType, Boolean nullable,
                             Integer pkPosition) {
        return RowFactory.create(name == null ? "" : name, position, sourceType, logicalType, nullable, pkPosition);
    }

    public static Row keyEntry(String name, String value) {
        return RowFactory.create(name == null ? "" : name, value);
    }

    public static List<Row> keyEntries(List<String> names, Map<String, String> values) {
        List<Row> entries = new ArrayList<>(names.size());
        for (String name : names) {
            entries.add(keyEntry(name, values == null ? null : values.get(name)));
        }
        return entries;
    }

    public static Row position(String commit, String event, String seq) {
        return RowFactory.create(commit, event, seq);
    }

    public static Row pair(String first, String second) {
        return RowFactory.create(first, second);
    }

    public static List<Row> origin(String topic, Integer partition, Long offset) {
        return List.of(RowFactory.create(topic == null ? "" : topic, partition == null ? -1 : partition,
                offset == null ? -1L : offset));
    }

    public static String eventId(String topic, Integer partition, Long offset, int n) {
        return topic + "/" + partition + "/" + offset + "#" + n;
    }

    /** What a record becomes: its events, or the quarantine code and detail that replace them. */
    public static Row output(String code, String detail, List<Row> events) {
        return RowFactory.create(code, detail, code == null ? events : List.of());
    }

    /** The first instant that is there: a source's microseconds, else its milliseconds. */
    public static Instant first(Instant a, Instant b) {
        return a != null ? a : b;
    }
}
