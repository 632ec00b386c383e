"""The shared type tables and converters, in the Spark driver's own JVM (issue 18: MySQL's whole type list,
zero dates, arguments out of range). Each row is one spelling a producer writes. The decoders read records on the
JVM (normalizer/java), so that is where the tables and conversions live; the few SQL helpers still shared
(normalizer/canonical_text.py: base64 on one line, fixed-width positions) are evaluated by Spark itself."""
import pytest

from cdc_conformance.normalizer import canonical_text as ct

pytestmark = pytest.mark.integration

MYSQL_TYPES = [
    ("int(11)", "INT32"), ("INT(10) UNSIGNED ZEROFILL", "INT64"), ("INTEGER", "INT32"), ("int4", "INT32"),
    ("BOOLEAN", "INT16"), ("bool", "INT16"), ("tinyint(1)", "INT16"), ("SERIAL", "DECIMAL(20,0)"),
    ("bigint(20) unsigned", "DECIMAL(20,0)"), ("int8", "INT64"), ("middleint", "INT32"),
    ("decimal(10,2)", "DECIMAL(10,2)"), ("DEC(12,4)", "DECIMAL(12,4)"), ("FIXED(5,1)", "DECIMAL(5,1)"),
    ("numeric(8,3) unsigned", "DECIMAL(8,3)"), ("decimal", "DECIMAL(10,0)"), ("decimal(65,30)", "DECIMAL(65,30)"),
    ("decimal(10,2147483647)", None), ("decimal(10,99999999999)", None), ("decimal(3,5)", None),
    ("DOUBLE PRECISION", "FLOAT64"), ("double precision unsigned", "FLOAT64"), ("REAL unsigned", "FLOAT64"),
    ("float4", "FLOAT32"), ("float8", "FLOAT64"),
    ("CHARACTER VARYING(20)", "STRING"), ("NATIONAL CHAR(3)", "STRING"), ("nvarchar(10)", "STRING"),
    ("long varchar", "STRING"), ("LONG VARBINARY", "BYTES"),
    ("geometry", "BYTES"), ("POINT", "BYTES"), ("linestring", "BYTES"), ("polygon", "BYTES"), ("multipoint", "BYTES"),
    ("multilinestring", "BYTES"), ("multipolygon", "BYTES"), ("geometrycollection", "BYTES"), ("geomcollection", "BYTES"),
    ("enum('unsigned','b')", "ENUM"), ("set('a','b')", "STRING"), ("datetime(6)", "TIMESTAMP(6)"),
    ("timestamp(3)", "TIMESTAMP(6)"), ("time(9)", None), ("time", "TIME(6)"), ("year(4)", "INT16"), ("json", "JSON"),
    ("vector(3)", None), ("geography", None),
]


def _jvm(spark):
    return spark._jvm.io.cdcconformance.shared


@pytest.mark.parametrize("type_text, logical", MYSQL_TYPES)
def test_mysql_type_names(spark, type_text, logical):
    assert _jvm(spark).MySqlTypes.logicalType(type_text) == logical


@pytest.mark.parametrize("raw, scale, expected", [
    ("1.50", "2", "1.50"), ("1.5", "2147483647", None), ("1.5", "-2147483648", None), ("7", "16383", "7." + "0" * 16383),
])
def test_decimal_text_never_overflows(spark, raw, scale, expected):
    jvm = _jvm(spark).Canonical
    assert jvm.decimalText(raw, jvm.boundedInt(scale, 0, jvm.MAX_DECIMAL_SCALE)) == expected


@pytest.mark.parametrize("raw, expected", [
    ("2025-03-14T16:45:20.650Z", "2025-03-14T16:45:20.650Z"), ("0000-01-01T00:00:00Z", None),
    ("10000-01-01T00:00:00Z", None), ("9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"), ("soon", None),
    ("2025-03-14 16:45:20", "2025-03-14T16:45:20Z"),
])
def test_instants_outside_years_1_to_9999_are_null(spark, raw, expected):
    """CES `time`/`committime`, read as Spark reads a timestamp text (DateTimeUtils.stringToTimestamp, in UTC)."""
    value = spark._jvm.io.cdcconformance.ces.CesChanges.instant(raw)
    assert (None if value is None else value.toString()) == expected


