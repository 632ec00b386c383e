"""What a normalizer expresses, and the comparison of its output with the expectation on exactly that.

The reference expresses the whole model. A peer (Flink's formats, a textbook Spark parse: cdc_conformance/peers)
expresses less: row changes but no DDL or heartbeats, the operation and the images but no positions or keys, values
as text rather than the model's canonical text, an error rather than a quarantine code. Its module's `expresses()`
declares that (docs/normalizer-contract.md, "What a normalizer expresses"), and the harness compares only that,
record by record, with one verdict per record:

| the reference, for the record | the normalizer | verdict |
|---|---|---|
| events of kinds it expresses | the same, field by field as expressed | PASS |
| | other values, operations, more or fewer rows | FAIL (wrong value, wrong op, lost row, extra row) |
| | an error (its refusal) | REFUSED |
| | nothing, and no error | LOST (the record skipped without a word: Flink's `ignore-parse-errors`) |
| only events of kinds it does not express | nothing | NOT_EXPRESSED |
| | rows | FAIL (extra row) |
| | an error | REFUSED |
| a quarantine record | an error (and the same code, when it expresses codes) | PASS |
| | rows | FAIL (extra row: rows from a record the reference refuses) |
| | nothing (it has no quarantine) | NOT_EXPRESSED |

A unit's verdict is its records' worst: FAIL, then LOST, then REFUSED, then PASS, then NOT_EXPRESSED; a unit whose
records are all NOT_EXPRESSED is never a pass. LOST is a verdict of its own, not a FAIL with a reason: a silent skip is
a setting's documented behaviour (a user chose it to keep the job running), and the matrix shows how much it costs.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from cdc_conformance.harness.accounting import Coordinate, coordinate
from cdc_conformance.model import EVENT_SCHEMA, Kind

PASS, FAIL, LOST, REFUSED, NOT_EXPRESSED = "PASS", "FAIL", "LOST", "REFUSED", "NOT_EXPRESSED"
_WORST_FIRST = (FAIL, LOST, REFUSED, PASS, NOT_EXPRESSED)
COMPARED_FIELDS = tuple(name for name in EVENT_SCHEMA.fieldNames() if name != "origin")
VALUE_STYLES = ("canonical", "text")
QUARANTINE_STYLES = ("codes", "refusal", "none")
RECORD_PARTS = ("key", "value", "headers")
TOPIC_STYLES = ("all", "tables")


class DeclarationError(ValueError):
    """A normalizer's `expresses()` is not a declaration the harness can read; one line naming what is wrong."""


