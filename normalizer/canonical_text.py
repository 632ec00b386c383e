"""Spark SQL expressions that turn producer encodings into canonical text (docs/canonical-model.md).

Each function takes SQL expression strings and returns one. They are shared by every decoder, so a
format module only says *which* conversion a column needs. Everything here is a native Spark
expression (no Python UDF): a failed conversion yields NULL, which the decoders turn into a
CONVERT/UNDECODABLE_VALUE quarantine record when the raw value was not NULL.
"""
from __future__ import annotations

from normalizer.sql import let, sql_string

# The largest decimal scale any source here declares (PostgreSQL NUMERIC's display scale). A scale read
# from a message is checked against it before any arithmetic: Spark 4 runs with ANSI mode on, where
# `scale + 1` on 2147483647 raises ARITHMETIC_OVERFLOW and fails the job.
MAX_DECIMAL_SCALE = 16_383


# A JSON `\\uXXXX` escape of a UTF-16 surrogate without its partner: a high one not followed by a low one, a
# low one not preceded by a high one. The escape counts only after an even number of backslashes (`\\\\uD800`
# is the text `\\uD800`). Such a string has no UTF-8 form: Spark's JSON reader puts `?` in its place.
_LONE_SURROGATE = sql_string(
    r"(?<!\\)(?:\\\\)*+\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\)(?:\\\\)*+(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def escapes_lone_surrogate(json_text: str) -> str:
    """SQL: whether JSON text escapes a lone surrogate (`"a\\ud800b"`). The regex (look-behinds at every
    position) runs only on texts holding a surrogate escape's start, `\\ud` or `\\uD`: two substring searches
    (measured: a Debezium record with an escaped quote in `source.sequence` paid the regex on all its 3.5 KB,
    most of the decoder's time)."""
    starts = f"(instr({json_text}, concat(chr(92), 'ud')) > 0 OR instr({json_text}, concat(chr(92), 'uD')) > 0)"
    return f"coalesce({starts} AND {json_text} RLIKE {_LONE_SURROGATE}, false)"


def base64_text(binary: str) -> str:
    """Base64 of `binary` on one line, whatever the session says: Spark's `base64()` breaks its output
    every 76 characters when `spark.sql.chunkBase64String.enabled` is on (the default), which would put
    line breaks into every value over 57 bytes. The alphabet has neither CR nor LF, so removing them is
    exact, and chunking inserts them only as a pair (chr(), not a '\\r' literal: escapes in SQL literals are
    a session setting too). `replace`, not `translate`: translate looks every character up in a hash map
    (measured: an eighth of a `ces-avro` decode, where every record's bytes pass the guard as base64)."""
    return f"replace(base64({binary}), concat(chr(13), chr(10)), '')"


INTEGER_SQL_TYPES = {"INT8": "TINYINT", "INT16": "SMALLINT", "INT32": "INT", "INT64": "BIGINT"}


def integer_text(raw: str, logical: str) -> str:
    """Digits only, and within the width of `logical` (INT8..INT64): an out-of-range value is undecodable."""
    return (f"CASE WHEN {raw} RLIKE '^-?[0-9]+$' THEN CAST(try_cast({raw} AS {INTEGER_SQL_TYPES[logical]}) AS STRING) END")


def boolean_text(raw: str) -> str:
    return f"CASE lower({raw}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END"


def _in_range(raw: str, converted: str) -> str:
    """`converted` (a DOUBLE or FLOAT of `raw`), NULL where the number written is outside the type's range:
    1e400 would become Infinity and 1e-400 zero, values nobody wrote. A written infinity or NaN is kept."""
    nonzero = f"regexp_extract(lower({raw}), '^[^e]*', 0) RLIKE '[1-9]'"
    infinite = f"lower({raw}) RLIKE '^[+-]?(inf|infinity)$'"
    return (f"CASE WHEN isnan({converted}) OR NOT ({converted} IN (double('Infinity'), double('-Infinity')) "
            f"OR {converted} = 0) THEN {converted} "
            f"WHEN {converted} = 0 AND NOT {nonzero} THEN {converted} "
            f"WHEN {converted} != 0 AND {infinite} THEN {converted} END")


def float64_text(raw: str) -> str:
    """Java's Double.toString form (what Spark's cast renders), e.g. 1.5, 1.0E10, NaN, -Infinity; NULL for a
    number beyond double's range (1e400, 1e-400)."""
    return f"CAST({_in_range(raw, f'try_cast({raw} AS DOUBLE)')} AS STRING)"


def float32_text(raw: str) -> str:
    """float32 must round-trip through FLOAT, not DOUBLE: 1.1f printed as a double is 1.100000023841858."""
    return f"CAST({_in_range(raw, f'try_cast({raw} AS FLOAT)')} AS STRING)"


def exact_number(raw: str, variant: str, logical: str) -> str:
    """The text to convert for a value `raw` (as Spark's string-typed JSON reader gives it) whose VARIANT
    parse is `variant`: a JSON number's exact digits where the reader passed it through a double
    (0.1000000000000000055511151231257827 read as 0.1), the reader's text otherwise. A number only a
    double holds (beyond 38 digits, or 1e400) is NULL for a decimal column and for an infinite float:
    never the double's digits as if they had been written. A zero that only a double holds is NULL too:
    `1e-400` underflows to it (a written zero without an exponent is a DECIMAL to the VARIANT parse)."""
    kind = f"schema_of_variant({variant})"
    # a float column takes the reader's double text (-0.0 keeps its sign), where a double holds the number
    return (f"CASE WHEN {variant} IS NULL OR {kind} NOT IN ('DOUBLE', 'FLOAT') AND NOT {kind} LIKE 'DECIMAL%' THEN {raw} "
            f"WHEN {logical} IN ('FLOAT64', 'FLOAT32') THEN IF({beyond_double_range(variant)}, NULL, {raw}) "
            f"WHEN {kind} LIKE 'DECIMAL%' THEN CAST({variant} AS STRING) END")


# A JSON number token that may be beyond a double's range: a three-digit exponent, or a run of 309 digits
# (1e308 written out; 1e-400 written out has 399 zeros). Only such a token can underflow a double to zero (the
# smallest double is 4.9E-324) or overflow it. A cheap test on the record's text, so that only records
# holding one pay for a VARIANT parse (`beyond_double_range`); a string that looks like one costs a parse, no more.
MAYBE_BEYOND_DOUBLE = "'[0-9][eE][+-]?[0-9]{3}|[0-9]{309}'"


def beyond_double_range(variant: str) -> str:
    """SQL: whether the VARIANT `variant` (a JSON number parsed by Spark) is a number only a double holds
    and no double holds: it underflowed to zero (`1e-400`) or overflowed to an infinity (`1e400`). A zero
    written without an exponent (0, 0.0) is a DECIMAL to the VARIANT parse, so it is not one; producers
    do not write a zero with an exponent."""
    as_double = f"abs(CAST({variant} AS DOUBLE))"
    return (f"coalesce(schema_of_variant({variant}) IN ('DOUBLE', 'FLOAT') "
            f"AND ({as_double} = 0 OR {as_double} = double('Infinity')), false)")


# possessive loops here and in every pattern over a message's text: Java's regex engine may run a group's loop
# recursively, once per iteration, and a long text then overflows the task's stack, a fatal error that ends the
# JVM (docs/formats/debezium-json.md); a possessive loop gives nothing back, and none of these patterns needs it to
_CANONICAL_BASE64 = "^(?:[A-Za-z0-9+/]{4})*+([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"


def strict_base64(b64: str) -> str:
    """`b64` when it is canonical padded base64 (decoding and encoding again gives it back), else NULL.

    Spark's own decoding is lenient: it skips characters outside the alphabet, so a JSON number such as
    20000000000 decodes to bytes, a wrong number that nothing would quarantine.
    """
    again = base64_text(f"try_to_binary({b64}, 'base64')")
    return f"CASE WHEN {b64} RLIKE '{_CANONICAL_BASE64}' AND {again} = {b64} THEN {b64} END"


def _plus_one_hex(hex_digits: str) -> str:
    """Hex digits + 1 (a carry through trailing Fs; all Fs become 1 followed by zeros)."""
    pattern = "'^(.*?)([0-9A-E])(F*)$'"
    return (f"IF({hex_digits} RLIKE {pattern}, concat(regexp_extract({hex_digits}, {pattern}, 1), "
            f"translate(regexp_extract({hex_digits}, {pattern}, 2), '0123456789ABCDE', '123456789ABCDEF'), "
            f"translate(regexp_extract({hex_digits}, {pattern}, 3), 'F', '0')), "
            f"concat('1', translate({hex_digits}, 'F', '0')))")


def _hex_to_decimal_digits(hex_digits: str) -> str:
    """Unsigned big-endian hex -> decimal digits, of any length (no DECIMAL(38) limit): commons-lang3's
    static parser (on Spark's classpath) through `reflect`. Only the output of `hex()` ever reaches it,
    so it cannot fail on input."""
    return f"reflect('org.apache.commons.lang3.math.NumberUtils', 'createBigInteger', concat('0x', {hex_digits}))"


def _scaled_text(unsigned_digits: str, negative: str, scale: str) -> str:
    """Insert the decimal point: '1234', scale 2 -> '12.34'; exactly `scale` fraction digits."""
    # lpad truncates longer strings, so the width is never below the digits' own length
    padded = f"lpad({unsigned_digits}, greatest(length({unsigned_digits}), try_add({scale}, 1)), '0')"
    body = let(padded, "ct_padded",
               f"concat(CASE WHEN {negative} THEN '-' ELSE '' END, "
               f"substr(ct_padded, 1, length(ct_padded) - {scale}), "
               f"CASE WHEN {scale} > 0 THEN concat('.', substr(ct_padded, length(ct_padded) - {scale} + 1)) ELSE '' END)")
    return f"CASE WHEN {scale} BETWEEN 0 AND {MAX_DECIMAL_SCALE} THEN {body} END"


def decimal_from_unscaled_base64(b64: str, scale: str) -> str:
    """Kafka Connect Decimal: canonical base64 of the big-endian two's-complement unscaled integer, of any
    size (PostgreSQL NUMERIC keeps 131,072 digits; canonical text has no precision limit).

    A negative number's magnitude is the two's complement negated: the digits complemented (~x), plus 1.
    """
    hex_value = f"hex(try_to_binary({strict_base64(b64)}, 'base64'))"
    magnitude = ("CASE WHEN ct_neg THEN " + _plus_one_hex("translate(ct_hex, '0123456789ABCDEF', 'FEDCBA9876543210')")
                 + " ELSE ct_hex END")
    return let(hex_value, "ct_hex", let(
        "substr(ct_hex, 1, 1) >= '8'", "ct_neg",
        f"CASE WHEN length(ct_hex) > 0 THEN {_scaled_text(_hex_to_decimal_digits(magnitude), 'ct_neg', scale)} END"))


def time_from_units(raw: str, units_per_second: int, digits: int) -> str:
    """Time of day from a count of ms/us/ns past midnight -> HH:MM:SS.ffffff (or 9 digits)."""
    unit = units_per_second
    per_day, per_hour, per_minute = 86_400 * unit, 3_600 * unit, 60 * unit
    scale_to = f" * {10 ** digits // unit}" if 10 ** digits >= unit else f" div {unit // 10 ** digits}"
    return let(f"try_cast({raw} AS BIGINT)", "ct_total",
               f"CASE WHEN ct_total >= 0 AND ct_total < {per_day} THEN format_string('%02d:%02d:%02d.%0{digits}d', "
               f"CAST(ct_total div {per_hour} AS INT), CAST((ct_total div {per_minute}) % 60 AS INT), "
               f"CAST((ct_total div {unit}) % 60 AS INT), (ct_total % {unit}){scale_to}) END")


# Years 0001..9999: what every database here can store, and safely inside Spark's timestamp range
# (outside it, Spark raises instead of returning NULL, and the job must never fail on input).
MIN_EPOCH_SECOND, MAX_EPOCH_SECOND = -62_135_596_800, 253_402_300_799
MIN_EPOCH_DAY, MAX_EPOCH_DAY = -719_162, 2_932_896


def date_from_epoch_days(raw: str) -> str:
    return let(f"try_cast({raw} AS INT)", "ct_days",
               f"CASE WHEN ct_days BETWEEN {MIN_EPOCH_DAY} AND {MAX_EPOCH_DAY} "
               f"THEN CAST(date_add(DATE'1970-01-01', ct_days) AS STRING) END")


def timestamp_from_epoch_units(raw: str, units_per_second: int, digits: int) -> str:
    """Naive timestamp from a count since the epoch; floor division keeps pre-1970 values right.

    Requires the session time zone UTC (checked by normalizer.pipeline) because date_format renders
    in the session zone.
    """
    unit = units_per_second
    fraction = f"pmod(ct_total, {unit})" + (f" * {10 ** digits // unit}" if 10 ** digits >= unit else "")
    # integer floor division: `floor(ct_total / unit)` divided as doubles, and a count of nanoseconds has more digits
    # than a double holds (1700000000999999999 ns read as the next second: a wrong value)
    seconds = f"(ct_total div {unit} - IF(ct_total % {unit} < 0, 1, 0))"
    return let(f"try_cast({raw} AS BIGINT)", "ct_total",
               f"CASE WHEN {seconds} BETWEEN {MIN_EPOCH_SECOND} AND {MAX_EPOCH_SECOND} THEN "
               f"concat(date_format(timestamp_seconds({seconds}), \"yyyy-MM-dd'T'HH:mm:ss\"), '.', "
               f"lpad(CAST({fraction} AS STRING), {digits}, '0')) END")


_ISO_INSTANT = r"^([0-9]{4}-[0-9]{2}-[0-9]{2})[T ]([0-9]{2}:[0-9]{2}:[0-9]{2})([.]([0-9]{1,9}))? ?(Z|[+-][0-9]{2}:?[0-9]{2})$"


def timestamp_tz_from_iso(raw: str) -> str:
    """ISO-8601 instant with Z or an offset -> UTC `YYYY-MM-DDTHH:MM:SS.ffffffZ` (9 digits if given 7-9).

    The input and the parsed UTC seconds are bound once (`let`): both are used several times.
    """
    part = lambda n: f"regexp_extract(ct_iso, '{_ISO_INSTANT}', {n})"  # noqa: E731
    offset = part(5)
    colon_offset = (f"CASE WHEN length({offset}) = 5 THEN concat(substr({offset}, 1, 3), ':', substr({offset}, 4)) "
                    f"ELSE {offset} END")
    # try_to_timestamp validates the calendar too (month 13 -> NULL, not an exception)
    utc_seconds = (f"date_format(try_to_timestamp(concat({part(1)}, 'T', {part(2)}, {colon_offset}), "
                   f"\"yyyy-MM-dd'T'HH:mm:ssXXX\"), \"yyyy-MM-dd'T'HH:mm:ss\")")
    width = f"CASE WHEN length({part(4)}) > 6 THEN 9 ELSE 6 END"
    converted = let(f"IF(ct_iso RLIKE '{_ISO_INSTANT}', {utc_seconds}, NULL)", "ct_utc",
                    f"IF(ct_utc IS NULL, NULL, concat(ct_utc, '.', rpad({part(4)}, {width}, '0'), 'Z'))")
    return let(raw, "ct_iso", f"CASE WHEN ct_iso IN ('infinity', '-infinity') THEN ct_iso ELSE {converted} END")


_ISO_TIME_TZ = r"^([0-9]{2}:[0-9]{2}:[0-9]{2})([.]([0-9]{1,9}))?Z$"


def time_tz_from_iso(raw: str) -> str:
    fraction = f"regexp_extract({raw}, '{_ISO_TIME_TZ}', 3)"
    width = f"CASE WHEN length({fraction}) > 6 THEN 9 ELSE 6 END"
    return (f"CASE WHEN {raw} RLIKE '{_ISO_TIME_TZ}' THEN concat(regexp_extract({raw}, '{_ISO_TIME_TZ}', 1), "
            f"'.', rpad({fraction}, {width}, '0'), 'Z') END")


_MIN_INSTANT, _MAX_INSTANT = "TIMESTAMP'0001-01-01 00:00:00Z'", "TIMESTAMP'9999-12-31 23:59:59.999999Z'"


def instant_from_text(raw: str) -> str:
    """An ISO-8601 instant (CloudEvents `time`, CES `committime`) -> TIMESTAMP, NULL when it does not parse
    or lies outside years 0001..9999: Spark accepts years 0 and 10000, and such a timestamp fails the
    job later, when the output is collected or written."""
    return let(f"try_to_timestamp({raw})", "ct_instant",
               f"IF(ct_instant BETWEEN {_MIN_INSTANT} AND {_MAX_INSTANT}, ct_instant, NULL)")


def epoch_millis_to_timestamp(raw: str) -> str:
    return let(f"try_cast({raw} AS BIGINT)", "ct_ms",
               f"CASE WHEN ct_ms BETWEEN {MIN_EPOCH_SECOND * 1000} AND {MAX_EPOCH_SECOND * 1000} "
               f"THEN timestamp_millis(ct_ms) END")


def _significant_digits(raw: str) -> str:
    return f"regexp_extract({raw}, '^0*([0-9]+)$', 1)"


def fixed_width(raw: str, width: int = 20) -> str:
    """Positions compare as strings, so numeric parts are left-padded to one width. A part with more
    digits than the width is NULL, never cut (lpad truncates: two records would share a position);
    decoders quarantine it (`wider_than`)."""
    digits = _significant_digits(raw)
    return f"CASE WHEN {raw} RLIKE '^[0-9]+$' AND length({digits}) <= {width} THEN lpad({digits}, {width}, '0') END"


def wider_than(raw: str, width: int = 20) -> str:
    """Whether a numeric position part has more significant digits than its fixed width (20 holds any
    unsigned 64-bit number: an LSN, a binlog offset, a sequence id)."""
    return f"coalesce({raw} RLIKE '^[0-9]+$' AND length({_significant_digits(raw)}) > {width}, false)"


def sorted_map_text(map_expr: str) -> str:
    """A map as `k=v,k=v` sorted by key: an order-free identity for keys from different encodings."""
    return (f"array_join(array_sort(transform(map_entries({map_expr}), "
            f"ct_e -> concat(ct_e.key, '=', coalesce(ct_e.value, 'null')))), ',')")


def decimal_text(raw: str, scale: str) -> str:
    """A plain decimal ('12.3', '-5', '0.500') with exactly `scale` fraction digits.

    Extra fraction digits are accepted only when they are zeros: rounding would invent a value.
    """
    pattern = "'^(-?)([0-9]+)([.]([0-9]*))?$'"
    fraction = f"regexp_extract({raw}, {pattern}, 4)"
    integer = f"regexp_extract({raw}, {pattern}, 2)"
    sign = f"regexp_extract({raw}, {pattern}, 1)"
    kept = f"rpad(substr({fraction}, 1, {scale}), {scale}, '0')"
    dropped = f"substr({fraction}, try_add({scale}, 1))"
    return (f"CASE WHEN {scale} BETWEEN 0 AND {MAX_DECIMAL_SCALE} AND {raw} RLIKE {pattern} AND {dropped} RLIKE '^0*$' THEN "
            f"concat(IF(ltrim('0', concat({integer}, {fraction})) = '', '', {sign}), "
            f"coalesce(nullif(ltrim('0', {integer}), ''), '0'), IF({scale} > 0, concat('.', {kept}), '')) END")


def mysql_zero_date(raw: str, logical: str) -> str:
    """Whether `raw` is a MySQL zero date or date-time ('0000-00-00', '0000-00-00 00:00:00', or a zero year,
    month or day: '2020-00-15') in a DATE or TIMESTAMP column. MySQL stores them where NO_ZERO_DATE and
    NO_ZERO_IN_DATE are off; no calendar has them. Debezium's MySQL connector gives them as NULL
    (RowDeserializers: `if (year == 0 || month == 0 || day == 0) return null`), and so does this suite."""
    return (f"coalesce(({logical} = 'DATE' OR {logical} LIKE 'TIMESTAMP(%') AND "
            f"{raw} RLIKE '^(0000-[0-9]{{2}}-[0-9]{{2}}|[0-9]{{4}}-00-[0-9]{{2}}|[0-9]{{4}}-[0-9]{{2}}-00)([ T].*)?$', false)")


_NAIVE = r"^([0-9]{4}-[0-9]{2}-[0-9]{2})[T ]([0-9]{2}:[0-9]{2}:[0-9]{2})([.]([0-9]{1,9}))?$"


def naive_timestamp_text(raw: str, digits: int) -> str:
    """'2025-03-14 16:45:01.000' (SQL Server's text) -> '2025-03-14T16:45:01.000000' (or 9 digits)."""
    date_part, time_part = f"regexp_extract({raw}, '{_NAIVE}', 1)", f"regexp_extract({raw}, '{_NAIVE}', 2)"
    fraction = f"regexp_extract({raw}, '{_NAIVE}', 4)"
    valid = f"try_to_timestamp(concat({date_part}, ' ', {time_part}), 'yyyy-MM-dd HH:mm:ss') IS NOT NULL"
    return (f"CASE WHEN {raw} RLIKE '{_NAIVE}' AND {valid} AND length({fraction}) <= {digits} THEN "
            f"concat({date_part}, 'T', {time_part}, '.', rpad({fraction}, {digits}, '0')) END")


_TIME = r"^([0-9]{2}:[0-9]{2}:[0-9]{2})([.]([0-9]{1,9}))?$"


def time_text(raw: str, digits: int) -> str:
    fraction = f"regexp_extract({raw}, '{_TIME}', 3)"
    valid = f"try_to_timestamp(concat('1970-01-01 ', regexp_extract({raw}, '{_TIME}', 1)), 'yyyy-MM-dd HH:mm:ss') IS NOT NULL"
    return (f"CASE WHEN {raw} RLIKE '{_TIME}' AND {valid} AND length({fraction}) <= {digits} THEN "
            f"concat(regexp_extract({raw}, '{_TIME}', 1), '.', rpad({fraction}, {digits}, '0')) END")


def date_text(raw: str) -> str:
    return f"CASE WHEN {raw} RLIKE '^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}$' THEN CAST(CAST(try_to_timestamp({raw}, 'yyyy-MM-dd') AS DATE) AS STRING) END"
