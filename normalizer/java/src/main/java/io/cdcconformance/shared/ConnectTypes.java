package io.cdcconformance.shared;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Kafka Connect's types (JsonConverter with schemas): the logical type of a field descriptor, and a value as
 * JsonConverter writes it turned into canonical text (types.CONNECT when the decoders were Spark SQL).
 */
public final class ConnectTypes {
    /** The semantic name (schema {@code name}) decides; without one, the primitive type. */
    public static final Map<String, String> SEMANTIC = Map.ofEntries(
            Map.entry("io.debezium.data.VariableScaleDecimal", "DECIMAL"),
            Map.entry("io.debezium.time.Date", "DATE"), Map.entry("org.apache.kafka.connect.data.Date", "DATE"),
            Map.entry("io.debezium.time.Time", "TIME(3)"), Map.entry("org.apache.kafka.connect.data.Time", "TIME(3)"),
            Map.entry("io.debezium.time.MicroTime", "TIME(6)"), Map.entry("io.debezium.time.NanoTime", "TIME(9)"),
            Map.entry("io.debezium.time.Timestamp", "TIMESTAMP(3)"),
            Map.entry("org.apache.kafka.connect.data.Timestamp", "TIMESTAMP(3)"),
            Map.entry("io.debezium.time.MicroTimestamp", "TIMESTAMP(6)"),
            Map.entry("io.debezium.time.NanoTimestamp", "TIMESTAMP(9)"),
            Map.entry("io.debezium.time.ZonedTimestamp", "TIMESTAMP_TZ"), Map.entry("io.debezium.time.ZonedTime", "TIME_TZ"),
            Map.entry("io.debezium.data.Json", "JSON"), Map.entry("io.debezium.data.Uuid", "UUID"),
            Map.entry("io.debezium.data.Xml", "XML"), Map.entry("io.debezium.data.Enum", "ENUM"),
            Map.entry("io.debezium.time.MicroDuration", "INTERVAL"),
            Map.entry("io.debezium.data.geometry.Geometry", "GEOMETRY"));
    public static final String DECIMAL = "org.apache.kafka.connect.data.Decimal";
    /** BIT(n), n > 1: a BitSet's bytes, bit 0 first (JdbcValueConverters.convertBits), n in the {@code length}
     * parameter. Canonical: the n digits the database prints (docs/canonical-model.md). */
    public static final String BITS = "io.debezium.data.Bits";
    /** The Connect type each semantic name is written with (its producer's SchemaBuilder: {@code Date.builder()} is an
     * int32, {@code Bits.builder} bytes, {@code ZonedTimestamp} a string...). A name on another type is no schema a
     * producer wrote: read by the name, a Bits on an int64 holding 1234 was base64-decoded into another number (issue
     * 49); such a field's type is unknown ({@code UNKNOWN_COLUMN_TYPE}). Names not listed here are not read. */
    public static final Map<String, String> WRITTEN_AS = Map.ofEntries(
            Map.entry("io.debezium.data.VariableScaleDecimal", "struct"), Map.entry("io.debezium.data.geometry.Geometry", "struct"),
            Map.entry("io.debezium.time.Date", "int32"), Map.entry("org.apache.kafka.connect.data.Date", "int32"),
            Map.entry("io.debezium.time.Time", "int32"), Map.entry("org.apache.kafka.connect.data.Time", "int32"),
            Map.entry("io.debezium.time.MicroTime", "int64"), Map.entry("io.debezium.time.NanoTime", "int64"),
            Map.entry("io.debezium.time.Timestamp", "int64"), Map.entry("org.apache.kafka.connect.data.Timestamp", "int64"),
            Map.entry("io.debezium.time.MicroTimestamp", "int64"), Map.entry("io.debezium.time.NanoTimestamp", "int64"),
            Map.entry("io.debezium.time.MicroDuration", "int64"),
            Map.entry("io.debezium.time.ZonedTimestamp", "string"), Map.entry("io.debezium.time.ZonedTime", "string"),
            Map.entry("io.debezium.data.Json", "string"), Map.entry("io.debezium.data.Uuid", "string"),
            Map.entry("io.debezium.data.Xml", "string"), Map.entry("io.debezium.data.Enum", "string"),
            Map.entry("org.apache.kafka.connect.data.Decimal", "bytes"), Map.entry("io.debezium.data.Bits", "bytes"));

    /** Whether a field named {@code name} (a semantic name) of Connect {@code type} is a schema its producer writes. */
    public static boolean writtenAs(String name, String type) {
        String expected = name == null ? null : WRITTEN_AS.get(name);
        return expected == null || type != null && expected.equals(type.toLowerCase(Locale.ROOT));
    }

