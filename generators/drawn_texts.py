"""Value strategies the logical types' modules share (generators.values, generators.postgres_values): texts as real
data holds them, JSON documents, exact decimals."""
from __future__ import annotations

import json
from decimal import Decimal

from hypothesis import strategies as st

# A value Debezium reserves for "unchanged TOASTed column"; a real string with this content is
# indistinguishable on the wire, so generators do not produce it.
RESERVED_STRINGS = {"__debezium_unavailable_value"}


def exponent_of(value: Decimal) -> int:
    """A finite Decimal's exponent (as_tuple() types it as an int or the letter of a NaN or an infinity)."""
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):
        raise ValueError(f"{value} has no exponent: not a finite number")
    return exponent


def exact_decimal(unscaled: int, scale: int) -> Decimal:
    """unscaled * 10**-scale with exactly `scale` fraction digits (no context rounding)."""
    return Decimal((1 if unscaled < 0 else 0, tuple(int(d) for d in str(abs(unscaled))), -scale))


# The characters real data has and parsers trip on, drawn often: e-mail and URL punctuation, quotes and
# backslashes (JSON escapes), a combining mark, right-to-left text and its override, non-BMP characters,
# NUL and line breaks, spaces (leading and trailing ones survive every encoding), the euro sign (cp1252's
# 0x80) and CJK ideographs (text in gbk and big5, the charsets of Chinese MySQL tables).
_TRICKY = "+@'\"\\/ \t\n\r\x00\u0301\u05d0\u202e\u00e9\ufeff\U0001f600\U00010348\u20ac\u4e16\u754c"
_WORD = st.text(st.sampled_from("abcxyz019._-"), min_size=1, max_size=8)
SHORT_TEXTS = (st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=24),
                st.text(st.one_of(st.sampled_from(_TRICKY), st.characters(codec="ascii")), min_size=1, max_size=24),
                # shapes of real values whose punctuation a normalizer could mangle: a tagged e-mail address
                # (a normalizer that dropped "+tag" was once certified: issue 24), padded and quoted text
                st.builds("{}+{}@{}.example".format, _WORD, _WORD, _WORD),
                st.builds(" {} ".format, _WORD), st.builds("'{}' \"{}\"".format, _WORD, _WORD))
# Long texts, thousands of characters, most of them escaped in JSON: a regex loop that recursed once per
# character of a JSON string overflowed the task's stack and ended the JVM (issue 18 A)
_LONG_TEXT = st.builds(lambda text, times: text * times, SHORT_TEXTS[1], st.integers(200, 600))
TEXTS = st.one_of(*SHORT_TEXTS, _LONG_TEXT).filter(lambda s: s not in RESERVED_STRINGS)
# a document as an application writes it: any JSON value, text with escapes and non-BMP
JSON_DOCUMENTS = st.recursive(st.none() | st.booleans() | st.integers(-(2 ** 63), 2 ** 63 - 1) | SHORT_TEXTS[0],
                              lambda inner: st.lists(inner, max_size=3) | st.dictionaries(SHORT_TEXTS[0], inner, max_size=3),
                              max_leaves=6).map(lambda document: json.dumps(document, ensure_ascii=False))
