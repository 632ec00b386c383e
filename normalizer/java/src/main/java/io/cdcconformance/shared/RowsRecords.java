package io.cdcconformance.shared;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.Row;
import scala.collection.Seq;

/**
 * Row-list messages: one message holds many rows of one table, as lists of row maps (canal's FlatMessage,
 * CloudCanal's JSON). The formats differ in field names and in how they give the before rows ({@link #read}); from
 * the {@link Message} on they are one thing, written here once, as a Spark SQL module of the normalizer wrote it before (issue 20):
 *
 * <ul>
 * <li>columns from the type texts (their member order is the column order), JDBC codes where a column has none;</li>
 * <li>values as MySQL's text typed by {@link MySqlTypes}: binary columns arrive as ISO-8859-1 characters, one per
 * byte (canal's LogEventConvert), ENUM as its index, SET as its bitmask, a zero date as SQL NULL;</li>
 * <li>each row becomes its own event (two for a key change), in row order: {@code position} is the Kafka offset (binlog
 * order within a partition), the message's time ({@code es}/{@code execTs}, the statement's start, which can go
 * backwards), and the row.</li>
 * </ul>
 */
public abstract class RowsRecords {
    /** canal's CanalEntry.EventType (EntryProtocol.proto): type -> kind, op, ddl.change (rows.EVENT_TYPES). */
    public static final Map<String, String[]> EVENT_TYPES = Map.ofEntries(
            Map.entry("INSERT", new String[] {"ROW", "INSERT", null}), Map.entry("UPDATE", new String[] {"ROW", "UPDATE", null}),
            Map.entry("DELETE", new String[] {"ROW", "DELETE", null}), Map.entry("CREATE", new String[] {"DDL", null, "CREATE"}),
            Map.entry("ALTER", new String[] {"DDL", null, "ALTER"}), Map.entry("ERASE", new String[] {"DDL", null, "DROP"}),
            Map.entry("RENAME", new String[] {"DDL", null, "RENAME"}), Map.entry("CINDEX", new String[] {"DDL", null, "INDEX"}),
            Map.entry("DINDEX", new String[] {"DDL", null, "INDEX"}), Map.entry("QUERY", new String[] {"DDL", null, "OTHER"}),
            Map.entry("TRUNCATE", new String[] {"TRUNCATE", null, "TRUNCATE"}),
            Map.entry("MHEARTBEAT", new String[] {"HEARTBEAT", null, null}), Map.entry("XACOMMIT", new String[] {"TX_END", null, null}));
    /** documented, but the model has no kind for them: quarantined (UNMAPPED_CONTROL_EVENT), never dropped */
    public static final Set<String> UNMAPPED_EVENT_TYPES = Set.of("GTID", "XAROLLBACK");

    /** What a row-list message says, in the shared form. */
    public static final class Message {
        public final Map<String, Object> document;
        public String kind;
        public String op;
        public String ddlChange;
        Columns columns;                 // the type texts, JDBC codes and key, typed and checked (typedBy)
        public List<Object> afterRows;          // JSON objects (or JSON null) per row; null when the op has no such image
        public List<Object> beforeRows;
        public Row source;
        public String commitMs;
        public String emitMs;
        String statement;
        String formatVersion;

        public Message(Map<String, Object> document) {
            this.document = document;
        }

        public String text(String member) {
            return Json.text(document, member);
        }

        /** Columns typed by the type texts in member `types` (JDBC codes in `codes`), the key named in `key`. */
        public void typedBy(String types, String codes, String key) {
            columns = Columns.of(Records.textMap(document.get(types)), Records.textMap(document.get(codes)),
                    Json.array(document.get(key)));
        }

        /** The key's columns as the message types them; null when it names none. */
        List<String> pkNames() {
            return columns == null ? null : columns.pkNames;
        }

        /** The message-level parts both formats give the same way: times (epoch ms), the DDL statement, the version. */
        public void timedBy(String commit, String emit, String sql, String version) {
            commitMs = text(commit);
            emitMs = text(emit);
            statement = text(sql);
            formatVersion = version;
        }

        public Instant commitTs() {
            return Canonical.epochToInstant(commitMs, 1_000L);
        }

        public Instant emitTs() {
            return Canonical.epochToInstant(emitMs, 1_000L);
        }
    }

