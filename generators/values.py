"""Logical column types, their Hypothesis value strategies, and canonical text (the oracle's side).

The canonical text here is computed from Python values, independently of any encoding, so that the
normalizer's decoding is checked against the model (docs/canonical-model.md) and not against itself.
"""
from __future__ import annotations

import base64
import datetime as dt
import functools
import json
import math
import struct
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext

from hypothesis import strategies as st

from cdc_conformance.generators.drawn_texts import JSON_DOCUMENTS, TEXTS, exact_decimal, exponent_of

# PostgreSQL's own types: uuid, json, jsonb, xml, inet, cidr, ltree, int4range, tsrange, timetz, numeric, arrays
from cdc_conformance.generators.postgres_values import KINDS as POSTGRES_KINDS

EPOCH = dt.datetime(1970, 1, 1)
MIN_DT, MAX_DT = dt.datetime(1900, 1, 1), dt.datetime(2199, 12, 31, 23, 59, 59, 999999)


@dataclass(frozen=True)
class LogicalType:
    """A column type as the canonical model names it (`logical_type`)."""

    kind: str          # INT16, INT32, INT64, BOOLEAN, STRING, DECIMAL, FLOAT64, DATE, TIME, TIMESTAMP, TIMESTAMP_TZ, BYTES,
    #                    ENUM, SET (MySQL's, with their declared labels), YEAR, JSON, UINT32, UINT64 (MySQL's and
    #                    MariaDB's; an unsigned INT is an INT64 to the binlog connectors), BITS (BIT(n), n > 1: the
    #                    value an int below 2^n, `precision` its n), GEOMETRY (the value (srid, OGC WKB bytes)),
    #                    VARBIT (PostgreSQL's bit varying(n): the value its bit string, '' to n digits), TIME_24
    #                    (PostgreSQL's time, which runs to 24:00:00: the value a timedelta from midnight),
    #                    PG_TIMESTAMP, PG_TIMESTAMP_TZ (PostgreSQL's timestamp(p) and timestamptz: a datetime, or the
    #                    text `infinity`/`-infinity`); and
    #                    PostgreSQL's own types, generators.postgres_values.KINDS (UUID, PG_JSONB, INTERVAL, ...)
    precision: int | None = None
    scale: int | None = None
    labels: tuple[str, ...] = ()

    @property
    def digits(self) -> int:
        """The precision of a type that declares one (DECIMAL, BITS, VARBIT)."""
        if self.precision is None:
            raise ValueError(f"{self.kind} declares no precision")
        return self.precision

    @property
    def places(self) -> int:
        """The scale of a type that declares one (DECIMAL, MONEY)."""
        if self.scale is None:
            raise ValueError(f"{self.kind} declares no scale")
        return self.scale

    @property
    def name(self) -> str:
        if self.kind in POSTGRES_KINDS:
            return POSTGRES_KINDS[self.kind].name
        if self.kind in ("SET", "JSON"):
            return "STRING"  # the canonical model has no SET type (its text is the comma-joined labels), nor JSON here:
            #                 MariaDB's JSON is LONGTEXT, which its connector writes as a plain string
        if self.kind == "YEAR":
            return "INT32"  # io.debezium.time.Year: an int32 the canonical model knows no name for
        if self.kind in ("UINT32", "UINT64"):
            return "INT64"  # INT UNSIGNED and BIGINT UNSIGNED: Debezium writes both as int64
        if self.kind == "DECIMAL":
            return f"DECIMAL({self.precision},{self.scale})"
        if self.kind == "MONEY":
            return f"DECIMAL(?,{self.scale})"  # PostgreSQL's money: a Connect Decimal of scale 2 with no precision
        if self.kind == "DURATION":
            return "TIME(6)"  # MySQL's and MariaDB's TIME: a duration (-838:59:59 to 838:59:59), held as a timedelta
        if self.kind == "TIME_24":
            return f"TIME({self.precision})"
        if self.kind in PG_INFINITE:
            return finite_type(self).name
        if self.kind in ("TIME", "TIMESTAMP", "BITS", "VARBIT"):
            return f"{self.kind}({self.precision})"
        return self.kind


