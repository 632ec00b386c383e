package io.cdcconformance.shared;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;

/**
 * The one check every event passes before it leaves a reader (issue 39 B): whatever a reader got wrong, no event
 * outside the model leaves the JVM. Every text is well-formed Unicode; every value and key value is canonical text
 * of its column's logical type ({@link ModelGrammar}); column and key names are non-empty and unique (a key column
 * need not be among {@code columns}: CES lists only the columns its images supply); instants lie in years 0001-9999. A violation replaces the record's events
 * with a quarantine naming the field's path: {@code UNDECODABLE_VALUE} for a value, {@code SCHEMA_MISMATCH} for a
 * name.
 */
public final class ModelExit {
    private static final int COLUMNS = Events.FIELDS.indexOf("columns");
    private static final int POSITION = Events.FIELDS.indexOf("position");
    private static final List<String> POSITION_PARTS = List.of("commit", "event", "seq");
    private static final int KEY = Events.FIELDS.indexOf("key");
    private static final int BEFORE = Events.FIELDS.indexOf("before");
    private static final int AFTER = Events.FIELDS.indexOf("after");
    private static final int COMMIT_TS = Events.FIELDS.indexOf("commit_ts");
    private static final int EMIT_TS = Events.FIELDS.indexOf("emit_ts");
    /** Top-level text fields, and struct fields whose members are all texts. */
    private static final List<String> TEXTS = List.of("event_id", "format", "format_version", "kind", "op", "tx_id");
    private static final int[] TEXT_INDEXES = TEXTS.stream().mapToInt(Events.FIELDS::indexOf).toArray();
    private static final List<List<String>> TEXT_STRUCTS = List.of(
            List.of("source", "system", "server", "database", "schema", "table"), List.of("pk_change", "group", "role"),
            List.of("position", "commit", "event", "seq"), List.of("ddl", "statement", "change"),
            List.of("message", "prefix", "content"));
    private static final int[] STRUCT_INDEXES = TEXT_STRUCTS.stream().mapToInt(s -> Events.FIELDS.indexOf(s.get(0))).toArray();
    private static final Instant FIRST = Instant.ofEpochSecond(Canonical.MIN_EPOCH_SECOND);
    private static final Instant LAST = Instant.ofEpochSecond(Canonical.MAX_EPOCH_SECOND, 999_999_999);

    private ModelExit() {
    }

    /** A reader's output ({@code RECORD_OUTPUT}: code, detail, events) as it may leave: unchanged, or the record's
     * quarantine when one of its events leaves the model. */
    public static Row checked(Row output) {
        if (output.get(0) != null) {
            return output;
        }
        List<?> events = (List<?>) output.get(2);  // the readers build Java lists and maps; Spark converts them later
        for (Object event : events) {
            String[] violation = violation((Row) event);
            if (violation != null) {
                return Events.output(violation[0], violation[1], null);
            }
        }
        return output;
    }

    /** The first thing in {@code event} outside the model: {code, detail}; null when there is none. */
    public static String[] violation(Row event) {
        for (int t = 0; t < TEXT_INDEXES.length; t++) {
            String problem = textProblem(event.get(TEXT_INDEXES[t]));
            if (problem != null) {
                return value(TEXTS.get(t) + ": " + problem);
            }
        }
        for (Enumerated field : ENUMERATED) {
            String problem = ModelGrammar.enumerationProblem(field.allowed, field.text(event));
            if (problem != null) {
                return value(field.path + ": " + problem);
            }
        }
        Row position = (Row) event.get(POSITION);
        for (int i = 0; position != null && i < position.size(); i++) {
            String problem = ModelGrammar.positionProblem(POSITION_PARTS.get(i), (String) position.get(i));
            if (problem != null) {
                return value("position." + POSITION_PARTS.get(i) + ": " + problem);
            }
        }
        for (int s = 0; s < STRUCT_INDEXES.length; s++) {
            Row members = (Row) event.get(STRUCT_INDEXES[s]);
            for (int i = 0; members != null && i < members.size(); i++) {
                String problem = textProblem(members.get(i));
                if (problem != null) {
                    return value(TEXT_STRUCTS.get(s).get(0) + "." + TEXT_STRUCTS.get(s).get(i + 1) + ": " + problem);
                }
            }
        }
        SharedColumns.Checked checked = event.get(COLUMNS) instanceof SharedColumns shared
                ? shared.checked(ModelExit::checkColumns) : checkColumns((List<?>) event.get(COLUMNS));
        if (checked.violation() != null) {
            return checked.violation();
        }
        Map<String, String> logical = checked.logical();
        String[] key = key(event, logical);
        if (key != null) {
            return key;
        }
        for (int image : new int[] {BEFORE, AFTER}) {
            String[] problem = image(event, image, logical);
            if (problem != null) {
                return problem;
            }
        }
        for (int instant : new int[] {COMMIT_TS, EMIT_TS}) {
            Instant at = instant(event.get(instant));
            if (at != null && (at.isBefore(FIRST) || at.isAfter(LAST))) {
                return value(Events.FIELDS.get(instant) + ": outside years 0001-9999");
            }
        }
        return null;
    }