    /** A column of the message, typed. */
    public static final class Column {
        final String name;
        final int position;
        final String sourceType;
        final String logical;
        final Integer pkPosition;
        /** A SET by its type's base name (`set ('a')` too): its cells are canal's bitmasks. Once per column, not per cell. */
        final boolean set;

        Column(String name, int position, String typeText, String jdbcCode, List<String> pkNames) {
            this.name = name;
            this.position = position;
            this.sourceType = typeText != null ? typeText : jdbcCode;
            // a type text the table lacks is unknown, whatever the JDBC code says (that code is a fallback only)
            this.logical = typeText != null ? MySqlTypes.logicalType(typeText) : MySqlTypes.jdbcLogicalType(jdbcCode);
            int index = pkNames == null ? -1 : pkNames.indexOf(name);
            this.pkPosition = index < 0 ? null : index + 1;
            this.set = sourceType != null && "set".equals(MySqlTypes.baseName(sourceType));
        }

        Row row() {
            return Events.column(name, position, sourceType, logical, null, pkPosition);
        }
    }

    /**
     * A message's columns as its type maps and key describe them, typed, named and checked once for a run of records
     * that describe them alike: a table's records come one after another with the same maps, and typing each column
     * (MySqlTypes' parse of its type text), mapping the key's names, the sets the rules check and the events' column
     * list were 17% of the CloudCanal reader's samples when done per record (issue 61). Each task thread keeps the
     * last one it made; a record whose maps or key differ in any name, text or order gets its own.
     */
    static final class Columns {
        private static final ThreadLocal<Columns[]> LAST = ThreadLocal.withInitial(() -> new Columns[1]);
        final Map<String, String> typeTexts;  // column -> MySQL type text, in column order
        final Map<String, String> jdbcCodes;  // column -> JDBC code: the fallback
        private final List<String> keyTexts;  // the key's members as the message writes them (before keyNames maps them)
        final List<String> pkNames;
        final List<Column> list;
        final Set<String> names;
        final SharedColumns rows;   // the events' `columns`
        private String[] verdict;    // columnRules' verdict, once it is asked for
        private boolean checked;

        private Columns(Map<String, String> typeTexts, Map<String, String> jdbcCodes, List<String> keyTexts) {
            this.typeTexts = typeTexts;
            this.jdbcCodes = jdbcCodes;
            this.keyTexts = keyTexts;
            pkNames = keyTexts == null || keyTexts.isEmpty() ? null
                    : Collections.unmodifiableList(keyNames(keyTexts, typeTexts, jdbcCodes));
            List<Column> typed = new ArrayList<>();
            Set<String> named = new HashSet<>();
            List<Row> described = new ArrayList<>();
            int position = 1;
            for (String name : declaredNames(typeTexts, jdbcCodes)) {
                Column column = new Column(name, position++, typeTexts == null ? null : typeTexts.get(name),
                        jdbcCodes == null ? null : jdbcCodes.get(name), pkNames);
                typed.add(column);
                named.add(name);
                described.add(column.row());
            }
            list = Collections.unmodifiableList(typed);
            names = Collections.unmodifiableSet(named);
            rows = new SharedColumns(described);
        }

        static Columns of(Map<String, String> typeTexts, Map<String, String> jdbcCodes, List<Object> key) {
            List<String> keyTexts = null;
            if (key != null) {
                keyTexts = new ArrayList<>(key.size());
                for (Object item : key) {
                    keyTexts.add(Json.text(item));
                }
            }
            Columns[] last = LAST.get();
            Columns known = last[0];
            if (known != null && sameInOrder(known.typeTexts, typeTexts) && sameInOrder(known.jdbcCodes, jdbcCodes)
                    && Objects.equals(known.keyTexts, keyTexts)) {
                return known;
            }
            last[0] = new Columns(typeTexts, jdbcCodes, keyTexts);
            return last[0];
        }

        /** Equal names to equal texts, in the same order (the order is the columns' positions). */
        private static boolean sameInOrder(Map<String, String> a, Map<String, String> b) {
            if (a == null || b == null) {
                return a == b;
            }
            if (a.size() != b.size()) {
                return false;
            }
            java.util.Iterator<Map.Entry<String, String>> others = b.entrySet().iterator();
            for (Map.Entry<String, String> entry : a.entrySet()) {
                Map.Entry<String, String> other = others.next();
                if (!Objects.equals(entry.getKey(), other.getKey())
                        || !Objects.equals(entry.getValue(), other.getValue())) {
                    return false;
                }
            }
            return true;
        }

