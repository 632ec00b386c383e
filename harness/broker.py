"""Broker backends behind one interface: embedded (a real Kafka process), testcontainers, external.

Every backend exposes `bootstrap_servers`, creates topics with explicit partition counts and produces
records with confluent-kafka, waiting for every delivery report.
"""
from __future__ import annotations

import base64
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from generators.records import KafkaRecord
from harness import jvm


class BrokerError(RuntimeError):
    """The broker could not be started, reached or written to."""


@dataclass(frozen=True)
class Coordinates:
    topic: str
    partition: int
    offset: int


class Broker(Protocol):
    name: str
    bootstrap_servers: str

    def start(self) -> Broker: ...
    def stop(self) -> None: ...


class _KafkaClientMixin:
    """Topic creation and producing, shared by every backend (they differ only in how they start)."""

    bootstrap_servers: str

    def admin(self) -> AdminClient:
        return AdminClient(client_config(self.bootstrap_servers))

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
                if error is not None:
                    failures.append(f"record {index}: {error}")
                else:
                    delivered[index] = Coordinates(message.topic(), message.partition(), message.offset())
            return on_delivery

        for index, record in enumerate(records):
            delivered.append(None)
            while True:
                try:
                    producer.produce(record.topic, value=record.value, key=record.key,
                                     partition=record.partition, headers=list(record.headers) or None,
                                     on_delivery=report(index))
                    break
                except BufferError:
                    producer.poll(0.1)
        remaining = producer.flush(60)
        if remaining or failures or any(c is None for c in delivered):
            raise BrokerError(f"delivery failed: {remaining} undelivered; {failures[:5]}")
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


_QUIET = logging.getLogger("cdc_conformance.librdkafka")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


# Hostile records include 10 MB values: brokers and producers here take up to 16 MiB (Kafka's default is 1 MB).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024


def client_config(bootstrap_servers: str) -> dict:
    """librdkafka logs every refused connection while a broker starts; errors surface as exceptions."""
    return {"bootstrap.servers": bootstrap_servers, "logger": _QUIET}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_LOG4J2 = """\
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = {level}
rootLogger.appenderRef.file.ref = file
"""


@dataclass
class EmbeddedKafka(_KafkaClientMixin):
    """A real Apache Kafka broker+controller (KRaft, one node) on free loopback ports.

    Storage and logs live in a temporary directory that is removed on stop unless `keep_dir` is set.
    """

    name: str = "embedded"
    heap: str = "512m"
    start_timeout: float = 60.0
    keep_dir: bool = False
    bootstrap_servers: str = ""
    workdir: Path | None = None
    _process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def log_file(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "server.log"

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no broker log)"

    def _write_config(self, port: int, controller_port: int) -> Path:
        assert self.workdir is not None
        config = self.workdir / "server.properties"
        config.write_text("\n".join([
            "process.roles=broker,controller",
            "node.id=1",
            f"controller.quorum.voters=1@127.0.0.1:{controller_port}",
            f"listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
            f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            f"log.dirs={self.workdir / 'data'}",
            "num.partitions=1",
            f"message.max.bytes={MAX_MESSAGE_BYTES}",
            "auto.create.topics.enable=false",
            "offsets.topic.replication.factor=1",
            "offsets.topic.num.partitions=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "log.flush.interval.messages=1000000",
            "",
        ]))
        (self.workdir / "log4j2.properties").write_text(
            _LOG4J2.format(log=self.log_file, level=os.environ.get("CDC_KAFKA_LOG_LEVEL", "INFO")))
        return config

    def _java(self, main_class: str, *args: str) -> list[str]:
        assert self.workdir is not None
        return [
            jvm.java_executable(), f"-Xmx{self.heap}", f"-Xms{self.heap}", "-XX:+UseG1GC",
            "-XX:TieredStopAtLevel=1",  # faster start; the broker is never the bottleneck here
            f"-Dlog4j2.configurationFile={self.workdir / 'log4j2.properties'}",
            "-Djava.awt.headless=true", "-cp", jvm.kafka_broker_classpath(), main_class, *args,
        ]

    def start(self) -> EmbeddedKafka:
        if self._process is not None:
            return self
        self.workdir = Path(tempfile.mkdtemp(prefix="cdc-kafka-"))
        port, controller_port = _free_port(), _free_port()
        config = self._write_config(port, controller_port)
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        # `--cluster-id=ID`, not `-t ID`: a base64 id may start with '-' and would parse as an option
        formatted = subprocess.run(self._java("kafka.tools.StorageTool", "format", f"--cluster-id={cluster_id}",
                                              "-c", str(config), "--ignore-formatted"),
                                   capture_output=True, text=True)
        if formatted.returncode != 0:
            self.stop()  # the error carries the tool's output; the temp dir goes (unless keep_dir)
            raise BrokerError(f"kafka storage format failed:\n{formatted.stdout}\n{formatted.stderr}")
        self.bootstrap_servers = f"127.0.0.1:{port}"
        self._process = subprocess.Popen(self._java("kafka.Kafka", str(config)), stdout=subprocess.DEVNULL,
                                         stderr=open(self.workdir / "stderr.log", "wb"),
                                         start_new_session=True)
        try:
            self._wait_ready()  # its errors quote the broker log, so the temp dir need not stay
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise BrokerError(f"kafka exited with {self._process.returncode} while starting; log:\n"
                                  f"{self.log_tail()}")
            try:
                if self.admin().list_topics(timeout=2).brokers:
                    return
            except KafkaException:
                pass  # not listening yet
            time.sleep(0.3)
        raise BrokerError(f"kafka not ready after {self.start_timeout}s; log:\n{self.log_tail()}")

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def stop(self, keep_logs: bool = False) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        if self.workdir is not None and not self.keep_dir:
            # after a failure the logs stay for a post-mortem, the (possibly large) log segments do not
            shutil.rmtree(self.workdir / "data" if keep_logs else self.workdir, ignore_errors=True)

    def __enter__(self) -> EmbeddedKafka:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop(keep_logs=exc[0] is not None)


