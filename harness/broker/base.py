"""What every broker backend shares: the client operations (create topics, produce, end offsets), the context
manager, and the test node's settings. A backend says only how it starts and stops."""
from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass

from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from cdc_conformance.generators.records import KafkaRecord


class BrokerError(RuntimeError):
    """The broker could not be started, reached or written to."""


@dataclass(frozen=True)
class Coordinates:
    topic: str
    partition: int
    offset: int



_QUIET = logging.getLogger("cdc_conformance.librdkafka")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


# Hostile records include 10 MB values: brokers and producers here take up to 16 MiB (Kafka's default is 1 MB).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024


# One node's settings for tests, whatever runs it (embedded process or container): single replicas,
# large messages, no topic auto-creation (a typo in a topic name must fail, not create an empty topic).
TEST_BROKER_SETTINGS = {
    "num.partitions": "1",
    "message.max.bytes": str(MAX_MESSAGE_BYTES),
    "auto.create.topics.enable": "false",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "group.initial.rebalance.delay.ms": "0",
    "log.flush.interval.messages": "1000000",
    # a broker restarted after SIGKILL is fenced until its old registration's session expires (9 s by default:
    # recover() took 11.6 s, of which 1.7 s is a start; 3.2 s at 2 s); one broker on loopback needs little slack
    "broker.session.timeout.ms": "3000",
    "broker.heartbeat.interval.ms": "500",
}


def client_config(bootstrap_servers: str) -> dict:
    """librdkafka logs every refused connection while a broker starts; errors surface as exceptions."""
    return {"bootstrap.servers": bootstrap_servers, "logger": _QUIET}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Broker:
    """A Kafka cluster the harness writes to and Spark reads from. Subclasses (dataclasses) set `name` and
    `bootstrap_servers` and say how they `start` and `stop`; topics, producing and offsets are the same for all."""

    name: str
    bootstrap_servers: str

    def start(self) -> Broker:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def admin(self) -> AdminClient:
        return AdminClient(client_config(self.bootstrap_servers))

    def _listed_within(self, timeout: float, failed=lambda: None) -> bool:
        """Poll the metadata until it lists a broker (True) or `timeout` passes (False); a message from
        `failed()` (the broker died meanwhile, say) ends the wait with a BrokerError."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (why := failed()) is not None:
                raise BrokerError(why)
            try:
                if self.admin().list_topics(timeout=2).brokers:
                    return True
            except KafkaException:
                pass  # not listening yet
            time.sleep(0.3)
        return False

    def create_topics(self, partitions_by_topic: dict[str, int], timeout: float = 30.0) -> None:
        new = [NewTopic(topic, num_partitions=count, replication_factor=1)
               for topic, count in partitions_by_topic.items()]
        if not new:
            return
        admin = self.admin()  # keep a reference: a collected client cancels its pending futures
        for topic, future in admin.create_topics(new, operation_timeout=timeout).items():
            try:
                future.result(timeout)
            except KafkaException as error:
                raise BrokerError(f"could not create topic {topic!r}: {error}") from error

    def produce(self, records: Iterable[KafkaRecord]) -> list[Coordinates]:
        """Produce in order; returns each record's coordinates. Any failed delivery raises."""
        producer = Producer({
            **client_config(self.bootstrap_servers),
            "enable.idempotence": True,
            "linger.ms": 5,
            "compression.type": "lz4",
            "message.max.bytes": MAX_MESSAGE_BYTES,
        })
        delivered: list[Coordinates | None] = []
        failures: list[str] = []

        def report(index: int):
            def on_delivery(error, message):
                if error is not None:  # where it was going, so a failed run says which topic-partition refused it
                    failures.append(f"record {index} to {message.topic()}[{message.partition()}]: {error.str()}")
                else:
                    delivered[index] = Coordinates(message.topic(), message.partition(), message.offset())
            return on_delivery

        for index, record in enumerate(records):
            delivered.append(None)
            while True:
                try:
                    producer.produce(record.topic, value=record.value, key=record.key,
                                     partition=record.partition, headers=list(record.headers) or None,
                                     on_delivery=report(index), **_timestamp(record))
                    break
                except BufferError:
                    producer.poll(0.1)
        remaining = producer.flush(60)
        if failures:
            raise BrokerError(f"delivery failed for {len(failures)} record(s); {'; '.join(failures[:3])}")
        if remaining or any(c is None for c in delivered):
            raise BrokerError(f"delivery failed: {remaining} record(s) still undelivered after 60 s")
        return delivered  # type: ignore[return-value]

    def end_offsets(self, topic: str) -> dict[int, int]:
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer({**client_config(self.bootstrap_servers), "group.id": "cdc-conformance-offsets"})
        try:
            metadata = consumer.list_topics(topic, timeout=10).topics[topic]
            return {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                    for p in metadata.partitions}
        finally:
            consumer.close()


def _timestamp(record: KafkaRecord) -> dict:
    """The record's own timestamp where it has one (the streaming assembly's event time: tests set it to show what
    happens at a time of their choosing)."""
    return {} if record.timestamp_ms is None else {"timestamp": record.timestamp_ms}
