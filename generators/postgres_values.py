"""PostgreSQL's own column types that users hold (issue 40): their values as an application writes them, and their
canonical text, which is what PostgreSQL prints for them (the text the connector reads from the server), turned into
the canonical model's. A textual type's value is held as the text the application sends, so that every input spelling
PostgreSQL takes (an upper-case uuid, a range with inclusive bounds, a cidr without its zero octets, a jsonb with its members in any order) must come
out as the one the server prints; a numeric is a Decimal, an interval (months, days, microseconds), an hstore a dict,
an array a list.

Each kind names its canonical type (`LogicalType.name`), its values (a Hypothesis strategy) and its canonical text.
The Debezium encodings are generators.debezium's; the column types and the reading back, harness.producers'.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_DOWN, Context, Decimal, localcontext
from typing import Any

from hypothesis import strategies as st

from cdc_conformance.generators.drawn_texts import JSON_DOCUMENTS, SHORT_TEXTS, exact_decimal, exponent_of


@dataclass(frozen=True)
class PostgresKind:
    name: str                                   # the canonical model's type
    values: Callable[[], st.SearchStrategy]
    text: Callable[[Any], str]                  # a value's canonical text
    drawn: bool = True                          # False: a type a connector setting writes instead (generators.debezium)


# ------------------------------------------------------------------------------------------------
# Canonical texts
# ------------------------------------------------------------------------------------------------

def jsonb_text(text: str) -> str:
    """jsonb as PostgreSQL prints it (jsonb_out): members ordered by their names' length in bytes, then their bytes,
    the last of a repeated name kept, `", "` and `": "` between items, strings escaped as escape_json does (the
    short escapes, `\\u00xx` below a space, the rest as it is: what Python's json writes without ensure_ascii)."""
    def printed(value) -> str:
        if isinstance(value, dict):
            names = sorted(value, key=lambda name: (len(name.encode()), name.encode()))
            return "{" + ", ".join(f"{printed(name)}: {printed(value[name])}" for name in names) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(map(printed, value)) + "]"
        return json.dumps(value, ensure_ascii=False)
    return printed(json.loads(text))


_JACKSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def jackson_json_text(value) -> str:
    """A JSON value as the normalizer keeps a struct, an array or a map (Json.canonicalText): every object's members
    in name order (Java's String order: UTF-16 code units), no whitespace, strings escaped as Jackson does (the
    short escapes, `\\u00XX` in upper case below a space, the rest as it is)."""
    if isinstance(value, dict):
        names = sorted(value, key=lambda name: name.encode("utf-16-be"))
        return "{" + ",".join(f"{jackson_json_text(name)}:{jackson_json_text(value[name])}" for name in names) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(jackson_json_text, value)) + "]"
    if isinstance(value, str):
        return '"' + "".join(_JACKSON_ESCAPES.get(c) or (f"\\u{ord(c):04X}" if c < " " else c) for c in value) + '"'
    return json.dumps(value)


_RANGE = re.compile(r'([\[(])"?([^",]*)"?,"?([^",]*)"?([\])])')
def range_text(text: str, printed: Callable[[str], str], order: Callable[[str], Any],
               step: Callable[[str], str | None] | None = None) -> str:
    """A range as PostgreSQL prints it (range_in, then range_out): `empty` when its bounds are equal and not both
    inclusive, an unbounded side exclusive, each bound its type's own text, double-quoted when it holds a space. A
    discrete type (`step`: a bound's next value, None for an infinity) is canonical `[lower,upper)`: an exclusive lower
    bound and an inclusive upper one move up by one step (int4range, int8range, daterange's canonical functions)."""
    if text == "empty":
        return text
    match = _RANGE.fullmatch(text)
    if match is None:
        raise ValueError(f"not a range text: {text!r}")
    lower_bracket, lower, upper, upper_bracket = match.groups()
    lower_inclusive, upper_inclusive = lower_bracket == "[" and lower != "", upper_bracket == "]" and upper != ""

    def empty() -> bool:
        return bool(lower and upper) and order(lower) == order(upper) and not (lower_inclusive and upper_inclusive)
    if empty():  # checked as written, then once more as the canonical function leaves it
        return "empty"
    if step is not None:
        lower_next, upper_next = lower and step(lower), upper and step(upper)
        if lower_next and not lower_inclusive:
            lower, lower_inclusive = lower_next, True
        if upper_next and upper_inclusive:
            upper, upper_inclusive = upper_next, False
    if empty():
        return "empty"

    def bound(value: str) -> str:
        shown = printed(value) if value else ""
        return f'"{shown}"' if " " in shown else shown
    return f"{'[' if lower_inclusive else '('}{bound(lower)},{bound(upper)}{']' if upper_inclusive else ')'}"


