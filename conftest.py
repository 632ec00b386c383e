"""Shared pytest set-up: the --update-golden flag and the session's real broker and Spark."""
import time

import pytest


def show(request, text: str) -> None:
    """A line in the test log even under output capture (figures the run must print: soak, container)."""
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if capture is None or reporter is None:
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("\n" + text)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files of the conformance cases that run (review with git diff)")


@pytest.fixture(scope="session")
def broker():
    from harness.broker import EmbeddedKafka

    kafka = EmbeddedKafka().start()
    yield kafka
    kafka.stop()


@pytest.fixture(scope="session")
def container_broker(request):
    """Kafka in a container through Testcontainers (image: CDC_KAFKA_IMAGE, default the official one;
    `make test` builds `local` where no registry is reachable). Fails, saying why, without an engine."""
    from harness.broker import TestcontainersKafka

    started = time.monotonic()
    kafka = TestcontainersKafka().start()
    # the log shows that a real container serves the tests that use it
    show(request, f"testcontainers: container {kafka.container_id[:12]} of {kafka.image_name} at {kafka.bootstrap_servers}, "
                  f"started (image built if needed) in {time.monotonic() - started:.0f} s")
    yield kafka
    kafka.stop()


@pytest.fixture(scope="session")
def spark():
    from harness.spark import spark_session

    return spark_session()


@pytest.fixture(scope="session")
def roundtrip(spark, broker):
    """Records through the broker, Spark's Kafka source and the reference normalizer."""
    from harness.roundtrip import RoundTrip

    return RoundTrip(spark, broker)
