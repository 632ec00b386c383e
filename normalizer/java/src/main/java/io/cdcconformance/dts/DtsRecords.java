package io.cdcconformance.dts;

import io.cdcconformance.shared.*;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF6;
import scala.collection.Seq;

/**
 * {@code dts-avro}: Alibaba Cloud DTS {@code com.alibaba.dts.formats.avro.Record} (2019 and 2020 schemas). The Kafka
 * value is a raw Avro binary datum (no magic byte, no schema id). The 2020 schema appends {@code bornTimestamp}: a
 * 2020 reader fails on 2019 bytes (they end early) and a 2019 reader would silently skip the 2020 field, so each
 * record is read with the 2020 schema first and with the 2019 one when that fails. {@link AvroGuard} walks the datum
 * first (Avro's readers allocate what a datum declares). Row images are arrays parallel to {@code fields}, each value a
 * union of DTS value classes, each turned into text and typed by {@link TextTypes}. docs/formats/dts-avro.md records
 * every decision; the schemas are the decoder's transcription beside this file ({@code dts-record-*.avsc}).
 */
public class DtsRecords implements UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final Schema SCHEMA_2019 = schema(2019);
    public static final Schema SCHEMA_2020 = schema(2020);
    /** operation -> kind, canonical op, snapshot */
    public static final Map<String, String[]> KINDS = Map.of("INSERT", new String[] {"ROW", "INSERT", "false"},
            "INIT", new String[] {"ROW", "INSERT", "true"}, "UPDATE", new String[] {"ROW", "UPDATE", "false"},
            "DELETE", new String[] {"ROW", "DELETE", "false"}, "BEGIN", new String[] {"TX_BEGIN", null, null},
            "COMMIT", new String[] {"TX_END", null, null}, "HEARTBEAT", new String[] {"HEARTBEAT", null, null},
            "CHECKPOINT", new String[] {"HEARTBEAT", null, null}, "DDL", new String[] {"DDL", null, null});
    public static final Set<String> DDL_CHANGES = Set.of("CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE");
    /** dataTypeNumber is the binlog type code (subscribe_example MysqlFieldConverter) */
    public static final Map<Integer, String> MYSQL_TYPE_NAMES = Map.ofEntries(Map.entry(0, "DECIMAL"), Map.entry(1, "TINY"),
            Map.entry(2, "SHORT"), Map.entry(3, "LONG"), Map.entry(4, "FLOAT"), Map.entry(5, "DOUBLE"), Map.entry(6, "NULL"),
            Map.entry(7, "TIMESTAMP"), Map.entry(8, "LONGLONG"), Map.entry(9, "INT24"), Map.entry(10, "DATE"),
            Map.entry(11, "TIME"), Map.entry(12, "DATETIME"), Map.entry(13, "YEAR"), Map.entry(14, "NEWDATE"),
            Map.entry(15, "VARCHAR"), Map.entry(16, "BIT"), Map.entry(245, "JSON"), Map.entry(246, "NEWDECIMAL"),
            Map.entry(247, "ENUM"), Map.entry(248, "SET"), Map.entry(249, "TINY_BLOB"), Map.entry(250, "MEDIUM_BLOB"),
            Map.entry(251, "LONG_BLOB"), Map.entry(252, "BLOB"), Map.entry(253, "VAR_STRING"), Map.entry(254, "STRING"),
            Map.entry(255, "GEOMETRY"));
    /** binlog type codes carry no sign: each integer type gets the logical type that holds its unsigned range too;
     * the type code says decimal, the value says its precision and scale ({@link Record#columnLogical}) */
    public static final Map<String, String> MYSQL = Map.ofEntries(Map.entry("TINY", "INT16"), Map.entry("SHORT", "INT32"),
            Map.entry("INT24", "INT32"), Map.entry("LONG", "INT64"), Map.entry("LONGLONG", "DECIMAL(20,0)"),
            Map.entry("BIT", "DECIMAL(20,0)"), Map.entry("YEAR", "INT16"), Map.entry("FLOAT", "FLOAT32"),
            Map.entry("DOUBLE", "FLOAT64"), Map.entry("TIMESTAMP", "TIMESTAMP_TZ"), Map.entry("DATE", "DATE"),
            Map.entry("NEWDATE", "DATE"), Map.entry("TIME", "TIME(6)"), Map.entry("DATETIME", "TIMESTAMP(6)"),
            Map.entry("VARCHAR", "STRING"), Map.entry("VAR_STRING", "STRING"), Map.entry("STRING", "STRING"),
            Map.entry("JSON", "JSON"), Map.entry("ENUM", "ENUM"), Map.entry("SET", "STRING"), Map.entry("TINY_BLOB", "BYTES"),
            Map.entry("MEDIUM_BLOB", "BYTES"), Map.entry("LONG_BLOB", "BYTES"), Map.entry("BLOB", "BYTES"),
            Map.entry("GEOMETRY", "BYTES"), Map.entry("DECIMAL", "DECIMAL"), Map.entry("NEWDECIMAL", "DECIMAL"));
    /** MySQL charset names -> the Java charset their bytes are decoded with (MySQL's latin1 is cp1252, not
     * ISO-8859-1: they differ at 0x80-0x9F); UTF-8 and ASCII are checked directly. */
    public static final Set<String> UTF8_CHARSETS = Set.of("utf8", "utf8mb3", "utf8mb4", "utf-8");
    public static final Map<String, String> JAVA_CHARSETS = Map.ofEntries(
            Map.entry("latin1", CharsetText.MYSQL_LATIN1), Map.entry("latin2", "ISO-8859-2"), Map.entry("latin5", "ISO-8859-9"),
            Map.entry("latin7", "ISO-8859-13"), Map.entry("greek", "ISO-8859-7"), Map.entry("hebrew", "ISO-8859-8"),
            Map.entry("cp1250", "windows-1250"), Map.entry("cp1251", "windows-1251"), Map.entry("cp1256", "windows-1256"),
            Map.entry("cp1257", "windows-1257"), Map.entry("cp850", "IBM850"), Map.entry("cp852", "IBM852"),
            Map.entry("cp866", "IBM866"), Map.entry("koi8r", "KOI8-R"), Map.entry("koi8u", "KOI8-U"),
            Map.entry("macroman", "x-MacRoman"), Map.entry("macce", "x-MacCentralEurope"), Map.entry("tis620", "TIS-620"),
            Map.entry("gbk", "GBK"), Map.entry("gb2312", "GB2312"), Map.entry("gb18030", "GB18030"), Map.entry("big5", "Big5"),
            Map.entry("sjis", "Shift_JIS"), Map.entry("cp932", "windows-31j"), Map.entry("ujis", "EUC-JP"),
            Map.entry("eucjpms", "EUC-JP"), Map.entry("euckr", "EUC-KR"), Map.entry("ucs2", "UTF-16BE"),
            Map.entry("utf16", "UTF-16BE"), Map.entry("utf16le", "UTF-16LE"), Map.entry("utf32", "UTF-32BE"),
            Map.entry("iso-8859-1", "ISO-8859-1"));  // not a MySQL name, but one DTS accepted before: strict ISO-8859-1
    /** The Record fields' positions, the same in both schemas (the 2020 one appends bornTimestamp): a datum's field
     * read by name is a hash lookup in its schema, on every record. */
    private static final int ID = position("id"), SOURCE_TIMESTAMP = position("sourceTimestamp"),
            SOURCE_TXID = position("sourceTxid"), SOURCE = position("source"), OPERATION = position("operation"),
            OBJECT_NAME = position("objectName"), TAGS = position("tags"), FIELDS = position("fields"),
            BEFORE_IMAGES = position("beforeImages"), AFTER_IMAGES = position("afterImages"),
            BORN_TIMESTAMP = SCHEMA_2020.getField("bornTimestamp").pos();
    private static final Schema FIELD = SCHEMA_2020.getField("fields").schema().getTypes().stream()
            .filter(t -> t.getType() == Schema.Type.ARRAY).findFirst().orElseThrow().getElementType();
    private static final int FIELD_NAME = FIELD.getField("name").pos(), FIELD_TYPE = FIELD.getField("dataTypeNumber").pos();

    /** The value classes' fields by position, the same in both schemas: a value's field read by name is a hash lookup
     * in its schema, per value (5% of the reader, issue 61). */
    private static final int INTEGER_VALUE = valueField("Integer", "value"), CHARACTER_CHARSET = valueField("Character", "charset"),
            CHARACTER_VALUE = valueField("Character", "value"), DECIMAL_VALUE = valueField("Decimal", "value"),
            DECIMAL_PRECISION = valueField("Decimal", "precision"), DECIMAL_SCALE = valueField("Decimal", "scale"),
            FLOAT_VALUE = valueField("Float", "value"), TIMESTAMP_SECONDS = valueField("Timestamp", "timestamp"),
            TIMESTAMP_MICROS = valueField("Timestamp", "millis"), YEAR = valueField("DateTime", "year"),
            MONTH = valueField("DateTime", "month"), DAY = valueField("DateTime", "day"), HOUR = valueField("DateTime", "hour"),
            MINUTE = valueField("DateTime", "minute"), SECOND = valueField("DateTime", "second"),
            MICROS = valueField("DateTime", "millis"), ZONED_VALUE = valueField("TimestampWithTimeZone", "value"),
            ZONED_ZONE = valueField("TimestampWithTimeZone", "timezone"), BINARY_GEOMETRY_VALUE = valueField("BinaryGeometry", "value"),
            TEXT_GEOMETRY_VALUE = valueField("TextGeometry", "value"), BINARY_OBJECT_VALUE = valueField("BinaryObject", "value"),
            TEXT_OBJECT_VALUE = valueField("TextObject", "value"),
            SOURCE_TYPE = samePosition(record -> record.getField("source").schema(), "sourceType");

    private static int valueField(String valueClass, String field) {
        return samePosition(record -> valueClass(record, valueClass), field);
    }

    /** A value class of the image arrays' element union. */
    private static Schema valueClass(Schema record, String name) {
        for (Schema images : record.getField("afterImages").schema().getTypes()) {
            if (images.getType() == Schema.Type.ARRAY) {
                for (Schema value : images.getElementType().getTypes()) {
                    if (value.getType() == Schema.Type.RECORD && value.getName().equals(name)) {
                        return value;
                    }
                }
            }
        }
        throw new IllegalStateException("no value class " + name + " in the DTS schema");
    }

    private static int position(String field) {
        return samePosition(record -> record, field);
    }

    /** {@code field}'s position in the record {@code owner} finds in a DTS schema, the same in both schemas (checked at
     * class load): one position reads a datum of either generation. */
    private static int samePosition(Function<Schema, Schema> owner, String field) {
        Schema in2020 = owner.apply(SCHEMA_2020);
        int position = in2020.getField(field).pos();
        if (owner.apply(SCHEMA_2019).getField(field).pos() != position) {
            throw new IllegalStateException("the DTS schemas place " + in2020.getName() + "." + field + " apart");
        }
        return position;
    }
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);
    private static final long MAX_BORN_MILLIS = Canonical.MAX_EPOCH_SECOND * 1000 + 999;

    public static Schema schema(int generation) {
        try (InputStream in = DtsRecords.class.getResourceAsStream("dts-record-" + generation + ".avsc")) {
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new IllegalStateException("the DTS schema of " + generation + " is not in the normalizer's jar", e);
        }
    }

    @Override
    public Row call(byte[] key, byte[] value, Seq<Row> headers, String topic, Integer partition, Long offset) {
        return Readers.record(getClass().getSimpleName(), topic, partition, offset,
                () -> new Record(value, topic, partition, offset).output());
    }

    /** One column's value of one image: supplied (EmptyObject NONE is not), SQL NULL, its canonical text. */
    public record Cell(String name, boolean supplied, boolean isNull, String value) {
    }

    public static final class Column {
        final String name;
        final Integer code;
        final int index;
        final String codeLogical;
        String logical;

        Column(Described described, int index) {
            this.name = described.names[index];
            this.code = described.codes[index];
            this.index = index;
            this.codeLogical = described.codeLogicals[index];
        }
    }

    /**
     * What a record's {@code fields} say of its columns, with its source type and key: each column's name, code, type
     * name and the logical type the code gives, whether a name repeats or is missing, each column's place in the key,
     * and whether the key names a column the fields lack. A table's records come one after another with the same
     * fields, so each task thread hands its last description on while the fields (names byte for byte, codes), the
     * source type and the key say the same (issue 61). The logical types that hang on the values (a decimal's
     * precision and scale, text under a blob code) are found per record; the events' columns are shared while those
     * come out the same too.
     */
    static final class Described {
        private static final ThreadLocal<Described[]> LAST = ThreadLocal.withInitial(() -> new Described[1]);
        private final Object[] rawNames;   // the names as the datum holds them (Utf8): compared without a String made
        final String[] names;
        final Integer[] codes;
        final String[] typeNames;
        final String[] codeLogicals;
        private final String sourceType;
        private final List<String> pkNames;
        final boolean badNames;            // a name given twice, or none: which column a value belongs to is unknowable
        final boolean keyUntyped;          // the key names a column the fields lack, or null
        private final Integer[] keyPlaces;
        private String[] lastLogicals;     // the events' columns for these logical types, last made
        private SharedColumns lastRows;

        private Described(List<GenericRecord> fields, String sourceType, List<String> pkNames) {
            int n = fields.size();
            rawNames = new Object[n];
            names = new String[n];
            codes = new Integer[n];
            typeNames = new String[n];
            codeLogicals = new String[n];
            keyPlaces = new Integer[n];
            this.sourceType = sourceType;
            this.pkNames = pkNames;
            Set<String> distinct = new HashSet<>();
            boolean bad = false;
            for (int i = 0; i < n; i++) {
                GenericRecord field = fields.get(i);
                rawNames[i] = field.get(FIELD_NAME);
                names[i] = text(rawNames[i]);
                codes[i] = (Integer) field.get(FIELD_TYPE);
                typeNames[i] = typeName(codes[i], sourceType);
                codeLogicals[i] = typeNames[i] == null ? null : MYSQL.get(typeNames[i]);  // Map.of refuses to look for null
                bad |= names[i] == null || names[i].isEmpty() || !distinct.add(names[i]);
                int key = pkNames == null ? -1 : pkNames.indexOf(names[i]);
                keyPlaces[i] = key < 0 ? null : key + 1;
            }
            badNames = bad;
            boolean untyped = false;
            if (pkNames != null) {
                for (String name : pkNames) {
                    untyped |= name == null || !distinct.contains(name);  // a null name became a key column named "" (issue 39 A7)
                }
            }
            keyUntyped = untyped;
        }

        static Described of(List<GenericRecord> fields, String sourceType, List<String> pkNames) {
            Described[] last = LAST.get();
            if (last[0] == null || !last[0].describes(fields, sourceType, pkNames)) {
                last[0] = new Described(fields, sourceType, pkNames);
            }
            return last[0];
        }

        private boolean describes(List<GenericRecord> fields, String sourceType, List<String> pkNames) {
            if (fields.size() != names.length || !Objects.equals(this.sourceType, sourceType)
                    || !Objects.equals(this.pkNames, pkNames)) {
                return false;
            }
            for (int i = 0; i < names.length; i++) {
                GenericRecord field = fields.get(i);
                if (!Objects.equals(rawNames[i], field.get(FIELD_NAME)) || !Objects.equals(codes[i], field.get(FIELD_TYPE))) {
                    return false;
                }
            }
            return true;
        }

        /** The events' {@code columns} for these columns' logical types: the last list made while they are the same. */
        SharedColumns rows(List<Column> columns) {
            String[] logicals = new String[columns.size()];
            for (int i = 0; i < logicals.length; i++) {
                logicals[i] = columns.get(i).logical;
            }
            if (lastRows == null || !Arrays.equals(lastLogicals, logicals)) {
                List<Row> described = new ArrayList<>(logicals.length);
                for (int i = 0; i < logicals.length; i++) {
                    described.add(Events.column(names[i], i + 1, typeNames[i], logicals[i], null, keyPlaces[i]));
                }
                lastRows = new SharedColumns(described);
                lastLogicals = logicals;
            }
            return lastRows;
        }
    }

    public static String typeName(Integer code, String sourceType) {
        return "MySQL".equals(sourceType) ? MYSQL_TYPE_NAMES.get(code) : String.valueOf(code);
    }

    public static String text(Object avro) {
        return avro == null ? null : avro.toString();
    }

    /** Key texts read, by text: a table's records repeat its key's text, which is parsed once. Bounded, as the texts
     * are a message's: at most 1,024 texts of at most 4,096 characters (a key of 16 columns of MySQL's longest names
     * and its unique keys fit), then it starts again; a longer text, or one that is no key, is parsed every time. */
    private static final Map<String, List<String>> KEY_NAMES = new ConcurrentHashMap<>();
    private static final int CACHED_KEYS = 1024;
    private static final int CACHED_KEY_TEXT = 4096;

    /** tags.pk_uk_info's text, JSON {"PRIMARY": [...], ...}: the PRIMARY list's names (read-only), or null for no key. */
    public static List<String> keyNames(String text) {
        if (text == null || text.length() > CACHED_KEY_TEXT) {
            return parsedKeyNames(text);
        }
        List<String> known = KEY_NAMES.get(text);
        if (known == null) {
            known = parsedKeyNames(text);
            if (known != null) {
                if (KEY_NAMES.size() >= CACHED_KEYS) {
                    KEY_NAMES.clear();
                }
                KEY_NAMES.put(text, known);
            }
        }
        return known;
    }

    private static List<String> parsedKeyNames(String text) {
        Map<String, Object> keys = Json.read(text).object();
        if (keys == null) {
            return null;
        }
        for (Object list : keys.values()) {
            if (Json.present(list) && !(list instanceof List)) {
                return null;  // not a map of lists: no key is read from it
            }
        }
        List<Object> primary = Json.array(keys.get("PRIMARY"));
        if (primary == null) {
            return null;
        }
        List<String> names = new ArrayList<>(primary.size());
        for (Object name : primary) {
            names.add(Json.text(name));
        }
        return Collections.unmodifiableList(names);  // shared by the records of its table
    }

    public final class Record {
        final byte[] value;
        final String topic;
        final Integer partition;
        final Long offset;
        boolean notUtf8;
        String generation;
        GenericRecord r;
        String operation;
        String kind;
        String op;
        String snapshotText;
        String sourceType;
        String objectName;
        List<GenericRecord> fields;
        List<Object> beforeValues;
        List<Object> afterValues;
        List<String> pkNames;
        String ddlChange;
        boolean badFields;
        Described described;        // null without fields
        List<Column> columns;       // null when fields name a column twice or without a name
        List<Cell> beforeCells;
        List<Cell> afterCells;
        String commit;              // the record id, the position's commit part (dts-avro.md); null where it is negative

        Record(byte[] value, String topic, Integer partition, Long offset) {
            this.value = value;
            this.topic = topic;
            this.partition = partition;
            this.offset = offset;
            if (value != null) {
                read();
            }
        }

        private void read() {
            AvroGuard.Guarded p2020 = AvroGuard.guarded(value, 0, SCHEMA_2020);
            // a 2019 datum is not one 2020 datum (it ends early); a 2020 datum with a bad string is still one
            AvroGuard.Guarded p2019 = AvroGuard.MALFORMED.equals(p2020.problem()) ? AvroGuard.guarded(value, 0, SCHEMA_2019) : null;
            notUtf8 = AvroGuard.NOT_UTF8.equals(p2020.problem()) || p2019 != null && AvroGuard.NOT_UTF8.equals(p2019.problem());
            AvroGuard.Guarded read = AvroGuard.OK.equals(p2020.problem()) ? p2020
                    : p2019 != null && AvroGuard.OK.equals(p2019.problem()) ? p2019 : null;
            if (read == null) {
                return;
            }
            r = (GenericRecord) read.datum();
            commit = Canonical.fixedWidth(String.valueOf(r.get(ID)), 20);
            generation = read == p2020 ? "2020" : "2019";
            operation = text(r.get(OPERATION));
            String[] kinds = KINDS.get(operation);
            String kindBase = kinds == null ? null : kinds[0];
            op = kinds == null ? null : kinds[1];
            snapshotText = kinds == null ? null : kinds[2];
            sourceType = text(((GenericRecord) r.get(SOURCE)).get(SOURCE_TYPE));
            objectName = text(r.get(OBJECT_NAME));
            fields = arrayOf(r.get(FIELDS));
            beforeValues = arrayOf(r.get(BEFORE_IMAGES));
            afterValues = arrayOf(r.get(AFTER_IMAGES));
            pkNames = primaryKey();
            String words = statementWord();
            // a DDL that truncates is a TRUNCATE event, as the other formats give it
            kind = "DDL".equals(kindBase) && "TRUNCATE".equals(words) ? "TRUNCATE" : kindBase;
            ddlChange = !"DDL".equals(kindBase) ? null : words != null && DDL_CHANGES.contains(words) ? words : "OTHER";
            columns = columns();
            beforeCells = cells(beforeValues);
            afterCells = cells(afterValues);
        }

        @SuppressWarnings("unchecked")
        private <T> List<T> arrayOf(Object union) {
            return union instanceof List ? (List<T>) union : null;
        }

        /** tags.pk_uk_info: JSON {"PRIMARY": [...], ...}; anything else is no key. */
        private List<String> primaryKey() {
            @SuppressWarnings("unchecked")
            Map<Object, Object> tags = (Map<Object, Object>) r.get(TAGS);
            Object info = null;
            for (Map.Entry<Object, Object> tag : tags.entrySet()) {
                if ("pk_uk_info".equals(tag.getKey().toString())) {
                    info = tag.getValue();
                }
            }
            return keyNames(text(info));
        }

        String statement() {
            Object images = r.get(AFTER_IMAGES);
            return images instanceof CharSequence ? images.toString() : null;
        }

        /** The statement's first word, upper-cased: a DDL's kind. */
        String statementWord() {
            String statement = statement();
            if (statement == null) {
                return null;
            }
            return Records.stripLeadingSpaces(statement).split("[ (\n\t]", -1)[0].toUpperCase(Locale.ROOT);
        }

        List<Column> columns() {
            if (fields == null) {
                return null;
            }
            described = Described.of(fields, sourceType, pkNames);
            badFields = described.badNames;
            if (badFields) {
                return null;  // a name given twice (or none): which column a value belongs to is unknowable
            }
            List<Column> out = new ArrayList<>(fields.size());
            for (int i = 0; i < fields.size(); i++) {
                Column column = new Column(described, i);
                column.logical = columnLogical(column);
                out.add(column);
            }
            return out;
        }

        /** The type code's logical type, with a decimal's precision and scale taken from its first value (the code
         * does not carry them; DECIMAL without them when every value is NULL), and text under a blob or geometry code
         * (Character, TextObject, TextGeometry WKT) kept as text. */
        String columnLogical(Column column) {
            GenericRecord after = element(afterValues, column.index);
            GenericRecord before = element(beforeValues, column.index);
            if ("DECIMAL".equals(column.codeLogical)) {
                GenericRecord first = is(after, "Decimal") ? after : is(before, "Decimal") ? before : null;
                if (first != null) {
                    return "DECIMAL(" + first.get(DECIMAL_PRECISION) + "," + first.get(DECIMAL_SCALE) + ")";
                }
            }
            if ("BYTES".equals(column.codeLogical) && (is(after, "Character") || is(before, "Character")
                    || is(after, "TextGeometry") || is(before, "TextGeometry")
                    || is(after, "TextObject") || is(before, "TextObject"))) {
                return "STRING";
            }
            return column.codeLogical;
        }

        List<Cell> cells(List<Object> values) {
            if (values == null || columns == null) {
                return null;
            }
            List<Cell> cells = new ArrayList<>(columns.size());
            for (Column column : columns) {
                Object element = column.index < values.size() ? values.get(column.index) : null;
                String empty = element instanceof GenericRecord ? null : element == null ? null : element.toString();
                String text = rawText(element, column.logical);
                boolean isNull = element == null || "NULL".equals(empty) || MySqlTypes.isZeroDate(text, column.logical);
                cells.add(new Cell(column.name, !"NONE".equals(empty), isNull, TextTypes.convert(text, column.logical)));
            }
            return cells;
        }

        Map<String, String> image(List<Cell> cells) {
            if (cells == null) {
                return null;
            }
            Map<String, String> image = new SmallMap<>();
            for (Cell cell : cells) {
                if (cell.supplied()) {
                    image.put(cell.name(), cell.isNull() ? null : cell.value());
                }
            }
            return image;
        }

        // -----------------------------------------------------------------------------------------------------
        // Rules
        // -----------------------------------------------------------------------------------------------------

        String[] verdict() {
            if (value == null) {
                return Records.rule("MISSING_FIELD", "record has no value");
            }
            if (notUtf8) {
                return Records.rule("NOT_UTF8", "a string of the datum (a name, a position, a text value) is not UTF-8");
            }
            if (generation == null) {
                return Records.rule("MALFORMED_AVRO", "value is not a Record datum of the 2019 or 2020 schema");
            }
            if (!KINDS.containsKey(operation)) {
                return Records.rule("UNMAPPED_CONTROL_EVENT", "operation " + operation + " has no canonical kind");
            }
            if (commit == null) {
                return Records.rule("UNDECODABLE_VALUE", "the record id is negative: it is the position's commit part");
            }
            boolean row = "ROW".equals(kind);
            if (row && (objectName == null || fields == null)) {
                return Records.rule("MISSING_FIELD", "a row change needs objectName and fields");
            }
            if (row && badFields) {
                return Records.rule("SCHEMA_MISMATCH", "fields names a column twice or without a name");
            }
            if (row && ((beforeValues != null && beforeValues.size() != fields.size())
                    || (afterValues != null && afterValues.size() != fields.size()))) {
                return Records.rule("SCHEMA_MISMATCH", "an image has more or fewer values than fields");
            }
            if (row && described.keyUntyped) {
                return Records.rule("SCHEMA_MISMATCH", "tags.pk_uk_info names a column fields lacks, or null");
            }
            if (row) {
                for (Column column : columns) {
                    if (column.logical == null) {
                        return Records.rule("UNKNOWN_COLUMN_TYPE", "dataTypeNumber " + column.code);
                    }
                }
            }
            if (("INSERT".equals(op) && r.get(BEFORE_IMAGES) != null) || ("DELETE".equals(op) && r.get(AFTER_IMAGES) != null)) {
                return Records.rule("UNEXPECTED_IMAGE", operation + " with an image it cannot have");
            }
            if ((("INSERT".equals(op) || "UPDATE".equals(op)) && afterValues == null)
                    || (("DELETE".equals(op) || "UPDATE".equals(op)) && beforeValues == null)) {
                return Records.rule("MISSING_FIELD", operation + " without its row image (an array)");
            }
            if (("DDL".equals(kind) || "TRUNCATE".equals(kind)) && statement() == null) {
                return Records.rule("MISSING_FIELD", "DDL without its statement (afterImages as a string)");
            }
            if (row && (undecodable(beforeCells) || undecodable(afterCells))) {
                return Records.rule("UNDECODABLE_VALUE", "a value does not match its column type or charset");
            }
            if (("UPDATE".equals(op) || "DELETE".equals(op)) && Keys.oldKeyMissing(pkNames, image(beforeCells))) {
                return Records.rule("MISSING_OLD_KEY", "the before image lacks a key column or holds NULL for one: which row changed is unknown");
            }
            return null;
        }

        boolean undecodable(List<Cell> cells) {
            if (cells != null) {
                for (Cell cell : cells) {
                    if (cell.supplied() && !cell.isNull() && cell.value() == null) {
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
            Row source = source();
            Map<String, String> before = row ? image(beforeCells) : null;
            Map<String, String> after = row ? image(afterCells) : null;
            Events.Event event = new Events.Event().set("event_id", Events.eventId(topic, partition, offset, 0))
                    .set("format", "dts-avro").set("format_version", generation).set("kind", kind).set("op", op)
                    .set("snapshot", row ? "true".equals(snapshotText) : null).set("source", source).set("columns", row ? described.rows(columns) : null)
                    .set("key", row ? key(before, after, op) : null)
                    .set("before", row && !"INSERT".equals(op) ? before : null).set("after", row && !"DELETE".equals(op) ? after : null)
                    .set("position", Events.position(commit, null, Keys.OLD_SEQ))
                    .set("tx_id", Records.emptyAsNull(text(r.get(SOURCE_TXID)))).set("commit_ts", commitTs())
                    .set("ddl", ddlChange == null ? null : Events.pair(statement(), ddlChange))
                    .set("origin", Events.origin(topic, partition, offset));
            if (!("UPDATE".equals(op) && Keys.keyChanged(pkNames, before, after))) {
                return List.of(event.row());
            }
            String group = Keys.group(new String[] {part(source, 0), "", part(source, 2), part(source, 3), part(source, 4), commit, null},
                    Keys.only(before, pkNames), Keys.afterChange(pkNames, before, after));
            Events.Event delete = event.copy().set("op", "DELETE").set("key", key(before, null, "DELETE")).set("after", null)
                    .set("pk_change", Events.pair(group, "OLD")).set("position", Events.position(commit, null, Keys.OLD_SEQ));
            Events.Event insert = event.copy().set("event_id", Events.eventId(topic, partition, offset, 1)).set("op", "INSERT")
                    .set("key", key(before, after, "INSERT")).set("before", null).set("after", after)
                    .set("pk_change", Events.pair(group, "NEW")).set("position", Events.position(commit, null, Keys.NEW_SEQ));
            return List.of(delete.row(), insert.row());
        }

        String part(Row source, int i) {
            return source == null ? null : source.getString(i);
        }

        List<Row> key(Map<String, String> before, Map<String, String> after, String op) {
            return Keys.entries(pkNames, before, after, op);
        }

        /** {@code db.table} or {@code db.schema.table}, dots inside names escaped as \u002E (the demo's
         * uncompressionObjectName). */
        Row source() {
            if (objectName == null) {
                return null;
            }
            String[] parts = objectName.split("\\.", -1);  // String.split's fast path: no Pattern per record
            for (int i = 0; i < parts.length; i++) {
                parts[i] = parts[i].replace("\\u002E", ".");
            }
            String system = sourceType == null ? null : sourceType.toLowerCase(Locale.ROOT);
            return Events.source(system, null, parts[0], parts.length == 3 ? parts[1] : null,
                    parts.length > 1 ? parts[parts.length - 1] : null);
        }

        /** bornTimestamp (ms, 2020 schema) when set, else sourceTimestamp (seconds). */
        Instant commitTs() {
            Object born = r.getSchema().getFields().size() > BORN_TIMESTAMP ? r.get(BORN_TIMESTAMP) : null;  // 2020 only
            if (born instanceof Long && (Long) born >= 1 && (Long) born <= MAX_BORN_MILLIS) {
                return Instant.ofEpochMilli((Long) born);
            }
            long seconds = (Long) r.get(SOURCE_TIMESTAMP);
            return seconds >= Canonical.MIN_EPOCH_SECOND && seconds <= Canonical.MAX_EPOCH_SECOND ? Instant.ofEpochSecond(seconds) : null;
        }
    }

    public static GenericRecord element(List<Object> values, int index) {
        Object element = values == null || index >= values.size() ? null : values.get(index);
        return element instanceof GenericRecord ? (GenericRecord) element : null;
    }

    public static boolean is(GenericRecord value, String valueClass) {
        return value != null && value.getSchema().getName().equals(valueClass);
    }

    /** One image element (a union of the DTS value classes) as text in the TEXT encoding; EmptyObject is none. */
    /** The value classes a binary column's value comes in (text in a Character, TextObject or TextGeometry makes the
     * column STRING: columnLogical). */
    private static final Set<String> BINARY_VALUE_CLASSES = Set.of("BinaryObject", "BinaryGeometry", "Character");

    public static String rawText(Object element, String logical) {
        if (!(element instanceof GenericRecord)) {
            return null;
        }
        GenericRecord v = (GenericRecord) element;
        String valueClass = v.getSchema().getName();
        if ("BYTES".equals(logical) && !BINARY_VALUE_CLASSES.contains(valueClass)) {
            return null;  // a number or a time is no binary value: its text ("1234") would pass for base64 (make fuzz)
        }
        switch (valueClass) {
            case "Integer":
            case "Decimal":
            case "TextGeometry":
            case "TextObject":
                return text(v.get(textValue(valueClass)));
            case "Character":
                return "BYTES".equals(logical) ? base64(v.get(CHARACTER_VALUE))
                        : characterText(text(v.get(CHARACTER_CHARSET)), bytes(v.get(CHARACTER_VALUE)));
            case "Float":
                return Canonical.doubleText((Double) v.get(FLOAT_VALUE));
            case "Timestamp":
                long seconds = (Long) v.get(TIMESTAMP_SECONDS);
                int micros = (Integer) v.get(TIMESTAMP_MICROS);
                return seconds >= Canonical.MIN_EPOCH_SECOND && seconds <= Canonical.MAX_EPOCH_SECOND && micros >= 0 && micros <= 999_999
                        ? LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC).format(SECONDS) + "." + Canonical.zeroPad(micros, 6) + "Z"
                        : null;
            case "DateTime":
                String date = dateText(v);
                String time = timeText(v);
                if ("DATE".equals(logical)) {
                    return date;
                }
                if (logical != null && logical.startsWith("TIME(")) {
                    return time;
                }
                if ("INT16".equals(logical)) {
                    return String.valueOf(v.get(YEAR));
                }
                return time == null ? null : date + " " + time;
            case "TimestampWithTimeZone":
                GenericRecord t = (GenericRecord) v.get(ZONED_VALUE);
                String clock = timeText(t);
                return clock == null ? null : dateText(t) + "T" + clock + text(v.get(ZONED_ZONE));
            case "BinaryGeometry":
                return base64(v.get(BINARY_GEOMETRY_VALUE));
            case "BinaryObject":
                return base64(v.get(BINARY_OBJECT_VALUE));
            default:
                return null;
        }
    }

    /** A DateTime's date as {@code %04d-%02d-%02d} (a missing part prints "null", as Spark's format_string did). */
    public static String dateText(GenericRecord dateTime) {
        return Canonical.zeroPad((Integer) dateTime.get(YEAR), 4) + "-" + Canonical.zeroPad((Integer) dateTime.get(MONTH), 2)
                + "-" + Canonical.zeroPad((Integer) dateTime.get(DAY), 2);
    }

    /** A DateTime's time as {@code %02d:%02d:%02d.%06d}, no millis as 0; null when the sub-second part (microseconds,
     * whatever the field's name says) is outside 0..999,999: seven digits would read as nanoseconds, another instant. */
    public static String timeText(GenericRecord dateTime) {
        Integer millis = (Integer) dateTime.get(MICROS);
        Integer hour = (Integer) dateTime.get(HOUR);
        // a time of day: the DateTime record has no sign, so how DTS writes a MySQL TIME duration (negative, or past
        // a day) is not known here; such hours stay refused rather than guessed (docs/formats/dts-avro.md)
        if (millis != null && (millis < 0 || millis > 999_999) || hour != null && (hour < 0 || hour > 23)) {
            return null;
        }
        return Canonical.zeroPad(hour, 2) + ":" + Canonical.zeroPad((Integer) dateTime.get(MINUTE), 2)
                + ":" + Canonical.zeroPad((Integer) dateTime.get(SECOND), 2) + "." + Canonical.zeroPad(millis == null ? 0 : millis, 6);
    }

    /** The text-valued classes' {@code value}. */
    private static int textValue(String valueClass) {
        switch (valueClass) {
            case "Integer":
                return INTEGER_VALUE;
            case "Decimal":
                return DECIMAL_VALUE;
            case "TextGeometry":
                return TEXT_GEOMETRY_VALUE;
            default:
                return TEXT_OBJECT_VALUE;
        }
    }

    public static byte[] bytes(Object avroBytes) {
        ByteBuffer buffer = ((ByteBuffer) avroBytes).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    public static String base64(Object avroBytes) {
        return Base64.getEncoder().encodeToString(bytes(avroBytes));
    }

    /** Character bytes as text in their charset; null when they are not text of it or the charset is unknown (a
     * replacement character would be a wrong value). */
    public static String characterText(String charset, byte[] bytes) {
        String name = charset == null ? null : charset.toLowerCase(Locale.ROOT);
        if (name == null) {
            return null;
        }
        if (UTF8_CHARSETS.contains(name)) {
            return Json.isUtf8(bytes) ? new String(bytes, StandardCharsets.UTF_8) : null;
        }
        if (name.equals("ascii")) {
            for (byte b : bytes) {
                if (b < 0) {
                    return null;
                }
            }
            return new String(bytes, StandardCharsets.US_ASCII);
        }
        String java = JAVA_CHARSETS.get(name);
        if (java == null) {
            return null;
        }
        String decoded = CharsetText.decode(HexFormat.of().formatHex(bytes), java);
        return decoded.startsWith(CharsetText.TEXT) ? decoded.substring(1) : null;
    }
}