def int_range_text(text: str) -> str:
    """An int4range or int8range as PostgreSQL prints it: discrete, so canonical `[lower,upper)`."""
    return range_text(text, lambda bound: str(int(bound)), int, lambda bound: str(int(bound) + 1))


_INFINITIES = {"-infinity": (0,), "infinity": (2,)}


def _date_order(text: str):
    return _INFINITIES.get(text) or (1, _date_ordinal(text))


def _date_ordinal(text: str) -> int:
    """10000-01-01 is the day after date.max, which a canonical upper bound of 9999-12-31 becomes."""
    return dt.date.max.toordinal() + 1 if text == "10000-01-01" else dt.date.fromisoformat(text).toordinal()


def _next_day(text: str) -> str | None:
    if text in _INFINITIES:
        return None  # daterange_canonical leaves an infinite date as it is, bracket and all
    ordinal = _date_ordinal(text) + 1
    return "10000-01-01" if ordinal > dt.date.max.toordinal() else dt.date.fromordinal(ordinal).isoformat()


def date_range_text(text: str) -> str:
    """A daterange as PostgreSQL prints it: discrete like an int4range, but `infinity` and `-infinity` are dates that
    keep their brackets (ISO dates; a year past 9999 in five digits)."""
    return range_text(text, lambda bound: bound, _date_order, _next_day)


def numeric_text(text: str) -> str:
    """numeric_out: the digits at the scale written (`1.50`), no sign on a zero, `Infinity` and `-Infinity`."""
    value = Decimal(text)
    if value.is_infinite():
        return "-Infinity" if value < 0 else "Infinity"
    return f"{abs(value) if value == 0 else value:f}"


def num_range_text(text: str) -> str:
    """A numrange as PostgreSQL prints it: continuous, each bound as numeric_out prints it."""
    return range_text(text, numeric_text, Decimal)


def cidr_text(text: str) -> str:
    """A cidr as PostgreSQL prints it: an IPv4 network with all four octets and its mask (`10.1/16` is `10.1.0.0/16`);
    the IPv6 ones drawn here are written as printed."""
    address, _, bits = text.partition("/")
    if ":" in address:
        return text
    octets = address.split(".")
    return ".".join(octets + ["0"] * (4 - len(octets))) + "/" + bits


def _timestamp_order(text: str):
    return _INFINITIES.get(text) or (1, dt.datetime.fromisoformat(text))


def _timestamp_text(text: str) -> str:
    """timestamp_out: the fraction without its trailing zeros; an infinity by name."""
    if text in _INFINITIES:
        return text
    stamp, _, fraction = text.partition(".")
    return stamp + ("." + fraction.rstrip("0") if fraction.rstrip("0") else "")


def ts_range_text(text: str) -> str:
    """A tsrange as PostgreSQL prints it: continuous, so its bounds as written; a timestamp bound double-quoted (it
    holds a space); `infinity` and `-infinity` are bounds like any other (unquoted)."""
    return range_text(text, _timestamp_text, _timestamp_order)


def _utc_timestamp_text(text: str) -> str:
    """timestamptz_out in the session's time zone, UTC here (`+00`): the connector's session takes its JVM's zone, and
    the real-producer tier runs the worker and the server in UTC."""
    if text in _INFINITIES:
        return text
    utc = dt.datetime.fromisoformat(text).astimezone(dt.UTC)
    return _timestamp_text(utc.strftime("%Y-%m-%d %H:%M:%S.%f")) + "+00"


