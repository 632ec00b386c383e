"""A normalizer brings its jars through its door (`spark_jars(cache_dir)`, harness/under_test.py), like anything else it
needs (issue 58): a session the harness starts holds Spark's connectors and the jars of the normalizers it runs, never
the reference's for another normalizer; a normalizer run in a session started without its jars gets them added."""
import itertools
import os
import subprocess
import sys

import pytest

from cdc_conformance.generators import canal
from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness import jvm
from cdc_conformance.harness.roundtrip import RoundTrip
from cdc_conformance.harness.spark import session_jars
from cdc_conformance.harness.suite_files import SUITE_ROOT
from cdc_conformance.harness.under_test import NormalizerUnderTest

pytestmark = pytest.mark.integration
OWN_JAR = "tests.peer_fixtures.own_jar:normalize"
NO_JARS = "cdc_conformance.peers.naive_spark:normalize"  # Spark's own functions only
_runs = itertools.count()


def _reference_jar() -> str:
    (jar,) = NormalizerUnderTest.load().jars
    return jar


def test_a_session_holds_the_connectors_and_what_its_normalizers_bring():
    connectors = [str(jar) for jar in jvm.spark_connector_jars()]
    assert session_jars(NormalizerUnderTest.load(NO_JARS)) == connectors  # no reference jar for another's run
    own = NormalizerUnderTest.load(OWN_JAR)
    assert session_jars(own) == [*connectors, *own.jars] and _reference_jar() in own.jars  # it hands over to the reference
    assert session_jars(NormalizerUnderTest.load(), own).count(_reference_jar()) == 1


def test_a_running_session_gets_the_jar_of_a_normalizer_it_did_not_start_with(spark, broker, roundtrip):
    """The test session started with the reference's jars: the fixture's class is in its own jar alone, added when
    the fixture first runs there; its events are the reference's."""
    assert not any("fixture-own-jar" in jar for jar in spark.conf.get("spark.jars").split(","))
    topic = f"own-jar-{os.getpid()}-{next(_runs)}"
    records = [KafkaRecord(topic, 0, None, canal.hostile_message(1, data=[{"id": "1", "v": "a"}]))]
    ranges, coordinates = roundtrip.produce(records, {topic: 1})
    own = RoundTrip(spark, broker, NormalizerUnderTest.load(OWN_JAR)).normalize_ranges(ranges, canal.FORMAT, coordinates)
    reference = roundtrip.normalize_ranges(ranges, canal.FORMAT, coordinates)
    assert own.events and own.events == reference.events and own.quarantine == reference.quarantine == []


def test_a_run_of_another_normalizer_starts_spark_with_its_jars_only(tmp_path):
    """`cdc-conformance run --normalizer` in a process of its own: the session's classpath is the connectors and the
    normalizer's declared jars (a normalizer that declares none runs without the reference's)."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from cdc_conformance.harness.spark import spark_session\n"
        "from cdc_conformance.harness.under_test import NormalizerUnderTest\n"
        f"spark = spark_session(under_test=NormalizerUnderTest.load({NO_JARS!r}))\n"
        "print(spark.conf.get('spark.jars'))\n")
    result = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, cwd=SUITE_ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    jars = result.stdout.strip().splitlines()[-1].split(",")
    assert jars == [str(jar) for jar in jvm.spark_connector_jars()], jars
