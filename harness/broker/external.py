"""The external backend: an existing cluster, reached and written to, never started or stopped."""
from __future__ import annotations

from dataclasses import dataclass

from confluent_kafka import KafkaException

from cdc_conformance.harness.broker.base import Broker, BrokerError


@dataclass
class ExternalKafka(Broker):
    """An existing cluster; nothing is started or stopped."""

    bootstrap_servers: str = ""
    name: str = "external"

    def start(self) -> ExternalKafka:
        if not self.bootstrap_servers:
            raise BrokerError("the external backend needs bootstrap servers (--bootstrap-servers)")
        try:
            self.admin().list_topics(timeout=10)
        except KafkaException as error:
            raise BrokerError(f"cannot reach {self.bootstrap_servers}: {error}") from error
        return self

    def stop(self) -> None:
        pass
