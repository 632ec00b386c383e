"""JVM artifact naming and the runner's known-failure rules (no broker needed)."""
import copy
from pathlib import Path

import pyspark

from cdc_conformance.harness import jvm
from cdc_conformance.harness.cases import load_cases
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.runner import PASS, XFAIL, XPASS, Runner


def test_spark_connectors_follow_the_installed_pyspark_with_fallbacks_for_a_missing_release(monkeypatch):
    scala = jvm.scala_binary_version()
    assert scala == ("2.12" if pyspark.__version__.startswith("3.") else "2.13")
    exact, *fallbacks = jvm.spark_connector_candidates()
    assert exact.version == f"{pyspark.__version__}-scala{scala}"
    assert exact.properties == {"spark.version": pyspark.__version__, "scala.binary.version": scala}
    for pyspark_version, tried in (("4.3.0", ["4.3.0", "4.2.0"]), ("4.2.1", ["4.2.1", "4.2.0"]), ("4.0.0", ["4.0.0"]),
                                   ("3.5.7", ["3.5.7", "3.5.0"])):
        monkeypatch.setattr(jvm, "spark_version", lambda version=pyspark_version: version)
        assert [c.properties["spark.version"] for c in jvm.spark_connector_candidates()] == tried
    assert jvm.connector_version([Path("x.jar"), Path("spark-sql-kafka-0-10_2.13-4.2.0.jar")]) == "4.2.0"


def test_kafka_version_comes_from_the_pom_only():
    assert jvm.kafka_version().startswith("4.")


def test_artifact_id_strips_the_version():
    assert jvm._artifact_id(Path("kafka-clients-3.9.0.jar")) == "kafka-clients"
    assert jvm._artifact_id(Path("spark-sql-kafka-0-10_2.13-4.0.0.jar")) == "spark-sql-kafka-0-10_2.13"


def _runner(known):
    return Runner(roundtrip=None, registry=Registry.load(), known_failures=known)  # type: ignore[arg-type]


def test_known_failure_that_fails_is_xfail_and_one_that_passes_is_xpass():
    case = next(c for c in load_cases() if c.format == "debezium-json")
    assert _runner({case.id: "reason"})._result(case, ["boom"], {}, 0).status == XFAIL
    xpass = _runner({case.id: "reason"})._result(case, [], {}, 0)
    assert xpass.status == XPASS and "remove it" in xpass.problems[0]
    assert _runner({})._result(case, [], {}, 0).status == PASS


def test_cases_of_a_planned_format_are_expected_failures_by_themselves():
    """Every format is decoded today: the registry is edited in memory to plan one again."""
    case = next(c for c in load_cases() if c.format == "canal-json")
    registry = Registry.load()
    planned = copy.deepcopy(registry.formats)
    for version in planned["canal-json"]["versions"].values():
        version["status"] = "planned"
    runner = Runner(roundtrip=None, registry=Registry(planned), known_failures={})  # type: ignore[arg-type]
    result = runner._result(case, ["normalizer failed: UnsupportedFormat"], None, 0, error=True)
    assert result.status == XFAIL and "planned" in result.known_failure_reason
    assert _runner({})._result(case, ["boom"], None, 0).status != XFAIL  # decoded: a failure is a failure


def test_known_failures_are_added_and_removed_keeping_the_files_comment(tmp_path):
    from cdc_conformance.harness.known_failures import KNOWN_FAILURES_FILE, add_known_failure, load_known_failures, remove_known_failure

    path = tmp_path / "known_failures.yaml"
    path.write_text(KNOWN_FAILURES_FILE.read_text())
    add_known_failure("a-case", "drops the tag", "https://bugs.example/1", path)
    add_known_failure("b-case", "no bug filed", None, path)
    assert load_known_failures(path) == {"a-case": "drops the tag (bug: https://bugs.example/1)", "b-case": "no bug filed"}
    remove_known_failure("a-case", path)
    assert load_known_failures(path) == {"b-case": "no bug filed"}
    assert path.read_text().startswith(KNOWN_FAILURES_FILE.read_text().split("known_failures:")[0])
