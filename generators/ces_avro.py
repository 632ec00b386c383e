"""CES with `@encoding = 'Binary'` (format `ces-avro`): the Avro encoder, profiles and mutators.

The events are the JSON mode's (generators/ces.py: the same histories, partial images, transactions and
oracle); only the two outer levels are written differently: the Kafka value is the Avro binary datum of
the published `ChangeEvent` schema, and its `data` bytes are the Avro binary `Data` datum, split at
arbitrary byte offsets when the event exceeds the message size. The schemas in generators/schemas are
transcribed from the docs independently of the normalizer's copy, so a typo in either shows up.
"""
from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import fastavro
from hypothesis import strategies as st

from cdc_conformance.generators import ces
from cdc_conformance.generators.extremes import ITEM_COUNT_BOMB, avro_variants
from cdc_conformance.generators.history import History, Transaction
from cdc_conformance.generators.plugin import FormatGenerator, Hostile
from cdc_conformance.generators.records import Expected
from cdc_conformance.model import Code

FORMAT = "ces-avro"
_SCHEMAS = Path(__file__).with_name("schemas")


def schema_text(name: str) -> str:
    """A schema of generators/schemas as compact JSON text."""
    return json.dumps(json.loads((_SCHEMAS / f"{name}.avsc").read_text()))


CHANGE_EVENT = fastavro.parse_schema(json.loads(schema_text("ces-change-event")))
DATA = fastavro.parse_schema(json.loads(schema_text("ces-data")))


def write(schema, datum: dict) -> bytes:
    """A raw Avro binary datum (no container, no single-object header: docs/formats/ces.md)."""
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, schema, datum)
    return buffer.getvalue()


def read(schema, payload: bytes) -> Any:
    return fastavro.schemaless_reader(io.BytesIO(payload), schema)


def profiles():
    """Avro mode always has the current attribute names and a transaction block (both mandatory there)."""
    return st.builds(
        ces.Profile, attribute_names=st.just("current"), content_type=st.just("application/avro"),
        with_transaction=st.just(True), include_old_values=st.booleans(), include_all_columns=st.booleans(),
        segment_chars=st.one_of(st.none(), st.integers(1, 300)), most_segments=st.just(ces.MOST_DRAWN_SEGMENTS),
        partitions=st.integers(1, 3),
    )


class CesAvroEncoder(ces.CesEncoder):
    format_id = FORMAT

    def _data(self, record: dict) -> bytes:
        return write(DATA, record)

    def _envelopes(self, operation: str, tx: Transaction, data: Any, logical_id: str) -> list[bytes]:
        fragments = self._split(data)  # `segment_chars` counts bytes here
        return [write(CHANGE_EVENT, {**self._attributes(operation, tx, logical_id, index),
                                     "segmentindex": index + 1, "finalsegment": index == len(fragments) - 1,
                                     "data": fragment})
                for index, fragment in enumerate(fragments)]


def avro_event(envelope: dict, data: dict) -> bytes:
    """A benchmark event as Avro mode writes it (ces.ces_template_events)."""
    return write(CHANGE_EVENT, {**envelope, "datacontenttype": "application/avro", "data": write(DATA, data)})


def _plain_avro(raw):
    """Only the three levels parsed, as in JSON mode: envelope, data, and the two row images."""
    return ces.plain_images(raw.selectExpr(f"from_avro(value, '{schema_text('ces-change-event')}') AS e").selectExpr(
        "e", f"from_avro(e.data, '{schema_text('ces-data')}') AS d"))


def encode(history: History, profile: ces.Profile) -> list[Expected]:
    if not (profile.with_transaction and profile.attribute_names == "current"):
        raise ValueError("Avro mode has the current attribute names and a transaction block")
    return CesAvroEncoder(profile, history.table).encode(history)


def _other_data(value: bytes) -> bytes | None:
    """The record with another id and other data bytes (None: no data to change)."""
    event = read(CHANGE_EVENT, value)
    if not event["data"]:
        return None
    last = event["data"][-1]
    return write(CHANGE_EVENT, {**event, "id": event["id"] + "-conflict", "data": event["data"][:-1] + bytes([last ^ 0x01])})


def _other_id(value: bytes) -> bytes:
    """The record under another CloudEvent id, its segment and data as they were."""
    event = read(CHANGE_EVENT, value)
    return write(CHANGE_EVENT, {**event, "id": event["id"] + "-again"})


def conflict(items: list[Expected], index: int) -> list[Expected] | None:
    """ces.conflict for Avro records: the same segment index again, with other data bytes."""
    return ces.conflict(items, index, _other_data)


def edit_data(value: bytes, edit) -> bytes | None:
    """ces.edit_json_data for Avro records: the `data` datum read, changed by `edit`, written again."""
    event = read(CHANGE_EVENT, value)
    if not event["data"]:
        return None
    data = read(DATA, event["data"])
    return write(CHANGE_EVENT, {**event, "data": write(DATA, data)}) if edit(data) else None