@dataclass(frozen=True)
class Expression:
    """What a normalizer's output says. `kinds`: the event kinds it can emit (None: all); `fields`: the event fields
    compared; `values`: "canonical" (the model's canonical text, compared exactly) or "text" (the source's text of the
    value, compared by the value it denotes under the column's logical type); `quarantine`: "codes" (the model's),
    "refusal" (an error without a code) or "none" (a record it cannot read yields nothing)."""

    kinds: frozenset[str] | None = None
    fields: tuple[str, ...] = COMPARED_FIELDS
    values: str = "canonical"
    quarantine: str = "codes"
    # the format options it reads records with (registry.yaml `options`, a case's `options`); None: every option (the
    # whole model's contract). A unit read with an option it does not take is not expressed: its users read such a
    # topic with another format (a flattened topic with Flink's `json`)
    options: frozenset[str] | None = None
    # the parts of a Kafka record it reads (`key`, `value`, `headers`); None: all of them. A value format (Flink's)
    # never sees the key or the headers, so it is judged against the reference's reading of what it reads
    # (harness/peers.py): a problem that lives only in the key is not its failure
    reads: frozenset[str] | None = None
    # the topics it reads: "all", or "tables" (a table's consumer: a Flink table, a job over a table's topic), never
    # pointed at the topics a format's producer writes apart (registry.yaml `own_topics`: heartbeats, transaction
    # metadata, schema changes), so the records there are not expressed: issue 60, F3
    topics: str = "all"

    @classmethod
    def declared(cls, declaration: dict | None) -> Expression:
        if declaration is None:
            return cls()
        unknown = set(declaration) - {"kinds", "fields", "values", "quarantine", "options", "reads", "topics"}
        kinds = declaration.get("kinds")
        fields = tuple(declaration.get("fields") or COMPARED_FIELDS)
        problems = [f"unknown entries {sorted(unknown)}"] if unknown else []
        problems += [f"kind {k!r} is not the model's" for k in kinds or () if k not in {k.value for k in Kind}]
        problems += [f"field {f!r} is not an event field" for f in fields if f not in COMPARED_FIELDS]
        if declaration.get("values", "canonical") not in VALUE_STYLES:
            problems.append(f"values must be one of {VALUE_STYLES}")
        if declaration.get("quarantine", "codes") not in QUARANTINE_STYLES:
            problems.append(f"quarantine must be one of {QUARANTINE_STYLES}")
        problems += [f"reads {part!r}: a record's parts are {', '.join(RECORD_PARTS)}"
                     for part in declaration.get("reads") or () if part not in RECORD_PARTS]
        if declaration.get("topics", "all") not in TOPIC_STYLES:
            problems.append(f"topics must be one of {TOPIC_STYLES}")
        if problems:
            raise DeclarationError("expresses(): " + "; ".join(problems))
        return cls(frozenset(kinds) if kinds else None, fields, declaration.get("values", "canonical"),
                   declaration.get("quarantine", "codes"), frozenset(declaration.get("options") or ()),
                   frozenset(declaration["reads"]) if declaration.get("reads") else None, declaration.get("topics", "all"))

    @property
    def unread(self) -> tuple[str, ...]:
        """The record's parts it does not read (none for the reference)."""
        return () if self.reads is None else tuple(part for part in RECORD_PARTS if part not in self.reads)

    def takes(self, options: dict) -> bool:
        """Whether it takes the format `options` some records are read with (a case's)."""
        return self.options is None or set(options) <= self.options

    @property
    def whole_model(self) -> bool:
        return self == Expression()

    def not_expressed(self) -> list[str]:
        """The model's parts this normalizer does not say, for the reports."""
        parts = [f for f in COMPARED_FIELDS if f not in self.fields]
        parts += [f"kinds other than {', '.join(sorted(self.kinds))}"] if self.kinds else []
        parts += ["canonical value text"] if self.values == "text" else []
        parts += {"refusal": ["quarantine codes"], "none": ["quarantine"]}.get(self.quarantine, [])
        parts += [f"the record's {part}" for part in self.unread]
        parts += ["the topics its producer writes apart from the tables'"] if self.topics == "tables" else []
        return parts

    def expresses_kind(self, kind: str) -> bool:
        return self.kinds is None or kind in self.kinds



def on_tables_only(expected: Expectation, own_topic_kinds: frozenset[str]) -> Expectation:
    """The expectation without the records a table's consumer never reads: those whose events are all of the kinds its
    producer writes to topics of their own (`own_topic_kinds`), and every record of a topic that holds only such
    events (a hostile record on the heartbeat topic). Batched drawn examples share one topic; the rule is the record's
    own there."""
    def apart(events: list[dict]) -> bool:
        return bool(events) and all(event["kind"] in own_topic_kinds for event in events)

    table_topics = {c[0] for c in expected.records if expected.events.get(c) and not apart(expected.events[c])}
    read = [c for c in expected.records if not apart(expected.events.get(c, [])) and c[0] in table_topics]
    return Expectation(read, {c: expected.events[c] for c in read if c in expected.events},
                       {c: expected.quarantine[c] for c in read if c in expected.quarantine})


def by_first_record(events: list[dict]) -> dict[Coordinate, list[dict]]:
    grouped: dict[Coordinate, list[dict]] = {}
    for event in events:
        grouped.setdefault(coordinate(event["origin"][0]), []).append(event)
    return grouped


@dataclass
class Expectation:
    """What the reference's expectation (a golden file, a generator's oracle) says of one unit's records."""

    records: list[Coordinate]
    events: dict[Coordinate, list[dict]] = field(default_factory=dict)  # by the first record of their origin
    quarantine: dict[Coordinate, tuple[str, str]] = field(default_factory=dict)  # (phase, code)

    @classmethod
    def of(cls, records: list[Coordinate], output: dict) -> Expectation:
        """From an output as golden files hold it ({"events": [...], "quarantine": [...]})."""
        return cls(records, by_first_record(output["events"]),
                   {coordinate(o): (q["phase"], q["code"]) for q in output["quarantine"] for o in q["origin"]})


@dataclass
class Output:
    """A normalizer's output for the same records, keyed alike; `refusals` holds (phase, code, detail)."""

    events: dict[Coordinate, list[dict]] = field(default_factory=dict)
    refusals: dict[Coordinate, tuple[str, str, str]] = field(default_factory=dict)

    @classmethod
    def of(cls, output: dict) -> Output:
        return cls(by_first_record(output["events"]),
                   {coordinate(o): (q["phase"], q["code"], q.get("detail") or "")
                    for q in output["quarantine"] for o in q["origin"]})