    /** A field with a closed list ({@code op}, {@code ddl.change}): a top-level field, or a member of a struct of
     * texts, found by index once (every event leaving a reader is asked). */
    private record Enumerated(String path, int field, int member, List<String> allowed) {
        static Enumerated of(String path) {
            int dot = path.indexOf('.');
            if (dot < 0) {
                return new Enumerated(path, Events.FIELDS.indexOf(path), -1, ModelGrammar.enumeration(path));
            }
            String struct = path.substring(0, dot);
            for (List<String> members : TEXT_STRUCTS) {
                if (members.get(0).equals(struct)) {
                    return new Enumerated(path, Events.FIELDS.indexOf(struct), members.indexOf(path.substring(dot + 1)) - 1,
                            ModelGrammar.enumeration(path));
                }
            }
            throw new IllegalStateException("model-grammar.json lists " + path + ", which is no text of an event");
        }

        String text(Row event) {
            if (member < 0) {
                return (String) event.get(field);
            }
            Row struct = (Row) event.get(field);
            return struct == null ? null : (String) struct.get(member);
        }
    }

    private static final List<Enumerated> ENUMERATED = ModelGrammar.enumeratedFields().stream().map(Enumerated::of).toList();

    /** The columns' verdict, and each name's logical type (read only after this: a shared list's is every event's). */
    private static SharedColumns.Checked checkColumns(List<?> columns) {
        Map<String, String> logical = new SmallMap<>();
        return new SharedColumns.Checked(columns(columns, logical), logical);
    }

    private static String[] columns(List<?> columns, Map<String, String> logical) {
        for (int i = 0; columns != null && i < columns.size(); i++) {
            Row column = (Row) columns.get(i);
            String name = column.getString(0);
            if (name == null || name.isEmpty()) {
                return schema("columns[" + i + "].name: empty");
            }
            for (int field : new int[] {0, 2, 3}) {
                String problem = textProblem(column.get(field));
                if (problem != null) {
                    return schema("columns[" + i + "]: " + problem);
                }
            }
            if (logical.containsKey(name)) {
                return schema("columns[" + i + "].name: " + shown(name) + " named twice");
            }
            logical.put(name, column.getString(3));
        }
        return null;
    }

    private static String[] key(Row event, Map<String, String> logical) {
        List<?> key = (List<?>) event.get(KEY);
        Set<String> names = new HashSet<>();
        for (int i = 0; key != null && i < key.size(); i++) {
            Row entry = (Row) key.get(i);
            String name = entry.getString(0);
            if (name == null || name.isEmpty() || !ModelGrammar.wellFormed(name)) {
                return schema("key[" + i + "].name: empty or not well-formed");
            }
            if (!names.add(name)) {
                return schema("key[" + i + "].name: " + shown(name) + " named twice");
            }
            String problem = ModelGrammar.problem(logical.get(name), entry.getString(1));
            if (problem != null) {
                return value("key." + shown(name) + ": " + problem);
            }
        }
        return null;
    }

    private static String[] image(Row event, int index, Map<String, String> logical) {
        Map<?, ?> image = (Map<?, ?>) event.get(index);
        if (image == null) {
            return null;
        }
        for (Map.Entry<?, ?> cell : image.entrySet()) {
            String name = (String) cell.getKey();
            String type = logical.get(name);
            boolean declared = type != null || logical.containsKey(name);  // a column's name, found well-formed already
            if (!declared && (name == null || !ModelGrammar.wellFormed(name))) {
                return schema(Events.FIELDS.get(index) + ": a column name that is not well-formed");
            }
            String problem = ModelGrammar.problem(type, (String) cell.getValue());
            if (problem != null) {
                return value(Events.FIELDS.get(index) + "." + shown(name) + ": " + problem);
            }
        }
        return null;
    }

    private static String textProblem(Object text) {
        return text instanceof String && !ModelGrammar.wellFormed((String) text) ? "not well-formed Unicode (a lone surrogate)" : null;
    }

    private static Instant instant(Object value) {
        return value instanceof Instant ? (Instant) value : value instanceof Timestamp ? ((Timestamp) value).toInstant() : null;
    }

    /** A name as the detail shows it: at most 64 characters, never a lone surrogate. */
    private static String shown(String name) {
        String cut = name.length() > 64 ? name.substring(0, 64) + "…" : name;
        return ModelGrammar.wellFormed(cut) ? cut : "(not well-formed)";
    }

    private static String[] value(String detail) {
        return new String[] {"UNDECODABLE_VALUE", "the event leaves the model at " + detail};
    }

    private static String[] schema(String detail) {
        return new String[] {"SCHEMA_MISMATCH", "the event leaves the model at " + detail};
    }
}
