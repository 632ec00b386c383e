"""Equivalent spellings of one JSON record: whitespace, member order, escapes. A decoder must give the same
canonical output for each (issue 18 D, the metamorphic property); any difference is a decoder reading the
text instead of the JSON (Debezium's number-token recovery read `"d": 1234` as base64, for one).

Only the record's own JSON level is respelled: a string value stays the same string, character for
character, however it is escaped (a JSON text nested in a string, CES `data`, is a value too).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


class Number(str):
    """A JSON number token kept as written (12.30 is not 12.3 to a decoder that keeps the text)."""


def _parse(value: bytes) -> Any:
    return json.loads(value, parse_int=Number, parse_float=Number, parse_constant=Number)


def _escaped(text: str) -> str:
    """A JSON string literal with every character as a \\uXXXX escape (non-BMP as a surrogate pair)."""
    units = text.encode("utf-16-be")
    return '"' + "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2)) + '"'


def _render(node: Any, key: Callable[[str], str], value_string: Callable[[str], str], reverse: bool,
            comma: str = ",", colon: str = ":", ordered: frozenset[str] = frozenset()) -> str:
    def render(child: Any, keep_order: bool = False) -> str:
        return _render(child, key, value_string, reverse and not keep_order, comma, colon, ordered)

    if isinstance(node, dict):
        items = list(node.items())[::-1] if reverse else list(node.items())
        return "{" + comma.join(f"{key(k)}{colon}{render(v, k in ordered)}" for k, v in items) + "}"
    if isinstance(node, list):
        return "[" + comma.join(render(v) for v in node) + "]"
    if isinstance(node, Number):
        return str.__str__(node)
    if isinstance(node, str):
        return value_string(node)
    return json.dumps(node)


def _ascii(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


def _plain(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _reversed(document: Any, ordered: frozenset[str]) -> str:
    return _render(document, _plain, _plain, True, ordered=ordered)


SPELLINGS: dict[str, Callable[..., str]] = {  # a document (and, for the reverse order, the members kept in order)
    "pretty-printed": lambda doc: _render(doc, _plain, _plain, False, ",\n  ", ": "),
    "spaces around every token": lambda doc: "  " + _render(doc, _plain, _plain, False, " , ", " : ") + "\n",
    "members in reverse order": lambda doc, ordered=frozenset(): _reversed(doc, ordered),
    "ASCII only (\\u escapes for the rest)": lambda doc: _render(doc, _ascii, _ascii, False),
    "every character of names and strings escaped": lambda doc: _render(doc, _escaped, _escaped, False),
}


def dumps(document: Any) -> bytes:
    """`document` as compact JSON, its Number members written as the number tokens they hold."""
    return _render(document, _plain, _plain, False).encode()


def respelled(value: bytes, spelling: str, ordered: frozenset[str] = frozenset()) -> bytes:
    """`value` (a JSON object) written in `spelling`; the same JSON value. `ordered`: members whose object
    value keeps its member order, because the producer's order is data there (canal's `mysqlType` lists
    the columns in table order)."""
    document = _parse(value)
    text = SPELLINGS[spelling](document, ordered) if spelling == "members in reverse order" else SPELLINGS[spelling](document)
    assert _parse(text.encode()) == document
    return text.encode()
