"""The canonical model's value grammar, applied to every output of any normalizer under test (issue 39 B).

One definition, `cdc_conformance/model-grammar.json`, the suite's (the reference normalizer's jar carries a copy as its
resource, as any normalizer may): the reference's exit validator (`io.cdcconformance.ModelGrammar`) and this check both
read it, and both are tested against its fixtures
(tests/unit/test_model_grammar.py, normalizer/java/src/test). A normalizer that emits `+10000-01-01T00:30:00Z` or a
lone surrogate fails the contract check with the field's path, whatever its value is compared with.
"""
from __future__ import annotations

import base64
import binascii
import datetime as dt
import functools
import json
import re
from dataclasses import dataclass

from cdc_conformance.harness.suite_files import MODEL_GRAMMAR as GRAMMAR_FILE

LONGEST_TYPE = 64  # as ModelGrammar: no model type is longer
MAX_PARAMETER = 131_072 + 16_383


@dataclass(frozen=True)
class _Typed:
    pattern: re.Pattern | None  # None: any well-formed text
    rules: tuple[str, ...] = ()
    parameters: tuple[tuple[str, int | None], ...] = ()
    bounds: tuple[int, int] | None = None


@functools.cache
def document() -> dict:
    return json.loads(GRAMMAR_FILE.read_text(encoding="utf-8"))


@functools.cache
def _templates() -> dict[str, list[dict]]:
    templates: dict[str, list[dict]] = {}
    for entry in document()["types"]:
        name, _, parameters = entry["type"].partition("(")
        templates.setdefault(name, []).append({**entry, "parameters": parameters.rstrip(")").split(",") if parameters else []})
    return templates


def well_formed(text: str) -> bool:
    """No lone UTF-16 surrogate: Python holds one as a code point U+D800..U+DFFF."""
    return not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


@functools.lru_cache(maxsize=10_000)
def _typed(logical_type: str | None) -> _Typed:
    if logical_type is None or len(logical_type) > LONGEST_TYPE:
        return _Typed(None)
    name, open_, arguments = logical_type.partition("(")
    values = arguments[:-1].split(",") if open_ and logical_type.endswith(")") else []
    for template in _templates().get(name, []):
        if len(template["parameters"]) != len(values):
            continue
        parameters = {p: _bounded(v) for p, v in zip(template["parameters"], values)}
        p = parameters.get("p")
        parameters["f"] = 6 if p is None or p <= 6 else 9
        pattern = template["pattern"]
        for placeholder, value in parameters.items():
            if "{" + placeholder + "}" in pattern:
                if value is None:
                    return _Typed(None)  # a width the producer left out
                pattern = pattern.replace("{" + placeholder + "}", "{" + str(value) + "}")
        bounds = (int(template["range"][0]), int(template["range"][1])) if "range" in template else None
        return _Typed(re.compile(pattern), tuple(template["rules"]), tuple(parameters.items()), bounds)
    return _Typed(None)


def _bounded(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) <= 7 and int(text) <= MAX_PARAMETER else None


def problem(logical_type: str | None, text: str | None) -> str | None:
    """None when `text` is canonical text of `logical_type` (None: any well-formed text), else what is wrong."""
    if text is None:
        return None
    if not well_formed(text):
        return "not well-formed Unicode (a lone surrogate)"
    typed = _typed(logical_type)
    if typed.pattern is None:
        return None
    if typed.pattern.fullmatch(text) is None:
        return f"not {logical_type} text"
    for rule in typed.rules:
        if not _RULES[rule](typed, text):
            return f"not {logical_type} text ({rule})"
    return None


def _digits(text: str) -> int:
    """The digits of the unscaled value, leading zeros dropped: SQL's precision (PostgreSQL's numeric(3,5) holds
    0.00123, three digits)."""
    integer, _, fraction = text.lstrip("-").partition(".")
    return len((integer + fraction).lstrip("0"))


def _canonical_base64(text: str) -> bool:
    try:
        return base64.b64encode(base64.b64decode(text, validate=True)).decode() == text
    except binascii.Error:
        return False


def _calendar(text: str) -> bool:
    if text.endswith("infinity"):
        return True
    try:
        return int(text[:4]) >= 1 and dt.date(int(text[:4]), int(text[5:7]), int(text[8:10])) is not None
    except ValueError:
        return False


def _clock(text: str) -> bool:
    if text.endswith("infinity"):
        return True
    start = text.index(":") - 2
    return int(text[start:start + 2]) <= 23 and int(text[start + 3:start + 5]) <= 59 and int(text[start + 6:start + 8]) <= 59