def test_base64_is_one_line_whatever_the_session(spark):
    spark.conf.set("spark.sql.chunkBase64String.enabled", "true")
    try:
        text = spark.sql(f"SELECT {ct.base64_text('unhex(repeat(' + repr('FF') + ', 60))')}").first()[0]
    finally:
        spark.conf.unset("spark.sql.chunkBase64String.enabled")
    assert text == "/" * 80


@pytest.mark.parametrize("raw, width, expected", [
    ("200", 20, "00000000000000000200"), ("0" * 25 + "7", 20, "00000000000000000007"),
    ("123456789012345678901", 20, None), ("x1", 20, None),
])
def test_fixed_width_never_cuts(spark, raw, width, expected):
    assert spark.sql(f"SELECT {ct.fixed_width(repr(raw), width)}").first()[0] == expected
    assert _jvm(spark).Canonical.fixedWidth(raw, width) == expected


@pytest.mark.parametrize("raw, logical, zero", [
    ("0000-00-00", "DATE", True), ("0000-00-00 00:00:00", "TIMESTAMP(6)", True), ("2020-00-15", "DATE", True),
    ("2020-01-00 10:00:00.5", "TIMESTAMP(6)", True), ("0000-01-01", "DATE", True), ("2020-01-01", "DATE", False),
    ("0000-00-00", "STRING", False), ("00:00:00", "TIME(6)", False),
])
def test_mysql_zero_dates(spark, raw, logical, zero):
    assert _jvm(spark).MySqlTypes.isZeroDate(raw, logical) is zero


@pytest.mark.parametrize("raw, type_text, expected", [
    ("2", "enum('red','green')", "green"), ("0", "enum('red','green')", ""), ("3", "enum('red','green')", None),
    ("green", "enum('red','green')", "green"), ("1", "enum('1','2')", "1"), ("1", "enum('it''s','b')", "it's"),
])
def test_mysql_enum_index_is_its_label(spark, raw, type_text, expected):
    assert _jvm(spark).MySqlTypes.enumText(raw, type_text) == expected


_SET_OF_64 = "set(" + ",".join(f"'m{i}'" for i in range(64)) + ")"


@pytest.mark.parametrize("raw, type_text, expected", [
    ("5", "set('x','y','z')", "x,z"), ("0", "set('x','y','z')", ""), ("8", "set('x','y','z')", None),
    ("x,z", "set('x','y','z')", "x,z"), ("", "set('x')", ""),
    # 64 members: the top one makes the mask 2^63 and more, beyond a BIGINT
    pytest.param(str(2 ** 64 - 1), _SET_OF_64, ",".join(f"m{i}" for i in range(64)), id="64-members-all"),
    pytest.param(str(2 ** 63), _SET_OF_64, "m63", id="64-members-top"),
    pytest.param(str(2 ** 64), _SET_OF_64, None, id="64-members-beyond"),
    pytest.param("1" * 30, _SET_OF_64, None, id="64-members-30-digits"), pytest.param("-1", _SET_OF_64, None, id="64-members-negative"),
])
def test_mysql_set_bitmask_is_its_labels(spark, raw, type_text, expected):
    assert _jvm(spark).MySqlTypes.setText(raw, type_text) == expected


@pytest.mark.parametrize("raw, expected", [
    ("1.5", "1.5"), ("1e400", None), ("-1e400", None), ("1e-400", None), ("0.0", "0.0"), ("-0", "-0.0"), ("0e10", "0.0"),
    ("Infinity", "Infinity"), ("-Infinity", "-Infinity"), ("NaN", "NaN"), ("4.9E-324", "4.9E-324"), ("x", None),
])
def test_floats_beyond_double_range_are_not_infinity_or_zero(spark, raw, expected):
    assert _jvm(spark).Canonical.float64Text(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("1700000000999999999", "2023-11-14T22:13:20.999999999"), ("-1", "1969-12-31T23:59:59.999999999"),
    ("-1000000001", "1969-12-31T23:59:58.999999999"), ("-9223372036854775808", "1677-09-21T00:12:43.145224192"),
])
def test_nanosecond_timestamps_stay_in_their_second(spark, raw, expected):
    """Seconds by integer floor division: a double holds 16 digits, and 1700000000999999999 ns read as the next second;
    the smallest BIGINT neither overflows nor leaves years 0001-9999."""
    assert _jvm(spark).Canonical.timestampFromEpochUnits(raw, 1_000_000_000, 9) == expected
