"""What every real run shares: its result, the wait for the progress record, the reading of a topic.

The run waits on the data, never on a clock: after the history, one row goes into a progress table the
connector also captures. Connect's source producer sends with one request in flight per connection and the
broker is one node, so when that row's record is on its topic, every record before it is too.
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from cdc_conformance.generators.history import History
from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness.producers.settings import DEFAULT, Setting

PROGRESS_TABLE = ("cdc_harness", "progress")  # no drawn schema is called cdc_harness (generators.history.tables)


# what every real run's connector is told: TRUNCATE too (skipped by default, "t"), and the topics it writes are made
# by Connect (the embedded broker creates no topic on first use, and the connector would wait silently)
CONNECTOR_SETTINGS = {"skipped.operations": "none", "topic.creation.default.replication.factor": 1,
                      "topic.creation.default.partitions": 1}


def run_names(history: History) -> tuple[str, str, bool]:
    """A run's id, its topic prefix (unique: runs share the broker), and whether the history has a snapshot."""
    run_id = uuid.uuid4().hex[:10]
    return run_id, f"real{run_id}", any(tx.snapshot for tx in history.transactions)


@dataclass
class RealRun:
    history: History
    database: str                        # postgresql | mariadb: the database and the connector's name for it
    replica_identity: str                # PostgreSQL's REPLICA IDENTITY; MariaDB's binlog_row_image
    prefix: str
    topic: str
    records: list[KafkaRecord]           # the connector's records on the history's topic, in offset order
    final_rows: list[dict]               # the table after the history: column -> Python value, by key
    versions: dict[str, str]             # {"debezium": ..., "postgresql" | "mariadb": ...}
    setting: Setting = DEFAULT           # the connector and converter settings it ran with


def wait_for_streaming(streaming: Callable[[], bool], worker, waited_for: str, timeout: float = 60.0) -> None:
    """Until `streaming()` says the connector reads the log (PostgreSQL: its slot is active; MariaDB: its binlog dump
    runs): a change made before that would be in no snapshot and in no stream."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if streaming():
            return
        if (failure := worker.failure()) is not None:
            raise RuntimeError(f"the connector failed before streaming: {failure}")
        time.sleep(0.1)
    raise RuntimeError(f"{waited_for} not there after {timeout}s:\n{worker.log_tail()}")


def wait_for_progress(broker, topic: str, worker, timeout: float = 60.0) -> None:
    from confluent_kafka import KafkaException

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if sum(broker.end_offsets(topic).values()) >= 1:  # no partitions until the connector creates it
                return
        except (KeyError, KafkaException):
            pass
        if (failure := worker.failure()) is not None:
            raise RuntimeError(f"the connector failed while streaming: {failure}")
        time.sleep(0.1)
    raise RuntimeError(f"the progress record did not arrive within {timeout}s:\n{worker.log_tail()}")


def read_topic(bootstrap_servers: str, topic: str) -> list[KafkaRecord]:
    """Every record of `topic` (one partition), in offset order, as written."""
    from confluent_kafka import Consumer, TopicPartition

    from cdc_conformance.harness.broker import client_config

    consumer = Consumer({**client_config(bootstrap_servers), "group.id": f"cdc-real-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False})
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        records = []
        for partition in sorted(partitions):
            end = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)[1]
            consumer.assign([TopicPartition(topic, partition, 0)])
            offset = -1
            while offset < end - 1:
                message = consumer.poll(10)
                if message is None:
                    raise RuntimeError(f"{topic}[{partition}]: no record within 10 s before offset {end}")
                if message.error():
                    raise RuntimeError(f"{topic}[{partition}]: {message.error()}")
                offset = message.offset() or 0  # a consumed record always has its offset
                records.append(KafkaRecord(topic, partition, message.key(), message.value(), tuple(message.headers() or ())))  # type: ignore[arg-type]  # confluent_kafka types headers loosely
        return records
    finally:
        consumer.close()
