"""The embedded backend is a real Kafka process: it starts fast, partitions like Java clients, stops clean."""
import time
from pathlib import Path

import pytest
from confluent_kafka import Producer

from generators.records import KafkaRecord, default_partition
from harness.broker import EmbeddedKafka, client_config

pytestmark = pytest.mark.integration


def _kafka_processes() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"kafka.Kafka" in cmdline:
                found.append(int(entry.name))
    return found


def test_starts_a_real_kafka_process_quickly_and_leaves_nothing_behind():
    started = time.monotonic()
    broker = EmbeddedKafka().start()
    try:
        assert time.monotonic() - started < 30
        pid = broker.pid
        assert pid in _kafka_processes()
        workdir = broker.workdir
        broker.create_topics({"lifecycle": 2})
        coordinates = broker.produce([KafkaRecord("lifecycle", 1, b"k", b"v", (("h", b"1"),))])
        assert (coordinates[0].partition, coordinates[0].offset) == (1, 0)
        assert broker.end_offsets("lifecycle") == {0: 0, 1: 1}
    finally:
        broker.stop()
    # this broker's process, not "no other Kafka": another run on the machine may start one meanwhile
    assert pid not in _kafka_processes()
    assert not workdir.exists()


def test_generators_partition_keys_like_the_java_client(broker):
    """librdkafka's murmur2_random partitioner is the Java client's; ours must agree with it."""
    broker.create_topics({"partitioner": 7})
    producer = Producer({**client_config(broker.bootstrap_servers), "partitioner": "murmur2_random"})
    keys = [f"key-{i}".encode() for i in range(60)] + [b'{"id":1005}', "ключ-ü".encode(), b"", b"a"]
    placed = {}
    for key in keys:
        producer.produce("partitioner", key=key, value=b"x",
                         on_delivery=lambda err, msg, key=key: placed.__setitem__(key, msg.partition()))
    assert producer.flush(30) == 0
    assert {key: default_partition(key, 7) for key in keys} == placed


def test_a_failed_start_shows_the_broker_log(monkeypatch):
    broker = EmbeddedKafka(heap="1m")  # the JVM refuses to start with this heap
    with pytest.raises(Exception) as error:
        broker.start()
    assert "kafka" in str(error.value).lower()
    assert broker.pid is None
    assert not broker.workdir.exists()  # a failed start leaves no temp dir behind


def test_cluster_ids_starting_with_a_dash_still_format(monkeypatch):
    """Regression: a random KRaft cluster id may start with '-', which the storage tool read as an option."""
    import harness.broker

    monkeypatch.setattr(harness.broker.base64, "urlsafe_b64encode", lambda _: b"-AAAAAAAAAAAAAAAAAAAAA==")
    broker = EmbeddedKafka().start()
    broker.stop()
