"""Compact JSON as Java producers (Jackson) write it: no spaces, doubles in Double.toString form."""
from __future__ import annotations

import json
import math
from decimal import Decimal

from cdc_conformance.generators.values import java_bigdecimal_text, java_double_text


class Token:
    """A JSON number as its producer wrote it: read by `loads_tokens`, written back by `dumps` character for character
    (a record rewritten as a Kafka Connect SMT would rewrite it keeps its numbers' spelling)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other) -> bool:
        return isinstance(other, Token) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def loads_tokens(data: bytes):
    """JSON with every number a `Token` of its text."""
    return json.loads(data, parse_float=Token, parse_int=Token)


# json.dumps(text, ensure_ascii=False)'s own string encoder, called directly: json.dumps per scalar was half of a
# Debezium example's rendering time
_string = json.encoder.encode_basestring
_LITERALS = {True: "true", False: "false", None: "null"}


def dumps(value) -> str:
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Token):
        return value.text
    if isinstance(value, bool) or value is None:
        return _LITERALS[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, Decimal):  # JsonConverter's decimal.format=NUMERIC: BigDecimal.toString, exponent form included
        return java_bigdecimal_text(value)
    if isinstance(value, float):
        # Jackson quotes non-finite doubles (QUOTE_NON_NUMERIC_NUMBERS is on by default).
        text = java_double_text(value)
        return f'"{text}"' if math.isnan(value) or math.isinf(value) else text
    if isinstance(value, dict):
        return "{" + ",".join(f"{_string(str(k))}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    raise TypeError(f"cannot render {type(value).__name__} as JSON")


def dumps_bytes(value) -> bytes:
    return dumps(value).encode("utf-8")
