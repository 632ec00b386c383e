"""Shared pytest set-up: the --update-golden flag and the session's real broker and Spark."""
import pytest


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
def container_broker():
    """Kafka in a container through Testcontainers (image: CDC_KAFKA_IMAGE, default the official one;
    `make test` builds `local` where no registry is reachable). Fails, saying why, without an engine."""
    from harness.broker import TestcontainersKafka

    kafka = TestcontainersKafka().start()
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
