"""Broker backends behind one interface: embedded (a real Kafka process), testcontainers, external.

Every backend exposes `bootstrap_servers`, creates topics with explicit partition counts and produces
records with confluent-kafka, waiting for every delivery report.
"""
from cdc_conformance.harness.broker.base import MAX_MESSAGE_BYTES, TEST_BROKER_SETTINGS, Broker, BrokerError, Coordinates, client_config
from cdc_conformance.harness.broker.containers import TestcontainersKafka, docker_unavailable_reason
from cdc_conformance.harness.broker.embedded import EmbeddedKafka
from cdc_conformance.harness.broker.external import ExternalKafka

__all__ = ["BACKENDS", "MAX_MESSAGE_BYTES", "TEST_BROKER_SETTINGS", "Broker", "BrokerError", "Coordinates", "EmbeddedKafka",
           "ExternalKafka", "TestcontainersKafka", "client_config", "docker_unavailable_reason", "make_broker"]

BACKENDS = ("embedded", "testcontainers", "external")


def make_broker(backend: str, bootstrap_servers: str | None = None, image: str | None = None):
    if backend == "embedded":
        return EmbeddedKafka()
    if backend == "external":
        return ExternalKafka(bootstrap_servers=bootstrap_servers or "")
    if backend == "testcontainers":
        return TestcontainersKafka(image=image)
    raise ValueError(f"unknown broker backend {backend!r}; choose one of {', '.join(BACKENDS)}")
