package io.cdcconformance;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MySQL column types as MySQL writes them (canal's {@code mysqlType}, CloudCanal's {@code dbValType}: {@code int(11)},
 * {@code bigint(20) unsigned}, {@code decimal(10,2)}, {@code datetime(6)}), and JDBC codes where a column has no type
 * text: the logical type of each, and ENUM and SET values as canal's binlog decoder writes them. The tables and rules
 * of the SQL decoders these replaced (normalizer/types.py: {@code MYSQL_TEXT}, {@code JDBC}, {@code mysql_logical_type}, {@code mysql_enum_text},
 * {@code mysql_set_text}), which the SQL decoders share; the reasons are there and in docs/formats/canal-json.md.
 *
 * <p>A table's type texts repeat in every message of it, so each text's logical type is worked out once per JVM.
 */
public final class MySqlTypes {
    private MySqlTypes() {
    }

    /** base -> (signed, unsigned) */
    private static final String[][] INTEGERS = {
        {"tinyint", "INT16", "INT16"}, {"int1", "INT16", "INT16"}, {"bool", "INT16", "INT16"}, {"boolean", "INT16", "INT16"},
        {"smallint", "INT16", "INT32"}, {"int2", "INT16", "INT32"},
        {"mediumint", "INT32", "INT32"}, {"middleint", "INT32", "INT32"}, {"int3", "INT32", "INT32"},
        {"int", "INT32", "INT64"}, {"integer", "INT32", "INT64"}, {"int4", "INT32", "INT64"},
        {"bigint", "INT64", "DECIMAL(20,0)"}, {"int8", "INT64", "DECIMAL(20,0)"},
        {"float", "FLOAT32", "FLOAT32"}, {"float4", "FLOAT32", "FLOAT32"},
        {"double", "FLOAT64", "FLOAT64"}, {"double precision", "FLOAT64", "FLOAT64"}, {"float8", "FLOAT64", "FLOAT64"},
        {"real", "FLOAT64", "FLOAT64"},  // REAL is DOUBLE unless the server runs with REAL_AS_FLOAT
    };
    private static final String[] STRINGS = {"char", "character", "nchar", "national char", "national character", "varchar",
        "character varying", "char varying", "nvarchar", "national varchar", "national character varying",
        "national char varying", "nchar varchar", "nchar varying", "tinytext", "text", "mediumtext", "longtext", "long",
        "long varchar"};
    private static final String[] BINARIES = {"binary", "varbinary", "char byte", "tinyblob", "blob", "mediumblob", "longblob",
        "long varbinary", "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
        "geometrycollection", "geomcollection"};
    static final Map<String, String> PLAIN = new HashMap<>();
    /** Decimal types: their default precision and scale. */
    private static final Map<String, int[]> DECIMALS = new HashMap<>();
    /** TIME / TIMESTAMP types: logical name, default and largest fraction digits. */
    private static final Map<String, Object[]> FRACTIONAL = new HashMap<>();
    static final Map<String, String> JDBC = Map.ofEntries(
            Map.entry("-6", "INT16"), Map.entry("5", "INT16"), Map.entry("4", "INT32"), Map.entry("-5", "INT64"),
            Map.entry("7", "FLOAT64"), Map.entry("6", "FLOAT64"), Map.entry("8", "FLOAT64"), Map.entry("16", "BOOLEAN"),
            Map.entry("1", "STRING"), Map.entry("12", "STRING"), Map.entry("-1", "STRING"), Map.entry("-15", "STRING"),
            Map.entry("-9", "STRING"), Map.entry("-16", "STRING"), Map.entry("2005", "STRING"), Map.entry("2011", "STRING"),
            Map.entry("91", "DATE"), Map.entry("92", "TIME(6)"), Map.entry("93", "TIMESTAMP(6)"));

    static {
        for (String[] integer : INTEGERS) {
            PLAIN.put(integer[0], integer[1]);
            PLAIN.put(integer[0] + " unsigned", integer[2]);
        }
        PLAIN.put("serial", "DECIMAL(20,0)");  // BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE
        PLAIN.put("bit", "DECIMAL(20,0)");
        PLAIN.put("year", "INT16");
        PLAIN.put("date", "DATE");
        for (String name : STRINGS) {
            PLAIN.put(name, "STRING");
        }
        PLAIN.put("set", "STRING");
        PLAIN.put("enum", "ENUM");
        PLAIN.put("json", "JSON");
        for (String name : BINARIES) {
            PLAIN.put(name, "BYTES");
        }
        for (String base : new String[] {"decimal", "dec", "numeric", "fixed"}) {
            DECIMALS.put(base, new int[] {10, 0});
            DECIMALS.put(base + " unsigned", new int[] {10, 0});
        }
        // fractional seconds precision 0..6 (MySQL 8.0 Reference Manual 13.2.6)
        FRACTIONAL.put("time", new Object[] {"TIME", 0, 6});
        FRACTIONAL.put("datetime", new Object[] {"TIMESTAMP", 0, 6});
        FRACTIONAL.put("timestamp", new Object[] {"TIMESTAMP", 0, 6});
    }

    private static final TypeCache LOGICAL = new TypeCache(MySqlTypes::computeLogicalType);

    /** {@code types.mysql_logical_type}: the logical type of a MySQL type text, null for a type the table lacks. */
    public static String logicalType(String typeText) {
        return LOGICAL.get(typeText);
    }