    public static final Map<String, String> PRIMITIVE = Map.ofEntries(
            Map.entry("int8", "INT8"), Map.entry("int16", "INT16"), Map.entry("int32", "INT32"), Map.entry("int64", "INT64"),
            Map.entry("float", "FLOAT32"), Map.entry("float32", "FLOAT32"), Map.entry("double", "FLOAT64"),
            Map.entry("float64", "FLOAT64"), Map.entry("boolean", "BOOLEAN"), Map.entry("string", "STRING"),
            Map.entry("bytes", "BYTES"));
    private static final Set<String> CONTAINERS = Set.of("struct", "array", "map");

    /** One of Kafka Connect's schema types (Schema.Type), in any case. */
    public static boolean isConnectType(String type) {
        String lower = type.toLowerCase(Locale.ROOT);
        return PRIMITIVE.containsKey(lower) || CONTAINERS.contains(lower);
    }

    /** Logical types whose canonical text is the value as written, in every encoding (types.PASS_THROUGH). */
    public static final Set<String> PASS_THROUGH = Set.of("STRING", "UUID", "JSON", "XML", "ENUM");

    private ConnectTypes() {
    }

    private static final Set<String> QUOTED_DOUBLES = Set.of("NaN", "Infinity", "-Infinity");
    private static final int MAX_SCHEMA_DEPTH = 32;

    /** Whether {@code json} has the shape JsonConverter writes for a value of Connect {@code schema}: a string for
     * string and bytes (a Decimal's bytes may be a number: {@code decimal.format=NUMERIC}), a number for the numeric
     * types (a double may be the quoted {@code NaN}, {@code Infinity}, {@code -Infinity}: Jackson quotes them), true
     * or false for boolean, an array whose items fit {@code items} (an integer item within its width), an object for
     * a struct and for a map of string keys (other keys: an array of [key, value] pairs), null for any. A type not
     * named here fits anything (a row field of such a type is refused before: UNKNOWN_COLUMN_TYPE). A value of
     * another shape is no value the converter wrote: a UUID holding an object, an int32 array holding text came out
     * as their JSON text (issue 40). */
    public static boolean fits(Object json, Map<String, Object> schema) {
        return fits(json, schema, 0);
    }

    /** {@link #fits}, with the schema's {@link #primitive} already known (a field's, read once per writer schema). */
    public static boolean fits(Object json, Map<String, Object> schema, String primitive) {
        if (primitive == null || !Json.present(json) || schema == null) {
            return fits(json, schema, 0);
        }
        return fitsPrimitive(json, schema, primitive);
    }

    /** The primitive type (INT8..BYTES) a schema's {@code type} names, in any case; null for any other. */
    public static String primitive(Map<String, Object> schema) {
        String type = schema == null ? null : Json.text(schema, "type");
        return type == null ? null : PRIMITIVE.get(type.toLowerCase(Locale.ROOT));
    }

    private static boolean fits(Object json, Map<String, Object> schema, int depth) {
        if (!Json.present(json) || schema == null) {
            return true;
        }
        if (depth > MAX_SCHEMA_DEPTH) {
            return false;
        }
        String type = Json.text(schema, "type");
        String primitive = type == null ? null : PRIMITIVE.get(type.toLowerCase(Locale.ROOT));
        if (primitive == null) {
            return fitsContainer(json, schema, type == null ? "" : type.toLowerCase(Locale.ROOT), depth);
        }
        return fitsPrimitive(json, schema, primitive);
    }

    private static boolean fitsPrimitive(Object json, Map<String, Object> schema, String primitive) {
        switch (primitive) {
            case "STRING":
                return json instanceof String;
            case "BYTES":
                return json instanceof String || json instanceof Json.Number && DECIMAL.equals(Json.text(schema, "name"));
            case "BOOLEAN":
                return json instanceof Boolean;
            case "FLOAT32":
            case "FLOAT64":
                return json instanceof Json.Number || json instanceof String && QUOTED_DOUBLES.contains(json);
            default:  // INT8..INT64
                return json instanceof Json.Number && Canonical.integerText(json.toString(), primitive) != null;
        }
    }

    private static boolean fitsContainer(Object json, Map<String, Object> schema, String type, int depth) {
        switch (type) {
            case "array": {
                List<Object> items = Json.array(json);
                Map<String, Object> itemSchema = Json.object(schema.get("items"));
                return items != null && items.stream().allMatch(item -> fits(item, itemSchema, depth + 1));
            }
            case "map": {
                Map<String, Object> keys = Json.object(schema.get("keys"));
                Map<String, Object> values = Json.object(schema.get("values"));
                if (keys == null || "string".equalsIgnoreCase(Json.text(keys, "type"))) {
                    Map<String, Object> entries = Json.object(json);
                    return entries != null && entries.values().stream().allMatch(value -> fits(value, values, depth + 1));
                }
                List<Object> pairs = Json.array(json);
                return pairs != null && pairs.stream().allMatch(pair -> {
                    List<Object> parts = Json.array(pair);
                    return parts != null && parts.size() == 2 && fits(parts.get(0), keys, depth + 1)
                            && fits(parts.get(1), values, depth + 1);
                });
            }
            case "struct":
                return Json.object(json) != null;
            default:
                return true;
        }
    }

