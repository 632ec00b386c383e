package io.cdcconformance.dataworks;

import io.cdcconformance.shared.*;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import scala.collection.Iterator;
import scala.collection.Seq;

/**
 * {@code dataworks-json}, one assembled group (stages 3 and 4 of normalizer/dataworks.py): a pair of update halves,
 * or a record with its identical copies, as one change: its columns and row images typed by the six DataWorks
 * types, the rules, and its events (an update that changes the key becomes DELETE + INSERT). Members arrive sorted
 * (the BEFORE half first, then by partition and offset) with the fields of normalizer.assembly. docs/formats/dataworks-json.md.
 */
public class DataWorksChanges implements UDF1<Seq<Row>, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    /** op -> kind, canonical op, ddl.change: canal's EventType with UPDATE split in two halves and the transaction marks */
    public static final Map<String, String[]> OPERATIONS = operations();
    /** Where primaryKey is null, the row id the source adds identifies the row (RDS MySQL, Oracle). */
    public static final List<String> ROW_ID_COLUMNS = List.of("#alibaba_rds_row_id#", "rowid");
    /** DataWorks maps every source type to six, and writes values as JSON: Connect's JSON encoding. */
    public static final Map<String, String> TYPES = Map.of("LONG", "INT64", "DOUBLE", "FLOAT64", "BOOLEAN", "BOOLEAN",
            "STRING", "STRING", "BYTES", "BYTES", "DATE", "TIMESTAMP(3)");

    private static Map<String, String[]> operations() {
        Map<String, String[]> ops = new LinkedHashMap<>(RowsRecords.EVENT_TYPES);
        ops.remove("UPDATE");
        ops.put("UPDATE_AFTER", new String[] {"ROW", "UPDATE", null});  // one-record mode, or the pair the halves become
        ops.put("TRANSACTION_BEGIN", new String[] {"TX_BEGIN", null, null});
        ops.put("TRANSACTION_END", new String[] {"TX_END", null, null});
        return Map.copyOf(ops);
    }

    /** One member of a group, as normalizer.assembly gives it. */
    public static final class Member {
        final String half;
        final String topic;
        final Integer partition;
        final Long offset;
        final byte[] value;
        final Row rejection;
        final Map<String, Object> document;

        Member(Row row) {
            half = row.getAs("half");
            topic = row.getAs("topic");
            partition = row.getAs("partition");
            offset = row.getAs("offset");
            value = row.getAs("value");
            rejection = row.getAs("rejection");
            document = value == null ? null : DataWorksRecords.parse(Json.read(value));
        }
    }

    public record Cell(String name, boolean present, String raw, String value) {
    }

    @Override
    public Row call(Seq<Row> rows) {
        return Readers.events(getClass().getSimpleName(), () -> read(rows));
    }

    private Row read(Seq<Row> rows) {
        List<Member> members = new ArrayList<>(rows.size());
        Iterator<Row> it = rows.iterator();
        while (it.hasNext()) {
            members.add(new Member(it.next()));
        }
        Member head = members.get(0);
        if (head.rejection != null) {  // a rejected record: its own verdict stands
            return Events.output(head.rejection.getString(1), head.rejection.getString(2), null);
        }
        return new Change(members).output();
    }

    public final class Change {
        final List<Member> members;
        final Member head;
        final List<Member> befores = new ArrayList<>();
        final List<Member> afters = new ArrayList<>();
        final Map<String, Object> schema;
        final Map<String, Object> payload;
        final Map<String, Object> beforeRaw;
        final Map<String, Object> afterRaw;
        final String opRaw;
        final String kind;
        final String op;
        final String ddlChange;
        final List<Map<String, Object>> dataColumns;
        final List<String> names;
        final List<String> keyNames;
        final boolean badColumns;
        final List<String[]> columns;   // name, type, logical
        final List<Cell> beforeCells;
        final List<Cell> afterCells;

        Change(List<Member> members) {
            this.members = members;
            head = members.get(0);
            for (Member member : members) {
                if ("BEFORE".equals(member.half)) {
                    befores.add(member);
                } else if ("AFTER".equals(member.half)) {
                    afters.add(member);
                }
            }
            Map<String, Object> firstAfter = afters.isEmpty() ? null : afters.get(0).document;
            Map<String, Object> afterSchema = DataWorksRecords.at(firstAfter, "schema");
            schema = afterSchema != null ? afterSchema : DataWorksRecords.at(head.document, "schema");
            payload = DataWorksRecords.at(head.document, "payload");
            beforeRaw = DataWorksRecords.at(payload, "before", "dataColumn");
            Map<String, Object> pairedAfter = DataWorksRecords.at(firstAfter, "payload", "after", "dataColumn");
            afterRaw = pairedAfter != null ? pairedAfter : DataWorksRecords.at(payload, "after", "dataColumn");
            opRaw = befores.isEmpty() ? Json.text(payload, "op") : "UPDATE_AFTER";
            String[] parts = opRaw == null ? null : OPERATIONS.get(opRaw);
            kind = parts == null ? null : parts[0];
            op = parts == null ? null : parts[1];
            ddlChange = parts == null ? null : parts[2];
            dataColumns = new ArrayList<>();
            names = new ArrayList<>();
            List<Object> declared = schema == null ? null : Json.array(schema.get("dataColumn"));
            if (declared != null) {
                for (Object item : declared) {
                    Map<String, Object> column = Json.object(item);
                    dataColumns.add(column);
                    names.add(Json.text(column, "name"));
                }
            }
            badColumns = new HashSet<>(names).size() < names.size() || names.contains(null);
            keyNames = keyNames(declared == null ? null : names);
            columns = "ROW".equals(kind) && !badColumns ? typedColumns() : null;
            beforeCells = cells(beforeRaw);
            afterCells = cells(afterRaw);
        }

        List<String> keyNames(List<String> declared) {
            List<Object> primary = schema == null ? null : Json.array(schema.get("primaryKey"));
            if (primary != null && !primary.isEmpty()) {
                List<String> key = new ArrayList<>(primary.size());
                for (Object name : primary) {
                    key.add(Json.text(name));
                }
                return key;
            }
            // primaryKey null (or empty): the row id the source adds, when the table has one; else no key
            for (String rowId : ROW_ID_COLUMNS) {
                if (declared != null && declared.contains(rowId)) {
                    return List.of(rowId);
                }
            }
            return null;
        }

        List<String[]> typedColumns() {
            List<String[]> out = new ArrayList<>(dataColumns.size());
            for (Map<String, Object> column : dataColumns) {
                String type = Json.text(column, "type");
                out.add(new String[] {Json.text(column, "name"), type, type == null ? null : TYPES.get(type.trim().toUpperCase(Locale.ROOT))});
            }
            return out;
        }

        List<Cell> cells(Map<String, Object> image) {
            if (image == null || columns == null) {
                return null;
            }
            List<Cell> cells = new ArrayList<>(columns.size());
            for (String[] column : columns) {
                String written = Json.text(image.get(column[0]));
                // a MySQL zero date written as text is SQL NULL, as Debezium gives it
                String raw = MySqlTypes.isZeroDate(written, column[2]) ? null : written;
                cells.add(new Cell(column[0], image.containsKey(column[0]), raw, ConnectTypes.convert(raw, column[2])));
            }
            return cells;
        }

        Map<String, String> image(List<Cell> cells) {
            if (cells == null) {
                return null;
            }
            Map<String, String> image = new SmallMap<>();
            for (Cell cell : cells) {
                if (cell.present()) {
                    image.put(cell.name(), cell.value());
                }
            }
            return image;
        }

        String sequenceId() {
            return Json.text(payload, "sequenceId");
        }

        // -----------------------------------------------------------------------------------------------------
        // Rules
        // -----------------------------------------------------------------------------------------------------

        String[] verdict() {
            boolean halves = !befores.isEmpty() || !afters.isEmpty();
            boolean row = "ROW".equals(kind);
            if (halves && !(distinctValues(befores) == 1 && distinctValues(afters) == 1)) {
                String why = afters.isEmpty() ? "no UPDATE_AFTER" : befores.isEmpty() ? "no UPDATE_BEFOR"
                        : "halves sent twice with different content";
                return Records.rule("UNPAIRED_UPDATE_HALF", sequenceId() == null ? null : "sequenceId " + sequenceId() + ": " + why);
            }
            if (halves && !Objects.equals(schemaAsRead(befores.get(0).document), schemaAsRead(afters.get(0).document))) {
                return Records.rule("SCHEMA_MISMATCH", "the two halves carry different schemas");
            }
            if (row && (schema == null || Json.array(schema.get("dataColumn")) == null
                    || Json.text(DataWorksRecords.at(schema, "source"), "tableName") == null)) {
                return Records.rule("MISSING_FIELD", "a row change needs schema.dataColumn and schema.source.tableName");
            }
            if (row && badColumns) {
                return Records.rule("SCHEMA_MISMATCH", "schema.dataColumn declares a column twice or without a name");
            }
            if (row && keyNames != null && (new HashSet<>(keyNames).size() < keyNames.size() || keyNames.stream().anyMatch(
                    n -> n == null || !names.contains(n)))) {
                return Records.rule("SCHEMA_MISMATCH", "schema.primaryKey names a column twice or one dataColumn lacks");
            }
            if (columns != null) {
                for (String[] column : columns) {
                    if (column[2] == null) {
                        return Records.rule("UNKNOWN_COLUMN_TYPE", column[1] == null ? null : "column type " + column[1]);
                    }
                }
            }
            if (row && (undeclared(beforeRaw) || undeclared(afterRaw))) {
                return Records.rule("SCHEMA_MISMATCH", "a row image has a column schema.dataColumn does not declare");
            }
            if (("INSERT".equals(op) && beforeRaw != null) || ("DELETE".equals(op) && afterRaw != null)) {
                return Records.rule("UNEXPECTED_IMAGE", opRaw + " with a row image it cannot have");
            }
            if ((("INSERT".equals(op) || "UPDATE".equals(op)) && afterRaw == null) || (("DELETE".equals(op) || "UPDATE".equals(op)) && beforeRaw == null)) {
                return Records.rule("MISSING_FIELD", opRaw + " without its row image");
            }
            if (row && (undecodable(beforeCells) || undecodable(afterCells))) {
                return Records.rule("UNDECODABLE_VALUE", "a value does not match its column type");
            }
            if (("UPDATE".equals(op) || "DELETE".equals(op)) && Keys.oldKeyMissing(keyNames, Records.textMap(beforeRaw))) {
                return Records.rule("MISSING_OLD_KEY", "the before image lacks a key column or holds NULL for one: which row changed is unknown");
            }
            return null;
        }

        int distinctValues(List<Member> halves) {
            if (halves.size() <= 1) {
                return halves.size();  // the usual half: no set, no hash of its bytes
            }
            java.util.Set<java.nio.ByteBuffer> values = new HashSet<>();
            for (Member member : halves) {
                values.add(member.value == null ? null : java.nio.ByteBuffer.wrap(member.value));
            }
            return values.size();
        }

        boolean undeclared(Map<String, Object> image) {
            return image != null && !new HashSet<>(names).containsAll(image.keySet());
        }

        boolean undecodable(List<Cell> cells) {
            if (cells != null) {
                for (Cell cell : cells) {
                    if (cell.raw() != null && cell.value() == null) {
                        return true;
                    }
                }
            }
            return false;
        }

        // -----------------------------------------------------------------------------------------------------
        // Events
        // -----------------------------------------------------------------------------------------------------

        Row output() {
            String[] verdict = verdict();
            return verdict != null ? Events.output(verdict[0], verdict[1], null) : Events.output(null, null, events());
        }

        List<Row> events() {
            boolean row = "ROW".equals(kind);
            Map<String, Object> source = DataWorksRecords.at(schema, "source");
            Row sourceRow = source == null ? null : Events.source(lower(Json.text(source, "dbType")), null, Json.text(source, "dbName"),
                    Json.text(source, "schemaName"), Json.text(source, "tableName"));
            String commit = Canonical.fixedWidth(sequenceId(), 20);
            Map<String, String> before = image(beforeCells);
            Map<String, String> after = image(afterCells);
            List<Row> columnRows = null;
            if (columns != null) {
                columnRows = new ArrayList<>(columns.size());
                for (int i = 0; i < columns.size(); i++) {
                    int key = keyNames == null ? -1 : keyNames.indexOf(columns.get(i)[0]);
                    columnRows.add(Events.column(columns.get(i)[0], i + 1, columns.get(i)[1], columns.get(i)[2], null,
                            key < 0 ? null : key + 1));
                }
            }
            Map<String, Object> ddl = DataWorksRecords.at(payload, "ddl");
            Member first = members.get(0);
            List<Row> origin = new ArrayList<>(members.size());
            for (Member member : members) {
                origin.addAll(Events.origin(member.topic, member.partition, member.offset));
            }
            Events.Event event = new Events.Event().set("event_id", Events.eventId(first.topic, first.partition, first.offset, 0))
                    .set("format", "dataworks-json").set("format_version", Json.text(head.document, "version")).set("kind", kind)
                    .set("op", op).set("snapshot", row ? false : null).set("source", sourceRow).set("columns", SharedColumns.repeated(columnRows))
                    .set("key", row ? key(before, after, op) : null).set("before", row && !"INSERT".equals(op) ? before : null)
                    .set("after", row && !"DELETE".equals(op) ? after : null)
                    .set("position", sequenceId() == null ? null : Events.position(commit, null, Keys.OLD_SEQ))
                    .set("commit_ts", time("eventTime")).set("emit_ts", time("systemTime"))
                    .set("ddl", ddlChange == null ? null : Events.pair(Json.text(ddl, "text"), ddlChange)).set("origin", origin);
            if (!("UPDATE".equals(op) && Keys.keyChanged(keyNames, before, after))) {
                return List.of(event.row());
            }
            String group = Keys.group(new String[] {part(sourceRow, 0), "", part(sourceRow, 2), part(sourceRow, 3), part(sourceRow, 4),
                commit, null}, Keys.only(before, keyNames), Keys.only(after, keyNames));
            Events.Event delete = event.copy().set("op", "DELETE").set("key", key(before, null, "DELETE")).set("after", null)
                    .set("pk_change", Events.pair(group, "OLD"))
                    .set("position", sequenceId() == null ? null : Events.position(commit, null, Keys.OLD_SEQ));
            Events.Event insert = event.copy().set("event_id", Events.eventId(first.topic, first.partition, first.offset, 1))
                    .set("op", "INSERT").set("key", key(before, after, "INSERT")).set("before", null).set("after", after)
                    .set("pk_change", Events.pair(group, "NEW"))
                    .set("position", sequenceId() == null ? null : Events.position(commit, null, Keys.NEW_SEQ));
            return List.of(delete.row(), insert.row());
        }

        /** payload.timestamp.* (epoch ms); -1 is DataWorks' "no time", NULL like an absent one. */
        Instant time(String name) {
            String raw = Json.text(DataWorksRecords.at(payload, "timestamp"), name);
            return "-1".equals(raw) ? null : Canonical.epochToInstant(raw, 1_000L);
        }

        List<Row> key(Map<String, String> before, Map<String, String> after, String op) {
            return Keys.entries(keyNames, before, after, op);
        }
    }

    /** The schema as Spark's reader took it (the fields of the format's shape, values as text), to compare halves. */
    public static Object schemaAsRead(Map<String, Object> document) {
        Map<String, Object> schema = DataWorksRecords.at(document, "schema");
        if (schema == null) {
            return null;
        }
        List<Object> columns = null;
        List<Object> declared = Json.array(schema.get("dataColumn"));
        if (declared != null) {
            columns = new ArrayList<>();
            for (Object item : declared) {
                Map<String, Object> column = Json.object(item);
                columns.add(column == null ? null : java.util.Arrays.asList(Json.text(column, "name"), Json.text(column, "type")));
            }
        }
        List<Object> key = null;
        List<Object> primary = Json.array(schema.get("primaryKey"));
        if (primary != null) {
            key = new ArrayList<>();
            for (Object name : primary) {
                key.add(Json.text(name));
            }
        }
        Map<String, Object> source = Json.object(schema.get("source"));
        List<Object> sourceParts = null;
        if (source != null) {
            sourceParts = new ArrayList<>();
            for (String part : new String[] {"dbType", "dbVersion", "dbName", "schemaName", "tableName"}) {
                sourceParts.add(Json.text(source, part));
            }
        }
        return java.util.Arrays.asList(columns, key, sourceParts);
    }

    public static String lower(String text) {
        return text == null ? null : text.toLowerCase(Locale.ROOT);
    }

    public static String part(Row source, int i) {
        return source == null ? null : source.getString(i);
    }
}
