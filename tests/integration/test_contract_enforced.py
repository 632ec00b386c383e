"""A third-party normalizer whose output drifts from the model is stopped before anything is collected,
with the field named (the runner reports it as the normalizer's failure, every case ERROR)."""
import os

import pytest

from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness.contract import ContractViolation
from cdc_conformance.harness.roundtrip import RoundTrip
from cdc_conformance.normalizer.pipeline import Normalized, normalize

pytestmark = pytest.mark.integration


def drifting_normalizer(raw, format_id):
    result = normalize(raw, format_id)
    return Normalized(result.events.withColumnRenamed("tx_id", "transaction_id"), result.quarantine)


def test_a_drifting_normalizer_fails_naming_the_field(spark, broker):
    topic = f"contract-{os.getpid()}"
    with pytest.raises(ContractViolation, match=r"events\.\(top\): fields missing \['tx_id'\] unexpected \['transaction_id'\]"):
        RoundTrip(spark, broker, drifting_normalizer).run([KafkaRecord(topic, 0, None, b"{}")], "debezium-json", {topic: 1})


def test_the_runner_reports_every_drifting_field_on_its_one_line(spark, broker):
    """The run's problem (and so the reports' and the plugin's) was "...is not the canonical model:" with nothing after
    the colon: the field list was on the lines after it, and the runner kept the first line only."""
    from cdc_conformance.harness.cases import load_cases
    from cdc_conformance.harness.registry import Registry
    from cdc_conformance.harness.runner import ERROR, Runner

    case = next(c for c in load_cases() if c.format == "debezium-json")
    (result,) = Runner(RoundTrip(spark, broker, drifting_normalizer), Registry.load(), {}).run([case], [case]).results
    assert result.status == ERROR and "fields missing ['tx_id'] unexpected ['transaction_id']" in result.problems[0], result.problems
