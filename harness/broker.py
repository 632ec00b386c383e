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
                                     on_delivery=report(index))
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
}


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
    # KRaft's cluster id: a random uuid in URL-safe base64, which may start with '-' (the storage tool must not
    # read it as an option: tests/integration/test_broker_lifecycle.py starts one that does)
    cluster_id: str = field(default_factory=lambda: base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))
    bootstrap_servers: str = ""
    workdir: Path | None = None
    _process: subprocess.Popen | None = field(default=None, repr=False)
    _config: Path | None = field(default=None, repr=False)

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
            *(f"{name}={value}" for name, value in TEST_BROKER_SETTINGS.items()),
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
        self._config = self._write_config(port, controller_port)
        # `--cluster-id=ID`, not `-t ID`: a base64 id may start with '-' and would parse as an option
        formatted = subprocess.run(self._java("kafka.tools.StorageTool", "format", f"--cluster-id={self.cluster_id}",
                                              "-c", str(self._config), "--ignore-formatted"),
                                   capture_output=True, text=True)
        if formatted.returncode != 0:
            self.stop()  # the error carries the tool's output; the temp dir goes (unless keep_dir)
            raise BrokerError(f"kafka storage format failed:\n{formatted.stdout}\n{formatted.stderr}")
        self.bootstrap_servers = f"127.0.0.1:{port}"
        self._launch()
        return self

    def _launch(self) -> None:
        assert self.workdir is not None
        self._process = subprocess.Popen(self._java("kafka.Kafka", str(self._config)), stdout=subprocess.DEVNULL,
                                         stderr=open(self.workdir / "stderr.log", "ab"),
                                         start_new_session=True)
        try:
            self._wait_ready()  # its errors quote the broker log, so the temp dir need not stay
        except BaseException:
            self.stop()
            raise

    def crash(self) -> None:
        """SIGKILL the broker (no shutdown, no flush); its storage stays for `recover`."""
        process, self._process = self._process, None
        if process is not None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)

    def recover(self) -> None:
        """Start the broker again on the same storage and ports, as after a machine restart."""
        if self._process is None:
            self._launch()

    def _wait_ready(self) -> None:
        if not self._listed_within(self.start_timeout, self._exit_message):
            raise BrokerError(f"kafka not ready after {self.start_timeout}s; log:\n{self.log_tail()}")

    def _exit_message(self) -> str | None:
        if self._process is not None and self._process.poll() is not None:
            return f"kafka exited with {self._process.returncode} while starting; log:\n{self.log_tail()}"
        return None

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


def kafka_env(settings: dict[str, str]) -> dict[str, str]:
    """Server properties as the official apache/kafka image reads them from the environment:
    `KAFKA_` + upper case, '.' -> '_', '_' -> '__', '-' -> '___' (docker/kafka's run script reverses it)."""
    def name(prop: str) -> str:
        return "KAFKA_" + prop.replace("_", "__").replace("-", "___").replace(".", "_").upper()
    return {name(prop): value for prop, value in settings.items()}


def kafka_node_settings(host_port: int) -> dict[str, str]:
    """One KRaft node (broker and controller) in a container, reachable from the host at 127.0.0.1:host_port.
    Clients get the host address; the node talks to itself on listeners that exist inside the container."""
    return {
        "node.id": "1",
        "process.roles": "broker,controller",
        "listeners": "PLAINTEXT://0.0.0.0:9092,BROKER://0.0.0.0:9091,CONTROLLER://0.0.0.0:9093",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{host_port},BROKER://localhost:9091",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name": "BROKER",
        "controller.listener.names": "CONTROLLER",
        "controller.quorum.voters": "1@localhost:9093",
        **TEST_BROKER_SETTINGS,
    }


STARTED_LINE = "Kafka Server started"  # KafkaRaftServer's last start-up line, in both images


@dataclass
class TestcontainersKafka(_KafkaClientMixin):
    """A Kafka node in a container, through Testcontainers' own lifecycle (create, wait strategy, ports,
    removal). `image`: `official` (apache/kafka at the pom's Kafka version, for users), `local` (built
    here from docker/kafka on Maven-resolved jars) or any image following apache/kafka's conventions.

    The host port is chosen before the container starts and bound on 127.0.0.1 only, so the advertised
    address is right from the first start and stays right when the container is stopped and started again.
    """

    __test__ = False  # not a pytest test class despite the name
    image: str | None = None
    name: str = "testcontainers"
    bootstrap_servers: str = ""
    start_timeout: float = 120.0
    image_name: str = ""  # the image `image` resolved to
    _container: object | None = field(default=None, repr=False)

    def container(self, image: str, host_port: int):
        """Building the container object already talks to Docker, so only `start` calls this."""
        from testcontainers.core.container import DockerContainer
        from testcontainers.core.wait_strategies import LogMessageWaitStrategy

        container = DockerContainer(image).with_envs(
            CLUSTER_ID=base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=").replace("-", "A"),
            **kafka_env(kafka_node_settings(host_port)))
        container.ports["9092/tcp"] = ("127.0.0.1", host_port)  # docker's (ip, port) form: loopback only
        return container.waiting_for(LogMessageWaitStrategy(STARTED_LINE).with_startup_timeout(int(self.start_timeout)))

    def start(self) -> TestcontainersKafka:
        from harness import images

        docker_error = docker_unavailable_reason()
        if docker_error:
            raise BrokerError(f"the testcontainers backend needs a Docker engine: {docker_error}; "
                              "use --broker embedded (the default) or --broker external")
        _use_reaper_only_if_available()
        port = _free_port()
        self.image_name = images.resolve(self.image)
        container = self.container(self.image_name, port)
        try:
            container.start()
        except BaseException as error:
            container.stop()  # a container that never became ready is removed too
            raise BrokerError(f"the Kafka container did not start: {str(error).splitlines()[0]}") from error
        self._container = container
        self.bootstrap_servers = f"127.0.0.1:{port}"
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        if not self._listed_within(self.start_timeout):
            raise BrokerError(f"the Kafka container is not reachable at {self.bootstrap_servers}")

    @property
    def container_id(self) -> str | None:
        return self._container.get_wrapped_container().id if self._container is not None else None  # type: ignore[attr-defined]

    def crash(self) -> None:
        """Kill the container's broker (SIGKILL); the container and its storage stay for `recover`."""
        self._container.get_wrapped_container().kill()  # type: ignore[attr-defined]

    def recover(self) -> None:
        self._container.get_wrapped_container().start()  # type: ignore[attr-defined]
        self._wait_ready()

    def stop(self) -> None:
        container, self._container = self._container, None
        if container is not None:
            container.stop()  # type: ignore[attr-defined]  # removes the container and its volumes

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _use_reaper_only_if_available() -> None:
    """Testcontainers' reaper (Ryuk) removes containers of a process that died; it is itself an image.
    Where that image cannot be had (no registry), the reaper is disabled and `stop` is the only cleanup."""
    from testcontainers.core.config import testcontainers_config as config

    import docker

    if config.ryuk_disabled:
        return
    client = docker.from_env()
    try:
        client.images.get(config.ryuk_image)
    except docker.errors.ImageNotFound:
        try:
            client.images.pull(config.ryuk_image)
        except docker.errors.APIError:
            logging.getLogger(__name__).warning("no %s here: Testcontainers' reaper disabled", config.ryuk_image)
            config.ryuk_disabled = True


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
        return TestcontainersKafka(image=image)
    raise ValueError(f"unknown broker backend {backend!r}; choose one of {', '.join(BACKENDS)}")
