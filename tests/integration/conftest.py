"""Session-wide real parts for the integration tier: one embedded Kafka broker and one Spark session."""
import itertools

import pytest

from harness.broker import EmbeddedKafka
from harness.execute import Normalizer
from harness.spark import spark_session


@pytest.fixture(scope="session")
def broker():
    kafka = EmbeddedKafka().start()
    yield kafka
    kafka.stop()


@pytest.fixture(scope="session")
def spark():
    return spark_session()


@pytest.fixture(scope="session")
def normalizer(spark, broker):
    return Normalizer(spark, broker)


_names = itertools.count()


@pytest.fixture
def unique_prefix(request):
    """A topic prefix no other test (or Hypothesis example) uses, so every run reads fresh topics."""
    return lambda: f"t{next(_names)}"
