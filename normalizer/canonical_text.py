"""The few Spark SQL expressions the normalizer still writes: a message's text checked for escaped lone surrogates,
base64 on one line whatever the session says, and a fixed-width numeric position. Each takes SQL expression strings
and returns one.

Everything that turns a producer's values into canonical text (docs/canonical-model.md) now runs on the JVM, where
the decoders read their records: normalizer/java `Canonical`, `ConnectTypes`, `TextTypes`, `MySqlTypes`. The SQL
converters they replaced evaluated every value inside `transform` lambdas, which Spark does not compile
(docs/performance.md); their decisions and reasons carried over, method by method.
"""
from __future__ import annotations

from cdc_conformance.normalizer.sql import sql_string

# A JSON `\\uXXXX` escape of a UTF-16 surrogate without its partner: a high one not followed by a low one, a
# low one not preceded by a high one. The escape counts only after an even number of backslashes (`\\\\uD800`
# is the text `\\uD800`). Such a string has no UTF-8 form: Spark's JSON reader puts `?` in its place.
_LONE_SURROGATE = sql_string(
    r"(?<!\\)(?:\\\\)*+\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\)(?:\\\\)*+(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def escapes_lone_surrogate(json_text: str) -> str:
    """SQL: whether JSON text escapes a lone surrogate (`"a\\ud800b"`; `Json.escapesLoneSurrogate` on the JVM). The
    regex (look-behinds at every position) runs only on texts holding a surrogate escape's start, `\\ud` or
    `\\uD`: two substring searches first."""
    starts = f"(instr({json_text}, concat(chr(92), 'ud')) > 0 OR instr({json_text}, concat(chr(92), 'uD')) > 0)"
    return f"coalesce({starts} AND {json_text} RLIKE {_LONE_SURROGATE}, false)"


def base64_text(binary: str) -> str:
    """Base64 of `binary` on one line, whatever the session says: Spark's `base64()` breaks its output
    every 76 characters when `spark.sql.chunkBase64String.enabled` is on (the default), which would put
    line breaks into every value over 57 bytes. The alphabet has neither CR nor LF, so removing them is
    exact, and chunking inserts them only as a pair (chr(), not a '\\r' literal: escapes in SQL literals are
    a session setting too). `replace`, not `translate`: translate looks every character up in a hash map.
    Grouped records cross the streaming state as text (normalizer.assembly)."""
    return f"replace(base64({binary}), concat(chr(13), chr(10)), '')"


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
