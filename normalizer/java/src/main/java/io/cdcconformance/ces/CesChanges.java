package io.cdcconformance.ces;

import io.cdcconformance.shared.*;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;
import scala.collection.Iterator;
import scala.collection.Seq;

/**
 * {@code ces-json}, one assembled logical event (stages 3 and 4 of normalizer/ces.py): the {@code data} text (its
 * segments concatenated in index order), then {@code eventrow.old}/{@code current} (JSON texts again), typed by
 * {@code cols[].type} through the SQL Server type table; the rules; the events (an update that changes the key
 * becomes DELETE + INSERT). {@link CesAvroChanges} reads an Avro {@code Data} datum instead. docs/formats/ces.md.
 */
public class CesChanges implements UDF1<Row, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final Map<String, String> OPERATIONS = Map.of("INS", "INSERT", "UPD", "UPDATE", "DEL", "DELETE");
    private static final Shape COLUMN = Shape.struct("name", Shape.TEXT, "type", Shape.TEXT, "index", Shape.TEXT);
    public static final Shape DATA = Shape.struct(
            "eventsource", Shape.struct("db", Shape.TEXT, "schema", Shape.TEXT, "tbl", Shape.TEXT, "cols", Shape.arrayOf(COLUMN),
                    "pkkey", Shape.arrayOf(Shape.struct("columnname", Shape.TEXT, "value", Shape.TEXT)),
                    "transaction", Shape.struct("commitlsn", Shape.TEXT, "beginlsn", Shape.TEXT, "sequencenumber", Shape.TEXT,
                            "committime", Shape.TEXT)),
            "eventrow", Shape.struct("old", Shape.TEXT, "current", Shape.TEXT));
    /** SQL Server's type names (types.SQLSERVER) -> logical types; decimal, numeric, time, datetime2 take arguments. */
    public static final Map<String, String> SQLSERVER = Map.ofEntries(Map.entry("int", "INT32"), Map.entry("bigint", "INT64"),
            Map.entry("smallint", "INT16"), Map.entry("tinyint", "INT16"), Map.entry("bit", "BOOLEAN"),
            Map.entry("money", "DECIMAL(19,4)"), Map.entry("smallmoney", "DECIMAL(10,4)"), Map.entry("float", "FLOAT64"),
            Map.entry("real", "FLOAT32"), Map.entry("char", "STRING"), Map.entry("varchar", "STRING"), Map.entry("nchar", "STRING"),
            Map.entry("nvarchar", "STRING"), Map.entry("sysname", "STRING"), Map.entry("uniqueidentifier", "UUID"),
            Map.entry("binary", "BYTES"), Map.entry("varbinary", "BYTES"), Map.entry("date", "DATE"),
            Map.entry("datetime", "TIMESTAMP(3)"), Map.entry("smalldatetime", "TIMESTAMP(3)"),
            Map.entry("datetimeoffset", "TIMESTAMP_TZ"));
    /** The envelope type's version suffix ({@code ...V1}): compiled once, not per event. */
    private static final Pattern VERSION = Pattern.compile("V([0-9]+)$");
    private static final Instant MIN_INSTANT = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant MAX_INSTANT = Instant.parse("9999-12-31T23:59:59.999999Z");

    /** The data level as read: its document (null when it is not one of the format's shape), and its problems. */
    public static final class DataLevel {
        Map<String, Object> document;
        boolean notUtf8;
        boolean repeatsAMember;
    }

    /** The JSON encoding: `data` is JSON text (its UTF-8 bytes). */
    public DataLevel data(byte[] text) {
        DataLevel level = new DataLevel();
        Json.Document parsed = Json.read(text);
        Map<String, Object> document = parsed.object();
        level.document = document != null && DATA.fits(document) ? document : null;
        level.notUtf8 = parsed.loneSurrogate;
        level.repeatsAMember = parsed.repeatsAMember;
        return level;
    }

    protected String formatId() {
        return "ces-json";
    }

    @Override
    public Row call(Row assembled) {
        return Readers.events(getClass().getSimpleName(), () -> read(assembled));
    }

    private Row read(Row assembled) {
        Row head = assembled.getAs("head");
        Row rejection = head.getAs("rejection");
        if (rejection != null) {  // a rejected record: its own verdict stands
            return Events.output(rejection.getString(1), rejection.getString(2), null);
        }
        return new Change(assembled, head).output();
    }

    /** {@code ces.logical_type}: the logical type of a SQL Server type as CES writes it ('Decimal (10, 2)',
     * 'int identity'); null for a type CES does not send. */
    public static String logicalType(String typeText) {
        return LOGICAL.get(typeText);
    }

    private static final TypeCache LOGICAL = new TypeCache(CesChanges::computeLogicalType);

    private static String computeLogicalType(String typeText) {
        String base = typeText.trim();
        base = base.contains("(") ? base.substring(0, base.indexOf('(')) : base;
        base = base.trim();
        base = (base.contains(" ") ? base.substring(0, base.indexOf(' ')) : base).toLowerCase(Locale.ROOT);
        String plain = SQLSERVER.get(base);
        if (plain != null) {
            return plain;
        }
        switch (base) {
            case "decimal":
            case "numeric":
                int precision = Canonical.typeArgument(typeText, 1, 18);
                int scale = Canonical.typeArgument(typeText, 2, 0);
                return precision >= 1 && scale >= 0 && scale <= precision ? "DECIMAL(" + precision + "," + scale + ")" : null;
            case "time":
            case "datetime2":
                int digits = Canonical.typeArgument(typeText, 1, 7);
                return digits >= 0 && digits <= 7 ? (base.equals("time") ? "TIME(" : "TIMESTAMP(") + (digits > 6 ? 9 : 6) + ")" : null;
            default:
                return null;
        }
    }



    /** {@code ct.instant_from_text}: Spark's own reading of a timestamp text (what {@code try_to_timestamp} does, in
     * UTC), within years 0001..9999; null otherwise. */
    public static Instant instant(String text) {
        if (text == null) {
            return null;
        }
        Option<Object> micros = DateTimeUtils.stringToTimestamp(UTF8String.fromString(text), ZoneOffset.UTC);
        if (micros.isEmpty()) {
            return null;
        }
        long total = (Long) micros.get();
        Instant instant = Instant.ofEpochSecond(Math.floorDiv(total, 1_000_000L), Math.floorMod(total, 1_000_000L) * 1000);
        return instant.isBefore(MIN_INSTANT) || instant.isAfter(MAX_INSTANT) ? null : instant;
    }

    public record Cell(String name, boolean oldPresent, boolean currentPresent, String oldRaw, String currentRaw, String old,
                String current) {
    }

    public final class Change {
        final String logicalid;
        final boolean conflict;
        final boolean complete;
        final int segmentCount;
        final String operation;
        final String type;
        final String time;
        final List<Row> origin = new ArrayList<>();
        DataLevel data;
        Map<String, Object> source;      // eventsource
        String oldText;
        String currentText;
        Map<String, String> oldRaw;
        Map<String, String> currentRaw;
        boolean imagesRepeatAMember;
        boolean oldLoneSurrogate;
        boolean currentLoneSurrogate;
        List<String> pkNames;
        boolean badColumns;
        List<Map<String, Object>> declared = new ArrayList<>();
        List<Row> columns;               // null when the columns are bad
        List<Cell> cells;

        Change(Row assembled, Row head) {
            logicalid = assembled.getAs("logicalid");
            conflict = Boolean.TRUE.equals(assembled.getAs("conflict"));
            complete = Boolean.TRUE.equals(assembled.getAs("complete"));
            segmentCount = assembled.<Integer>getAs("segment_count");
            operation = head.getAs("operation");
            type = head.getAs("type");
            time = head.getAs("time");
            Seq<Row> coordinates = assembled.getAs("origin");
            Iterator<Row> it = coordinates.iterator();
            while (it.hasNext()) {
                Row o = it.next();
                origin.add(Events.origin(o.getString(0), o.getInt(1), o.getLong(2)).get(0));
            }
            byte[] text = assembled.getAs("data");
            if (complete && !conflict && text != null) {
                data = data(text);
                read();
            }
        }

        private void read() {
            if (data.document == null) {
                return;
            }
            source = Json.object(data.document.get("eventsource"));
            Map<String, Object> row = Json.object(data.document.get("eventrow"));
            oldText = Json.text(row, "old");
            currentText = Json.text(row, "current");
            Json.Document oldDocument = Json.read(oldText);
            Json.Document currentDocument = Json.read(currentText);
            oldRaw = Records.textMap(oldDocument.root);
            currentRaw = Records.textMap(currentDocument.root);
            imagesRepeatAMember = oldDocument.repeatsAMember || currentDocument.repeatsAMember;
            oldLoneSurrogate = oldDocument.loneSurrogate;
            currentLoneSurrogate = currentDocument.loneSurrogate;
            List<Object> keys = source == null ? null : Json.array(source.get("pkkey"));
            if (keys != null) {
                pkNames = new ArrayList<>(keys.size());
                for (Object item : keys) {
                    pkNames.add(Json.text(Json.object(item), "columnname"));
                }
            }
            List<Object> cols = source == null ? null : Json.array(source.get("cols"));
            if (cols == null) {
                return;
            }
            List<String> names = new ArrayList<>();
            for (Object item : cols) {
                declared.add(Json.object(item));
                names.add(Json.text(Json.object(item), "name"));
            }
            badColumns = new HashSet<>(names).size() < names.size() || names.contains(null);
            if (badColumns) {
                return;  // no map may be built from such names
            }
            columns = new ArrayList<>(declared.size());
            cells = new ArrayList<>(declared.size());
            for (Map<String, Object> column : declared) {
                String name = Json.text(column, "name");
                String typeText = Json.text(column, "type");
                String logical = logicalType(typeText);
                Integer index = Canonical.boundedInt(Json.text(column, "index"), Integer.MIN_VALUE, Integer.MAX_VALUE);
                int key = pkNames == null ? -1 : pkNames.indexOf(name);
                columns.add(Events.column(name, CesRecords.plusOne(index), typeText, logical, null, key < 0 ? null : key + 1));
                String old = oldRaw == null ? null : oldRaw.get(name);
                String current = currentRaw == null ? null : currentRaw.get(name);
                cells.add(new Cell(name, oldRaw != null && oldRaw.containsKey(name), currentRaw != null && currentRaw.containsKey(name),
                        old, current, sqlServerValue(old, logical), sqlServerValue(current, logical)));
            }
        }

        /** A value as SQL Server holds it: {@link TextTypes#convert}, and a {@code time} within a day. The model's TIME
         * also holds PostgreSQL's 24:00:00 and MySQL's durations, which SQL Server's time (00:00:00 through
         * 23:59:59.9999999) cannot: `24:00:00` came out as a value no such column has (issue 49). */
        static String sqlServerValue(String raw, String logical) {
            String value = TextTypes.convert(raw, logical);
            boolean timeOfDay = value == null || !logical.startsWith("TIME(") || !value.startsWith("-") && value.indexOf(':') == 2
                    && value.compareTo("24") < 0;
            return timeOfDay ? value : null;
        }

        Map<String, String> image(boolean old) {
            Map<String, String> image = new SmallMap<>();
            if (cells != null) {
                for (Cell cell : cells) {
                    if (old ? cell.oldPresent() : cell.currentPresent()) {
                        image.put(cell.name(), old ? cell.old() : cell.current());
                    }
                }
            }
            return image;
        }

        private Instant[] instants;  // committime and time, read once

        Instant commitTime() {
            return instants()[0];
        }

        Instant eventTime() {
            return instants()[1];
        }

        private Instant[] instants() {
            if (instants == null) {
                instants = new Instant[] {instant(Json.text(transaction(), "committime")), instant(time)};
            }
            return instants;
        }

        Map<String, Object> transaction() {
            return source == null ? null : Json.object(source.get("transaction"));
        }

        // -----------------------------------------------------------------------------------------------------
        // Rules
        // -----------------------------------------------------------------------------------------------------

        String[] verdict() {
            if (conflict) {
                return Records.rule("SEGMENT_DUPLICATE_CONFLICT", "segments of " + logicalid + " share an index with different data");
            }
            if (!complete) {
                return Records.rule("SEGMENT_INCOMPLETE", "logical event " + logicalid + " lacks segments (have " + segmentCount + ")");
            }
            if (data == null) {
                return Records.rule("MALFORMED_DATA", "data is not a JSON object (or Avro Data datum)");
            }
            if (data.notUtf8 || oldLoneSurrogate || currentLoneSurrogate) {
                return Records.rule("NOT_UTF8", "a string of data is not UTF-8, or escapes a lone surrogate");
            }
            if (data.document == null) {
                return Records.rule("MALFORMED_DATA", "data is not a JSON object (or Avro Data datum)");
            }
            if (source == null || Json.object(data.document.get("eventrow")) == null || Json.array(source.get("cols")) == null) {
                return Records.rule("MISSING_FIELD", "data needs eventsource.cols and eventrow");
            }
            if ((oldText != null && oldRaw == null) || (currentText != null && currentRaw == null)) {
                return Records.rule("MALFORMED_DATA", "eventrow.old/current is not a JSON object");
            }
            if (data.repeatsAMember || imagesRepeatAMember) {
                return Records.rule("DUPLICATE_KEY", "an object in data names a member twice");
            }
            if (badColumns) {
                return Records.rule("SCHEMA_MISMATCH", "eventsource.cols declares a column twice or without a name");
            }
            for (Map<String, Object> column : declared) {
                String index = Json.text(column, "index");
                if (index != null && Canonical.boundedInt(index, 0, Integer.MAX_VALUE - 1) == null) {
                    return Records.rule("SCHEMA_MISMATCH", "eventsource.cols gives an index that is no column position");
                }
            }
            if (pkNames != null && (new HashSet<>(pkNames).size() < pkNames.size() || pkNames.contains(null))) {
                return Records.rule("SCHEMA_MISMATCH", "eventsource.pkkey names a column twice or without a name");
            }
            if (undeclared(oldRaw, true) || undeclared(currentRaw, false)) {
                return Records.rule("SCHEMA_MISMATCH", "old/current has a column that eventsource.cols does not declare");
            }
            for (Row column : columns) {
                if (column.getString(3) == null) {
                    return Records.rule("UNKNOWN_COLUMN_TYPE", column.getString(2) == null ? null : "column type " + column.getString(2));
                }
            }
            if (("INS".equals(operation) && oldRaw != null && !oldRaw.isEmpty()) || ("DEL".equals(operation) && currentRaw != null && !currentRaw.isEmpty())) {
                return Records.rule("UNEXPECTED_IMAGE", operation + " with a row image it cannot have");
            }
            if (("INS".equals(operation) || "UPD".equals(operation)) && currentRaw != null && currentRaw.isEmpty()) {
                return Records.rule("MISSING_FIELD", "INS/UPD without current values");
            }
            for (Cell cell : cells) {
                if ((cell.oldRaw() != null && cell.old() == null) || (cell.currentRaw() != null && cell.current() == null)) {
                    return Records.rule("UNDECODABLE_VALUE", "a value does not match its column type");
                }
            }
            // `old` {} is CES's "no old values" (@include_old_values = 0): no claim about the key; a key column a
            // partial `old` leaves out (@include_all_columns = 0) was not supplied: pkkey keys the row
            if (("UPD".equals(operation) || "DEL".equals(operation)) && pkNames != null && !pkNames.isEmpty() && oldRaw != null
                    && !oldRaw.isEmpty() && pkNames.stream().anyMatch(n -> oldRaw.containsKey(n) && oldRaw.get(n) == null)) {
                return Records.rule("MISSING_OLD_KEY", "the before image lacks a key column or holds NULL for one: which row changed is unknown");
            }
            Map<String, Object> transaction = transaction();
            if (Canonical.widerThan(Json.text(transaction, "sequencenumber"), 20)) {
                return Records.rule("UNDECODABLE_VALUE", "sequencenumber has more than 20 digits");
            }
            if ((Json.text(transaction, "committime") != null && commitTime() == null) || (time != null && eventTime() == null)) {
                return Records.rule("UNDECODABLE_VALUE", "time and committime must be instants of years 0001-9999");
            }
            return null;
        }

        /** A supplied column that `cols` does not declare. */
        boolean undeclared(Map<String, String> raw, boolean old) {
            if (raw == null) {
                return false;
            }
            int declaredPresent = 0;
            for (Cell cell : cells) {
                declaredPresent += (old ? cell.oldPresent() : cell.currentPresent()) ? 1 : 0;
            }
            return declaredPresent < raw.size();
        }

        // -----------------------------------------------------------------------------------------------------
        // Events
        // -----------------------------------------------------------------------------------------------------

        Row output() {
            String[] verdict = verdict();
            return verdict != null ? Events.output(verdict[0], verdict[1], null) : Events.output(null, null, events());
        }

        List<Row> events() {
            Map<String, Object> transaction = transaction();
            Row position = transaction == null ? null : Events.position(Records.upperWithoutColons(Json.text(transaction, "commitlsn")),
                    Canonical.fixedWidth(Json.text(transaction, "sequencenumber"), 20), Keys.OLD_SEQ);
            Row sourceRow = Events.source("sqlserver", null, Json.text(source, "db"), Json.text(source, "schema"), Json.text(source, "tbl"));
            Matcher version = type == null ? null : VERSION.matcher(type);
            Instant commit = commitTime();
            Map<String, String> oldImage = image(true);
            Map<String, String> currentImage = image(false);
            Row first = origin.get(0);
            Events.Event event = new Events.Event().set("event_id", Events.eventId(first.getString(0), first.getInt(1), first.getLong(2), 0))
                    .set("format", formatId()).set("format_version", version != null && version.find() ? version.group(1) : null)
                    .set("kind", "ROW").set("op", OPERATIONS.get(operation)).set("snapshot", false).set("source", sourceRow)
                    .set("columns", SharedColumns.repeated(columns)).set("key", key("DEL".equals(operation) ? oldImage : currentImage))
                    .set("before", oldImage.isEmpty() ? null : oldImage).set("after", currentImage.isEmpty() ? null : currentImage)
                    .set("position", position).set("tx_id", Json.text(transaction, "commitlsn"))
                    .set("commit_ts", commit != null ? commit : eventTime()).set("origin", origin);
            if (!("UPD".equals(operation) && Keys.keyChanged(pkNames, oldImage, currentImage))) {
                return List.of(event.row());
            }
            String group = Keys.group(new String[] {"sqlserver", "", Json.text(source, "db"), Json.text(source, "schema"),
                Json.text(source, "tbl"), position == null ? null : position.getString(0), position == null ? null : position.getString(1)},
                Keys.only(oldRaw, pkNames), Keys.only(currentRaw, pkNames));
            Events.Event delete = event.copy().set("op", "DELETE").set("key", key(oldImage)).set("after", null)
                    .set("pk_change", Events.pair(group, "OLD"))
                    .set("position", position == null ? null : Events.position(position.getString(0), position.getString(1), Keys.OLD_SEQ));
            Events.Event insert = event.copy().set("event_id", Events.eventId(first.getString(0), first.getInt(1), first.getLong(2), 1))
                    .set("op", "INSERT").set("key", key(currentImage)).set("before", null)
                    .set("pk_change", Events.pair(group, "NEW"))
                    .set("position", position == null ? null : Events.position(position.getString(0), position.getString(1), Keys.NEW_SEQ));
            return List.of(delete.row(), insert.row());
        }

        /** The key from the row image; pkkey (as written) fills in where a partial image lacks it. */
        List<Row> key(Map<String, String> image) {
            if (pkNames == null) {
                return null;
            }
            List<Object> pkkey = Json.array(source.get("pkkey"));
            List<Row> key = new ArrayList<>(pkNames.size());
            for (String name : pkNames) {
                String value = image.get(name);
                if (value == null) {
                    for (Object item : pkkey) {
                        if (name.equals(Json.text(Json.object(item), "columnname"))) {
                            value = Json.text(Json.object(item), "value");
                            break;
                        }
                    }
                }
                key.add(Events.keyEntry(name, value));
            }
            return key;
        }
    }
}
