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
from pathlib import Path

import fastavro
from hypothesis import strategies as st

from generators import ces
from generators.history import History, Transaction
from generators.records import Expected

FORMAT = "ces-avro"
_SCHEMAS = Path(__file__).with_name("schemas")
CHANGE_EVENT = fastavro.parse_schema(json.loads((_SCHEMAS / "ces-change-event.avsc").read_text()))
DATA = fastavro.parse_schema(json.loads((_SCHEMAS / "ces-data.avsc").read_text()))


def write(schema, datum: dict) -> bytes:
    """A raw Avro binary datum (no container, no single-object header: docs/formats/ces.md)."""
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, schema, datum)
    return buffer.getvalue()


def read(schema, payload: bytes) -> dict:
    return fastavro.schemaless_reader(io.BytesIO(payload), schema)


def profiles():
    """Avro mode always has the current attribute names and a transaction block (both mandatory there)."""
    return st.builds(
        ces.Profile, attribute_names=st.just("current"), content_type=st.just("application/avro"),
        with_transaction=st.just(True), include_old_values=st.booleans(), include_all_columns=st.booleans(),
        segment_chars=st.one_of(st.none(), st.integers(1, 300)), partitions=st.integers(1, 3),
    )


class CesAvroEncoder(ces.CesEncoder):
    format_id = FORMAT

    def _data(self, record: dict) -> bytes:
        return write(DATA, record)

    def _envelopes(self, operation: str, tx: Transaction, data: bytes, logical_id: str) -> list[bytes]:
        fragments = self._split(data)  # `segment_chars` counts bytes here
        return [write(CHANGE_EVENT, {**self._attributes(operation, tx, logical_id, index),
                                     "segmentindex": index + 1, "finalsegment": index == len(fragments) - 1,
                                     "data": fragment})
                for index, fragment in enumerate(fragments)]


def encode(history: History, profile: ces.Profile) -> list[Expected]:
    if not (profile.with_transaction and profile.attribute_names == "current"):
        raise ValueError("Avro mode has the current attribute names and a transaction block")
    return CesAvroEncoder(profile, history.table).encode(history)


def conflict(items: list[Expected], index: int) -> list[Expected] | None:
    """ces.conflict for Avro records: the same segment index again, with other data bytes."""
    def other_data(value: bytes) -> bytes | None:
        event = read(CHANGE_EVENT, value)
        if not event["data"]:
            return None
        last = event["data"][-1]
        return write(CHANGE_EVENT, {**event, "id": event["id"] + "-conflict",
                                    "data": event["data"][:-1] + bytes([last ^ 0x01])})
    return ces.conflict(items, index, other_data)
