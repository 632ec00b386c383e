"""What is DataWorks' own beyond the generic tests: `ddl.ddlMeta` is a Java-serialized object, and the
normalizer must never deserialize it (invariant 5, docs/invariants.md). A hostile blob (the head of a known gadget
chain) passes through as opaque text: the record becomes the same event as its twin without the blob."""
import itertools
import json
import os

import pytest

from cdc_conformance.generators import dataworks
from cdc_conformance.generators.records import KafkaRecord

pytestmark = pytest.mark.integration
_runs = itertools.count()


def _without_volatile(event: dict) -> dict:
    return {k: v for k, v in event.items() if k not in ("origin", "event_id")}


def test_a_hostile_ddl_meta_blob_is_never_deserialized_and_changes_nothing(roundtrip):
    topic = f"dataworks-ddlmeta-{os.getpid()}-{next(_runs)}"
    statement = "ALTER TABLE t ADD COLUMN w varchar(8)"
    hostile = dataworks.hostile_record(1, op="ALTER", after=None, ddl={"text": statement, "ddlMeta": dataworks.GADGET})
    plain = json.loads(hostile)
    plain["payload"]["ddl"]["ddlMeta"] = None
    records = [KafkaRecord(topic, 0, None, hostile), KafkaRecord(topic, 0, None, json.dumps(plain).encode())]
    output = roundtrip.run(records, dataworks.FORMAT, {topic: 1})
    assert output.quarantine == [] and output.accounting_problems() == []
    with_blob, without_blob = sorted(output.events, key=lambda e: e["origin"][0]["offset"])
    assert _without_volatile(with_blob) == _without_volatile(without_blob)
    assert with_blob["kind"] == "DDL" and with_blob["ddl"] == {"statement": statement, "change": "ALTER"}
