"""A record that makes a JVM reader throw is that record's quarantine, the job finishes, every other record intact
(issue 39 C). The throw is injected through a JVM system property (`io.cdcconformance.fail-record`), never through
anything in a message: after the fixes no known record makes a reader throw, and the guard must still hold when the
next bug does."""
import pytest

from cdc_conformance.generators.plugin import VALID_NEIGHBOUR
from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness.registry import Registry
from cdc_conformance.model import Code

pytestmark = pytest.mark.integration
REGISTRY = Registry.load()
FAULT = "io.cdcconformance.fail-record"


@pytest.mark.parametrize("format_id", REGISTRY.decoded_formats())
def test_a_reader_that_throws_quarantines_its_record_and_the_job_goes_on(spark, roundtrip, format_id):
    neighbour = REGISTRY.generator(format_id).hostile[VALID_NEIGHBOUR]
    topic = f"reader-failure-{format_id}"
    records = [KafkaRecord(topic, 0, neighbour.key, neighbour.value, neighbour.headers, registrations=neighbour.registrations)
               for _ in range(3)]
    system = spark.sparkContext._jvm.java.lang.System
    system.setProperty(FAULT, f"{topic}/0/1")
    try:
        output = roundtrip.run(records, format_id, {topic: 1})
    finally:
        system.clearProperty(FAULT)
    assert [(q["origin"][0]["offset"], q["code"], q["phase"]) for q in output.quarantine] == [
        (1, Code.READER_FAILURE.value, "DECODE")]
    assert "threw java.lang.IllegalStateException" in output.quarantine[0]["detail"]
    assert output.events and all(o["offset"] != 1 for e in output.events for o in e["origin"])
    assert output.accounting_problems() == []
