"""The normalizer's Spark plans stay small for every decoded format. A rewrite that makes Spark inline a
whole event-building expression somewhere (a pushed-down inferred filter, a collapsed projection) costs
minutes of code generation; the plan's size shows it at once, whatever the machine's speed."""
import pytest

from cdc_conformance.harness.cases import load_cases
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.roundtrip import format_options
from cdc_conformance.harness.schema_registry import registered
from cdc_conformance.model import event_to_json, quarantine_to_json
from cdc_conformance.normalizer.pipeline import normalize, normalize_combined

pytestmark = pytest.mark.integration
REGISTRY = Registry.load()
MAX_PLAN_CHARS = 400_000  # today's largest is about 330,000 (cloudcanal-debezium events)


def _cases_records(spark, format_id: str, schema_registry):
    """The format's conformance-case records as a Kafka source's rows (no broker: plans are the point), their schemas
    registered where they name some; and the format's options."""
    rows = [(r.topic, r.partition, offset, r.key, r.value, [{"key": k, "value": v} for k, v in r.headers])
            for case in load_cases() if case.format == format_id
            for offset, r in enumerate(registered(case.kafka_records(), schema_registry))]
    options = format_options(format_id, schema_registry)
    return spark.createDataFrame(rows, "topic string, partition int, offset long, key binary, value binary, "
                                       "headers array<struct<key:string,value:binary>>"), options


@pytest.mark.parametrize("format_id", REGISTRY.decoded_formats())
def test_optimized_plans_stay_small(spark, format_id, schema_registry):
    raw, options = _cases_records(spark, format_id, schema_registry)
    result = normalize(raw, format_id, **options)
    for name, frame in (("events", result.events), ("quarantine", result.quarantine)):
        size = len(frame._jdf.queryExecution().optimizedPlan().toString())
        assert size < MAX_PLAN_CHARS, f"{format_id} {name}: optimized plan of {size:,} characters"


@pytest.mark.parametrize("format_id", REGISTRY.decoded_formats())
def test_the_split_frames_hold_exactly_the_output_rows(spark, format_id, schema_registry):
    """The harness collects the reference's combined entry once (normalize_combined) instead of the two frames users
    read: here the frames themselves, collected as users do, give the same events and quarantine records."""
    raw, options = _cases_records(spark, format_id, schema_registry)
    raw = raw.cache()
    result, rows = normalize(raw, format_id, **options), normalize_combined(raw, format_id, **options).collect()
    assert sorted(map(str, map(event_to_json, result.events.collect()))) == sorted(str(event_to_json(e)) for r in rows for e in r.events)
    assert sorted(map(str, map(quarantine_to_json, result.quarantine.collect()))) == \
        sorted(str(quarantine_to_json(q)) for r in rows for q in r.quarantine)


@pytest.mark.parametrize("format_id, keeps_state", [("dataworks-json", True), ("canal-json", False)])
def test_the_benchmarks_floor_is_a_stateful_formats_path_with_each_record_a_group_of_its_own(spark, format_id, keeps_state,
                                                                                             schema_registry):
    """bench --streaming's floor (normalize_stream_floor): a format that keeps state has one, and it makes every record
    a group of its own (one output row each: no pairing, no state); a stateless format has none."""
    from cdc_conformance.normalizer.pipeline import normalize_stream_floor

    raw, options = _cases_records(spark, format_id, schema_registry)
    floor = normalize_stream_floor(raw, format_id, **options)
    if not keeps_state:
        assert floor is None
        return
    grouped_in_batch = normalize_combined(raw, format_id, **options).count()
    assert floor.count() == raw.count() > grouped_in_batch  # the cases pair some halves: batch has fewer rows
