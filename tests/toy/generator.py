"""The toy format's generator: encoder, oracle, mutators and hostile records, as any format declares them."""
import json
from dataclasses import replace

from hypothesis import strategies as st

from cdc_conformance.generators.history import histories, tables
from cdc_conformance.generators.plugin import FormatGenerator, Hostile, record_mutator
from cdc_conformance.generators.records import Expected, KafkaRecord, default_partition
from cdc_conformance.generators.values import KEY_TYPES, LogicalType, canonical_text
from cdc_conformance.model import CODE_PHASE, CanonicalEvent, Code

FORMAT = "toy-json"
TYPES = (LogicalType("INT32"), LogicalType("STRING"))
OPS = {"INSERT": "I", "UPDATE": "U", "DELETE": "D"}


def examples():
    table = tables(key_types=[t for t in KEY_TYPES if t in TYPES], value_types=list(TYPES), max_columns=2)
    return st.tuples(st.integers(1, 2), histories(table_strategy=table, allow_truncate=False, allow_snapshot=False,
                                                  max_changes=4))


def render(example, topic: str, index: int) -> list[Expected]:
    partitions, history = example
    table, out, seq = history.table, [], 0
    text = lambda row: None if row is None else {c.name: canonical_text(c.logical, row[c.name])  # noqa: E731
                                                 for c in table.columns}
    for change in history.changes():
        seq += 1
        row = change.after if change.kind != "DELETE" else change.before
        key = [c.name for c in table.key_columns]
        value = {"op": OPS[change.kind], "table": f"{table.name}{index}", "seq": seq, "key": key,
                 "before": text(change.before) or {}, "after": text(change.after) or {}}
        record_key = json.dumps([text(row)[k] for k in key]).encode()
        event = CanonicalEvent(
            event_id="", format=FORMAT, kind="ROW", origin=[], op=change.kind,
            source={"system": "toy", "server": None, "database": None, "schema": None, "table": f"{table.name}{index}"},
            key=[(k, text(row)[k]) for k in key], before=text(change.before), after=text(change.after),
            position={"commit": f"{seq:020d}", "event": None, "seq": None})
        out.append(Expected(KafkaRecord(topic, default_partition(record_key, partitions), record_key,
                                        json.dumps(value).encode()), [event]))
    return out


def _outcome(code: Code) -> tuple[str, str]:
    return CODE_PHASE[code].value, code.value


def _with_value(value_of, code: Code):
    def change(item: Expected):
        if item.quarantine:
            return None
        return Expected(replace(item.record, value=value_of(item.record.value)), [], _outcome(code))
    return record_mutator(change, code)


GENERATOR = FormatGenerator(
    format_id=FORMAT,
    examples=examples,
    render=render,
    partitions=lambda example: example[0],
    mutators={
        "truncated": _with_value(lambda value: value[:-3], Code.MALFORMED_JSON),
        "unknown-op": _with_value(lambda value: value.replace(b'"op": "', b'"op": "X', 1), Code.UNKNOWN_OPERATION),
    },
    hostile={"not JSON": Hostile(b"{", Code.MALFORMED_JSON), "no op": Hostile(b'{"table": "t", "key": []}',
                                                                                 Code.MISSING_FIELD)},
)
