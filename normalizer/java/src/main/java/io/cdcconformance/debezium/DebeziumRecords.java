package io.cdcconformance.debezium;

import io.cdcconformance.shared.*;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF6;
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
    // a flat record (the ExtractNewRecordState SMT, {@link Flattening}): its payload is a row, any object
    private static final Shape FLAT_DOCUMENT = Shape.struct(
            "schema", Shape.struct("type", Shape.TEXT, "name", Shape.TEXT, "fields", Shape.arrayOf(ENVELOPE_FIELD)),
            "payload", Shape.MAP);
    static final Shape KEY = Shape.struct(
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
                () -> new Record(key, value, headers, topic, partition, offset, null, null).output());
    }

    private transient String flatteningText;
    private transient Flattening flattening;

    /** The SMT's settings the option's text gives, parsed once per text (the option is one literal per query). */
    protected Flattening flattening(String text) {
        if (text == null || !text.equals(flatteningText)) {
            flattening = Flattening.parse(text);
            flatteningText = text;
        }
        return flattening;
    }

    /** The JSON document of a record's key or value: JsonConverter's bytes are its text. A converter that writes
     * another form (Avro through a schema registry: {@link DebeziumAvroRecords}) builds the document JsonConverter
     * would have written from what it reads, or gives the record its quarantine ({@link Record#wireProblem}). */
    protected Json.Document document(byte[] bytes, String part, Record record) {
        return Json.read(bytes);
    }

    /** Whether the key's or value's bytes are the UTF-8 text JSON is; a binary converter's strings are checked by its
     * own reader. */
    protected boolean textual(byte[] bytes) {
        return Json.isUtf8(bytes);
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
        final String primitive;  // the type's, when it is one of Connect's primitives (ConnectTypes.primitive)

        Field(Map<String, Object> descriptor) {
            schema = descriptor;
            field = Json.text(descriptor, "field");
            name = Json.text(descriptor, "name");
            type = Json.text(descriptor, "type");
            optional = Json.text(descriptor, "optional");
            parameters = Records.textMap(descriptor == null ? null : descriptor.get("parameters"));
            logical = ConnectTypes.logicalType(name, type, parameters);
            primitive = ConnectTypes.primitive(descriptor);
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


    /** The cells of `image` by the schema's `fields`: each one's presence, its JSON text and its canonical text. */
    static List<Cell> typedCells(Map<String, Object> image, List<Field> fields) {
        List<Cell> cells = new ArrayList<>(fields.size());
        for (Field field : fields) {
            Object json = image.get(field.field);
            cells.add(new Cell(field.field, image.containsKey(field.field), Json.text(json), convert(json, field)));
        }
        return cells;
    }

    static Fields fields(Object descriptors) {
        if (descriptors instanceof SharedList shared) {  // a writer schema's: read once, not per record
            return shared.derived(DebeziumRecords::fieldsOf);
        }
        return fieldsOf(Json.array(descriptors));
    }

    private static Fields fieldsOf(List<Object> list) {
        if (list == null) {
            return null;
        }
        List<Field> fields = new ArrayList<>(list.size());
        for (Object descriptor : list) {
            fields.add(new Field(Json.object(descriptor)));
        }
        return new Fields(fields);
    }

    /** Canonical text of one JSON value of a typed field. A Decimal is base64 of its unscaled bytes, or, with
     * {@code decimal.format=NUMERIC}, a JSON number: its token (BigDecimal.toString, exponent form included) is the
     * exact value. Any other number beyond a
     * double's range (1e-400, 1e400) is no value of any Connect type. */
    public static String convert(Object json, Field field) {
        String raw = Json.text(json);
        if (raw == null || !ConnectTypes.fits(json, field.schema, field.primitive)) {
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

    private static final Pattern FIRST_WORD = Pattern.compile("^\\s*(\\w+)");
    private static final Set<String> DDL_WORDS = Set.of("CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE");
    /** io.debezium.relational.history.TableChanges.TableChangeType, as its name() writes it. */
    private static final Set<String> TABLE_CHANGE_TYPES = Set.of("CREATE", "ALTER", "DROP");

    /** One record, read once; its rules and events. */
    public class Record {
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
        Fields rowFields;                 // the schema's fields of `after` (else `before`); null without a schema
        final DebeziumSource source;      // the payload's source block (none without a payload)
        final KeyChangeHeaders keyChanges;
        final Object context;             // what a converter's reader needs to read the bytes (its schema registry)
        String[] wireProblem;             // set by a converter's reader: the code and detail that replace the events
        final DebeziumKey keyRead;        // the key as read
        final Flattening flattening;      // the ExtractNewRecordState SMT's settings, null: the envelope as written
        boolean flat;                     // the value is a flat row the SMT wrote (its payload rebuilt as the envelope's)
        boolean flatDelete;               // no value, or a null one, that the SMT's mode makes a delete of the key

        Record(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset, Object context,
               Flattening flattening) {
            this.context = context;
            this.flattening = flattening;
            this.key = key;
            this.value = value;
            this.headers = headers;
            this.topic = topic;
            this.partition = partition;
            this.offset = offset;
            this.keyChanges = new KeyChangeHeaders(headers);
            this.keyRead = new DebeziumKey(key == null ? null : document(key, "key", this));
            flatDelete = value == null && flattening != null && flattening.nullValueIsDelete();
            if (value != null) {
                readValue();
            }
            source = new DebeziumSource(payload == null ? null : Records.textMap(payload.get("source")));
        }

        private void readValue() {
            Json.Document parsed = document(value, "value", this);
            Map<String, Object> object = parsed.object();
            valueRepeats = parsed.repeatsAMember;
            valueLoneSurrogate = parsed.loneSurrogate;
            boolean deletes = flattening != null && flattening.nullValueIsDelete();
            if (deletes && parsed.root == Json.NULL) {
                flatDelete = true;  // JsonConverter without schemas writes the SMT's delete (a null of the row's schema) so
                return;
            }
            valueMalformed = object == null || !(flattening != null ? FLAT_DOCUMENT : DOCUMENT).fits(object);
            if (valueMalformed) {
                return;
            }
            document = object;
            wrapped = Json.present(object.get("schema")) || Json.present(object.get("payload"));
            Map<String, Object> asRead = wrapped ? Json.object(object.get("payload")) : object;
            Map<String, Object> schema = Json.object(object.get("schema"));
            flatDelete = deletes && wrapped && asRead == null && schema != null;  // ... and with schemas, its schema and a null
            if (flattening != null && asRead != null) {
                payload = asRead;
                flat = flattening.isRow(schema, asRead, isControlRecord());
            }
            if (flat) {
                payload = flattening.envelope(asRead);
                rowFields = flatFields(schema == null ? null : schema.get("fields"));
                return;
            }
            payload = asRead == null ? null : DebeziumRecords.this.payload(asRead);
            List<Object> envelope = schema == null ? null : Json.array(schema.get("fields"));
            Object declared = imageFields(envelope, "after");
            rowFields = fields(declared != null ? declared : imageFields(envelope, "before"));
        }

        /** A flat row's columns: its schema's fields but those the SMT added. */
        private Fields flatFields(Object descriptors) {
            Fields all = fields(descriptors);
            if (all == null) {
                return null;
            }
            List<Field> columns = new ArrayList<>(all.size());
            for (Field field : all) {
                if (field.field == null || !flattening.isAdded(field.field)) {
                    columns.add(field);
                }
            }
            return new Fields(columns);
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
            return flatDelete ? "d" : Json.text(payload, "op");
        }

        Map<String, Object> image(String name) {
            return payload == null ? null : Json.object(payload.get(name));
        }

        boolean isRowOp() {
            return DebeziumRecords.isRowOp(op()) || (flat && Flattening.UPSERT.equals(op()));
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
            if (flatDelete) {
                return "ROW";
            }
            if (value == null) {
                return "TOMBSTONE";
            }
            String op = op();
            if (isRowOp()) {
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

        // read once per record: the rules check them, then the events are built of them
        private List<Cell> beforeCells;
        private List<Cell> afterCells;

        /** The cells of image `name` (before, after) by the schema's fields; null without the image or a schema. */
        List<Cell> cells(String name) {
            boolean before = "before".equals(name);
            List<Cell> cells = before ? beforeCells : afterCells;
            if (cells == null) {
                Map<String, Object> image = image(name);
                cells = image == null || rowFields == null ? null : typedCells(image, rowFields);
                if (before) {
                    beforeCells = cells;
                } else if ("after".equals(name)) {
                    afterCells = cells;
                }
            }
            return cells;
        }

        boolean duplicateFields() {
            return rowFields != null && rowFields.repeats;
        }

        /** Image `name` as canonical text: the schema's columns the image holds (an unchanged TOASTed value left
         * out: unknown, not NULL), or without a schema every member as its JSON text. */
        Map<String, String> canonicalImage(String name) {
            Map<String, Object> image = image(name);
            if (image == null) {
                return null;
            }
            Map<String, String> out = new SmallMap<>();
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
            Set<String> declared = rowFields.declared;
            for (String column : image.keySet()) {
                if (!declared.contains(column)) {
                    return true;
                }
            }
            return false;
        }

        // -----------------------------------------------------------------------------------------------------
        // Source and schema changes
        // -----------------------------------------------------------------------------------------------------

        Row sourceInfo(String kind) {
            if (source.present()) {
                Row row = source.row();
                return flat && row.anyNull() && allNull(row) ? null : row;  // a flat row's added fields name none of it
            }
            if ("HEARTBEAT".equals(kind)) {
                return Events.source(null, keyRead.raw == null ? null : keyRead.raw.get("serverName"), null, null, null);
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
            if (wireProblem != null) {
                return wireProblem;
            }
            if (value != null && (!textual(value) || valueLoneSurrogate)) {
                return JsonRecordRules.notUtf8("value");
            }
            if (key != null && (!textual(key) || keyRead.loneSurrogate)) {
                return JsonRecordRules.notUtf8("key");
            }
            if (value != null && valueMalformed) {
                return Records.rule("MALFORMED_JSON", "value is not a JSON object");
            }
            if (key != null && !keyRead.anObject) {
                return Records.rule("MALFORMED_KEY", "key is not a JSON object");
            }
            if (keyRead.repeats) {
                return JsonRecordRules.namesAMemberTwice("key");
            }
            if (flatDelete && key == null) {
                return Records.rule("MISSING_FIELD", "a delete the SMT wrote as a null value, and no key to tell its row");
            }
            if (value == null || flatDelete) {
                return null;  // a tombstone (or the SMT's delete of the key): never quarantined
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
            if (op != null && !source.present() && !flat) {
                return Records.rule("MISSING_FIELD", "payload.source is missing");
            }
            if (source.positionTooWide()) {
                return Records.rule("UNDECODABLE_VALUE", "a source position part (lsn, pos, row, event_serial_no, sequence) has too many digits");
            }
            if (source.sequenceMalformed()) {
                return Records.rule("UNDECODABLE_VALUE", "source.sequence is not the JSON text of an array [commit LSN, LSN]");
            }
            if (source.positionNotDigits()) {
                return Records.rule("UNDECODABLE_VALUE", "a source position part (lsn, pos, row, event_serial_no, sequence) is not an unsigned integer");
            }
            if (source.positionMalformed()) {
                return Records.rule("UNDECODABLE_VALUE", "a SQL Server LSN is not xxxxxxxx:xxxxxxxx:xxxx (hex), or a binlog "
                        + "file name is missing, empty (with an offset), holds a colon or is longer than 500 characters");
            }
            if (("c".equals(op) || "r".equals(op) || "u".equals(op)) && image("after") == null) {
                return Records.rule("MISSING_FIELD", "op " + op + " without after");
            }
            if (flat && "d".equals(op) && image("before") == null) {
                return Records.rule("UNEXPECTED_IMAGE", "a flat record whose " + "__op is d holds the row as its new state (the SMT "
                        + "writes a delete as its before image, with __deleted true, or as a null value)");
            }
            if ("m".equals(op) && image("message") == null) {
                return Records.rule("MISSING_FIELD", "op m without message");
            }
            if (isRowOp()) {
                if (duplicateFields() || keyRead.repeatsAColumn()) {
                    return Records.rule("SCHEMA_MISMATCH", "the schema declares a column twice");
                }
                if ((rowFields != null && rowFields.unnamed()) || keyRead.unnamedColumn()) {
                    return Records.rule("SCHEMA_MISMATCH", "the schema declares a column without a name");
                }
                if (unknownColumns("before") || unknownColumns("after")) {
                    return Records.rule("SCHEMA_MISMATCH", "row image has columns its schema does not declare");
                }
                String unknownType = firstUnknownType(rowFields, keyRead.fields);
                if (unknownType != null) {
                    return Records.rule("UNKNOWN_COLUMN_TYPE", "column type " + unknownType);
                }
            }
            if (unrecoverableNumber("before") || unrecoverableNumber("after")) {
                return Records.rule("UNDECODABLE_VALUE", "a number whose exact text cannot be told from the record (beyond the range of a "
                        + "double, written with escapes, or two tokens that read alike)");
            }
            if (undecodable(cells("before")) || undecodable(cells("after")) || undecodable(keyRead.cells())) {
                return Records.rule("UNDECODABLE_VALUE", "a column value does not match its declared type");
            }
            if (("u".equals(op) || "d".equals(op)) && Keys.oldKeyMissing(keyRead.names, Records.textMap(image("before")))) {
                return Records.rule("MISSING_OLD_KEY", "the before image lacks a key column or holds NULL for one: which row changed is unknown");
            }
            if (!flat && keyChanges.half(op()) != null && !(Keys.known(keyRead.raw) && Keys.known(keyChanges.partnerKey(op())))) {
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
            String op = value == null && !flatDelete ? null : op();
            boolean asWritten = !flat && !flatDelete;  // a flat record has no whole source block, no key-change pair
            String half = row && asWritten ? keyChanges.half(op()) : null;
            Row sourceRow = sourceInfo(kind);
            Row position = value == null || !asWritten ? null : source.position(half);
            Map<String, String> before = row ? canonicalImage("before") : null;
            Map<String, String> after = row ? canonicalImage("after") : null;
            Events.Event event = new Events.Event()
                    .set("event_id", Events.eventId(topic, partition, offset, 0))
                    .set("format", formatId())
                    .set("format_version", source.formatVersion())
                    .set("kind", kind)
                    .set("op", canonicalOp(op))
                    .set("snapshot", row ? snapshot(op) : kind.equals("DDL") ? source.schemaSnapshot() : null)
                    .set("source", sourceRow)
                    .set("columns", row && !flatDelete ? columns() : null)
                    .set("key", (row || kind.equals("TOMBSTONE")) && key != null ? keyEntries() : null)
                    .set("before", before)
                    .set("after", after)
                    .set("pk_change", half == null ? null : pkChange(half, sourceRow, position))
                    .set("position", position)
                    .set("tx_id", transactionOf(tx ? text("id") : txId()))
                    .set("commit_ts", tx ? Canonical.epochToInstant(text("ts_ms"), 1_000L) : source.commitInstant(op))
                    .set("emit_ts", tx || value == null ? null : DebeziumSource.instant(text("ts_us"), text("ts_ms")))
                    .set("ddl", kind.equals("DDL") ? Events.pair(text("ddl"), ddlChange()) : null)
                    .set("message", kind.equals("MESSAGE") ? Events.pair(Json.text(image("message"), "prefix"),
                            Json.text(image("message"), "content")) : null)
                    .set("origin", Events.origin(topic, partition, offset));
            if (!("u".equals(op) && updateChangedKey())) {
                return List.of(event.row());
            }
            // an update that changed the key (Debezium splits those itself; other producers of its envelope may not):
            // the DELETE of the old key, then the INSERT of the new one, one group
            String group = Keys.group(groupParts(sourceRow, position), Keys.only(Records.textMap(image("before")), keyRead.names), keyRead.raw);
            Events.Event delete = event.copy().set("op", "DELETE").set("key", Events.keyEntries(keyRead.names, before))
                    .set("after", null).set("pk_change", Events.pair(group, "OLD"))
                    .set("position", halfPosition(position, Keys.OLD_SEQ));
            Events.Event insert = event.copy().set("event_id", Events.eventId(topic, partition, offset, 1)).set("op", "INSERT")
                    .set("before", null).set("pk_change", Events.pair(group, "NEW"))
                    .set("position", halfPosition(position, Keys.NEW_SEQ));
            return List.of(delete.row(), insert.row());
        }

        /** A snapshot's row: the source's marker or op r; a flat row without either says nothing of it. */
        Boolean snapshot(String op) {
            return flat && Flattening.UPSERT.equals(op) && source.get("snapshot") == null ? null : source.snapshot(op);
        }

        boolean updateChangedKey() {
            return image("before") != null && Keys.keyChanged(keyRead.names, Records.textMap(image("before")), Records.textMap(image("after")));
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
            return "OLD".equals(half) ? Events.pair(Keys.group(parts, keyRead.raw, keyChanges.key(KeyChangeHeaders.NEW_KEY)), "OLD")
                    : Events.pair(Keys.group(parts, keyChanges.key(KeyChangeHeaders.OLD_KEY), keyRead.raw), "NEW");
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
                case Flattening.UPSERT:
                    return flat ? "UPSERT" : null;
                default:
                    return null;
            }
        }

        List<Row> columns() {
            return rowFields == null ? null : rowFields.columns(keyRead.names, this::columns);
        }

        /** The event's columns, by the row's fields and the key's columns {@code keyNames}. */
        private List<Row> columns(List<String> keyNames) {
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
            List<Cell> cells = keyRead.cells();
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
            return id != null ? id : source.get("txId");
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

    private static boolean allNull(Row row) {
        for (int i = 0; i < row.length(); i++) {
            if (!row.isNullAt(i)) {
                return false;
            }
        }
        return true;
    }

    public static boolean isRowOp(String op) {
        return op != null && ROW_OPS.contains(op);  // List.of refuses to look for null
    }


    /** The first field type, the row's then the key's, that is none of Kafka Connect's ({@link Fields}). */
    static String firstUnknownType(Fields rowFields, Fields keyFields) {
        String unknown = rowFields == null ? null : rowFields.unknownType;
        return unknown != null || keyFields == null ? unknown : keyFields.unknownType;
    }



}