        /** The rules on the columns alone (rows.ROW_RULES, in their order): {code, detail} or null. */
        String[] verdict() {
            if (!checked) {
                verdict = columnRules();
                checked = true;
            }
            return verdict;
        }

        private String[] columnRules() {
            Set<String> lowered = new HashSet<>();
            for (Column column : list) {
                if (column.name.isEmpty()) {  // a type map naming "" (make fuzz, issue 49): MySQL has no such column
                    return Records.rule("SCHEMA_MISMATCH", "a type map names a column without a name");
                }
                lowered.add(column.name.toLowerCase(Locale.ROOT));
            }
            if (lowered.size() < list.size()) {
                return Records.rule("SCHEMA_MISMATCH", "two columns whose names differ only in case (one MySQL column)");
            }
            if (pkNames != null) {
                for (String name : pkNames) {
                    if (name == null || !names.contains(name)) {
                        return Records.rule("SCHEMA_MISMATCH", "the primary key names a column the message does not type");
                    }
                }
            }
            for (Column column : list) {
                if (column.logical == null) {
                    return Records.rule("UNKNOWN_COLUMN_TYPE", column.sourceType == null ? null : "column type " + column.sourceType);
                }
            }
            return null;
        }
    }

    /** One value of one row: whether the row has the column, its text (a zero date's is null), its canonical text. */
    public record Cell(String name, boolean present, String raw, String value) {
    }

    protected abstract String formatId();

    /** The document's shape (what Spark's reader would take). */
    protected abstract Shape shape();

    /** The message in the shared form. */
    protected abstract Message read(Map<String, Object> document);