@dataclass
class ExternalKafka(_KafkaClientMixin):
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

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# Testcontainers' Kafka module configures Confluent images (its KRaft set-up uses their env variables).
DEFAULT_KAFKA_IMAGE = "confluentinc/cp-kafka:7.9.0"


@dataclass
class TestcontainersKafka(_KafkaClientMixin):
    """Testcontainers' Kafka module in KRaft mode, for hosts with a Docker engine."""

    __test__ = False  # not a pytest test class despite the name
    image: str = DEFAULT_KAFKA_IMAGE
    name: str = "testcontainers"
    bootstrap_servers: str = ""
    _container: object | None = field(default=None, repr=False)

    def container_class(self):
        from testcontainers.community.kafka import KafkaContainer

        return KafkaContainer

    def container(self):
        """Building the container object already talks to Docker, so only `start` calls this."""
        return self.container_class()(image=self.image).with_kraft()

    def start(self) -> TestcontainersKafka:
        docker_error = docker_unavailable_reason()
        if docker_error:
            raise BrokerError(f"the testcontainers backend needs a Docker engine: {docker_error}; "
                              "use --broker embedded (the default) or --broker external")
        self._container = self.container().start()
        self.bootstrap_servers = self._container.get_bootstrap_server()  # type: ignore[attr-defined]
        return self

    def stop(self) -> None:
        container, self._container = self._container, None
        if container is not None:
            container.stop()  # type: ignore[attr-defined]

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def docker_unavailable_reason() -> str | None:
    """None when a Docker engine answers; otherwise why not, in one line."""
    try:
        import docker

        docker.from_env().ping()
        return None
    except Exception as error:  # docker raises several unrelated types for "no engine"
        return str(error).splitlines()[0] if str(error) else type(error).__name__


BACKENDS = ("embedded", "testcontainers", "external")


def make_broker(backend: str, bootstrap_servers: str | None = None, image: str | None = None):
    if backend == "embedded":
        return EmbeddedKafka()
    if backend == "external":
        return ExternalKafka(bootstrap_servers=bootstrap_servers or "")
    if backend == "testcontainers":
        return TestcontainersKafka(image=image or DEFAULT_KAFKA_IMAGE)
    raise ValueError(f"unknown broker backend {backend!r}; choose one of {', '.join(BACKENDS)}")