def hostile_event(n: int, data: bytes | None = None, **attributes) -> bytes:
    """ces.hostile_event in the Binary encoding (Avro needs the transaction block)."""
    record = json.loads(ces.hostile_event(n))
    payload = write(DATA, {
        "eventsource": {**json.loads(record["data"])["eventsource"],
                        "transaction": {"commitlsn": "0000002C:00000730:0011", "beginlsn": "0000002C:00000730:000C",
                                        "sequencenumber": 1, "committime": "2025-03-14T16:45:20.650Z"}},
        "eventrow": json.loads(record["data"])["eventrow"]})
    record.update(data=payload if data is None else data, datacontenttype="application/avro", **attributes)
    return write(CHANGE_EVENT, record)


def _cols_count_bomb() -> bytes:
    """A valid event whose `data` declares 2,147,483,639 columns in `cols` (extremes.ITEM_COUNT_BOMB)."""
    data = read(CHANGE_EVENT, hostile_event(7))["data"]
    # db, schema and tbl are Avro strings (zig-zag length, bytes); `cols` starts with its item count
    source = read(DATA, data)["eventsource"]
    start = sum(1 + len(source[name].encode()) for name in ("db", "schema", "tbl"))
    assert data[start] == 2 * len(source["cols"])  # one-byte zig-zag count
    return hostile_event(7, data=data[:start] + ITEM_COUNT_BOMB + data[start + 1:])


def _table_name_not_utf8() -> bytes:
    """A valid event whose `data` names its table with bytes that are no UTF-8 (length kept)."""
    data = read(CHANGE_EVENT, hostile_event(9))["data"]
    assert data.count(b"\x02t") == 1  # `tbl` "t": length 1 (zig-zag 2), one byte
    return hostile_event(9, data=data.replace(b"\x02t", b"\x02\xff"))


_VALID = hostile_event(1)
HOSTILE: dict[str, Hostile] = {name: Hostile(value, code) for name, (value, code) in {
    "empty value": (b"", Code.MALFORMED_AVRO),
    "not Avro": (b"{\"specversion\": \"1.0\"}", Code.MALFORMED_AVRO),
    "cut short": (_VALID[: len(_VALID) // 2], Code.MALFORMED_AVRO),
    "huge length prefix": (b"\xfe\xff\xff\xff\x0f" + b"x" * 20, Code.MALFORMED_AVRO),
    "data not a Data datum": (hostile_event(2, data=b"\x02\x03garbage"), Code.MALFORMED_DATA),
    "data empty": (hostile_event(3, data=b""), Code.MALFORMED_DATA),
    "unknown operation": (hostile_event(4, operation="MRG"), Code.UNKNOWN_OPERATION),
    "segment 2 of 2 only": (hostile_event(5, segmentindex=2), Code.SEGMENT_INCOMPLETE),
    "no value": (None, Code.MISSING_FIELD),
    "cols item count 2,147,483,639": (_cols_count_bomb(), Code.MALFORMED_DATA),
    "time in year 10000": (hostile_event(8, time="10000-01-01T00:00:00Z"), Code.UNDECODABLE_VALUE),
    "table name not UTF-8": (_table_name_not_utf8(), Code.NOT_UTF8),
    "operation not UTF-8": (write(CHANGE_EVENT, {**read(CHANGE_EVENT, hostile_event(10)), "operation": "INZ"})
                            .replace(b"INZ", b"IN\xc0"), Code.NOT_UTF8),
    "valid neighbour": (_VALID, None),
}.items()}

def extremes(value: bytes) -> list[tuple[str, bytes]]:
    """The envelope's integers, then those of the `data` datum inside it."""
    envelope = read(CHANGE_EVENT, value)
    inner = avro_variants(envelope["data"], lambda v: read(DATA, v), lambda datum: write(DATA, datum))
    return [*avro_variants(value, lambda v: read(CHANGE_EVENT, v), lambda datum: write(CHANGE_EVENT, datum)),
            *((f"data.{label}", write(CHANGE_EVENT, {**envelope, "data": data})) for label, data in inner)]


GENERATOR = FormatGenerator(
    format_id=FORMAT,
    extremes=extremes,
    encoding="avro",
    examples=ces.examples_of(profiles),
    render=ces.render_with(encode),
    partitions=lambda example: example[0].partitions,
    mutators=ces.mutators_for(conflict, edit_data),
    late_records=lambda members: ces.late_records(members, _other_data, _other_id),
    hostile=HOSTILE,
    coverage=ces.coverage,
    shared_history=lambda history, topic, index: ces.render_with(encode)(
        (replace(ces.SHARED_PROFILE, content_type="application/avro"), history), topic, index),
    value_types=tuple(ces.VALUE_TYPES),
    history_features=frozenset({"key-change"}),
    bench=ces.bench_for(avro_event, _plain_avro, "plain from_avro (3 levels)"),
)
