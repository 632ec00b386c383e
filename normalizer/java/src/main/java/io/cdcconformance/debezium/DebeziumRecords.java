package io.cdcconformance.debezium;

import io.cdcconformance.shared.*;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF6;
import scala.collection.Iterator;
import scala.collection.Seq;

/**
 * {@code debezium-json}: one Kafka record of Debezium through Kafka Connect's JsonConverter (schemas on or off)
 * to its canonical events, or to the quarantine code and detail that replace them. normalizer/debezium.py
 * registers it as a Spark UDF; docs/formats/debezium-json.md gives every decision and its source.
 *
 * <p>One pass of Jackson reads the value ({@link Json}): a number keeps its token as written, so a NUMERIC decimal
 * or a schemaless fraction needs no second parse, and a member named twice is seen at any depth. The rules are
 * tried in the order of the table in the doc page; the first that holds decides.
 *
 * <p>A producer that writes Debezium's envelope its own way (CloudCanal) is a subclass that rewrites the payload
 * as read ({@link #payload}); everything after that is this class's.
 */
public class DebeziumRecords implements UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final String UNAVAILABLE_PLACEHOLDER = "__debezium_unavailable_value";
    public static final List<String> ROW_OPS = List.of("c", "r", "u", "d");
    public static final Set<String> SNAPSHOT_MARKERS =
            Set.of("true", "first", "first_in_data_collection", "last_in_data_collection", "last", "incremental");
    public static final List<String> PAYLOAD_FIELDS = List.of("before", "after", "source", "transaction", "op", "ts_ms", "ts_us",
            "ts_ns", "message", "status", "id", "ddl", "databaseName", "tableChanges");

    // The shapes Spark's reader would take (from_json with the envelope's schema): what does not fit is MALFORMED_JSON
    private static final Shape COLUMN = Shape.struct("type", Shape.TEXT, "name", Shape.TEXT, "field", Shape.TEXT,
            "optional", Shape.TEXT, "parameters", Shape.MAP);
    private static final Shape ENVELOPE_FIELD = Shape.struct("type", Shape.TEXT, "name", Shape.TEXT, "field", Shape.TEXT,
            "optional", Shape.TEXT, "fields", Shape.arrayOf(COLUMN));
    public static final Shape PAYLOAD = Shape.struct("before", Shape.MAP, "after", Shape.MAP, "source", Shape.MAP,
            "transaction", Shape.MAP, "message", Shape.MAP, "op", Shape.TEXT, "ts_ms", Shape.TEXT, "ts_us", Shape.TEXT,
            "ts_ns", Shape.TEXT, "status", Shape.TEXT, "id", Shape.TEXT, "ddl", Shape.TEXT, "databaseName", Shape.TEXT,
            "tableChanges", Shape.TEXT);
    private static final Shape DOCUMENT = Shape.struct(
            "schema", Shape.struct("type", Shape.TEXT, "name", Shape.TEXT, "fields", Shape.arrayOf(ENVELOPE_FIELD)),
            "payload", PAYLOAD).with(PAYLOAD.members());
    private static final Shape KEY = Shape.struct(
            "schema", Shape.struct("type", Shape.TEXT, "name", Shape.TEXT, "fields", Shape.arrayOf(COLUMN)), "payload", Shape.MAP);

    /** How the PostgreSQL connector writes an unchanged TOASTed value per column type, as JsonConverter renders it
     * (UnchangedToastedPlaceholder): debezium.unavailable_renderings gives the list, checked equal by a test. */
    public static final Set<String> UNAVAILABLE = Set.copyOf(unavailableRenderings());

    public static List<String> unavailableRenderings() {
        byte[] raw = UNAVAILABLE_PLACEHOLDER.getBytes(StandardCharsets.UTF_8);
        String text = "\"" + UNAVAILABLE_PLACEHOLDER + "\"";
        String base64 = java.util.Base64.getEncoder().encodeToString(raw);
        StringBuilder numbers = new StringBuilder("[");
        for (int i = 0; i < raw.length; i++) {
            numbers.append(i > 0 ? "," : "").append(raw[i]);
        }
        return List.of(UNAVAILABLE_PLACEHOLDER, base64, "[" + text + "]", "[\"" + base64 + "\"]",
                "[\"" + java.util.UUID.nameUUIDFromBytes(raw) + "\"]", numbers.append("]").toString(), "{" + text + ":" + text + "}");
    }

    protected String formatId() {
        return "debezium-json";
    }

    /** The payload as read, in Debezium's own form: a dialect rewrites what its producer writes differently. */
    protected Map<String, Object> payload(Map<String, Object> asRead) {
        return asRead;
    }

    @Override
    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset) {
        return Readers.record(getClass().getSimpleName(), topic, partition, offset,
                () -> new Record(key, value, headers, topic, partition, offset).output());
    }

    /** A Connect field descriptor with its logical type. */
    public static final class Field {
        final String field;
        final String name;
        final String type;
        final String optional;
        final Map<String, String> parameters;
        final String logical;
        final Map<String, Object> schema;

        Field(Map<String, Object> descriptor) {
            schema = descriptor;
            field = Json.text(descriptor, "field");
            name = Json.text(descriptor, "name");
            type = Json.text(descriptor, "type");
            optional = Json.text(descriptor, "optional");
            parameters = Records.textMap(descriptor == null ? null : descriptor.get("parameters"));
            logical = ConnectTypes.logicalType(name, type, parameters);
        }
    }

    /** One column's value in one image: present, its JSON value, its text as read, its canonical text. */
    public static final class Cell {
        final String name;
        final boolean present;
        final String raw;
        final String value;

        Cell(String name, boolean present, String raw, String value) {
            this.name = name;
            this.present = present;
            this.raw = raw;
            this.value = value;
        }
    }


    public static List<Field> fields(Object descriptors) {
        List<Object> list = Json.array(descriptors);
        if (list == null) {
            return null;
        }
        List<Field> fields = new ArrayList<>(list.size());
        for (Object descriptor : list) {
            fields.add(new Field(Json.object(descriptor)));
        }
        return fields;
    }

    /** Canonical text of one JSON value of a typed field. A Decimal is base64 of its unscaled bytes, or, with
     * {@code decimal.format=NUMERIC}, a JSON number: its token (BigDecimal.toString, exponent form included) is the
     * exact value. Any other number beyond a
     * double's range (1e-400, 1e400) is no value of any Connect type. */
    public static String convert(Object json, Field field) {
        String raw = Json.text(json);
        if (raw == null || !ConnectTypes.fits(json, field.schema)) {
            return null;
        }
        if (field.logical != null && field.logical.startsWith("DECIMAL(") && !(json instanceof String)) {
            return json instanceof Json.Number ? Canonical.ofType(Canonical.decimalTextOfBigDecimal(raw, Canonical.scaleOf(field.logical),
                    Canonical.precisionOf(field.logical)), field.logical) : null;
        }
        if (json instanceof Json.Number && Canonical.beyondDoubleRange(raw)) {
            return null;
        }
        return ConnectTypes.convert(raw, field.logical);
    }

    /** Without a schema a value keeps its JSON text: a number its own token, except one beyond a double's range
     * (nothing it could mean is known: UNDECODABLE_VALUE); an object (a struct: a geometry, a variable-scale
     * decimal) its members in name order, which no spelling of the record changes. */
    public static String schemaless(Object json) {
        String raw = Json.canonicalText(json);
        return json instanceof Json.Number && Canonical.beyondDoubleRange(raw) ? null : raw;
    }

    private static final Pattern RELEASE_LINE = Pattern.compile("^([0-9]+[.][0-9]+)");
    private static final Pattern SQL_SERVER_LSN = Pattern.compile("[0-9A-Fa-f]{8}:[0-9A-Fa-f]{8}:[0-9A-Fa-f]{4}");
    // the model's commit part holds a file of at most 512 characters; its index padded to ten digits may add some
    private static final int MAX_BINLOG_FILE_CHARS = 500;
    private static final Pattern FIRST_WORD = Pattern.compile("^\\s*(\\w+)");
    private static final Set<String> DDL_WORDS = Set.of("CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE");
    /** io.debezium.relational.history.TableChanges.TableChangeType, as its name() writes it. */
    private static final Set<String> TABLE_CHANGE_TYPES = Set.of("CREATE", "ALTER", "DROP");

    /** One record, read once; its rules and events. */
    public final class Record {
        final byte[] key;
        final byte[] value;
        final Seq<Row> headers;
        final String topic;
        final Integer partition;
        final Long offset;

        // the value
        Map<String, Object> document;     // the value's object when it fits the envelope's shape
        boolean valueMalformed;
        boolean valueRepeats;
        boolean valueLoneSurrogate;
        boolean wrapped;
        Map<String, Object> payload;      // Debezium's form (after the dialect); null only when wrapped without one
        List<Field> rowFields;            // the schema's fields of `after` (else `before`); null without a schema
        // the key
        Map<String, String> bareKey;      // the key's object, members as text
        boolean keyRepeats;
        boolean keyLoneSurrogate;
        boolean keyWrapped;
        Map<String, Object> keyPayloadJson;
        List<Field> keyFields;
        List<String> keyNames;
        Map<String, String> keyRaw;       // the key's columns as text: its payload when wrapped, else the object

        Record(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset) {
            this.key = key;
            this.value = value;
            this.headers = headers;
            this.topic = topic;
            this.partition = partition;
            this.offset = offset;
            readKey();
            if (value != null) {
                readValue();
            }
        }

        private void readKey() {
            if (key == null) {
                return;
            }
            Json.Document parsed = Json.read(key);
            Map<String, Object> object = parsed.object();
            keyRepeats = parsed.repeatsAMember;
            keyLoneSurrogate = parsed.loneSurrogate;
            bareKey = Records.textMap(object);
            if (object == null) {
                return;
            }
            Map<String, Object> schema = KEY.fits(object) ? Json.object(object.get("schema")) : null;
            keyPayloadJson = KEY.fits(object) ? Json.object(object.get("payload")) : null;
            keyWrapped = schema != null && keyPayloadJson != null;
            if (keyWrapped) {
                keyFields = fields(schema.get("fields"));
                keyNames = keyFields == null ? null : fieldNames(keyFields);
                keyRaw = Records.textMap(keyPayloadJson);
            } else if (keyPayloadJson != null && !Json.present(object.get("schema")) && object.size() == 2) {
                // JsonConverter with schemas.enable on a key without a schema: {"schema":null,"payload":{...}} (Paimon's
                // Flink CDC test data): its columns are the payload's, not `schema` and `payload` (issue 49)
                keyNames = new ArrayList<>(keyPayloadJson.keySet());
                keyRaw = Records.textMap(keyPayloadJson);
            } else {
                keyNames = new ArrayList<>(object.keySet());
                keyRaw = bareKey;
            }
        }

        private void readValue() {
            Json.Document parsed = Json.read(value);
            Map<String, Object> object = parsed.object();
            valueRepeats = parsed.repeatsAMember;
            valueLoneSurrogate = parsed.loneSurrogate;
            valueMalformed = object == null || !DOCUMENT.fits(object);
            if (valueMalformed) {
                return;
            }
            document = object;
            wrapped = Json.present(object.get("schema")) || Json.present(object.get("payload"));
            Map<String, Object> asRead = wrapped ? Json.object(object.get("payload")) : object;
            payload = asRead == null ? null : DebeziumRecords.this.payload(asRead);
            Map<String, Object> schema = Json.object(object.get("schema"));
            List<Object> envelope = schema == null ? null : Json.array(schema.get("fields"));
            Object declared = imageFields(envelope, "after");
            rowFields = fields(declared != null ? declared : imageFields(envelope, "before"));
        }

        /** The `fields` of the envelope field named `image`: the first of that name. */
        private Object imageFields(List<Object> envelope, String image) {
            if (envelope != null) {
                for (Object item : envelope) {
                    Map<String, Object> field = Json.object(item);
                    if (field != null && image.equals(Json.text(field, "field"))) {
                        return Json.present(field.get("fields")) ? field.get("fields") : null;
                    }
                }
            }
            return null;
        }

        // -----------------------------------------------------------------------------------------------------
        // The payload
        // -----------------------------------------------------------------------------------------------------

        String op() {
            return Json.text(payload, "op");
        }

        Map<String, Object> image(String name) {
            return payload == null ? null : Json.object(payload.get(name));
        }

        Map<String, String> source() {
            return payload == null ? null : Records.textMap(payload.get("source"));
        }

        String src(String name) {
            Map<String, String> source = source();
            return source == null ? null : source.get(name);
        }

        boolean isRowOp() {
            return DebeziumRecords.isRowOp(op());
        }

        String text(String member) {
            return Json.text(payload, member);
        }

        boolean isHeartbeat() {
            if (text("ts_ms") == null) {
                return false;
            }
            for (String name : PAYLOAD_FIELDS) {
                if (!name.startsWith("ts_") && Json.present(payload.get(name))) {
                    return false;
                }
            }
            return true;
        }

        boolean isControlRecord() {
            String status = text("status");
            return "BEGIN".equals(status) || "END".equals(status) || text("ddl") != null || text("tableChanges") != null
                    || isHeartbeat();
        }

        String kind() {
            if (value == null) {
                return "TOMBSTONE";
            }
            String op = op();
            if (DebeziumRecords.isRowOp(op)) {
                return "ROW";
            }
            if ("t".equals(op)) {
                return "TRUNCATE";
            }
            if ("m".equals(op)) {
                return "MESSAGE";
            }
            String status = text("status");
            if ("BEGIN".equals(status)) {
                return "TX_BEGIN";
            }
            if ("END".equals(status)) {
                return "TX_END";
            }
            return text("ddl") != null || text("tableChanges") != null ? "DDL" : "HEARTBEAT";
        }

        // -----------------------------------------------------------------------------------------------------
        // Images
        // -----------------------------------------------------------------------------------------------------

        /** The cells of image `name` (before, after) by the schema's fields; null without the image or a schema. */
        List<Cell> cells(String name) {
            Map<String, Object> image = image(name);
            return image == null || rowFields == null ? null : typedCells(image, rowFields);
        }

        List<Cell> typedCells(Map<String, Object> image, List<Field> fields) {
            List<Cell> cells = new ArrayList<>(fields.size());
            for (Field field : fields) {
                Object json = image.get(field.field);
                cells.add(new Cell(field.field, image.containsKey(field.field), Json.text(json), convert(json, field)));
            }
            return cells;
        }

        List<Cell> keyCells() {
            if (keyWrapped) {
                return keyFields == null ? null : typedCells(keyPayloadJson, keyFields);
            }
            if (keyNames == null) {
                return null;
            }
            List<Cell> cells = new ArrayList<>(keyNames.size());
            for (String name : keyNames) {
                cells.add(new Cell(name, true, keyRaw.get(name), keyRaw.get(name)));
            }
            return cells;
        }

        boolean duplicateFields() {
            return rowFields != null && repeats(fieldNames(rowFields));
        }

        /** Image `name` as canonical text: the schema's columns the image holds (an unchanged TOASTed value left
         * out: unknown, not NULL), or without a schema every member as its JSON text. */
        Map<String, String> canonicalImage(String name) {
            Map<String, Object> image = image(name);
            if (image == null) {
                return null;
            }
            Map<String, String> out = new LinkedHashMap<>();
            if (rowFields == null) {
                for (Map.Entry<String, Object> member : image.entrySet()) {
                    String raw = Json.text(member.getValue());
                    if (raw == null || !UNAVAILABLE.contains(raw)) {
                        out.put(member.getKey(), schemaless(member.getValue()));
                    }
                }
                return out;
            }
            if (duplicateFields()) {
                return null;  // quarantined: which declaration types the value is unknowable
            }
            for (Cell cell : cells(name)) {
                if (cell.present && (cell.raw == null || !UNAVAILABLE.contains(cell.raw))) {
                    out.put(cell.name, cell.value);
                }
            }
            return out;
        }

        boolean undecodable(List<Cell> cells) {
            if (cells != null) {
                for (Cell cell : cells) {
                    if (cell.raw != null && cell.value == null && !UNAVAILABLE.contains(cell.raw)) {
                        return true;
                    }
                }
            }
            return false;
        }

        boolean unrecoverableNumber(String name) {
            Map<String, Object> image = image(name);
            if (rowFields != null || image == null) {
                return false;
            }
            for (Object json : image.values()) {
                if (Json.present(json) && schemaless(json) == null) {
                    return true;
                }
            }
            return false;
        }

        boolean unknownColumns(String name) {
            Map<String, Object> image = image(name);
            if (rowFields == null || image == null) {
                return false;
            }
            Set<String> declared = new HashSet<>(fieldNames(rowFields));
            for (String column : image.keySet()) {
                if (!declared.contains(column)) {
                    return true;
                }
            }
            return false;
        }

        // -----------------------------------------------------------------------------------------------------
        // Key changes
        // -----------------------------------------------------------------------------------------------------

        String header(String name) {
            if (headers == null) {
                return null;
            }
            Iterator<Row> it = headers.iterator();
            while (it.hasNext()) {
                Row header = it.next();
                if (header != null && name.equals(header.getString(0))) {
                    byte[] bytes = (byte[]) header.get(1);
                    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
                }
            }
            return null;
        }

        /** The key in a key change's partner header ({@code __debezium.newkey}, {@code oldkey}), as Connect's header
         * converter writes the key struct: JSON-like text that escapes only backslashes and quotes (a tab stays
         * raw), wrapped ({@code {"schema","payload"}}) or bare. */
        Map<String, String> headerKey(String name) {
            Map<String, Object> object = Json.read(header(name), Json.CONTROL_CHARACTERS_RAW).object();
            if (object == null) {
                return null;
            }
            boolean wrappedShape = KEY.fits(object);
            if (wrappedShape && Json.object(object.get("payload")) != null) {
                return Records.textMap(object.get("payload"));
            }
            return wrappedShape && Json.present(object.get("schema")) ? null : Records.textMap(object);
        }

        /** OLD for the DELETE of a key change, NEW for its INSERT (Debezium >= 1.2 marks them with headers). */
        String keyChangeHalf() {
            String op = op();
            if ("d".equals(op) && header("__debezium.newkey") != null) {
                return "OLD";
            }
            if (("c".equals(op) || "r".equals(op)) && header("__debezium.oldkey") != null) {
                return "NEW";
            }
            return null;
        }

        Map<String, String> partnerKey() {
            return headerKey("d".equals(op()) ? "__debezium.newkey" : "__debezium.oldkey");
        }

        // -----------------------------------------------------------------------------------------------------
        // Source, position, times
        // -----------------------------------------------------------------------------------------------------

        /** {@code sequence[0]}, the last committed LSN; 0 when it is null: Debezium PostgreSQL writes {@code [null, lsn]}
         * until it sees its first COMMIT, and a null commit part would sort those events before or after the rest as
         * the consumer sorts NULLs (zeros sort before every later commit, as they came). */
        /** PostgreSQL's commit part: {@code sequence} is the JSON text of [last commit LSN, LSN], each digits or null
         * (Debezium 1.5+, DBZ-2911: {@code SourceInfo.sequence}). Absent (a connector before 1.5) or a null first
         * element (1.x before its first COMMIT): zeros. Null where the text is no JSON array of at least one element:
         * {@link #sequenceMalformed} refuses such a record rather than give its events a null commit part. */
        String sequenceCommit() {
            String text = src("sequence");
            if (text == null) {
                return "0";
            }
            List<Object> sequence = Json.array(Json.read(text).root);
            if (sequence == null || sequence.isEmpty()) {
                return null;
            }
            return sequence.get(0) == Json.NULL ? "0" : Json.text(sequence.get(0));
        }

        boolean sequenceMalformed() {
            return "postgresql".equalsIgnoreCase(src("connector")) && sequenceCommit() == null;
        }

        String[] positionParts() {
            return new String[] {src("lsn"), src("pos"), src("row"), src("event_serial_no"), sequenceCommit(),
                    Canonical.binlogIndex(src("file"))};
        }

        boolean positionTooWide() {
            String[] parts = positionParts();
            int[] widths = {20, 20, 10, 20, 20, Canonical.BINLOG_INDEX_WIDTH};
            for (int i = 0; i < parts.length; i++) {
                if (Canonical.widerThan(parts[i], widths[i])) {
                    return true;
                }
            }
            return false;
        }

        /** A numeric position part the source gives that is no unsigned integer (`-5`, `0x1F`, `1.5`, `"abc"`): every
         * connector writes an LSN, a binlog offset, a row and a serial number as one. Its part came out null, which
         * sorts where the consumer puts NULLs (issue 49; the `[null, lsn]` of PostgreSQL 1.x is the one null given). */
        boolean positionNotDigits() {
            String[] parts = positionParts();
            for (int i = 0; i < parts.length - 1; i++) {
                if (parts[i] != null && !Canonical.isDigits(parts[i])) {
                    return true;
                }
            }
            return false;
        }

        /** Flink CDC's MySQL source writes its snapshot phase's rows with {@code BinlogOffset.ofEarliest()}: file
         * {@code ""} and pos 0 (StatefulTaskContext.loadStartingOffsetState), no binlog coordinates at all. */
        boolean noBinlogCoordinates() {
            return "".equals(src("file")) && "0".equals(Canonical.fixedWidth(src("pos"), 1));
        }

        /** SQL Server's LSNs as its connector writes them (`Lsn.toString`: 8, 8 and 4 hex digits), a binlog file as a
         * server names it (no colon: the position is `file:offset`): anything else makes a position that is not the
         * model's, and positions compare as text (both found by make fuzz, issue 40). */
        boolean positionMalformed() {
            String connector = src("connector") == null ? "" : src("connector").toLowerCase(Locale.ROOT);
            if ("sqlserver".equals(connector)) {
                for (String lsn : new String[] {src("commit_lsn"), src("change_lsn")}) {
                    if (lsn != null && !SQL_SERVER_LSN.matcher(lsn).matches()) {
                        return true;
                    }
                }
            }
            String file = src("file");
            // no file at all: every binlog connector writes one (Flink CDC's snapshot rows an empty one), and the
            // position's commit part is file:offset (issue 58: it came out null)
            return ("mysql".equals(connector) || "mariadb".equals(connector)) && (file == null || !noBinlogCoordinates()
                    && (file.isEmpty() || file.indexOf(':') >= 0 || file.length() > MAX_BINLOG_FILE_CHARS));
        }

        /** SQL Server orders the halves of a key change by event_serial_no; PostgreSQL, MySQL and MariaDB give both
         * one log position, so `seq` orders them. */
        Row position(String half) {
            String connector = src("connector");
            String seq = "NEW".equals(half) ? Keys.NEW_SEQ : Keys.OLD_SEQ;
            switch (connector == null ? "" : connector.toLowerCase(Locale.ROOT)) {
                case "sqlserver":
                    return Events.position(Records.upperWithoutColons(src("commit_lsn")), Records.upperWithoutColons(src("change_lsn")),
                            Canonical.fixedWidth(src("event_serial_no"), 20));
                case "postgresql":
                    return Events.position(Canonical.fixedWidth(sequenceCommit(), 20), Canonical.fixedWidth(src("lsn"), 20), seq);
                case "mysql":
                case "mariadb":  // the MariaDB connector (its own since 2.7) writes MySQL's binlog coordinates
                    if (noBinlogCoordinates()) {
                        return null;  // Flink CDC's snapshot phase: no position, ordered as a snapshot's rows are (by none)
                    }
                    String pos = Canonical.fixedWidth(src("pos"), 20);
                    String file = Canonical.binlogFile(src("file"));
                    return Events.position(file == null || pos == null ? null : file + ":" + pos,
                            Canonical.fixedWidth(src("row"), 10), seq);
                default:
                    return null;
            }
        }

        Row sourceInfo(String kind) {
            Map<String, String> source = source();
            if (source != null) {
                String connector = source.get("connector");
                return Events.source(connector == null ? null : connector.toLowerCase(Locale.ROOT), source.get("name"),
                        source.get("db"), Records.emptyAsNull(source.get("schema")), Records.emptyAsNull(source.get("table")));
            }
            if ("HEARTBEAT".equals(kind)) {
                return Events.source(null, keyRaw == null ? null : keyRaw.get("serverName"), null, null, null);
            }
            return null;
        }

        List<Object> tableChanges() {
            return payload == null ? null : Json.array(payload.get("tableChanges"));
        }

        /** The model's change: the first table change's type (Debezium's TableChangeType: CREATE, ALTER, DROP), else
         * the statement's first word when it is one of {@link #DDL_WORDS}, else OTHER; null when a table change names
         * a type Debezium has not (a quarantine: the model's list is closed, issue 49). */
        String ddlChange() {
            List<Object> changes = tableChanges();
            Map<String, Object> first = changes == null || changes.isEmpty() ? null : Json.object(changes.get(0));
            if (first != null && first.containsKey("type")) {
                Object type = first.get("type");
                return type instanceof String && TABLE_CHANGE_TYPES.contains(type) ? (String) type : null;
            }
            String ddl = text("ddl");
            if (ddl != null) {
                Matcher word = FIRST_WORD.matcher(ddl);
                String upper = word.find() ? word.group(1).toUpperCase(Locale.ROOT) : "";
                if (DDL_WORDS.contains(upper)) {
                    return upper;
                }
            }
            return "OTHER";
        }

        // -----------------------------------------------------------------------------------------------------
        // Rules: the first that holds decides (docs/formats/debezium-json.md)
        // -----------------------------------------------------------------------------------------------------

        /** {code, detail} of the first rule that holds, or null when the record is fine. */
        String[] verdict() {
            if (value != null && (!Json.isUtf8(value) || valueLoneSurrogate)) {
                return JsonRecordRules.notUtf8("value");
            }
            if (key != null && (!Json.isUtf8(key) || keyLoneSurrogate)) {
                return JsonRecordRules.notUtf8("key");
            }
            if (value != null && valueMalformed) {
                return Records.rule("MALFORMED_JSON", "value is not a JSON object");
            }
            if (key != null && bareKey == null) {
                return Records.rule("MALFORMED_KEY", "key is not a JSON object");
            }
            if (keyRepeats) {
                return JsonRecordRules.namesAMemberTwice("key");
            }
            if (value == null) {
                return null;  // a tombstone: never quarantined
            }
            if (valueRepeats) {
                return JsonRecordRules.namesAMemberTwice("value");
            }
            if (wrapped && payload == null) {
                return Records.rule("MISSING_FIELD", "payload is null");
            }
            // an array as the tree holds it: a string holding an array's text is no array Debezium wrote (read as one,
            // a CREATE came out as the DROP its text named; issue 49)
            boolean hasTableChanges = payload != null && Json.present(payload.get("tableChanges"));
            if (hasTableChanges && tableChanges() == null) {
                return Records.rule("UNKNOWN_MESSAGE_SHAPE", "tableChanges is not an array of table changes");
            }
            if (hasTableChanges && op() == null && ddlChange() == null) {
                return Records.rule("UNKNOWN_EVENT_TYPE", "tableChanges[0].type is none of Debezium's table change types (CREATE, ALTER, DROP)");
            }
            String op = op();
            if (op == null && !isControlRecord()) {
                if (Json.present(payload.get("before")) || Json.present(payload.get("after"))
                        || Json.present(payload.get("source")) || Json.present(payload.get("transaction"))) {
                    return Records.rule("MISSING_FIELD", "missing field: op (the record has the shape of a change event)");
                }
                return Records.rule("UNKNOWN_MESSAGE_SHAPE", "no op and not a heartbeat, transaction or schema-change record");
            }
            if (op != null && !isRowOp() && !"t".equals(op) && !"m".equals(op)) {
                return Records.rule("UNKNOWN_OPERATION", "unknown op " + op);
            }
            if (op != null && source() == null) {
                return Records.rule("MISSING_FIELD", "payload.source is missing");
            }
            if (positionTooWide()) {
                return Records.rule("UNDECODABLE_VALUE", "a source position part (lsn, pos, row, event_serial_no, sequence) has too many digits");
            }
            if (sequenceMalformed()) {
                return Records.rule("UNDECODABLE_VALUE", "source.sequence is not the JSON text of an array [commit LSN, LSN]");
            }
            if (positionNotDigits()) {
                return Records.rule("UNDECODABLE_VALUE", "a source position part (lsn, pos, row, event_serial_no, sequence) is not an unsigned integer");
            }
            if (positionMalformed()) {
                return Records.rule("UNDECODABLE_VALUE", "a SQL Server LSN is not xxxxxxxx:xxxxxxxx:xxxx (hex), or a binlog "
                        + "file name is missing, empty (with an offset), holds a colon or is longer than 500 characters");
            }
            if (("c".equals(op) || "r".equals(op) || "u".equals(op)) && image("after") == null) {
                return Records.rule("MISSING_FIELD", "op " + op + " without after");
            }
            if ("m".equals(op) && image("message") == null) {
                return Records.rule("MISSING_FIELD", "op m without message");
            }
            if (isRowOp()) {
                if (duplicateFields() || (keyNames != null && repeats(keyNames))) {
                    return Records.rule("SCHEMA_MISMATCH", "the schema declares a column twice");
                }
                if ((rowFields != null && fieldNames(rowFields).contains(null)) || (keyNames != null && keyNames.contains(null))) {
                    return Records.rule("SCHEMA_MISMATCH", "the schema declares a column without a name");
                }
                if (unknownColumns("before") || unknownColumns("after")) {
                    return Records.rule("SCHEMA_MISMATCH", "row image has columns its schema does not declare");
                }
                String unknownType = firstUnknownType(rowFields, keyFields);
                if (unknownType != null) {
                    return Records.rule("UNKNOWN_COLUMN_TYPE", "column type " + unknownType);
                }
            }
            if (unrecoverableNumber("before") || unrecoverableNumber("after")) {
                return Records.rule("UNDECODABLE_VALUE", "a number whose exact text cannot be told from the record (beyond the range of a "
                        + "double, written with escapes, or two tokens that read alike)");
            }
            if (undecodable(cells("before")) || undecodable(cells("after")) || undecodable(keyCells())) {
                return Records.rule("UNDECODABLE_VALUE", "a column value does not match its declared type");
            }
            if (("u".equals(op) || "d".equals(op)) && Keys.oldKeyMissing(keyNames, Records.textMap(image("before")))) {
                return Records.rule("MISSING_OLD_KEY", "the before image lacks a key column or holds NULL for one: which row changed is unknown");
            }
            if (keyChangeHalf() != null && !(Keys.known(keyRaw) && Keys.known(partnerKey()))) {
                return Records.rule("MALFORMED_KEY", "a key-change half whose partner cannot be identified (no Kafka key, or a "
                        + "__debezium.newkey/oldkey header that is no key)");
            }
            return null;
        }

        // -----------------------------------------------------------------------------------------------------
        // Events
        // -----------------------------------------------------------------------------------------------------

        Row output() {
            String[] verdict = verdict();
            if (verdict != null) {
                return Events.output(verdict[0], verdict[1], null);
            }
            return Events.output(null, null, events());
        }

        List<Row> events() {
            String kind = kind();
            boolean row = kind.equals("ROW");
            boolean tx = kind.equals("TX_BEGIN") || kind.equals("TX_END");
            String op = value == null ? null : op();
            String half = row ? keyChangeHalf() : null;
            Row source = sourceInfo(kind);
            Row position = value == null ? null : position(half);
            Map<String, String> before = row ? canonicalImage("before") : null;
            Map<String, String> after = row ? canonicalImage("after") : null;
            Events.Event event = new Events.Event()
                    .set("event_id", Events.eventId(topic, partition, offset, 0))
                    .set("format", formatId())
                    .set("format_version", formatVersion())
                    .set("kind", kind)
                    .set("op", canonicalOp(op))
                    .set("snapshot", row ? snapshot(op) : kind.equals("DDL") ? schemaSnapshot() : null)
                    .set("source", source)
                    .set("columns", row ? columns() : null)
                    .set("key", (row || kind.equals("TOMBSTONE")) && key != null ? keyEntries() : null)
                    .set("before", before)
                    .set("after", after)
                    .set("pk_change", half == null ? null : pkChange(half, source, position))
                    .set("position", position)
                    .set("tx_id", transactionOf(tx ? text("id") : txId()))
                    .set("commit_ts", tx ? Canonical.epochToInstant(text("ts_ms"), 1_000L) : commitInstant(op))
                    .set("emit_ts", tx || value == null ? null : instant(text("ts_us"), text("ts_ms")))
                    .set("ddl", kind.equals("DDL") ? Events.pair(text("ddl"), ddlChange()) : null)
                    .set("message", kind.equals("MESSAGE") ? Events.pair(Json.text(image("message"), "prefix"),
                            Json.text(image("message"), "content")) : null)
                    .set("origin", Events.origin(topic, partition, offset));
            if (!("u".equals(op) && updateChangedKey())) {
                return List.of(event.row());
            }
            // an update that changed the key (Debezium splits those itself; other producers of its envelope may not):
            // the DELETE of the old key, then the INSERT of the new one, one group
            String group = Keys.group(groupParts(source, position), Keys.only(Records.textMap(image("before")), keyNames), keyRaw);
            Events.Event delete = event.copy().set("op", "DELETE").set("key", Events.keyEntries(keyNames, before))
                    .set("after", null).set("pk_change", Events.pair(group, "OLD"))
                    .set("position", halfPosition(position, Keys.OLD_SEQ));
            Events.Event insert = event.copy().set("event_id", Events.eventId(topic, partition, offset, 1)).set("op", "INSERT")
                    .set("before", null).set("pk_change", Events.pair(group, "NEW"))
                    .set("position", halfPosition(position, Keys.NEW_SEQ));
            return List.of(delete.row(), insert.row());
        }

        boolean updateChangedKey() {
            return image("before") != null && Keys.keyChanged(keyNames, Records.textMap(image("before")), Records.textMap(image("after")));
        }

        Row halfPosition(Row position, String seq) {
            return position == null ? null : Events.position(position.getString(0), position.getString(1), seq);
        }

        String[] groupParts(Row source, Row position) {
            String[] parts = new String[7];
            for (int i = 0; i < 5; i++) {
                parts[i] = source == null ? null : source.getString(i);
            }
            parts[5] = position == null ? null : position.getString(0);
            parts[6] = position == null ? null : position.getString(1);
            return parts;
        }

        Row pkChange(String half, Row source, Row position) {
            String[] parts = groupParts(source, position);
            return "OLD".equals(half) ? Events.pair(Keys.group(parts, keyRaw, headerKey("__debezium.newkey")), "OLD")
                    : Events.pair(Keys.group(parts, headerKey("__debezium.oldkey"), keyRaw), "NEW");
        }

        String formatVersion() {
            String version = src("version");
            Matcher line = version == null ? null : RELEASE_LINE.matcher(version);
            return line != null && line.find() ? line.group(1) : null;
        }

        String canonicalOp(String op) {
            if (op == null) {
                return null;
            }
            switch (op) {
                case "c":
                case "r":
                    return "INSERT";
                case "u":
                    return "UPDATE";
                case "d":
                    return "DELETE";
                default:
                    return null;
            }
        }

        /** A schema change of the connector's schema snapshot, as its source says (a binlog connector's snapshot writes
         * every statement at the position it started at, so only this flag sets them apart); null where it says nothing. */
        Boolean schemaSnapshot() {
            return src("snapshot") == null ? null : snapshot(null);
        }

        Boolean snapshot(String op) {
            String marker = src("snapshot");
            return "r".equals(op) || (marker != null && SNAPSHOT_MARKERS.contains(marker.toLowerCase(Locale.ROOT)));
        }

        List<Row> columns() {
            if (rowFields == null) {
                return null;
            }
            List<Row> columns = new ArrayList<>(rowFields.size());
            for (int i = 0; i < rowFields.size(); i++) {
                Field f = rowFields.get(i);
                String propagated = f.parameters == null ? null : f.parameters.get("__debezium.source.column.type");
                int keyIndex = keyNames == null ? -1 : keyNames.indexOf(f.field);
                columns.add(Events.column(f.field, i + 1, propagated != null ? propagated : f.name != null ? f.name : f.type,
                        f.logical, f.optional == null ? null : f.optional.toLowerCase(Locale.ROOT).equals("true"),
                        keyIndex < 0 || f.field == null ? null : keyIndex + 1));
            }
            return columns;
        }

        List<Row> keyEntries() {
            List<Cell> cells = keyCells();
            if (cells == null) {
                return null;
            }
            List<Row> entries = new ArrayList<>(cells.size());
            for (Cell cell : cells) {
                entries.add(Events.keyEntry(cell.name, cell.value));
            }
            return entries;
        }

        String txId() {
            Map<String, String> transaction = payload == null ? null : Records.textMap(payload.get("transaction"));
            String id = transaction == null ? null : transaction.get("id");
            return id != null ? id : src("txId");
        }

        /** When the change was committed: {@code source.ts_us}, else {@code ts_ms}. A snapshot read's {@code ts_ms} of
         * 0 is no time: Flink CDC's MySQL source writes 0 for every record of its snapshot phase
         * (RecordUtils.formatMessageTimestamp) where Debezium's own snapshot writes the read's time; taken as written
         * every such row was committed on 1970-01-01 (issue 49). */
        Instant commitInstant(String op) {
            if ("r".equals(op) && src("ts_us") == null && "0".equals(src("ts_ms"))) {
                return null;
            }
            return instant(src("ts_us"), src("ts_ms"));
        }

        Instant instant(String micros, String millis) {
            return Events.first(Canonical.epochToInstant(micros, 1_000_000L), Canonical.epochToInstant(millis, 1_000L));
        }
    }

    /** The transaction a transaction id names. PostgreSQL's since Debezium 2.0 (DBZ-5329) is {@code <xid>:<lsn>} with
     * each event's own LSN: the real 3.3.2 wrote {@code 734:27019920} and {@code 734:27020072} for two events of
     * transaction 734, and an END whose LSN was the next transaction's (1.9.7 wrote {@code 734} throughout). Taken as
     * written, one transaction had as many ids as events (issue 40): the transaction is the xid, as in
     * {@code source.txId}. Any other id (a SQL Server LSN has three parts, a MySQL GTID a UUID) stays as written. */
    static String transactionOf(String id) {
        int colon = id == null ? -1 : id.indexOf(':');
        if (colon <= 0 || colon != id.lastIndexOf(':') || !digits(id, 0, colon) || !digits(id, colon + 1, id.length())) {
            return id;
        }
        return id.substring(0, colon);
    }

    private static boolean digits(String text, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    public static boolean isRowOp(String op) {
        return op != null && ROW_OPS.contains(op);  // List.of refuses to look for null
    }


    /** The first field type that is none of Kafka Connect's (Schema.Type: the eight primitives, bytes, struct, array,
     * map): JsonConverter writes no other, and taken as a type of its own its upper-cased name could spell one of the
     * model's (a {@code bytes(} was BYTES with its value unchecked: found by fuzzing). Null when every type is Connect's. */
    static String firstUnknownType(List<Field> rowFields, List<Field> keyFields) {
        for (List<Field> fields : Arrays.asList(rowFields, keyFields)) {
            for (Field f : fields == null ? List.<Field>of() : fields) {
                if (f.type != null && !ConnectTypes.isConnectType(f.type)) {
                    return f.type;
                }
                if (!ConnectTypes.writtenAs(f.name, f.type)) {
                    return f.name + " on " + f.type;
                }
            }
        }
        return null;
    }

    public static List<String> fieldNames(List<Field> fields) {
        List<String> names = new ArrayList<>(fields.size());
        for (Field field : fields) {
            names.add(field.field);
        }
        return names;
    }

    public static boolean repeats(List<String> names) {
        return new HashSet<>(names).size() < names.size();
    }



}