def java_double_text(value: float) -> str:
    """Java's Double.toString layout from Python's shortest repr digits (what Spark's cast prints)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    if 1e-3 <= abs(value) < 1e7:
        point = exponent + 1
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        if point >= len(digits):
            return f"{sign}{digits}{'0' * (point - len(digits))}.0"
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if len(digits) == 1:  # exponent form holds two digits at least: the two closest to the exact value, which for a
        #                   subnormal need not end in 0 (5e-324 is 4.9E-324; Canonical.doubleText, JDK 19+)
        with localcontext(Context(prec=2, rounding=ROUND_HALF_EVEN)):
            two = +Decimal(abs(value))
        digits, exponent = "".join(map(str, two.as_tuple().digits)).ljust(2, "0"), two.adjusted()
    mantissa = digits[0] + "." + (digits[1:].rstrip("0") or "0")
    return f"{sign}{mantissa}E{exponent}"


def java_bigdecimal_text(value: Decimal) -> str:
    """Java's BigDecimal.toString of `value` (its digits and exponent as held: Decimal('12.30') has scale 2): plain
    digits while the adjusted exponent is -6 or more and the scale is not negative, otherwise exponent form with as
    many digits as the unscaled value has (`0E-30`, `1.82005358175E-19` at scale 30). Kafka's JsonConverter writes a Decimal so
    under decimal.format=NUMERIC (its Jackson node serializes a BigDecimal with toString; run here on connect-json 4.1.1)."""
    sign, digit_tuple, _ = value.as_tuple()
    coefficient = str(int("".join(map(str, digit_tuple)) or "0"))
    scale = -exponent_of(value)
    adjusted = len(coefficient) - 1 - scale
    minus = "-" if sign and int(coefficient) else ""
    if scale == 0:
        return minus + coefficient
    if scale > 0 and adjusted >= -6:
        if len(coefficient) > scale:
            return f"{minus}{coefficient[:-scale]}.{coefficient[-scale:]}"
        return f"{minus}0.{'0' * (scale - len(coefficient))}{coefficient}"
    mantissa = coefficient[0] + ("." + coefficient[1:] if len(coefficient) > 1 else "")
    return f"{minus}{mantissa}E{'+' if adjusted > 0 else ''}{adjusted}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """('12345', e) such that value == 1.2345 * 10**e, with Python's shortest round-trip digits."""
    exact = Decimal(repr(value))
    digits = exact.as_tuple().digits
    scientific_exponent = len(digits) - 1 + exponent_of(exact)
    return "".join(map(str, digits)).rstrip("0") or "0", scientific_exponent


def canonical_text(logical: LogicalType, value) -> str | None:
    """The canonical text of a typed Python value (None = SQL NULL)."""
    if value is None:
        return None
    kind = logical.kind
    if kind in POSTGRES_KINDS:
        return POSTGRES_KINDS[kind].text(value)
    if kind in PG_INFINITE:  # PostgreSQL's infinities as they are named
        return value if isinstance(value, str) else canonical_text(finite_type(logical), value)
    if kind in ("INT16", "INT32", "INT64", "YEAR", "UINT32", "UINT64"):
        return str(value)
    if kind == "BOOLEAN":
        return "true" if value else "false"
    if kind in ("DECIMAL", "MONEY"):
        return f"{rescale(value, logical.places):f}"
    if kind == "FLOAT64":
        return java_double_text(value)
    if kind == "DATE":
        return value.isoformat()
    if kind in ("TIME", "TIMESTAMP") and logical.precision == 9:
        return _nanos_text(kind, value)
    if kind == "TIME":
        return value.strftime("%H:%M:%S.%f")
    if kind in ("DURATION", "TIME_24"):
        return duration_text(value)
    if kind == "TIMESTAMP":
        return value.strftime("%Y-%m-%dT%H:%M:%S.%f")
    if kind == "TIMESTAMP_TZ":
        return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if kind == "BYTES":
        return base64.b64encode(value).decode()
    if kind == "BITS":  # the bit string as the database prints it: n digits, the most significant first
        return format(value, f"0{logical.precision}b")
    if kind == "VARBIT":  # the digits the connector's bytes keep: its BitSet has no leading zeros (canonical model)
        return value.lstrip("0") or "0"
    if kind == "GEOMETRY":
        return geometry_text(*value)
    return value


