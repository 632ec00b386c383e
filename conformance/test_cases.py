"""The curated conformance cases under pytest: lint (fast tier), then every case through Kafka and Spark.

`pytest conformance --update-golden` rewrites the golden files of the cases that run, like
`cdc-conformance run --update-golden`.
"""
import pytest

from cdc_conformance.harness.cases import load_cases
from cdc_conformance.harness.known_failures import load_known_failures
from cdc_conformance.harness.lint import lint
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.runner import ERROR, FAIL, PASS, XFAIL, XPASS, Runner

CASES = load_cases()
REGISTRY = Registry.load()


def test_case_files_registry_and_known_failures_lint_clean():
    assert [str(p) for p in lint(CASES, REGISTRY, load_known_failures())] == []


def test_every_decoded_format_has_cases():
    assert set(REGISTRY.decoded_formats()) <= {c.format for c in CASES}


# Every case runs on the embedded Kafka process under a hostile session: every session setting the normalizer
# must not depend on is flipped (harness.spark.HOSTILE_SESSION), and the golden outputs must not move. A
# container broker started by Testcontainers runs a slice, each format's case with the most records, under the
# default session: the backend is the variable there, and the embedded run covers the cases (issue 20). The
# embedded run reads each format's records into two Spark partitions (RoundTrip.read_partitions); the slice
# keeps Spark's own layout, one task per Kafka partition, so both layouts give the golden outputs.
BACKEND_FIXTURES = {"embedded": "broker", "testcontainers": "container_broker"}
SESSIONS = {"embedded": "hostile", "testcontainers": "default"}
READ_PARTITIONS = {"embedded": 2, "testcontainers": None}


def _slice(cases) -> list:
    """One case per format: the one with the most records (ties: the first id)."""
    by_format: dict = {}
    for case in sorted(cases, key=lambda c: c.id):
        best = by_format.get(case.format)
        if best is None or len(case.records) > len(best.records):
            by_format[case.format] = case
    return sorted(by_format.values(), key=lambda c: c.id)


RUNS = {"embedded": CASES, "testcontainers": _slice(CASES)}
_RESULTS: dict = {}  # backend -> the suite's result, computed once per process


@pytest.fixture
def suite(spark, request):
    """The suite's result on one backend (indirect parameter), run once (not a parametrized session fixture:
    pytest would tear it down and run every case again whenever a worker's tests switch backends)."""
    if request.param not in _RESULTS:
        _RESULTS[request.param] = _run_suite(spark, request)
    return _RESULTS[request.param]


def _run_suite(spark, request):
    from cdc_conformance.harness.roundtrip import RoundTrip
    from cdc_conformance.harness.spark import HOSTILE_SESSION, session_settings

    broker = request.getfixturevalue(BACKEND_FIXTURES[request.param])
    # golden files are rewritten from the embedded run, the one that runs every case
    update = request.config.getoption("--update-golden") and request.param == "embedded"
    roundtrip = RoundTrip(spark, broker, read_partitions=READ_PARTITIONS[request.param],
                          schema_registry=request.getfixturevalue("schema_registry"))
    runner = Runner(roundtrip, REGISTRY, load_known_failures(), update_golden=update)
    with session_settings(spark, HOSTILE_SESSION if SESSIONS[request.param] == "hostile" else {}):
        result = runner.run(RUNS[request.param], CASES)
    print(f"{request.param}: {result.golden.summary()}")
    return result


def test_the_container_slice_has_every_decoded_format():
    assert {c.format for c in RUNS["testcontainers"]} == {c.format for c in CASES} >= set(REGISTRY.decoded_formats())


@pytest.mark.integration
@pytest.mark.parametrize("suite", list(BACKEND_FIXTURES), indirect=True)
def test_suite_integrity(suite):
    assert suite.suite_problems == []


@pytest.mark.integration
@pytest.mark.parametrize("suite, case_id", [(backend, c.id) for backend, cases in RUNS.items() for c in cases], indirect=["suite"])
def test_case(suite, case_id):
    result = next(r for r in suite.results if r.case.id == case_id)
    message = "\n".join(result.problems + [f"replay: {result.replay}"])
    if result.status == XFAIL:
        pytest.xfail(result.known_failure_reason)
    assert result.status not in (FAIL, ERROR, XPASS), message
    assert result.status == PASS, message