    /** {@code types.connect_logical_type}: the logical type of a field with schema {@code name}, {@code type} and
     * {@code parameters}; an unknown type is its own name in upper case (Connect's STRUCT, ARRAY, MAP). */
    /** PostgreSQL's largest numeric scale (15+; its negative scales, down to -1000, arrive as 2048 minus them). */
    static final int MAX_POSTGRES_SCALE = 1000;

    public static String logicalType(String name, String type, Map<String, String> parameters) {
        String semantic = name == null ? null : SEMANTIC.get(name);
        if (semantic != null) {
            return semantic;
        }
        if (DECIMAL.equals(name)) {
            // numbers, validated here once: a parameter's raw text ("3,7") pasted into the type was re-read as scale 7
            Integer precision = parameters == null ? null
                    : Canonical.boundedInt(parameters.get("connect.decimal.precision"), 1, Canonical.MAX_DECIMAL_PRECISION);
            Integer scale = parameters == null ? null : Canonical.boundedInt(parameters.get("scale"), 0, Canonical.MAX_DECIMAL_SCALE);
            // PostgreSQL's negative scale (numeric(5,-2)) reaches the connector as an unsigned 11-bit field, 2046, with
            // the value's unscaled bytes at that scale: the number is exact, the precision contradicts it (seen on
            // 3.3.2, issue 49), so the precision is the one left out. A scale above the precision within PostgreSQL's
            // range (numeric(3,5), since PostgreSQL 15: at most 1000) is a real declaration and keeps its precision
            boolean contradicts = precision != null && scale != null && scale > precision && scale > MAX_POSTGRES_SCALE;
            return "DECIMAL(" + (precision == null || contradicts ? "?" : precision) + "," + (scale == null ? "?" : scale) + ")";
        }
        if (BITS.equals(name)) {
            Integer length = parameters == null ? null : Canonical.boundedInt(parameters.get("length"), 1, Canonical.MAX_BITS);
            // PostgreSQL's bit varying(n): n is only a maximum, and the connector's bytes drop the leading zero bits
            // (B'00101' and B'101' are both 0x05), so no padding to n is the database's value (issue 40)
            boolean varying = parameters != null && "VARBIT".equalsIgnoreCase(parameters.get("__debezium.source.column.type"));
            return (varying ? "VARBIT(" : "BITS(") + (length == null ? "?" : length) + ")";
        }
        if (type == null) {
            return null;
        }
        String primitive = PRIMITIVE.get(type.toLowerCase(Locale.ROOT));
        return primitive != null ? primitive : type.toUpperCase(Locale.ROOT);
    }

