"""The benchmark measures the path users run: every format's benchmark records normalize in batch to events only,
one change per message or pair (a slip in the data, such as an update's halves with different sequenceIds,
made the DataWorks benchmark measure 50,000 unpaired halves held in state and then quarantined)."""
import os

import pytest

from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.roundtrip import format_options
from cdc_conformance.harness.schema_registry import registered
from cdc_conformance.harness.streaming import batch_rows

pytestmark = [pytest.mark.integration, pytest.mark.long]  # 45 s for the benchmark's own data: make test-long
REGISTRY = Registry.load()


@pytest.mark.parametrize("format_id", REGISTRY.decoded_formats())
def test_benchmark_records_are_events_only(spark, broker, schema_registry, format_id):
    topic = f"bench-records-{format_id}-{os.getpid()}"
    records = list(REGISTRY.generator(format_id).bench.records(topic, 200, 2))
    broker.create_topics({topic: 2})
    broker.produce(registered(records, schema_registry))
    options = format_options(format_id, schema_registry)
    rows = batch_rows(spark, broker, format_id, [topic], **options)
    assert [row for kind, row in rows if kind == "Q"][:3] == []
    origins = [(o["partition"], o["offset"]) for kind, event in rows if kind == "E" for o in event["origin"]]
    assert len(set(origins)) == len(records)  # every record read into an event
