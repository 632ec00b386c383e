"""Shared pytest set-up: the --update-golden flag and the session's real broker and Spark."""
import os
import time

import pytest

from tests import timeline

_shown: list[str] = []   # lines waiting for the next test report
_config: list = []       # this process's pytest config (the report hook gets none)


def show(request, text: str) -> None:
    """A line in the test log whatever the capture and however many workers (figures the run must print: soak,
    container): attached to the next test report, printed where reports are (the xdist controller, or here)."""
    _shown.append(text)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if _shown:
        outcome.get_result().user_properties.extend(("shown", text) for text in _shown)
        _shown.clear()


def pytest_runtest_logreport(report):
    lines = [text for name, text in report.user_properties if name == "shown"]
    reporter = _config[0].pluginmanager.get_plugin("terminalreporter") if _config else None
    if lines and reporter is not None:
        for text in lines:
            reporter.write_line("\n" + text)


def pytest_configure(config):
    _config.append(config)
    config.pluginmanager.register(_LongestFirst(), "cdc-longest-first")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """CDC_TEST_TIMELINE=FILE: one line per test (worker, start, end, id), to see how the workers' time is spent
    (which test ends the run, where a worker waits): the tool behind the README's time table."""
    path = os.environ.get("CDC_TEST_TIMELINE")
    started = time.time()
    yield
    if path:
        with open(path, "a") as out:
            nodeid = item.nodeid.removesuffix(f"@{_group(item)}")  # xdist's loadgroup suffix
            out.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}\t{started:.2f}\t{time.time():.2f}\t{nodeid}\n")


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    """Under xdist (--dist loadgroup), each backend's conformance suite stays on one worker: the `suite`
    fixture runs every case once per backend and its tests only read the result. Every test collected, before `-m`
    leaves some out, is kept for the check that tests/durations.tsv names only tests that exist."""
    config.stash[timeline.COLLECTED] = {item.nodeid for item in items}
    for item in items:
        backend = getattr(item, "callspec", None) and item.callspec.params.get("suite")
        if backend:
            item.add_marker(pytest.mark.xdist_group(f"suite-{backend}"))


class _LongestFirst:
    """Hands tests out longest first (tests/timeline.py). Last among the collection hooks, so that it orders what `-m`
    left (make test leaves out the long tier, whose minutes would otherwise count as work handed out before the
    broker image's tests), yet before xdist's own, registered earlier, reads the groups."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        known = timeline.durations()  # by the plain id, whether or not xdist has suffixed its group yet
        items[:] = timeline.ordered(items, _group, {i.nodeid: known.get(_plain_id(i), 0.0) for i in items})


def _plain_id(item) -> str:
    return item.nodeid.removesuffix(f"@{_group(item)}") if _group(item) else item.nodeid


def _group(item) -> str | None:
    marker = item.get_closest_marker("xdist_group")
    return marker.args[0] if marker else None


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files of the conformance cases that run (review with git diff)")


@pytest.fixture(scope="session")
def broker():
    from cdc_conformance.harness.broker import EmbeddedKafka

    kafka = EmbeddedKafka().start()
    yield kafka
    kafka.stop()


@pytest.fixture(scope="session")
def container_broker(request):
    """Kafka in a container through Testcontainers (image: CDC_KAFKA_IMAGE, default the official one;
    `make test` builds `local` where no registry is reachable). Fails, saying why, without an engine."""
    from cdc_conformance.harness.broker import TestcontainersKafka

    started = time.monotonic()
    kafka = TestcontainersKafka().start()
    # the log shows that a real container serves the tests that use it
    show(request, f"testcontainers: container {kafka.container_id[:12]} of {kafka.image_name} at {kafka.bootstrap_servers}, "
                  f"started (image built if needed) in {time.monotonic() - started:.0f} s")
    yield kafka
    kafka.stop()


@pytest.fixture(scope="session")
def spark():
    from cdc_conformance.harness.spark import spark_session

    return spark_session()


@pytest.fixture(scope="session")
def schema_registry():
    """The harness's schema registry (Apicurio Registry), started only when a test produces records that name a
    schema or runs a format that needs one (debezium-avro)."""
    from cdc_conformance.harness.schema_registry import LazySchemaRegistry

    with LazySchemaRegistry() as registry:
        yield registry


@pytest.fixture(scope="session")
def roundtrip(spark, broker, schema_registry):
    """Records through the broker, Spark's Kafka source and the reference normalizer."""
    from cdc_conformance.harness.roundtrip import RoundTrip

    return RoundTrip(spark, broker, schema_registry=schema_registry)


@pytest.fixture
def cli_here(capsys):
    """`cdc-conformance ARGS` in this process: the session's Spark (spark_session() is one per process) instead
    of a JVM of its own; stories pass `--broker external` with the session's broker. Returns (exit code,
    stdout, stderr). Stories that are about a process of its own (exit codes of a real process, the default
    embedded broker, nothing left behind) keep running it as a subprocess."""
    from cdc_conformance.harness.cli import main

    def invoke(*args) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            main(list(map(str, args)))
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        out, err = capsys.readouterr()
        return code, out, err

    return invoke