def tstz_range_text(text: str) -> str:
    """A tstzrange as PostgreSQL prints it: a tsrange's rules, its bounds as instants printed in UTC."""
    return range_text(text, _utc_timestamp_text, _timestamp_order)


_TIMETZ = re.compile(r"(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?")


def time_tz_text(text: str) -> str:
    """A timetz (`HH:MM:SS[.f]±HH[:MM]`, as written or as PostgreSQL prints it) as canonical TIME_TZ: the same instant
    of the day in UTC, `HH:MM:SS.ffffffZ`."""
    match = _TIMETZ.fullmatch(text)
    if match is None:
        raise ValueError(f"not a timetz: {text!r}")
    h, m, s, fraction, sign, oh, om, os_ = match.groups()
    offset = dt.timedelta(hours=int(oh), minutes=int(om or 0), seconds=int(os_ or 0)) * (1 if sign == "+" else -1)
    wall = dt.timedelta(hours=int(h), minutes=int(m), seconds=int(s), microseconds=int((fraction or "").ljust(6, "0")))
    utc = (wall - offset) % dt.timedelta(days=1)
    micros = utc // dt.timedelta(microseconds=1)
    seconds, micro = divmod(micros, 1_000_000)
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{micro:06d}Z"


# ------------------------------------------------------------------------------------------------
# Values as applications write them
# ------------------------------------------------------------------------------------------------

def _uuids():
    """Any uuid, in the spellings PostgreSQL takes: lower or upper case, braces, no hyphens."""
    spellings = [str, lambda u: str(u).upper(), lambda u: "{" + str(u) + "}", lambda u: u.hex]
    return st.builds(lambda u, spell: spell(u), st.uuids(), st.sampled_from(spellings))


def _json_documents(jsonb: bool):
    """A JSON document as written, compact or spaced; jsonb takes no `\\u0000` (unsupported Unicode escape)."""
    texts = st.builds(lambda document, spaced: json.dumps(json.loads(document), ensure_ascii=False,
                                                          separators=(", ", ": ") if spaced else (",", ":")),
                      JSON_DOCUMENTS, st.booleans())
    return texts.filter(lambda text: "\\u0000" not in text) if jsonb else texts


_XML_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")) | st.sampled_from("\t\n\r"),
                    max_size=20).filter(lambda t: "\ufffe" not in t and "\uffff" not in t)


def _xml_documents():
    """A small XML document: an element with an attribute and escaped text (XML 1.0's characters only)."""
    def escaped(text: str) -> str:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return st.builds(lambda tag, attribute, text: f'<{tag} a="{escaped(attribute)}">{escaped(text)}</{tag}>',
                     st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True), _XML_TEXT, _XML_TEXT)


def _inets():
    """Addresses in the form PostgreSQL prints them: IPv4 with or without a netmask (a /32 is not printed), IPv6
    with no zero group (no compression rule to differ on) or a long run of them."""
    octets = st.lists(st.integers(0, 255), min_size=4, max_size=4).map(lambda o: ".".join(map(str, o)))
    ipv4 = st.one_of(octets, st.builds("{}/{}".format, octets, st.integers(0, 31)))
    groups = st.lists(st.integers(1, 0xFFFF), min_size=8, max_size=8).map(lambda g: ":".join(f"{x:x}" for x in g))
    return st.one_of(ipv4, groups, st.sampled_from(["::1", "::", "2001:db8::ff00:42:8329", "fe80::/64"]))


_LTREE_LABEL = st.from_regex(r"[A-Za-z0-9_]{1,8}", fullmatch=True)
# bounds PostgreSQL's canonical form can move by one
_INT4 = st.integers(-(2 ** 31) + 1, 2 ** 31 - 2).map(str)
_INT8 = st.one_of(st.sampled_from([-(2 ** 63) + 1, 2 ** 63 - 2]), st.integers(-(2 ** 63) + 1, 2 ** 63 - 2)).map(str)


