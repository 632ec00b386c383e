"""Broker backends that cannot run here are still configured right and fail clearly."""
from types import SimpleNamespace

import pytest

from harness.broker import (
    DEFAULT_KAFKA_IMAGE,
    BrokerError,
    ExternalKafka,
    TestcontainersKafka,
    docker_unavailable_reason,
    make_broker,
)


def test_testcontainers_backend_uses_the_kafka_module_with_a_kraft_capable_image():
    backend = make_broker("testcontainers")
    assert isinstance(backend, TestcontainersKafka) and backend.image == DEFAULT_KAFKA_IMAGE
    container_class = backend.container_class()
    assert container_class.__module__ == "testcontainers.community.kafka"
    assert hasattr(container_class, "with_kraft") and hasattr(container_class, "get_bootstrap_server")
    # the module's own gate for KRaft mode, run against our image without building a container
    container_class._verify_min_kraft_version(SimpleNamespace(image=backend.image,
                                                              MIN_KRAFT_TAG=container_class.MIN_KRAFT_TAG))
    with pytest.raises(ValueError, match="not supported in Kraft mode"):
        container_class._verify_min_kraft_version(SimpleNamespace(image="confluentinc/cp-kafka:6.2.0",
                                                                  MIN_KRAFT_TAG=container_class.MIN_KRAFT_TAG))


def test_testcontainers_without_docker_says_so_in_one_clear_error(monkeypatch):
    monkeypatch.setattr("harness.broker.docker_unavailable_reason", lambda: "no Docker socket")
    with pytest.raises(BrokerError, match="needs a Docker engine: no Docker socket"):
        TestcontainersKafka().start()


def test_testcontainers_backend_starts_where_docker_exists_and_says_why_not_elsewhere():
    reason = docker_unavailable_reason()
    backend = TestcontainersKafka()
    if reason is not None:  # this project's machines: no Docker engine
        with pytest.raises(BrokerError, match="needs a Docker engine"):
            backend.start()
        return
    with backend:  # users' CI with Docker: the real thing
        assert backend.admin().list_topics(timeout=30).brokers


def test_external_backend_needs_bootstrap_servers():
    with pytest.raises(BrokerError, match="needs bootstrap servers"):
        ExternalKafka().start()


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="unknown broker backend"):
        make_broker("zookeeper")