    /** The JDBC code's logical type (no precision, no sign: decimals and unsigned widths are not typed from them). */
    public static String jdbcLogicalType(String code) {
        return code == null ? null : JDBC.get(code);
    }

    private static String computeLogicalType(String typeText) {
        String base = baseName(typeText);
        String plain = PLAIN.get(base);
        if (plain != null) {
            return plain;
        }
        int[] decimal = DECIMALS.get(base);
        if (decimal != null) {
            Integer precision = Canonical.typeArgument(typeText, 1, decimal[0]);
            Integer scale = Canonical.typeArgument(typeText, 2, decimal[1]);
            return precision >= 1 && scale >= 0 && scale <= precision ? "DECIMAL(" + precision + "," + scale + ")" : null;
        }
        Object[] fractional = FRACTIONAL.get(base);
        if (fractional != null) {
            Integer digits = Canonical.typeArgument(typeText, 1, (Integer) fractional[1]);
            return digits >= 0 && digits <= (Integer) fractional[2] ? fractional[0] + "(" + (digits > 6 ? 9 : 6) + ")" : null;
        }
        return null;
    }

    private static final Pattern BASE_WORDS =
            Pattern.compile("^\\s*([a-z][a-z0-9 ]*?)\\s*(\\(|\\bunsigned\\b|\\bsigned\\b|\\bzerofill\\b|$)");
    private static final Pattern SPACES = Pattern.compile("\\s+");
    private static final Pattern ARGUMENTS = Pattern.compile("\\(.*\\)");
    private static final Pattern UNSIGNED = Pattern.compile("\\bunsigned\\b");

    /** {@code types.mysql_base_name}: 'bigint(20) unsigned' -> 'bigint unsigned'; 'decimal(10,2)' -> 'decimal';
     * 'ENUM('a')' -> 'enum'; 'int(10) UNSIGNED ZEROFILL' -> 'int unsigned'. */
    static String baseName(String typeText) {
        String lower = typeText.toLowerCase(Locale.ROOT);
        Matcher words = BASE_WORDS.matcher(lower);
        String base = SPACES.matcher(words.find() ? words.group(1) : "").replaceAll(" ");
        // the arguments first: an ENUM label may be the word 'unsigned'
        boolean unsigned = UNSIGNED.matcher(ARGUMENTS.matcher(lower).replaceAll("")).find();
        return unsigned ? base + " unsigned" : base;
    }


    // Possessive loops: inside a label, '' is always a doubled quote (a closing quote is followed by , or ))
    private static final Pattern LABEL = Pattern.compile("'([^']*+(?:''[^']*+)*+)'");

    /** The declared labels of {@code enum('a','b')} / {@code set('x','y')}, in order. */
    static List<String> labels(String typeText) {
        List<String> labels = new ArrayList<>();
        Matcher label = LABEL.matcher(typeText);
        while (label.find()) {
            labels.add(label.group(1).replace("''", "'"));
        }
        return labels;
    }

    /** {@code types.mysql_enum_text}: canal's 1-based index as the label it stands for (0 is MySQL's invalid-value
     * ''); a value that is a declared label is kept; null for an index the type does not declare. */
    public static String enumText(String raw, String typeText) {
        if (raw == null) {
            return null;
        }
        List<String> labels = labels(typeText == null ? "" : typeText);
        if (labels.contains(raw)) {
            return raw;
        }
        Integer index = Canonical.isDigits(raw) ? Canonical.boundedInt(raw, 0, Integer.MAX_VALUE) : null;
        if (index == null) {
            return null;
        }
        return index == 0 ? "" : index <= labels.size() ? labels.get(index - 1) : null;
    }

    private static final BigInteger MAX_SET_MASK = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /** {@code types.mysql_set_text}: canal's unsigned bitmask of members (up to 64) as the comma-joined labels in
     * declaration order; labels as written are kept; a bit the type does not declare is null. */
    public static String setText(String raw, String typeText) {
        if (raw == null) {
            return null;
        }
        List<String> labels = labels(typeText == null ? "" : typeText);
        if (raw.isEmpty() || labels.containsAll(List.of(raw.split(",", -1)))) {
            return raw;
        }
        if (!Canonical.isDigits(raw) || raw.length() > 20 || new BigInteger(raw).compareTo(MAX_SET_MASK) > 0) {
            return null;
        }
        String bits = new StringBuilder(new BigInteger(raw).toString(2)).reverse().toString();
        if (bits.length() > labels.size()) {
            return null;
        }
        List<String> members = new ArrayList<>();
        for (int i = 0; i < bits.length(); i++) {
            if (bits.charAt(i) == '1') {
                members.add(labels.get(i));
            }
        }
        return String.join(",", members);
    }

    private static final Pattern ZERO_DATE =
            Pattern.compile("^(0000-[0-9]{2}-[0-9]{2}|[0-9]{4}-00-[0-9]{2}|[0-9]{4}-[0-9]{2}-00)([ T].*)?$");

    /** {@code ct.mysql_zero_date}: a MySQL zero date or date-time in a DATE or TIMESTAMP column (SQL NULL, as
     * Debezium's MySQL connector gives it). */
    public static boolean isZeroDate(String raw, String logical) {
        return raw != null && logical != null && (logical.equals("DATE") || logical.startsWith("TIMESTAMP("))
                && ZERO_DATE.matcher(raw).find();
    }
}