def verdict(expected: Expectation, output: Output, expression: Expression,
            excused: Callable[[str], bool] = lambda line: False) -> tuple[str, list[str]]:
    """The unit's verdict and the problems that make it so (one line each, naming the record). A record whose every
    problem line is `excused` (a difference, or a refusal, where the model's own choice is no more right than the peer's:
    harness/peer_classes.py) is NOT_EXPRESSED."""
    found = [_excusing(_record(c, expected, output, expression), excused) for c in expected.records]
    statuses = {status for status, _ in found}
    status = next((s for s in _WORST_FIRST if s in statuses), NOT_EXPRESSED)
    return status, [line for s, lines in found if s in (FAIL, LOST, REFUSED) for line in lines]


def _excusing(found: tuple[str, list[str]], excused: Callable[[str], bool]) -> tuple[str, list[str]]:
    status, lines = found
    return (NOT_EXPRESSED, []) if status in (FAIL, REFUSED) and lines and all(excused(line) for line in lines) else found


def _shown(c: Coordinate) -> str:
    return f"{c[0]}[{c[1]}]@{c[2]}"


def _ops(events: list[dict]) -> str:
    return ", ".join(f"{e['kind']}/{e.get('op')}" if e.get("op") else e["kind"] for e in events) or "nothing"


def _record(c: Coordinate, expected: Expectation, output: Output, expression: Expression) -> tuple[str, list[str]]:
    want_all = expected.events.get(c, [])
    want = [e for e in want_all if expression.expresses_kind(e["kind"])]
    got, refused, reference_refuses = output.events.get(c, []), output.refusals.get(c), expected.quarantine.get(c)
    where = _shown(c)
    if reference_refuses:
        if got:
            return FAIL, [f"record {where}: extra row: {_ops(got)} where the reference quarantines "
                          f"({'/'.join(reference_refuses)})"]
        if refused:
            if expression.quarantine == "codes" and refused[:2] != reference_refuses:
                return FAIL, [f"record {where}: quarantined {'/'.join(refused[:2])}, expected {'/'.join(reference_refuses)}"]
            return PASS, []
        return (FAIL, [f"record {where}: not quarantined (expected {'/'.join(reference_refuses)})"]) \
            if expression.quarantine == "codes" else (NOT_EXPRESSED, [])
    if refused:
        if not want_all:
            return FAIL, [f"record {where}: quarantined {'/'.join(refused[:2])} where the reference emits nothing of it"]
        return REFUSED, [f"record {where}: refused ({refused[2] or refused[1]}) where the reference emits {_ops(want_all)}"]
    if not want:
        if got:
            return FAIL, [f"record {where}: extra row: {_ops(got)} where the reference emits {_ops(want_all)}"]
        return (NOT_EXPRESSED, []) if want_all else (PASS, [])
    if not got:
        return LOST, [f"record {where}: lost without a word: expected {_ops(want)}, got nothing and no error"]
    problems = _rows(where, _as_expressed(want, expression), got, expression)
    return (FAIL, problems) if problems else (PASS, [])


def _as_expressed(events: list[dict], expression: Expression) -> list[dict]:
    """The expectation as a normalizer that does not express `pk_change` says it: the model's key change (a DELETE of
    the old key, then an INSERT of the new, one group) is one UPDATE from the old row to the new, the changelog Flink
    and a textbook parse write; the same change, not a lost row."""
    if "pk_change" in expression.fields:
        return events
    merged: list[dict] = []
    for event in events:
        previous = merged[-1] if merged else None
        if (previous is not None and (previous.get("pk_change") or {}).get("role") == "OLD"
                and (event.get("pk_change") or {}).get("role") == "NEW"
                and previous["pk_change"].get("group") == event["pk_change"].get("group")):
            merged[-1] = {**event, "op": "UPDATE", "before": previous.get("before"), "after": event.get("after"),
                          "columns": event.get("columns") or previous.get("columns")}
        else:
            merged.append(event)
    return merged


def _rows(where: str, want: list[dict], got: list[dict], expression: Expression) -> list[str]:
    if len(want) != len(got):
        kind = "lost row" if len(got) < len(want) else "extra row"
        return [f"record {where}: {kind}: expected {_ops(want)}, got {_ops(got)}"]
    problems = []
    for index, (expected, actual) in enumerate(zip(want, got)):
        types = {c["name"]: c.get("logical_type") for c in expected.get("columns") or []}
        for name in expression.fields:
            if name in ("before", "after") and expression.values == "text":
                problems += [f"record {where} row {index}: wrong value {name}{detail}"
                             for detail in _image_problems(expected.get(name), actual.get(name), types)]
            elif expected.get(name) != actual.get(name):
                what = "wrong op" if name == "op" else f"{name} differs"
                problems.append(f"record {where} row {index}: {what}: expected {json.dumps(expected.get(name), sort_keys=True)}, "
                                f"got {json.dumps(actual.get(name), sort_keys=True)}")
    return problems


