"""The curated conformance cases under pytest: lint (fast tier), then every case through Kafka and Spark.

`pytest conformance --update-golden` rewrites the golden files of the cases that run, like
`cdc-conformance run --update-golden`.
"""
import pytest

from harness.cases import load_cases
from harness.lint import lint
from harness.registry import Registry
from harness.runner import ERROR, FAIL, PASS, XFAIL, XPASS, Runner, load_known_failures

CASES = load_cases()
REGISTRY = Registry.load()


def test_case_files_registry_and_known_failures_lint_clean():
    assert [str(p) for p in lint(CASES, REGISTRY, load_known_failures())] == []


def test_every_decoded_format_has_cases():
    assert set(REGISTRY.decoded_formats()) <= {c.format for c in CASES}


# Every case runs on both broker backends: the embedded Kafka process and a container started by
# Testcontainers (the rest of the integration tier keeps the faster embedded broker). The second run also
# flips every session setting the normalizer must not depend on (harness.spark.HOSTILE_SESSION): the same
# golden outputs, whatever the user's session says.
BACKEND_FIXTURES = {"embedded": "broker", "testcontainers": "container_broker"}


_RESULTS: dict = {}  # backend -> the suite's result, computed once per process


@pytest.fixture(params=list(BACKEND_FIXTURES))
def suite(spark, request):
    """The suite's result on one backend, run once (not a parametrized session fixture: pytest would tear it
    down and run every case again whenever a worker's tests switch backends)."""
    if request.param not in _RESULTS:
        _RESULTS[request.param] = _run_suite(spark, request)
    return _RESULTS[request.param]


def _run_suite(spark, request):
    from harness.roundtrip import RoundTrip
    from harness.spark import HOSTILE_SESSION, session_settings

    broker = request.getfixturevalue(BACKEND_FIXTURES[request.param])
    # golden files are rewritten once, from the embedded run
    update = request.config.getoption("--update-golden") and request.param == "embedded"
    runner = Runner(RoundTrip(spark, broker), REGISTRY, load_known_failures(), update_golden=update)
    with session_settings(spark, HOSTILE_SESSION if request.param == "testcontainers" else {}):
        result = runner.run(CASES, CASES)
    print(f"{request.param}: {result.golden.summary()}")
    return result


@pytest.mark.integration
def test_suite_integrity(suite):
    assert suite.suite_problems == []


@pytest.mark.integration
@pytest.mark.parametrize("case_id", [c.id for c in CASES])
def test_case(suite, case_id):
    result = next(r for r in suite.results if r.case.id == case_id)
    message = "\n".join(result.problems + [f"replay: {result.replay}"])
    if result.status == XFAIL:
        pytest.xfail(result.known_failure_reason)
    assert result.status not in (FAIL, ERROR, XPASS), message
    assert result.status == PASS, message
