"""One type converter keyed by logical type, and each source's type names as data tables.

A column's *logical type* (the model's `logical_type`: INT32, DECIMAL(10,2), TIMESTAMP(6), ...) says what
the canonical text is; the *encoding* says how the producer wrote the value:

- `TEXT`: the value's own text (SQL Server CES, MySQL via canal/CloudCanal/DataWorks): '12.30',
  '2025-03-14 16:45:01.000', '1' for a bit;
- `CONNECT`: Kafka Connect's JSON (Debezium): epoch days and units for dates and times, base64 of the
  unscaled integer for decimals.

So `convert(raw, logical, encoding)` is the only place that turns values into canonical text, and a
new source adds a `SourceTypes` table (its type names -> logical types), not another CASE. Branches
are ordered by how often columns have the type: a CASE tries them in order, once per value.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from normalizer import canonical_text as ct
from normalizer import sql

TEXT = "text"
CONNECT = "connect"

# logical types whose canonical text is the value as written, in every encoding
PASS_THROUGH = ("STRING", "UUID", "JSON", "XML", "ENUM", "INTERVAL")


def _scale(logical: str) -> str:
    """The scale of `DECIMAL(p,s)`, NULL when out of range (then no value of the column converts)."""
    return sql.bounded_int(f"regexp_extract({logical}, ',([0-9]+)[)]$', 1)", 0, ct.MAX_DECIMAL_SCALE)


def _text_branches(raw: str, logical: str) -> list[tuple[str, str]]:
    return [
        (f"{logical} = 'BYTES'", raw),
        (f"{logical} = 'INT32'", ct.integer_text(raw, "INT32")),
        (f"{logical} = 'INT64'", ct.integer_text(raw, "INT64")),
        (f"{logical} = 'INT16'", ct.integer_text(raw, "INT16")),
        (f"{logical} = 'INT8'", ct.integer_text(raw, "INT8")),
        (f"{logical} = 'BOOLEAN'", f"CASE lower({raw}) WHEN '1' THEN 'true' WHEN '0' THEN 'false' "
                                    f"WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END"),
        (f"{logical} IN ('TIMESTAMP(3)', 'TIMESTAMP(6)')", ct.naive_timestamp_text(raw, 6)),
        (f"{logical} LIKE 'DECIMAL(%'", ct.decimal_text(raw, _scale(logical))),
        (f"{logical} = 'FLOAT64'", ct.float64_text(raw)),
        (f"{logical} = 'FLOAT32'", ct.float32_text(raw)),
        (f"{logical} = 'DATE'", ct.date_text(raw)),
        # source type tables give TIME(6) or TIME(9) only (canonical text has 6 digits, or 9)
        (f"{logical} = 'TIME(6)'", ct.time_text(raw, 6)),
        (f"{logical} = 'TIME(9)'", ct.time_text(raw, 9)),
        (f"{logical} = 'TIMESTAMP(9)'", ct.naive_timestamp_text(raw, 9)),
        (f"{logical} = 'TIMESTAMP_TZ'", ct.timestamp_tz_from_iso(raw)),
    ]


def _connect_branches(raw: str, logical: str) -> list[tuple[str, str]]:
    units = {3: 1000, 6: 1_000_000, 9: 1_000_000_000}
    branches = [
        (f"{logical} = 'INT32'", ct.integer_text(raw, "INT32")),
        (f"{logical} = 'INT64'", ct.integer_text(raw, "INT64")),
        (f"{logical} = 'INT16'", ct.integer_text(raw, "INT16")),
        (f"{logical} = 'INT8'", ct.integer_text(raw, "INT8")),
        (f"{logical} = 'BOOLEAN'", ct.boolean_text(raw)),
        # JsonConverter writes bytes as base64: anything else is not bytes it wrote
        (f"{logical} = 'BYTES'", ct.strict_base64(raw)),
        (f"{logical} = 'FLOAT64'", ct.float64_text(raw)),
        (f"{logical} = 'FLOAT32'", ct.float32_text(raw)),
        (f"{logical} LIKE 'DECIMAL(%'", ct.decimal_from_unscaled_base64(raw, _scale(logical))),
        # VariableScaleDecimal: a struct {scale, value} of its own per value
        (f"{logical} = 'DECIMAL'", ct.decimal_from_unscaled_base64(
            f"get_json_object({raw}, '$.value')", sql.bounded_int(f"get_json_object({raw}, '$.scale')", 0, ct.MAX_DECIMAL_SCALE))),
        (f"{logical} = 'DATE'", ct.date_from_epoch_days(raw)),
        (f"{logical} = 'TIMESTAMP_TZ'", ct.timestamp_tz_from_iso(raw)),
        (f"{logical} = 'TIME_TZ'", ct.time_tz_from_iso(raw)),
    ]
    for precision, unit in units.items():
        digits = 9 if precision > 6 else 6
        branches += [(f"{logical} = 'TIME({precision})'", ct.time_from_units(raw, unit, digits)),
                     (f"{logical} = 'TIMESTAMP({precision})'", ct.timestamp_from_epoch_units(raw, unit, digits))]
    return branches


_ENCODINGS = {TEXT: _text_branches, CONNECT: _connect_branches}
# What a logical type that no branch names becomes: CES/MySQL text of such a type was already rejected
# (UNKNOWN_COLUMN_TYPE); Connect's STRUCT, ARRAY and MAP values keep their JSON text (forward compatible).
_OTHERWISE = {TEXT: "NULL", CONNECT: "{raw}"}


def convert(raw: str, logical: str, encoding: str) -> str:
    """Canonical text of `raw` (a string expression) for the logical type name `logical`, as written in
    `encoding`; NULL when the value does not fit its type (the decoders quarantine that as
    UNDECODABLE_VALUE). Both arguments are evaluated once per branch tried: pass lambda variables or
    fields, not computations."""
    branches = [(f"{logical} IN ({', '.join(repr(t) for t in PASS_THROUGH)})", raw), *_ENCODINGS[encoding](raw, logical)]
    cases = " ".join(f"WHEN {condition} THEN {value}" for condition, value in branches)
    return f"CASE WHEN {raw} IS NULL THEN NULL {cases} ELSE {_OTHERWISE[encoding].format(raw=raw)} END"


# ---------------------------------------------------------------------------------------------------
# Per-source type names -> logical types
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Decimal:
    """A DECIMAL(p,s) type whose arguments may be omitted (then the source's defaults apply)."""

    default_precision: int
    default_scale: int


@dataclass(frozen=True)
class Fractional:
    """TIME(n) / TIMESTAMP(n): canonical text has 6 digits, or 9 when the type keeps more than 6."""

    logical: str           # TIME or TIMESTAMP
    default_digits: int
    max_digits: int = 9    # more fraction digits than the source allows: no such type


@dataclass(frozen=True)
class SourceTypes:
    """One source's type names: `plain` names map to a logical type as they are; `parameterized` ones
    read their arguments (precision, scale, fraction digits) from the type."""

    system: str
    plain: dict[str, str]
    parameterized: dict[str, Decimal | Fractional] = field(default_factory=dict)

    def logical_type(self, base: str, argument) -> str:
        """SQL for the logical type of a type named `base` (lower case, no arguments); `argument(n)` is
        the SQL of its n-th argument as INT (NULL when absent). NULL for a name the table lacks."""
        plain = "map(" + ", ".join(f"'{k}', '{v}'" for k, v in self.plain.items()) + ")"
        branches = []
        for name, kind in self.parameterized.items():
            if isinstance(kind, Decimal):
                precision = f"coalesce({argument(1)}, {kind.default_precision})"
                scale = f"coalesce({argument(2)}, {kind.default_scale})"
                # an argument out of range (-1) or a scale above the precision: no such type
                value = (f"IF({precision} >= 1 AND {scale} BETWEEN 0 AND {precision}, "
                         f"concat('DECIMAL(', {precision}, ',', {scale}, ')'), NULL)")
            else:
                digits = f"coalesce({argument(1)}, {kind.default_digits})"
                value = (f"IF({digits} BETWEEN 0 AND {kind.max_digits}, "
                         f"concat('{kind.logical}(', IF({digits} > 6, 9, 6), ')'), NULL)")
            branches.append(f"WHEN {base} = '{name}' THEN {value}")
        if not branches:
            return f"try_element_at({plain}, {base})"
        # coalesce stops at the first non-NULL: the CASE (and the arguments) only for the types that have them
        return f"coalesce(try_element_at({plain}, {base}), CASE {' '.join(branches)} END)"


SQLSERVER = SourceTypes(
    system="sqlserver",
    plain={"int": "INT32", "bigint": "INT64", "smallint": "INT16", "tinyint": "INT16", "bit": "BOOLEAN",
           "money": "DECIMAL(19,4)", "smallmoney": "DECIMAL(10,4)", "float": "FLOAT64", "real": "FLOAT32",
           "char": "STRING", "varchar": "STRING", "nchar": "STRING", "nvarchar": "STRING", "sysname": "STRING",
           "uniqueidentifier": "UUID", "binary": "BYTES", "varbinary": "BYTES", "date": "DATE",
           "datetime": "TIMESTAMP(3)", "smalldatetime": "TIMESTAMP(3)", "datetimeoffset": "TIMESTAMP_TZ"},
    parameterized={"decimal": Decimal(18, 0), "numeric": Decimal(18, 0),
                   "time": Fractional("TIME", 7, 7), "datetime2": Fractional("TIMESTAMP", 7, 7)},
)

# DataWorks maps every source type to six types and writes values as JSON: numbers, booleans, epoch
# milliseconds for every date-time, base64 for bytes. That is Connect's JSON encoding (types.CONNECT).
DATAWORKS = SourceTypes(
    system="dataworks",
    plain={"LONG": "INT64", "DOUBLE": "FLOAT64", "BOOLEAN": "BOOLEAN", "STRING": "STRING", "BYTES": "BYTES",
           "DATE": "TIMESTAMP(3)"},
)

# MySQL column types as MySQL writes them (canal's `mysqlType`, CloudCanal's `dbValType`: `int(11)`,
# `bigint(20) unsigned`, `decimal(10,2)`, `datetime(6)`), values as MySQL's text (types.TEXT). canal keeps
# the type text of the table's DDL verbatim, so every spelling MySQL 8 accepts appears: the synonyms
# (BOOL, SERIAL, DEC, FIXED, DOUBLE PRECISION, CHARACTER VARYING, NATIONAL CHAR, INT1..INT8, ...) map as
# MySQL itself maps them ("Data Type Storage Requirements" / "Using Data Types from Other Database
# Engines", MySQL 8.0 Reference Manual 13.9). Signedness matters: an unsigned type gets the logical type
# that holds its range. Keyed by the base name (lower case, words joined by one space), plus ' unsigned'
# when the type says so (mysql_base_name).
_MYSQL_INTEGERS = {  # base -> (signed, unsigned)
    "tinyint": ("INT16", "INT16"), "int1": ("INT16", "INT16"), "bool": ("INT16", "INT16"), "boolean": ("INT16", "INT16"),
    "smallint": ("INT16", "INT32"), "int2": ("INT16", "INT32"),
    "mediumint": ("INT32", "INT32"), "middleint": ("INT32", "INT32"), "int3": ("INT32", "INT32"),
    "int": ("INT32", "INT64"), "integer": ("INT32", "INT64"), "int4": ("INT32", "INT64"),
    "bigint": ("INT64", "DECIMAL(20,0)"), "int8": ("INT64", "DECIMAL(20,0)"),
    "float": ("FLOAT32", "FLOAT32"), "float4": ("FLOAT32", "FLOAT32"),
    "double": ("FLOAT64", "FLOAT64"), "double precision": ("FLOAT64", "FLOAT64"), "float8": ("FLOAT64", "FLOAT64"),
    "real": ("FLOAT64", "FLOAT64"),  # REAL is DOUBLE unless the server runs with REAL_AS_FLOAT
}
_MYSQL_STRINGS = ("char", "character", "nchar", "national char", "national character", "varchar", "character varying",
                  "char varying", "nvarchar", "national varchar", "national character varying", "national char varying",
                  "nchar varchar", "nchar varying", "tinytext", "text", "mediumtext", "longtext", "long", "long varchar")
_MYSQL_BINARIES = ("binary", "varbinary", "char byte", "tinyblob", "blob", "mediumblob", "longblob", "long varbinary",
                   # spatial values arrive as their internal bytes (SRID + WKB), like any blob
                   "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
                   "geometrycollection", "geomcollection")
MYSQL_TEXT = SourceTypes(
    system="mysql",
    plain={**{name: signed for name, (signed, _) in _MYSQL_INTEGERS.items()},
           **{f"{name} unsigned": unsigned for name, (_, unsigned) in _MYSQL_INTEGERS.items()},
           "serial": "DECIMAL(20,0)",  # BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE
           "bit": "DECIMAL(20,0)", "year": "INT16", "date": "DATE",
           **{name: "STRING" for name in _MYSQL_STRINGS}, "set": "STRING", "enum": "ENUM", "json": "JSON",
           **{name: "BYTES" for name in _MYSQL_BINARIES}},
    parameterized={**{name: Decimal(10, 0) for base in ("decimal", "dec", "numeric", "fixed")
                      for name in (base, f"{base} unsigned")},
                   # fractional seconds precision 0..6 (MySQL 8.0 Reference Manual 13.2.6)
                   "time": Fractional("TIME", 0, 6), "datetime": Fractional("TIMESTAMP", 0, 6),
                   "timestamp": Fractional("TIMESTAMP", 0, 6)},
)
# java.sql.Types codes (canal's `sqlType`, CloudCanal's `jdbcType`): the fallback when the type text is
# missing. They carry no precision or sign, so decimals and unsigned widths are not typed from them.
JDBC = SourceTypes(
    system="jdbc",
    plain={"-6": "INT16", "5": "INT16", "4": "INT32", "-5": "INT64", "7": "FLOAT64", "6": "FLOAT64", "8": "FLOAT64",
           "16": "BOOLEAN", "1": "STRING", "12": "STRING", "-1": "STRING", "-15": "STRING", "-9": "STRING",
           "-16": "STRING", "2005": "STRING", "2011": "STRING", "91": "DATE", "92": "TIME(6)", "93": "TIMESTAMP(6)"},
)


def mysql_base_name(type_text: str) -> str:
    """'bigint(20) unsigned' -> 'bigint unsigned'; 'decimal(10,2)' -> 'decimal'; 'ENUM('a')' -> 'enum';
    'DOUBLE PRECISION' -> 'double precision'; 'int(10) UNSIGNED ZEROFILL' -> 'int unsigned'."""
    stop = r"(\(|\bunsigned\b|\bsigned\b|\bzerofill\b|$)"  # the arguments or the attributes
    name, spaces = sql.sql_string(r"^\s*([a-z][a-z0-9 ]*?)\s*" + stop), sql.sql_string(r"\s+")
    arguments, unsigned_word = sql.sql_string(r"\(.*\)"), sql.sql_string(r"\bunsigned\b")
    words = f"regexp_extract(lower({type_text}), {name}, 1)"
    base = f"regexp_replace({words}, {spaces}, ' ')"
    # the arguments first: an ENUM label may be the word 'unsigned'
    unsigned = f"regexp_replace(lower({type_text}), {arguments}, '') RLIKE {unsigned_word}"
    return f"IF({unsigned}, concat({base}, ' unsigned'), {base})"


_ARGUMENT = sql.sql_string(r"[(,]\s*([0-9]+)")


def type_argument(type_text: str, n: int) -> str:
    """SQL: the n-th numeric argument of a type text ('decimal(10,2)', 2 -> 2) as INT; NULL when absent,
    and -1 when present but outside 0..MAX_DECIMAL_SCALE (a type no source declares: the caller gives
    it no logical type, rather than a default the type did not say)."""
    text = f"try_element_at(regexp_extract_all({type_text}, {_ARGUMENT}, 1), {n})"
    return f"CASE WHEN {text} IS NOT NULL THEN coalesce({sql.bounded_int(text, 0, ct.MAX_DECIMAL_SCALE)}, -1) END"


def mysql_logical_type(type_text: str) -> str:
    """The logical type of a MySQL type text (NULL for a type the table lacks)."""
    return MYSQL_TEXT.logical_type(mysql_base_name(type_text), lambda n: type_argument(type_text, n))


def _mysql_labels(type_text: str) -> str:
    """The declared labels of `enum('a','b')` / `set('x','y')`, in order ('' inside a label is one quote).
    Possessive loops: Java's regex engine ran `(?:[^']|'')*` recursively, once per character, and a long label
    overflowed the task's stack (a fatal error that ends the JVM); a possessive loop runs without recursion, and
    gives up nothing a well-formed type needs (inside a label, '' is always a doubled quote: a closing quote is
    followed by `,` or `)`)."""
    return (f"transform(regexp_extract_all({type_text}, \"'([^']*+(?:''[^']*+)*+)'\", 1), "
            "ct_l -> replace(ct_l, \"''\", \"'\"))")


def mysql_enum_text(raw: str, type_text: str) -> str:
    """An ENUM value as canal's binlog decoder writes it, its 1-based index (RowsLogBuffer: `valueOf(int32)`),
    as the label it stands for; index 0 is MySQL's invalid-value ''. A value that is a declared label is kept
    (a producer that writes labels). NULL for an index the type does not declare."""
    index = f"try_cast({raw} AS INT)"
    return sql.let(_mysql_labels(type_text), "ct_labels",
                  f"CASE WHEN array_contains(ct_labels, {raw}) THEN {raw} "
                  f"WHEN {raw} RLIKE '^[0-9]+$' AND {index} = 0 THEN '' "
                  f"WHEN {raw} RLIKE '^[0-9]+$' AND {index} <= size(ct_labels) THEN element_at(ct_labels, {index}) END")


def mysql_set_text(raw: str, type_text: str) -> str:
    """A SET value as canal writes it, the unsigned bitmask of its members (RowsLogBuffer: up to 64 members,
    so up to 2^64 - 1), as the comma-joined labels in declaration order (how MySQL prints a SET). Labels as
    written are kept; a bit the type does not declare is NULL. The mask is read as binary digits (conv works
    on unsigned 64-bit values), never as a BIGINT, which the top member would overflow."""
    bits = f"reverse(conv({raw}, 10, 2))"
    members = "array_join(filter(ct_labels, (ct_l, ct_i) -> substr(ct_bits, ct_i + 1, 1) = '1'), ',')"
    from_mask = sql.let(bits, "ct_bits", f"IF(length(ct_bits) <= size(ct_labels), {members}, NULL)")
    return sql.let(_mysql_labels(type_text), "ct_labels",
                  f"CASE WHEN {raw} = '' OR forall(split({raw}, ','), ct_p -> array_contains(ct_labels, ct_p)) THEN {raw} "
                  f"WHEN {raw} RLIKE '^[0-9]{{1,20}}$' AND try_cast({raw} AS DECIMAL(20,0)) <= {2 ** 64 - 1} "
                  f"THEN {from_mask} END")
