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

_ARGUMENT = sql.sql_string(r"[(,]\s*([0-9]+)")


def type_argument(type_text: str, n: int) -> str:
    """SQL: the n-th numeric argument of a type text ('decimal(10,2)', 2 -> 2) as INT; NULL when absent,
    and -1 when present but outside 0..MAX_DECIMAL_SCALE (a type no source declares: the caller gives
    it no logical type, rather than a default the type did not say)."""
    text = f"try_element_at(regexp_extract_all({type_text}, {_ARGUMENT}, 1), {n})"
    return f"CASE WHEN {text} IS NOT NULL THEN coalesce({sql.bounded_int(text, 0, ct.MAX_DECIMAL_SCALE)}, -1) END"
