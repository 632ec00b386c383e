"""The benchmark's events are valid and distinct in both encodings (a re-keying slip would make the
normalizer fold copies together or quarantine them, and the benchmark would measure the wrong thing)."""
import io
import json

import fastavro
import pytest

from cdc_conformance.generators import ces_avro
from cdc_conformance.generators.ces import ces_records, json_event
from cdc_conformance.harness.registry import Registry

REGISTRY = Registry.load()


def _decode(value: bytes, avro: bool) -> tuple[dict, dict]:
    if avro:
        envelope = fastavro.schemaless_reader(io.BytesIO(value), ces_avro.CHANGE_EVENT)
        return envelope, fastavro.schemaless_reader(io.BytesIO(envelope["data"]), ces_avro.DATA)
    envelope = json.loads(value)
    return envelope, json.loads(envelope["data"])


@pytest.mark.parametrize("avro", [False, True], ids=["json", "avro"])
def test_benchmark_events_are_valid_distinct_and_about_one_kilobyte(avro):
    records = list(ces_records("t", 250, distinct=100, write=ces_avro.avro_event if avro else json_event))
    decoded = [_decode(r.value, avro) for r in records]
    assert len({e["id"] for e, _ in decoded}) == len({e["logicalid"] for e, _ in decoded}) == 250
    assert all(json.loads(d["eventrow"]["current"])["purchase_id"] for _, d in decoded)
    sizes = [len(r.value) for r in records]
    assert 600 < min(sizes) and max(sizes) < 1600  # JSON ~1.5 KB (the docs' row), Avro ~0.7 KB


@pytest.mark.parametrize("format_id", REGISTRY.decoded_formats())
def test_every_format_declares_benchmark_data(format_id):
    bench = REGISTRY.generator(format_id).bench
    assert bench is not None, f"{format_id}: no benchmark data (generators.bench.history_bench makes it for stateless formats)"
    records = list(bench.records("t", 300, 2))
    assert len(records) == 300 and {r.partition for r in records} == {0, 1}
    assert all(r.value for r in records)
