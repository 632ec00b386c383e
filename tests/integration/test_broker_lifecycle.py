"""Both broker backends through their lifecycle. Embedded: a real Kafka process that starts fast, partitions
like Java clients and stops clean. Testcontainers: a container started, waited for, published on loopback
and removed by Testcontainers, which leaves no container behind even when the start or the test fails."""
import time
from pathlib import Path

import docker
import pytest
from confluent_kafka import Producer
from testcontainers.core.config import testcontainers_config
from testcontainers.core.labels import LABEL_SESSION_ID, SESSION_ID

from cdc_conformance.generators.records import KafkaRecord, default_partition
from cdc_conformance.harness.broker import BrokerError, EmbeddedKafka, TestcontainersKafka, client_config

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


def test_a_failed_start_shows_the_broker_log():
    broker = EmbeddedKafka(heap="1m")  # the JVM refuses to start with this heap
    with pytest.raises(Exception) as error:
        broker.start()
    assert "kafka" in str(error.value).lower()
    assert broker.pid is None
    assert not broker.workdir.exists()  # a failed start leaves no temp dir behind


def test_cluster_ids_starting_with_a_dash_still_format():
    """Regression: a random KRaft cluster id may start with '-', which the storage tool read as an option."""
    broker = EmbeddedKafka(cluster_id="-AAAAAAAAAAAAAAAAAAAAA").start()
    try:
        properties = (broker.workdir / "data" / "meta.properties").read_text()
        assert "cluster.id=-AAAAAAAAAAAAAAAAAAAAA" in properties
        _round_trip(broker)
    finally:
        broker.stop()


def _session_containers() -> list:
    return docker.from_env().containers.list(all=True, filters={"label": f"{LABEL_SESSION_ID}={SESSION_ID}"})


def _round_trip(broker) -> None:
    broker.create_topics({"lifecycle": 2})
    coordinates = broker.produce([KafkaRecord("lifecycle", 1, b"k", b"v", (("h", b"1"),))])
    assert (coordinates[0].partition, coordinates[0].offset) == (1, 0)
    assert broker.end_offsets("lifecycle") == {0: 0, 1: 1}


def test_testcontainers_starts_a_container_published_on_loopback_and_removes_it():
    before = {c.id for c in _session_containers()}
    broker = TestcontainersKafka().start()
    try:
        container = docker.from_env().containers.get(broker.container_id)
        assert container.status == "running"
        assert container.labels[LABEL_SESSION_ID] == SESSION_ID  # created by Testcontainers
        bindings = container.attrs["HostConfig"]["PortBindings"]["9092/tcp"]
        assert [b["HostIp"] for b in bindings] == ["127.0.0.1"]
        assert broker.bootstrap_servers == f"127.0.0.1:{bindings[0]['HostPort']}"
        _round_trip(broker)
    finally:
        broker.stop()
    assert {c.id for c in _session_containers()} == before


@pytest.mark.long  # 20 s of a started and failed container: make test-long (the 12-minute gate)
def test_without_its_reaper_testcontainers_still_leaves_no_container_when_a_test_or_a_start_fails():
    before = {c.id for c in _session_containers()}
    with pytest.raises(RuntimeError, match="the test failed"), TestcontainersKafka():
        raise RuntimeError("the test failed")
    with pytest.raises(BrokerError, match="did not start"):
        TestcontainersKafka(start_timeout=1).start()  # the wait strategy gives up before the broker is up
    assert {c.id for c in _session_containers()} == before
    try:  # the reaper is disabled only where its image cannot be had
        docker.from_env().images.get(testcontainers_config.ryuk_image)
    except docker.errors.ImageNotFound:
        assert testcontainers_config.ryuk_disabled
