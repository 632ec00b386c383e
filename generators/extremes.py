"""Envelope extremes: every integer a record carries, driven to its type's edges (issue 18's hostile tier).

A decoder reads integers from a message as counts, indices, scales, positions and times, and Spark 4 runs
with ANSI mode on: arithmetic on such a value that overflows raises and fails the job. These variants take
one valid record and replace one integer at a time (a JSON number, a digit string, a number inside a JSON
text nested in a string, an Avro int or long) by each of `EXTREMES`. Whatever a variant means, the job must
finish and account for it: as events or as a quarantine record.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX = -2 ** 31, 2 ** 31 - 1, -2 ** 63, 2 ** 63 - 1
EXTREMES = (INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX, -1, 0)
_DIGITS = re.compile(r"^-?[0-9]+$")
_NESTED = object()  # a path step into a JSON text held in a string

# An Avro block count that cannot fit in the bytes left: zig-zag varint ee ff ff ff 0f is 2,147,483,639
# items (Integer.MAX_VALUE - 8, the largest Avro's own limit lets through), in five bytes.
ITEM_COUNT_BOMB = bytes.fromhex("eeffffff0f")


def _nodes(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, node) of every object, array and leaf, descending into JSON texts held in strings (a
    `_NESTED` step; such a string is no leaf itself)."""
    if isinstance(node, str) and node[:1] in ("{", "["):
        try:
            yield from _nodes(json.loads(node), (*path, _NESTED))
            return
        except ValueError:
            pass
    yield path, node
    if isinstance(node, dict):
        for name, child in node.items():
            yield from _nodes(child, (*path, name))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _nodes(child, (*path, index))


def _leaves(node: Any) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of every leaf (`_nodes` without the objects and arrays)."""
    return ((path, value) for path, value in _nodes(node) if not isinstance(value, (dict, list)))


def _integer_leaves(node: Any) -> Iterator[tuple[tuple, type]]:
    """(path, kind) of every integer-like leaf: int, float, or a digit string (kind says how to write it)."""
    for path, leaf in _leaves(node):
        if isinstance(leaf, bool) or leaf is None:
            continue
        if isinstance(leaf, (int, float)):
            yield path, int
        elif isinstance(leaf, str) and _DIGITS.match(leaf):
            yield path, str


def _replaced(node: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    step, rest = path[0], path[1:]
    if step is _NESTED:
        return json.dumps(_replaced(json.loads(node), rest, value))
    copy = dict(node) if isinstance(node, dict) else list(node)
    copy[step] = _replaced(node[step], rest, value)
    return copy


def _label(path: tuple) -> str:
    return ".".join("<json>" if step is _NESTED else str(step) for step in path)


def json_variants(value: bytes) -> list[tuple[str, bytes]]:
    """(label, value) for every integer leaf of a JSON record and every extreme."""
    document = json.loads(value)
    return [(f"{_label(path)}={extreme}", json.dumps(_replaced(document, path, kind(extreme))).encode())
            for path, kind in _integer_leaves(document) for extreme in EXTREMES]


def _string_leaves(node: Any) -> Iterator[tuple]:
    """The path of every string leaf that is text (not digits; a nested JSON text gives its own leaves)."""
    return (path for path, leaf in _leaves(node) if isinstance(leaf, str) and not _DIGITS.match(leaf))


LONE_SURROGATE = "a\ud800b"  # json.dumps writes it as the escape "a\\ud800b": no UTF-8 text holds it
# a backslash, then `ud800` as text, then a lone low half: written `"\\\\ud800\\udc00"`, whose raw text looks like
# a surrogate pair to a pattern that does not count backslashes (issue 39 A1)
LONE_SURROGATE_AFTER_BACKSLASH = "\\ud800\udc00"


def lone_surrogate_variants(value: bytes) -> list[tuple[str, bytes]]:
    """(label, value) for every text leaf of a JSON record, at any nesting level, replaced by a string
    holding a lone surrogate, in both spellings. Spark's JSON reader turns it into `?`: each must be quarantined
    NOT_UTF8."""
    document = json.loads(value)
    return [(f"{_label(path)}=lone surrogate{label}", json.dumps(_replaced(document, path, text)).encode())
            for path in _string_leaves(document)
            for label, text in (("", LONE_SURROGATE), (" after a backslash", LONE_SURROGATE_AFTER_BACKSLASH))]


def _object_paths(node: Any) -> Iterator[tuple]:
    """The path of every non-empty JSON object, descending into JSON texts held in strings."""
    return (path for path, value in _nodes(node) if isinstance(value, dict) and value)


def _with_member_repeated(node: Any, path: tuple) -> str:
    """JSON text of `node` whose object at `path` names its first member a second time, with another value
    (a JSON object cannot hold that, so the text is written here, not by json.dumps)."""
    if not path:
        members = [f"{json.dumps(name)}:{json.dumps(value)}" for name, value in node.items()]
        first = next(iter(node))
        return "{" + ",".join([*members, f"{json.dumps(first)}:{json.dumps(_another(node[first]))}"]) + "}"
    step, rest = path[0], path[1:]
    if step is _NESTED:
        return json.dumps(_with_member_repeated(json.loads(node), rest))
    if isinstance(node, dict):
        return "{" + ",".join(f"{json.dumps(name)}:" + (_with_member_repeated(value, rest) if name == step else json.dumps(value))
                              for name, value in node.items()) + "}"
    return "[" + ",".join(_with_member_repeated(value, rest) if index == step else json.dumps(value)
                          for index, value in enumerate(node)) + "]"


def _another(value: Any) -> Any:
    """A value of the same JSON kind as `value` that differs from it (which one wins must matter)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    return value  # null, an object or an array: the same again (a duplicate all the same)


def duplicate_member_variants(value: bytes) -> list[tuple[str, bytes]]:
    """(label, value) for every object of a JSON record, at any nesting level, naming its first member a
    second time with another value. Spark's reader keeps the last struct field and both map entries, and
    parsers disagree on which wins: each must be quarantined DUPLICATE_KEY (issue 18 B11)."""
    document = json.loads(value)
    return [(f"{_label(path) or '<record>'}: first member named twice", _with_member_repeated(document, path).encode())
            for path in _object_paths(document)]


def avro_variants(value: bytes, read: Callable[[bytes], Any], write: Callable[[Any], bytes]) -> list[tuple[str, bytes]]:
    """The same for an Avro datum, through the format's own reader and writer; an extreme that the field's
    type cannot hold (a long in an int) is not writable, so it is not a datum a producer could send."""
    datum = read(value)
    variants = []
    for path, kind in _integer_leaves(datum):
        for extreme in EXTREMES:
            try:
                variants.append((f"{_label(path)}={extreme}", write(_replaced(datum, path, kind(extreme)))))
            except (ValueError, TypeError, OverflowError):
                continue
    return variants