def _ranges(bounds: st.SearchStrategy, order: Callable[[str], Any]):
    """A range as an application writes it: bounds in order (equal ones too), either side unbounded, inclusive or
    not (the brackets written on an unbounded side too), or `empty`; a bound holding a space double-quoted."""
    def written(pair, lower_inclusive, upper_inclusive):
        lower, upper = (f'"{bound}"' if " " in bound else bound for bound in pair)
        return f"{'[' if lower_inclusive else '('}{lower},{upper}{']' if upper_inclusive else ')'}"
    ordered = st.tuples(bounds, bounds).map(lambda pair: tuple(sorted(pair, key=order)))
    same = bounds.map(lambda bound: (bound, bound))
    unbounded = st.tuples(st.one_of(st.just(""), bounds), st.just("")) | st.tuples(st.just(""), bounds)
    return st.one_of(st.just("empty"), st.builds(written, st.one_of(ordered, same, unbounded), st.booleans(), st.booleans()))


def _cidrs():
    """Networks: an IPv4 address with the bits past its mask cleared, written in full or without its trailing zero
    octets (`10.1/16`: PostgreSQL fills them in), and IPv6 networks written as PostgreSQL prints them."""
    def ipv4(address: int, bits: int, short: bool) -> str:
        address &= (0xFFFFFFFF << (32 - bits)) & 0xFFFFFFFF
        octets = [str(address >> shift & 0xFF) for shift in (24, 16, 8, 0)]
        kept = max(1, (bits + 7) // 8)
        while short and len(octets) > kept and octets[-1] == "0":
            octets.pop()
        return ".".join(octets) + f"/{bits}"
    ipv6 = st.sampled_from(["::/0", "2001:db8::/32", "fe80::/10", "2001:4f8:3:ba::/64", "::ffff:1.2.3.0/120",
                            "2001:4f8:3:ba:2e0:81ff:fe22:d1f1/128"])
    return st.one_of(st.builds(ipv4, st.integers(0, 0xFFFFFFFF), st.integers(0, 32), st.booleans()), ipv6)


def _timestamp_texts():
    """A timestamp as an application writes it (`YYYY-MM-DD HH:MM:SS[.ffffff]`, the fraction's trailing zeros
    dropped as PostgreSQL prints it), or an infinity."""
    def written(value: dt.datetime) -> str:
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        return text + (f".{value.microsecond:06d}".rstrip("0") if value.microsecond else "")
    stamps = st.datetimes(dt.datetime(1000, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999)).map(written)
    return st.one_of(stamps, st.sampled_from(["infinity", "-infinity"]))


def _dates():
    """A date as written, 0001-01-01 to 9999-12-31 (an inclusive upper bound of the last one is printed 10000-01-01), or
    an infinity."""
    return st.one_of(st.dates().map(dt.date.isoformat), st.sampled_from(["9999-12-31", "0001-01-01", *_INFINITIES]))


def _numerics():
    """A numeric as written: up to 40 digits at scales 0 to 20 (trailing zeros and -0 too), or an infinity in the
    spellings numeric_in takes."""
    finite = st.builds(exact_decimal, st.integers(-(10 ** 40), 10 ** 40), st.integers(0, 20)).map(lambda d: f"{d:f}")
    return st.one_of(finite, st.sampled_from(["-0.00", "Infinity", "-Infinity", "infinity", "-inf"]))


def _instants():
    """A timestamptz as written, with an offset in whole minutes (PostgreSQL takes ±15:59); years 1001 to 9998, so
    that the instant in UTC keeps four digits; or an infinity."""
    def written(value: dt.datetime, minutes: int) -> str:
        offset = f"{'+' if minutes >= 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
        return value.strftime("%Y-%m-%d %H:%M:%S.%f") + offset
    stamps = st.builds(written, st.datetimes(dt.datetime(1001, 1, 1), dt.datetime(9998, 12, 31)),
                       st.one_of(st.sampled_from([0, 330, -959, 959]), st.integers(-959, 959)))
    return st.one_of(stamps, st.sampled_from(list(_INFINITIES)))


def _time_tzs():
    """A time of day with an offset from UTC (whole minutes, to PostgreSQL's ±15:59), written with its microseconds."""
    return st.builds(lambda t, minutes: t.strftime("%H:%M:%S.%f") + ("+" if minutes >= 0 else "-")
                     + f"{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}",
                     st.times(), st.one_of(st.sampled_from([0, 330, -959, 959]), st.integers(-959, 959)))


def without_trailing_zeros(value: Decimal) -> Decimal:
    """A numeric without the zeros that end its fraction, never past the point: what the PostgreSQL connector's
    VariableScaleDecimal holds (1500.00 is scale 0, 0.00000080 scale 7, 0.000 scale 0; seen on the real 3.3.2, while
    decimal.handling.mode=string keeps them). The column's display scale is the connector's loss."""
    with localcontext(Context(prec=200)):
        trimmed = value.normalize()
        if trimmed.is_zero():
            return Decimal(0)
        return trimmed.quantize(Decimal(1)) if exponent_of(trimmed) > 0 else trimmed


# ------------------------------------------------------------------------------------------------
# interval: PostgreSQL holds months, days and microseconds; the connector reads the server's text with pgjdbc's
# PGInterval (years, months, days, hours, minutes and seconds as a double) and approximates it
# ------------------------------------------------------------------------------------------------

_MICROS_PER_HOUR = 3_600_000_000


def _truncated_divmod(a: int, b: int) -> tuple[int, int]:
    """C's division (PostgreSQL's interval_out, pgjdbc's fields): the quotient toward zero, the remainder a's sign."""
    quotient = abs(a) // b * (1 if a >= 0 else -1)
    return quotient, a - quotient * b


def interval_fields(value: tuple[int, int, int]) -> tuple[int, int, int, int, int, float]:
    """(months, days, microseconds) as PGInterval has them: years, months, days, hours, minutes, and seconds as
    `wholeSeconds + microSeconds / 1e6` (every field takes the sign of its part, as PostgreSQL prints them)."""
    months, days, micros = value
    years, months = _truncated_divmod(months, 12)
    hours, rest = _truncated_divmod(micros, _MICROS_PER_HOUR)
    minutes, rest = _truncated_divmod(rest, 60_000_000)
    seconds, micro = _truncated_divmod(rest, 1_000_000)
    return years, months, days, hours, minutes, seconds + micro / 1e6


def micro_duration(value: tuple[int, int, int]) -> int:
    """io.debezium.time.MicroDuration.durationMicros with the connector's 365.25 / 12 days a month, in doubles as Java
    computes it, cut toward zero: an approximation (a month is no fixed number of days), the connector's."""
    years, months, days, hours, minutes, seconds = interval_fields(value)
    number_of_days = (years * 12 + months) * (365.25 / 12.0) + days
    number_of_seconds = (((number_of_days * 24 + hours) * 60) + minutes) * 60 + seconds
    return int(number_of_seconds * 1_000_000.0)


def interval_iso_text(value: tuple[int, int, int]) -> str:
    """io.debezium.time.Interval.toIsoString (interval.handling.mode=string): `PnYnMnDTnHnMnS`, each part with its
    sign, the seconds the shortest digits of their double cut to 9 places, trailing zeros stripped (`6.78S`, `0S`;
    the real 3.3.2 writes `10.920758S` where the double's exact decimal is 10.920757999...)."""
    years, months, days, hours, minutes, seconds = interval_fields(value)
    exact = Decimal(repr(seconds))  # BigDecimal.valueOf(double): the double's shortest digits (seen on 3.3.2)
    if exponent_of(exact) < -9:
        exact = exact.quantize(Decimal("1E-9"), rounding=ROUND_DOWN)
    text = "0" if exact.is_zero() else f"{exact.normalize():f}"
    return f"P{years}Y{months}M{days}DT{hours}H{minutes}M{text}S"


_INTERVAL_PART = re.compile(r"([+-]?\d+) (year|mon|day)s?|([+-]?)(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?")


def interval_from_text(text: str) -> tuple[int, int, int]:
    """PostgreSQL's text of an interval (IntervalStyle postgres: `1 year -2 mons +3 days -04:05:06.78`) as (months,
    days, microseconds)."""
    months = days = micros = 0
    for match in _INTERVAL_PART.finditer(text):
        number, unit, sign, hours, minutes, seconds, fraction = match.groups()
        if unit:
            months += int(number) * 12 if unit == "year" else int(number) if unit == "mon" else 0
            days += int(number) if unit == "day" else 0
        else:
            magnitude = ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1_000_000 + int((fraction or "").ljust(6, "0"))
            micros += -magnitude if sign == "-" else magnitude
    return months, days, micros


def interval_input(value: tuple[int, int, int]) -> str:
    """An interval as an application may write it: each part in its own unit."""
    months, days, micros = value
    return f"{months} mons {days} days {micros} microseconds"


def _intervals():
    """(months, days, microseconds): zero, a microsecond either way, a month, a year, mixed signs, and any within a
    century and a few thousand hours."""
    return st.one_of(st.sampled_from([(0, 0, 0), (0, 0, 1), (0, 0, -1), (1, 0, 0), (12, 0, 0), (1, -1, 1), (0, 0, 6_000_001)]),
                     st.tuples(st.integers(-1200, 1200), st.integers(-1000, 1000), st.integers(-(10 ** 13), 10 ** 13)))


# ------------------------------------------------------------------------------------------------
# hstore: a map of text to text or NULL. The connector parses the server's text with pgjdbc's HStoreConverter into a
# java.util.HashMap and writes its entries, in the map's own order, as a JSON object (hstore.handling.mode=json, the
# default) or a Connect map (=map)
# ------------------------------------------------------------------------------------------------

def _java_string_hash(text: str) -> int:
    """String.hashCode: s[0]*31^(n-1) + ... over UTF-16 code units, in 32 bits."""
    units = text.encode("utf-16-be")
    value = 0
    for i in range(0, len(units), 2):
        value = (31 * value + int.from_bytes(units[i:i + 2], "big")) & 0xFFFFFFFF
    return value


def java_hash_map_order(keys: list[str]) -> list[str]:
    """The order a java.util.HashMap filled with `keys` (in that order) iterates them: by bucket (the hash spread by
    its top half, masked by the table's size: 16, doubled whenever the entries pass three quarters of it), then in
    insertion order within a bucket (a resize keeps it)."""
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2
    def bucket(key: str) -> int:
        h = _java_string_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)
    return sorted(keys, key=lambda key: (bucket(key), keys.index(key)))