    /** The format's own rules, after the JSON record rules and before the shared row rules: {code, detail} or null. */
    protected abstract String[] formatRules(Message message);

    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset) {
        return Readers.record(getClass().getSimpleName(), topic, partition, offset,
                () -> new Record(value, topic, partition, offset).output());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Shared helpers for the formats' `read`
    // ---------------------------------------------------------------------------------------------------------

    /** rows.key_names: MySQL names are case-insensitive, and canal takes the key's names from its table metadata
     * but the types from the row event: `k1` names column `K1`. A name no typed column matches stays as it is. */
    public static List<String> keyNames(List<?> names, Map<String, String> typeTexts, Map<String, String> jdbcCodes) {
        if (names == null || names.isEmpty()) {
            return null;
        }
        Set<String> declared = declaredNames(typeTexts, jdbcCodes);
        List<String> mapped = new ArrayList<>(names.size());
        for (Object item : names) {
            String name = Json.text(item);
            String match = null;
            if (name != null) {
                for (String column : declared) {
                    if (column.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                        match = column;
                        break;
                    }
                }
            }
            mapped.add(match != null ? match : name);
        }
        return mapped;
    }

    public static Set<String> declaredNames(Map<String, String> typeTexts, Map<String, String> jdbcCodes) {
        Set<String> declared = new LinkedHashSet<>();
        if (typeTexts != null) {
            declared.addAll(typeTexts.keySet());
        }
        if (jdbcCodes != null) {
            declared.addAll(jdbcCodes.keySet());
        }
        return declared;
    }

    public static List<Object> nonEmpty(List<Object> rows) {
        return rows == null || rows.isEmpty() ? null : rows;
    }

    /** The message-level columns both formats give the same way: times, the commit position, the DDL struct. */
    public static Row ddl(Message message) {
        return message.ddlChange == null ? null : Events.pair(message.statement, message.ddlChange);
    }

    // ---------------------------------------------------------------------------------------------------------
    // One record
    // ---------------------------------------------------------------------------------------------------------

    public final class Record {
        final byte[] value;
        final String topic;
        final Integer partition;
        final Long offset;
        Json.Document parsed;
        Message message;
        List<Column> columns;
        List<List<Cell>> beforeCells;
        List<List<Cell>> afterCells;

        Record(byte[] value, String topic, Integer partition, Long offset) {
            this.value = value;
            this.topic = topic;
            this.partition = partition;
            this.offset = offset;
            if (value != null) {
                parsed = Json.read(value);
                Map<String, Object> document = parsed.object();
                if (document != null && shape().fits(document)) {
                    message = read(document);
                    columns = columns();
                    beforeCells = cells(message.beforeRows);
                    afterCells = cells(message.afterRows);
                }
            }
        }

        List<Column> columns() {
            return message.columns == null ? List.of() : message.columns.list;
        }

        List<List<Cell>> cells(List<Object> rows) {
            if (rows == null) {
                return null;
            }
            List<List<Cell>> out = new ArrayList<>(rows.size());
            for (Object item : rows) {
                Map<String, Object> row = Json.object(item);
                List<Cell> cells = new ArrayList<>(columns.size());
                for (Column column : columns) {
                    cells.add(cell(row, column));
                }
                out.add(cells);
            }
            return out;
        }

        Cell cell(Map<String, Object> row, Column column) {
            String raw = row == null ? null : Json.text(row.get(column.name));
            boolean present = row != null && row.containsKey(column.name);
            // a MySQL zero date is SQL NULL: no raw value, so nothing to call undecodable
            if (MySqlTypes.isZeroDate(raw, column.logical)) {
                return new Cell(column.name, present, null, null);
            }
            String written;
            if ("BYTES".equals(column.logical)) {
                written = latin1Base64(raw);
            } else if ("ENUM".equals(column.logical)) {
                written = MySqlTypes.enumText(raw, column.sourceType);
            } else if (column.set) {
                written = MySqlTypes.setText(raw, column.sourceType);
            } else {
                written = raw;
            }
            return new Cell(column.name, present, raw, TextTypes.convert(written, column.logical));
        }

        List<Map<String, String>> images(List<List<Cell>> rows) {
            if (rows == null) {
                return null;
            }
            List<Map<String, String>> images = new ArrayList<>(rows.size());
            for (List<Cell> cells : rows) {
                Map<String, String> image = new SmallMap<>();
                for (Cell cell : cells) {
                    if (cell.present()) {
                        image.put(cell.name(), cell.value());
                    }
                }
                images.add(image);
            }
            return images;
        }

        // -----------------------------------------------------------------------------------------------------
        // Rules
        // -----------------------------------------------------------------------------------------------------

        String[] verdict() {
            String[] record = JsonRecordRules.valueVerdict(value, parsed, message != null);
            if (record != null) {
                return record;
            }
            String[] own = formatRules(message);
            return own != null ? own : rowRules();
        }

        boolean isRow() {
            return "ROW".equals(message.kind);
        }

        /** rows.ROW_RULES */
        String[] rowRules() {
            Message m = message;
            List<Object> rows = m.afterRows != null ? m.afterRows : m.beforeRows;
            if (isRow() && rows != null && rows.isEmpty()) {
                return Records.rule("MISSING_FIELD", m.op + " without rows");
            }
            if ((("INSERT".equals(m.op) || "UPDATE".equals(m.op)) && m.afterRows == null) || ("DELETE".equals(m.op) && m.beforeRows == null)) {
                return Records.rule("MISSING_FIELD", m.op + " without its row list");
            }
            if (m.beforeRows != null && m.afterRows != null && m.beforeRows.size() != m.afterRows.size()) {
                return Records.rule("SCHEMA_MISMATCH", "the before and after row lists have different lengths");
            }
            if (!isRow()) {
                return null;
            }
            if (columns.isEmpty()) {
                return Records.rule("MISSING_FIELD", "no column types");
            }
            if (undeclared(m.beforeRows) || undeclared(m.afterRows)) {
                return Records.rule("SCHEMA_MISMATCH", "a row has a column the message does not type");
            }
            String[] described = m.columns.verdict();
            if (described != null) {
                return described;
            }
            if (undecodable(beforeCells) || undecodable(afterCells)) {
                return Records.rule("UNDECODABLE_VALUE", "a value does not match its column type");
            }
            if (("UPDATE".equals(m.op) || "DELETE".equals(m.op)) && m.beforeRows != null) {
                for (Object row : m.beforeRows) {
                    if (Keys.oldKeyMissing(m.pkNames(), Records.textMap(row))) {
                        return Records.rule("MISSING_OLD_KEY",
                                "the before image lacks a key column or holds NULL for one: which row changed is unknown");
                    }
                }
            }
            return null;
        }

        boolean undeclared(List<Object> rows) {
            if (rows != null) {
                Set<String> names = message.columns.names;
                for (Object item : rows) {
                    Map<String, Object> row = Json.object(item);
                    if (row != null && !names.containsAll(row.keySet())) {
                        return true;
                    }
                }
            }
            return false;
        }

        boolean undecodable(List<List<Cell>> rows) {
            if (rows != null) {
                for (List<Cell> cells : rows) {
                    for (Cell cell : cells) {
                        if (cell.raw() != null && cell.value() == null) {
                            return true;
                        }
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
            if (verdict != null) {
                return Events.output(verdict[0], verdict[1], null);
            }
            return Events.output(null, null, isRow() ? rowEvents() : List.of(controlEvent()));
        }

        String timePosition() {
            return Canonical.fixedWidth(message.commitMs, 20);
        }

        String offsetPosition() {
            return Canonical.fixedWidth(String.valueOf(offset), 20);
        }

        Events.Event base(String kind) {
            return new Events.Event().set("format", formatId()).set("format_version", message.formatVersion).set("kind", kind)
                    .set("source", message.source).set("commit_ts", message.commitTs()).set("emit_ts", message.emitTs())
                    .set("origin", Events.origin(topic, partition, offset));
        }

        /** A message that is no row change: DDL, TRUNCATE, HEARTBEAT or a transaction mark. */
        Row controlEvent() {
            return base(message.kind).set("event_id", Events.eventId(topic, partition, offset, 0))
                    .set("position", Events.position(offsetPosition(), timePosition(), Keys.OLD_SEQ)).set("ddl", ddl(message))
                    .row();
        }

        /** Every row's events, in row order: one event, or DELETE + INSERT when the row changed its key; numbered
         * over the message. */
        List<Row> rowEvents() {
            List<Map<String, String>> befores = images(beforeCells);
            List<Map<String, String>> afters = images(afterCells);
            int count = afters != null ? afters.size() : befores != null ? befores.size() : 0;
            List<Row> out = new ArrayList<>();
            String op = message.op;
            for (int i = 0; i < count; i++) {
                Map<String, String> before = befores == null || i >= befores.size() ? null : befores.get(i);
                Map<String, String> after = afters == null || i >= afters.size() ? null : afters.get(i);
                if ("UPDATE".equals(op) && Keys.keyChanged(message.pkNames(), before, after)) {
                    String group = Keys.group(new String[] {sourcePart(0), "", sourcePart(2), sourcePart(3), sourcePart(4),
                            offsetPosition(), timePosition()}, Keys.only(before, message.pkNames()),
                            Keys.afterChange(message.pkNames(), before, after));
                    out.add(rowEvent(out.size(), "DELETE", before, null, key(before, null, "DELETE"), 2L * i,
                            Events.pair(group, "OLD")));
                    out.add(rowEvent(out.size(), "INSERT", null, after, key(before, after, "INSERT"), 2L * i + 1,
                            Events.pair(group, "NEW")));
                } else {
                    out.add(rowEvent(out.size(), op, "INSERT".equals(op) ? null : before, "DELETE".equals(op) ? null : after,
                            key(before, after, op), 2L * i, null));
                }
            }
            return out;
        }

        Row rowEvent(int n, String op, Map<String, String> before, Map<String, String> after, List<Row> key, long seq, Row pkChange) {
            return base("ROW").set("event_id", Events.eventId(topic, partition, offset, n)).set("op", op).set("snapshot", false)
                    .set("columns", message.columns.rows).set("key", key).set("before", before).set("after", after).set("pk_change", pkChange)
                    .set("position", Events.position(offsetPosition(), timePosition(), Canonical.fixedWidth(Long.toString(seq), 20)))
                    .row();
        }

        String sourcePart(int i) {
            return message.source == null ? null : message.source.getString(i);
        }

        List<Row> key(Map<String, String> before, Map<String, String> after, String op) {
            return message.pkNames() == null || message.pkNames().isEmpty() ? null : Keys.entries(message.pkNames(), before, after, op);
        }
    }

    /** A binary column's value as canal writes it: one ISO-8859-1 character per byte; anything above U+00FF cannot be
     * such a byte. Base64 of the bytes, on one line. */
    public static String latin1Base64(String raw) {
        if (raw == null) {
            return null;
        }
        for (int i = 0; i < raw.length(); i++) {
            if (raw.charAt(i) > 0xFF) {
                return null;
            }
        }
        return Base64.getEncoder().encodeToString(raw.getBytes(StandardCharsets.ISO_8859_1));
    }
}
