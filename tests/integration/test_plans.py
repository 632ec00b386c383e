"""The normalizer's Spark plans stay small for every decoded format. A rewrite that makes Spark inline a
whole event-building expression somewhere (a pushed-down inferred filter, a collapsed projection) costs
minutes of code generation; the plan's size shows it at once, whatever the machine's speed."""
import pytest

from harness.cases import load_cases
from harness.registry import Registry
from normalizer.pipeline import normalize

pytestmark = pytest.mark.integration
REGISTRY = Registry.load()
MAX_PLAN_CHARS = 400_000  # today's largest is about 330,000 (cloudcanal-debezium events)


@pytest.mark.parametrize("format_id", REGISTRY.decoded_formats())
def test_optimized_plans_stay_small(spark, format_id):
    rows = [(r.topic, r.partition, offset, r.key, r.value, [{"key": k, "value": v} for k, v in r.headers])
            for case in load_cases() if case.format == format_id
            for offset, r in enumerate(case.kafka_records())]
    raw = spark.createDataFrame(rows, "topic string, partition int, offset long, key binary, value binary, "
                                      "headers array<struct<key:string,value:binary>>")
    result = normalize(raw, format_id)
    for name, frame in (("events", result.events), ("quarantine", result.quarantine)):
        size = len(frame._jdf.queryExecution().optimizedPlan().toString())
        assert size < MAX_PLAN_CHARS, f"{format_id} {name}: optimized plan of {size:,} characters"