def hstore_printed_order(keys) -> list[str]:
    """hstore's own order, the one its text lists the pairs in: by the key's length in bytes, then its bytes."""
    return sorted(keys, key=lambda key: (len(key.encode()), key.encode()))


def hstore_json_text(value: dict) -> str:
    """hstore.handling.mode=json: the pairs as the connector's JsonGenerator writes them, in the HashMap's order (a
    NULL value as null). Order is no data, but the text is what a consumer reads."""
    order = java_hash_map_order(hstore_printed_order(value))
    return "{" + ",".join(f"{jackson_json_text(key)}:{jackson_json_text(value[key])}" for key in order) + "}"


def hstore_input(value: dict) -> str:
    """An hstore literal: `"key"=>"value"` pairs, quotes and backslashes escaped, NULL unquoted."""
    return ", ".join(f"{double_quoted(k)}=>{'NULL' if v is None else double_quoted(v)}" for k, v in value.items())


def double_quoted(text: str) -> str:
    """Text in double quotes, its quotes and backslashes escaped: an element as hstore's and an array's input read it."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_HSTORE_PAIR = re.compile(r'"((?:[^"\\]|\\.)*)"=>(?:NULL|"((?:[^"\\]|\\.)*)")')


def hstore_from_text(text: str) -> dict:
    """hstore's output (`"a"=>"1", "b"=>NULL`) as a dict."""
    def unescaped(text: str) -> str:
        return re.sub(r"\\(.)", r"\1", text)
    return {unescaped(m.group(1)): None if m.group(2) is None else unescaped(m.group(2))
            for m in _HSTORE_PAIR.finditer(text)}