    /** {@code types.convert(raw, logical, CONNECT)}: canonical text of {@code raw} as JsonConverter writes a value of
     * {@code logical}; null when it does not fit (UNDECODABLE_VALUE). */
    public static String convert(String raw, String logical) {
        if (raw == null) {
            return null;
        }
        if (logical == null || PASS_THROUGH.contains(logical)) {
            return raw;
        }
        if (Canonical.INTEGER_RANGES.containsKey(logical)) {
            return Canonical.integerText(raw, logical);
        }
        switch (logical) {
            case "INTERVAL":  // MicroDuration: an int64 of microseconds (it passed through as written: "12abc", issue 40)
                return Canonical.integerText(raw, "INT64");
            case "BOOLEAN":
                return Canonical.booleanText(raw);
            case "BYTES":  // JsonConverter writes bytes as base64: anything else is not bytes it wrote
                return Canonical.strictBase64(raw);
            case "FLOAT64":
                return Canonical.float64Text(raw);
            case "FLOAT32":
                return Canonical.float32Text(raw);
            case "DECIMAL":  // VariableScaleDecimal: a struct {scale, value} of its own per value
                return variableScaleDecimal(raw);
            case "GEOMETRY":
                return geometry(raw);
            case "DATE":
                return Canonical.dateFromEpochDays(raw);
            case "TIMESTAMP_TZ":
                return Canonical.timestampTzFromIso(raw);
            case "TIME_TZ":
                return Canonical.timeTzFromIso(raw);
            case "TIME(3)":
                return Canonical.timeFromUnits(raw, 1_000L, 6);
            case "TIMESTAMP(3)":
                return timestampOrInfinity(raw, 1_000L, 6, POSTGRES_INFINITY_MICROS / 1_000L, POSTGRES_NEGATIVE_INFINITY_MICROS / 1_000L);
            case "TIME(6)":
                return Canonical.timeFromUnits(raw, 1_000_000L, 6);
            case "TIMESTAMP(6)":
                return timestampOrInfinity(raw, 1_000_000L, 6, POSTGRES_INFINITY_MICROS, POSTGRES_NEGATIVE_INFINITY_MICROS);
            case "TIME(9)":
                return Canonical.timeFromUnits(raw, 1_000_000_000L, 9);
            case "TIMESTAMP(9)":
                return timestampOrInfinity(raw, 1_000_000_000L, 9, Long.MAX_VALUE, Long.MIN_VALUE);
            default:
                if (logical.startsWith("DECIMAL(")) {
                    return Canonical.ofType(Canonical.decimalFromUnscaledBase64(raw, Canonical.scaleOf(logical)), logical);
                }
                if (logical.startsWith("BITS(")) {
                    return Canonical.bitsFromLittleEndianBase64(raw, Canonical.bitsLength(logical));
                }
                if (logical.startsWith("VARBIT(")) {
                    return Canonical.withoutLeadingZeros(Canonical.bitsFromLittleEndianBase64(raw, Canonical.bitsLength(logical)));
                }
                // STRUCT, ARRAY, MAP keep their JSON text (forward compatible), members in name order
                return raw.startsWith("{") || raw.startsWith("[") ? Json.canonicalText(Json.read(raw).root) : raw;
        }
    }

    /** PostgreSQL's timestamp {@code infinity} and {@code -infinity} as Debezium's PostgreSQL connector writes them: pgjdbc's
     * {@code PGStatement.DATE_POSITIVE_INFINITY} / {@code DATE_NEGATIVE_INFINITY} taken as microseconds
     * ({@code PostgresValueConverter.POSITIVE_INFINITY_INSTANT}), in milliseconds for {@code Timestamp}; a
     * {@code NanoTimestamp} is {@code Long.MAX_VALUE} / {@code MIN_VALUE} (dbz#2524). Seen on 3.3.2 (issue 40). */
    static final long POSTGRES_INFINITY_MICROS = 9_223_372_036_825_200_000L;
    static final long POSTGRES_NEGATIVE_INFINITY_MICROS = -9_223_372_036_832_400_000L;

    /** {@code infinity} / {@code -infinity} when {@code raw} is exactly the connector's number for it (years past 9999
     * otherwise, which no timestamp in the model has), else the timestamp of {@code raw} units since the epoch (the
     * count parsed once: every Debezium timestamp comes this way). */
    private static String timestampOrInfinity(String raw, long unitsPerSecond, int digits, long positive, long negative) {
        Long total = Canonical.parseLong(raw);
        if (total == null) {
            return null;
        }
        if (total == positive || total == negative) {
            return total == positive ? "infinity" : "-infinity";
        }
        return Canonical.timestampFromEpochUnits(total.longValue(), unitsPerSecond, digits);
    }

    /** io.debezium.data.geometry.Geometry, a struct {wkb, srid}: {@code {"srid":N,"wkb":"<base64>"}} (srid null when
     * unset or 0, as the binlog connectors write 0), the members in name order; null unless wkb is a string of
     * canonical base64 and srid an int32 number or null (the text of "1234" as a number would pass for base64). */
    private static String geometry(String raw) {
        Map<String, Object> struct = Json.read(raw).object();
        Object wkb = struct == null ? null : struct.get("wkb");
        if (!(wkb instanceof String) || Canonical.strictBase64((String) wkb) == null) {
            return null;
        }
        Object srid = struct.get("srid");
        String sridText = srid instanceof Json.Number ? Canonical.integerText(srid.toString(), "INT32") : null;
        if (Json.present(srid) && sridText == null) {
            return null;
        }
        // SRID 0, "no reference system", is unset too
        Object canonicalSrid = sridText == null || sridText.equals("0") ? Json.NULL : new Json.Number(sridText);
        return Json.canonicalText(Map.of("srid", canonicalSrid, "wkb", wkb));
    }

    private static String variableScaleDecimal(String raw) {
        Map<String, Object> struct = Json.read(raw).object();
        if (struct == null) {
            return null;
        }
        Integer scale = Canonical.boundedInt(Json.text(struct, "scale"), 0, Canonical.MAX_DECIMAL_SCALE);
        return Canonical.decimalFromUnscaledBase64(Json.text(struct, "value"), scale);
    }
}