def _image_problems(expected: dict | None, actual: dict | None, types: dict[str, str | None]) -> list[str]:
    if expected is None or actual is None:
        return [] if expected is None and actual is None else \
            [f": expected {json.dumps(expected, sort_keys=True)}, got {json.dumps(actual, sort_keys=True)}"]
    problems = []
    for column in sorted(expected.keys() | actual.keys()):
        if column not in actual:
            problems.append(f".{column}: missing (expected {json.dumps(expected[column])})")
        elif column not in expected:
            if actual[column] is not None:  # a peer's declared column the record does not name reads as NULL
                problems.append(f".{column}: unexpected {json.dumps(actual[column])}")
        elif not same_value(expected[column], actual[column], types.get(column)):
            typed = f" ({types[column]})" if types.get(column) else ""
            problems.append(f".{column}{typed}: expected {json.dumps(expected[column])}, got {json.dumps(actual[column])}")
    return problems


# ---------------------------------------------------------------------------------------------------
# A value as text against its canonical text
# ---------------------------------------------------------------------------------------------------

_NUMERIC = re.compile(r"^(INT(8|16|32|64)|DECIMAL)\b")
_TEMPORAL = re.compile(r"^(TIMESTAMP|TIMESTAMP_TZ|TIME|TIME_TZ)\b")
_CLOCK = re.compile(r"^(?:(\d{4}-\d{2}-\d{2})[T ])?(-?\d{2,3}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]00:?00)?$")


def same_value(expected: str | None, actual: str | None, logical_type: str | None) -> bool:
    """Does `actual`, a value's text as a peer gives it, denote the value whose canonical text is `expected`?

    Numbers by value (`1.5E10` is `15000000000`), booleans as `true`/`false` or `1`/`0`, instants and clock times by
    their digits (a space for the `T`, fewer fraction digits, `+00:00` for `Z`), bytes as canonical base64 or as
    canal's ISO-8859-1 text of them, JSON by its data (a null member as an absent one). Anything else must be the
    same text: a Debezium epoch number for a timestamp does not denote the instant's text, it encodes it."""
    if expected == actual:
        return True
    if expected is None or actual is None:
        return False
    kind = logical_type or ""
    if not kind and "E" in expected and _float(expected, "FLOAT64") is not None:  # a schemaless double, in Java's layout
        return _float(expected, "FLOAT64") == _float(actual, "FLOAT64")
    if _NUMERIC.match(kind) or (not kind and _number(expected) is not None):
        return _number(expected) is not None and _number(expected) == _number(actual)
    if kind in ("FLOAT32", "FLOAT64"):  # the same double (or float), whichever digits a JDK printed
        return _float(expected, kind) is not None and _float(expected, kind) == _float(actual, kind)
    if kind == "BOOLEAN":
        return {"1": "true", "0": "false"}.get(actual.lower(), actual.lower()) == expected
    if _TEMPORAL.match(kind):
        return _clock(expected) is not None and _clock(expected) == _clock(actual)
    if kind == "BYTES":
        return _latin1_base64(actual) == expected
    return _json(expected) is not None and _without_nulls(_json(expected)) == _without_nulls(_json(actual))


def _number(text: str) -> Decimal | None:
    try:
        number = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _float(text: str, kind: str) -> bytes | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    try:
        return struct.pack(">f" if kind == "FLOAT32" else ">d", value)  # NaN's bits: every NaN text is one
    except OverflowError:
        return None


def _clock(text: str) -> tuple | None:
    match = _CLOCK.match(text.strip())
    if not match:
        return None
    date, clock, fraction, zone = match.groups()
    fraction = (fraction or "").ljust(9, "0")
    if clock.startswith("-") and not clock.strip("-0:") and not fraction.strip("0"):
        clock = clock[1:]  # MySQL's -00:00:00 is the zero duration
    return date, clock, fraction, bool(zone)


def _latin1_base64(text: str) -> str | None:
    try:
        return base64.b64encode(text.encode("latin-1")).decode()
    except (UnicodeEncodeError, binascii.Error):
        return None


def _without_nulls(data):
    """JSON data without its null members: an object's absent member and its null one are one value (Spark's `to_json`
    leaves null fields out)."""
    if isinstance(data, dict):
        return {key: _without_nulls(value) for key, value in data.items() if value is not None}
    return [_without_nulls(value) for value in data] if isinstance(data, list) else data


def _json(text: str):
    if text[:1] not in ("{", "["):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None