def _hstores():
    """Up to six pairs (past 12 a HashMap has 32 buckets: no draw here needs it), NULL values among them; the keys
    PostgreSQL's text holds (no NUL)."""
    text = SHORT_TEXTS[0].map(lambda t: t.replace("\x00", ""))
    return st.dictionaries(text, st.one_of(st.none(), text), max_size=6)


def _variable_decimals():
    """numeric with no precision: a value keeps the scale it was written with (zero at scale 30, 40 digits)."""
    return st.builds(exact_decimal, st.one_of(st.sampled_from([0, 1, -1, 10 ** 40 - 1]), st.integers(-(10 ** 40), 10 ** 40)),
                     st.integers(0, 30))


def _arrays(items):
    """A one-dimensional array, NULL elements among its items; empty too."""
    return st.lists(st.one_of(st.none(), items), max_size=4)


# ------------------------------------------------------------------------------------------------
# The kinds
# ------------------------------------------------------------------------------------------------

KINDS: dict[str, PostgresKind] = {
    # "": what the connector writes for a NOT NULL column it has no value for (a string's fallback)
    "UUID": PostgresKind("UUID", _uuids, lambda text: text and str(uuid.UUID(text))),
    "PG_JSON": PostgresKind("JSON", lambda: _json_documents(jsonb=False), lambda text: text),  # kept as written
    "PG_JSONB": PostgresKind("JSON", lambda: _json_documents(jsonb=True), lambda text: text and jsonb_text(text)),
    "XML": PostgresKind("XML", _xml_documents, lambda text: text),
    "INET": PostgresKind("STRING", _inets, lambda text: text),
    "LTREE": PostgresKind("STRING", lambda: st.lists(_LTREE_LABEL, max_size=4).map(".".join), lambda text: text),
    "INT_RANGE": PostgresKind("STRING", lambda: _ranges(_INT4, int), lambda text: text and int_range_text(text)),
    "INT8_RANGE": PostgresKind("STRING", lambda: _ranges(_INT8, int), lambda text: text and int_range_text(text)),
    "NUM_RANGE": PostgresKind("STRING", lambda: _ranges(_numerics(), Decimal), lambda text: text and num_range_text(text)),
    "DATE_RANGE": PostgresKind("STRING", lambda: _ranges(_dates(), _date_order), lambda text: text and date_range_text(text)),
    "TIME_TZ": PostgresKind("TIME_TZ", _time_tzs, time_tz_text),
    "CIDR": PostgresKind("STRING", _cidrs, lambda text: text and cidr_text(text)),
    "TS_RANGE": PostgresKind("STRING", lambda: _ranges(_timestamp_texts(), _timestamp_order), lambda text: text and ts_range_text(text)),
    "TSTZ_RANGE": PostgresKind("STRING", lambda: _ranges(_instants(), _timestamp_order), lambda text: text and tstz_range_text(text)),
    # the connector's microseconds (interval.handling.mode=numeric, the default); its ISO text under string
    "INTERVAL": PostgresKind("INTERVAL", _intervals, lambda value: str(micro_duration(value))),
    # hstore.handling.mode=json (the default): the connector's JSON text; =map: a Connect map, its JSON text by name
    "HSTORE": PostgresKind("JSON", _hstores, hstore_json_text),
    "HSTORE_MAP": PostgresKind("MAP", st.nothing, jackson_json_text, drawn=False),
    "INTERVAL_ISO": PostgresKind("STRING", st.nothing, lambda text: text, drawn=False),
    "NUMERIC": PostgresKind("DECIMAL", _variable_decimals, lambda value: f"{without_trailing_zeros(value):f}"),
    "INT_ARRAY": PostgresKind("ARRAY", lambda: _arrays(st.integers(-(2 ** 31), 2 ** 31 - 1)), jackson_json_text),
    "TEXT_ARRAY": PostgresKind("ARRAY", lambda: _arrays(SHORT_TEXTS[0]), jackson_json_text),
}