def _duration(text: str) -> bool:
    """A time of day, PostgreSQL's 24:00:00, or a MySQL/MariaDB TIME duration (-838:59:59.999999 .. 838:59:59.999999);
    three hour digits only from 100 on, no negative zero."""
    negative = text.startswith("-")
    hours_text, minutes, rest = text.lstrip("-").split(":")
    hours = int(hours_text)
    zero = hours == 0 and int(minutes) == 0 and set(rest) <= {"0", "."}
    beyond_last = hours == 838 and f"{minutes}:{rest}".startswith("59:59.999999") and set(rest[9:]) - {"0"}  # TIME(9)
    return ((len(hours_text) == 2 or hours >= 100) and hours <= 838 and int(minutes) <= 59 and int(rest[:2]) <= 59
            and not (negative and zero) and not beyond_last)


_RULES = {
    "integer_range": lambda typed, text: len(text) <= 20 and typed.bounds[0] <= int(text) <= typed.bounds[1],
    "fraction_exactly_s": lambda typed, text: (dict(typed.parameters)["s"] == 0) == ("." not in text),
    "precision": lambda typed, text: dict(typed.parameters)["p"] is None or _digits(text) <= dict(typed.parameters)["p"],
    "canonical_base64": lambda typed, text: _canonical_base64(text),
    "calendar": lambda typed, text: _calendar(text),
    "clock": lambda typed, text: _clock(text),
    "duration": lambda typed, text: _duration(text),
    "at_most_n_digits": lambda typed, text: dict(typed.parameters)["n"] is None or len(text) <= dict(typed.parameters)["n"],
}

@functools.cache
def _position_parts() -> dict[str, re.Pattern]:
    return {part: re.compile(document()["position"][part]) for part in ("commit", "event", "seq")}


def position_problem(part: str, text: str | None) -> str | None:
    """A part of a position that is given (the JVM's ModelGrammar.positionProblem): the file's `required` parts are
    never null in one (commit orders it first); the others may be."""
    if text is None:
        return f"no {part} part" if part in document()["position"]["required"] else None
    return None if len(text) <= 600 and _position_parts()[part].fullmatch(text) else f"not a {part} part (fixed width)"


_TEXT_FIELDS = ("event_id", "format", "format_version", "kind", "op", "tx_id")
_TEXT_STRUCTS = ("source", "pk_change", "position", "ddl", "message")


@functools.cache
def enumerations() -> dict[str, list[str]]:
    """The model's closed lists (`kind`, `op`, `pk_change.role`, `ddl.change`): the file's `enumerations`."""
    return {field: values for field, values in document()["enumerations"].items() if isinstance(values, list)}


def _enumerated(event: dict, path: str):
    struct, _, member = path.rpartition(".")
    return (event.get(struct) or {}).get(member) if struct else event.get(member)


def event_problems(event: dict) -> list[str]:
    """Where one event (canonical JSON, `model.event_to_json`) leaves the model: `path: what`."""
    found = [f"{f}: {p}" for f in _TEXT_FIELDS if (p := _text_problem(event.get(f)))]
    found += [f"{path}: not one of {', '.join(allowed)}" for path, allowed in enumerations().items()
              if (value := _enumerated(event, path)) is not None and value not in allowed]
    for struct in _TEXT_STRUCTS:
        found += [f"{struct}.{m}: {p}" for m, v in (event.get(struct) or {}).items() if (p := _text_problem(v))]
    if event.get("position") is not None:
        found += [f"position.{part}: {p}" for part in ("commit", "event", "seq")
                  if (p := position_problem(part, event["position"].get(part)))]
    logical: dict[str, str | None] = {}
    for i, column in enumerate(event.get("columns") or []):
        name = column.get("name")
        if not name or not well_formed(name):
            found.append(f"columns[{i}].name: empty or not well-formed")
        elif name in logical:
            found.append(f"columns[{i}].name: {name!r} named twice")
        logical[name] = column.get("logical_type")
        found += [f"columns[{i}].{f}: {p}" for f in ("source_type", "logical_type") if (p := _text_problem(column.get(f)))]
    names = set()
    for i, entry in enumerate(event.get("key") or []):
        name = entry.get("name")
        if not name or not well_formed(name):
            found.append(f"key[{i}].name: empty or not well-formed")
            continue
        if name in names:
            found.append(f"key[{i}].name: {name!r} named twice")
        names.add(name)
        if p := problem(logical.get(name), entry.get("value")):
            found.append(f"key.{name}: {p}")
    for image in ("before", "after"):
        for name, value in (event.get(image) or {}).items():
            if not well_formed(name):
                found.append(f"{image}: a column name that is not well-formed")
            elif p := problem(logical.get(name), value):
                found.append(f"{image}.{name}: {p}")
    return found  # commit_ts and emit_ts: a Python datetime holds no instant outside years 1-9999 at all


def _text_problem(value) -> str | None:
    return "not well-formed Unicode (a lone surrogate)" if isinstance(value, str) and not well_formed(value) else None