def duration_text(value: dt.timedelta) -> str:
    """A MySQL/MariaDB TIME as the canonical TIME text: a sign, at least two hour digits (`-00:00:01.000000`,
    `838:59:59.000000`), six fraction digits (docs/canonical-model.md)."""
    micros = abs(value // dt.timedelta(microseconds=1))
    seconds, fraction = divmod(micros, 1_000_000)
    sign = "-" if value < dt.timedelta(0) else ""
    return f"{sign}{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{fraction:06d}"


# PostgreSQL's time runs to 24:00:00 ("24:00:00 is a valid time": the PostgreSQL manual, 8.5.1.2)
END_OF_DAY = dt.timedelta(hours=24)
# MySQL's and MariaDB's TIME range (MariaDB's fraction reaches .999999; MySQL's stops at .000000)
MAX_DURATION = dt.timedelta(hours=838, minutes=59, seconds=59, microseconds=999_999)


def geometry_text(srid: int | None, wkb: bytes) -> str:
    """A geometry's canonical text: a JSON object of its SRID (null when unset: SRID 0, MySQL's "no spatial reference
    system", is null too, as Debezium writes it) and its WKB in base64, members by name and no whitespace, so that no
    spelling of the record changes it."""
    return json.dumps({"srid": srid or None, "wkb": base64.b64encode(wkb).decode()}, separators=(",", ":"),
                      sort_keys=True)


NANOS = 10 ** 9


def _nanos_text(kind: str, nanos: int) -> str:
    """A TIME(9) / TIMESTAMP(9) value, held as an int of nanoseconds (since midnight / since the epoch: Python's
    times stop at microseconds), as canonical text with 9 fraction digits."""
    seconds, fraction = divmod(nanos, NANOS)  # floor division: a pre-1970 instant's fraction stays positive
    wall = EPOCH + dt.timedelta(seconds=seconds)
    return wall.strftime("%H:%M:%S" if kind == "TIME" else "%Y-%m-%dT%H:%M:%S") + f".{fraction:09d}"


def _nanos(low: int, high: int):
    """Nanosecond counts in [low, high] seconds, often a second's first or last nanosecond: a double holds 16 digits,
    and a count read through one moved 1700000000999999999 ns to the next second (case
    debezium-nano-timestamp-last-nanosecond)."""
    return st.one_of(st.integers(low * NANOS, high * NANOS + NANOS - 1),
                     st.integers(low, high).flatmap(lambda s: st.sampled_from((s * NANOS, s * NANOS + NANOS - 1))))


# ------------------------------------------------------------------------------------------------
# Value strategies
# ------------------------------------------------------------------------------------------------

def rescale(value: Decimal, scale: int) -> Decimal:
    """`value` with exactly `scale` fraction digits; 38-digit decimals exceed the default context."""
    with localcontext(Context(prec=80)):
        return value.quantize(Decimal(1).scaleb(-scale))


def _decimals(precision: int, scale: int):
    """Its ends, zero and the smallest steps either side (at scale 30 zero and 1E-30 are what Java's BigDecimal.toString,
    JsonConverter's NUMERIC spelling, writes in exponent form: `0E-30`), and any between."""
    bound = 10 ** precision - 1
    return st.one_of(st.sampled_from([0, 1, -1, bound, -bound]), st.integers(-bound, bound)).map(
        lambda unscaled: exact_decimal(unscaled, scale))


# a coordinate: any finite double, its extremes and both zeros among them (MySQL's and MariaDB's WKB hold no NaN)
_COORDINATES = st.one_of(st.sampled_from([0.0, -0.0, 1.7976931348623157e308, -1.7976931348623157e308, 5e-324]),
                         st.floats(allow_nan=False, allow_infinity=False))


def _geometries():
    """(SRID, WKB) of a POINT or a LINESTRING (little-endian WKB, as MySQL and MariaDB store it) under SRID 0, the
    default, or another the server takes without checking it."""
    point = st.tuples(_COORDINATES, _COORDINATES)
    wkb = st.one_of(point.map(lambda p: struct.pack("<BIdd", 1, 1, *p)),
                    st.lists(point, min_size=2, max_size=4).map(
                        lambda ps: struct.pack("<BII", 1, 2, len(ps)) + b"".join(struct.pack("<dd", *p) for p in ps)))
    return st.tuples(st.sampled_from([0, 4326, 3857]), wkb)


# a double's extremes: the largest, the smallest normal and subnormal, -0.0, 17 digits, and ones JDK 17 prints longer
_DOUBLE_EXTREMES = (1.7976931348623157e308, -1.7976931348623157e308, 2.2250738585072014e-308, 5e-324, -5e-324, -0.0,
                    0.1, 1e23, 2e-3, -2.8554196902806474e17, 1.0000000000000002)


def _floats():
    """Decimals people write (up to 12 significant digits), any double at all (subnormals among them), a double's
    extremes, and the IEEE specials. The normalizer prints the shortest digits on every JDK (JDK 17's
    Double.toString does not always: JDK-4511638; docs/canonical-model.md)."""
    written = st.builds(lambda digits, exponent: float(f"{digits}e{exponent}"),
                        st.integers(-(10 ** 12) + 1, 10 ** 12 - 1), st.integers(-24, 3))
    return st.one_of(written, st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(_DOUBLE_EXTREMES),
                     st.sampled_from([float("nan"), float("inf"), float("-inf"), 0.0]))



@functools.cache  # one strategy per type: Hypothesis validates each new strategy object it draws from (a third of a
# Debezium example's drawing time went to validating the same strategies built again for every row)
def value_strategy(logical: LogicalType):
    kind = logical.kind
    if kind in POSTGRES_KINDS:
        return POSTGRES_KINDS[kind].values()
    if kind == "INT16":
        return st.integers(-(2 ** 15), 2 ** 15 - 1)
    if kind == "INT32":
        return st.integers(-(2 ** 31), 2 ** 31 - 1)
    if kind == "INT64":
        return st.integers(-(2 ** 63), 2 ** 63 - 1)
    if kind == "BOOLEAN":
        return st.booleans()
    if kind == "STRING":
        return TEXTS
    if kind == "ENUM":
        # '' is MySQL's invalid-value member (index 0), stored when a value not declared is written without strict mode
        return st.sampled_from(("",) + logical.labels)
    if kind == "SET":
        return st.sets(st.sampled_from(range(len(logical.labels)))).map(
            lambda members: ",".join(logical.labels[i] for i in sorted(members)))
    if kind == "DECIMAL":
        return _decimals(logical.digits, logical.places)
    if kind == "MONEY":  # 15 digits: a snapshot reads money through a double (docs/producers.md, losses), exact to here
        return _decimals(15, logical.places)
    if kind == "UINT32":
        return st.integers(0, 2 ** 32 - 1)
    if kind == "UINT64":  # to 2^64 - 1 in the database; past 2^63 - 1 Debezium's default `long` mode writes it negative
        return st.integers(0, 2 ** 64 - 1)
    if kind == "BITS":  # every bit pattern of BIT(n), all ones and the top bit alone among them
        top = 2 ** logical.digits - 1
        return st.one_of(st.sampled_from([0, top, 2 ** (logical.digits - 1), 1]), st.integers(0, top))
    if kind == "VARBIT":  # empty, all zeros (the connector writes no bytes), all ones, a leading one alone, any
        n = logical.digits
        return st.one_of(st.sampled_from(["", "0" * n, "1" * n, "1" + "0" * (n - 1), "00101"[:n]]),
                         st.text("01", max_size=n))
    if kind == "GEOMETRY":
        return _geometries()
    if kind == "YEAR":  # MySQL's YEAR: 1901 to 2155, and 0000
        return st.one_of(st.sampled_from([1901, 2155, 0]), st.integers(1901, 2155))
    if kind == "JSON":
        return JSON_DOCUMENTS
    if kind == "FLOAT64":
        return _floats()
    if kind == "DATE":
        return st.dates(MIN_DT.date(), MAX_DT.date())
    if kind == "TIME" and logical.precision == 9:
        return _nanos(0, 86_399)
    if kind == "TIMESTAMP" and logical.precision == 9:
        return _nanos(int((MIN_DT - EPOCH).total_seconds()), int((MAX_DT - EPOCH).total_seconds()))
    if kind == "TIME":
        return st.times()
    if kind == "DURATION":  # its ends, one second either side of zero, a day and past it, and any between
        return st.one_of(st.sampled_from([MAX_DURATION, -MAX_DURATION, dt.timedelta(seconds=-1), dt.timedelta(hours=24),
                                          dt.timedelta(hours=100), dt.timedelta(0)]),
                         st.integers(-MAX_DURATION // dt.timedelta(microseconds=1),
                                     MAX_DURATION // dt.timedelta(microseconds=1)).map(lambda us: dt.timedelta(microseconds=us)))
    if kind == "TIME_24":  # midnight at both ends of the day, the last microsecond before 24:00, and any between
        return st.one_of(st.sampled_from([dt.timedelta(0), END_OF_DAY, END_OF_DAY - dt.timedelta(microseconds=1)]),
                         st.integers(0, END_OF_DAY // dt.timedelta(microseconds=1)).map(
                             lambda us: dt.timedelta(microseconds=us)))
    if kind == "TIMESTAMP":
        return st.datetimes(MIN_DT, MAX_DT).map(
            lambda v: v.replace(microsecond=v.microsecond // 1000 * 1000) if logical.precision == 3 else v)
    if kind in PG_INFINITE:
        return st.one_of(st.sampled_from(POSTGRES_INFINITIES), value_strategy(finite_type(logical)))
    if kind == "TIMESTAMP_TZ":
        return st.datetimes(MIN_DT, MAX_DT, timezones=st.just(dt.UTC))
    if kind == "BYTES":
        # past 57 bytes base64 is longer than one 76-character MIME line (Spark's base64() breaks it there)
        return st.one_of(st.binary(max_size=16), st.binary(min_size=57, max_size=4096))
    raise ValueError(f"no strategy for {logical}")


KEY_TYPES = [LogicalType("INT32"), LogicalType("INT64"), LogicalType("STRING")]
# BIT(n) past one bit (BIT(1) is a boolean to Debezium): a partial byte, one bit past a byte, MySQL's longest (64) and,
# PostgreSQL's only, one past it
# MySQL's and MariaDB's TIME, a duration (canonical TIME(6)): the binlog producers' formats draw it
DURATION_TYPE = LogicalType("DURATION", 6)
BITS_TYPES = [LogicalType("BITS", 3), LogicalType("BITS", 9), LogicalType("BITS", 64), LogicalType("BITS", 65)]
# PostgreSQL's own: bit varying(n) at a byte and a bit past it, past 64 bits; time(6), which holds 24:00:00
VARBIT_TYPES = [LogicalType("VARBIT", 9), LogicalType("VARBIT", 70)]
TIME_24_TYPE = LogicalType("TIME_24", 6)
MONEY_TYPE = LogicalType("MONEY", scale=2)
# PostgreSQL 15+'s numeric with a scale above its precision: values below 0.01 (issue 58: its precision was dropped)
SCALE_ABOVE_PRECISION_TYPE = LogicalType("DECIMAL", 3, 5)
# PostgreSQL's timestamp(p) and timestamptz, which also hold infinity and -infinity: the type of their finite values
POSTGRES_INFINITIES = ("infinity", "-infinity")
PG_INFINITE = {"PG_TIMESTAMP": LogicalType("TIMESTAMP"), "PG_TIMESTAMP_TZ": LogicalType("TIMESTAMP_TZ")}
PG_TIMESTAMP_TYPES = [LogicalType("PG_TIMESTAMP", 3), LogicalType("PG_TIMESTAMP", 6), LogicalType("PG_TIMESTAMP_TZ")]


def finite_type(logical: LogicalType) -> LogicalType:
    """The type of a PostgreSQL timestamp's finite values (TIMESTAMP(p), TIMESTAMP_TZ)."""
    return replace(PG_INFINITE[logical.kind], precision=logical.precision)
ALL_TYPES = [
    LogicalType("INT16"), LogicalType("INT32"), LogicalType("INT64"), LogicalType("BOOLEAN"),
    LogicalType("STRING"), LogicalType("DECIMAL", 10, 2), LogicalType("DECIMAL", 38, 10), LogicalType("DECIMAL", 65, 30),
    LogicalType("DECIMAL", 5, 0), LogicalType("FLOAT64"), LogicalType("DATE"), LogicalType("TIME", 6),
    LogicalType("TIMESTAMP", 3), LogicalType("TIMESTAMP", 6), LogicalType("TIMESTAMP_TZ"), LogicalType("BYTES"),
    # nanoseconds: Debezium's NanoTime / NanoTimestamp (a value is an int of nanoseconds, `_nanos_text`)
    LogicalType("TIME", 9), LogicalType("TIMESTAMP", 9),
]

POSTGRES_TYPES = [LogicalType(kind) for kind, drawn in POSTGRES_KINDS.items() if drawn.drawn]
