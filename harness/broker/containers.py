"""The Testcontainers backend: a Kafka node in a container (apache/kafka or one built here), Testcontainers' lifecycle."""
from __future__ import annotations

import base64
import logging
import uuid
from dataclasses import dataclass, field

from cdc_conformance.harness.broker.base import TEST_BROKER_SETTINGS, Broker, BrokerError, free_port


def kafka_env(settings: dict[str, str]) -> dict[str, str]:
    """Server properties as the official apache/kafka image reads them from the environment:
    `KAFKA_` + upper case, '.' -> '_', '_' -> '__', '-' -> '___' (harness/docker/kafka's run script reverses it)."""
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
class TestcontainersKafka(Broker):
    """A Kafka node in a container, through Testcontainers' own lifecycle (create, wait strategy, ports,
    removal). `image`: `official` (apache/kafka at the pom's Kafka version, for users), `local` (built
    here from harness/docker/kafka on Maven-resolved jars) or any image following apache/kafka's conventions.

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
        container.ports["9092/tcp"] = ("127.0.0.1", host_port)  # type: ignore[assignment]  # docker's (ip, port) form: loopback only; testcontainers types only a port
        return container.waiting_for(LogMessageWaitStrategy(STARTED_LINE).with_startup_timeout(int(self.start_timeout)))

    def start(self) -> TestcontainersKafka:
        from cdc_conformance.harness import images

        docker_error = docker_unavailable_reason()
        if docker_error:
            raise BrokerError(f"the testcontainers backend needs a Docker engine: {docker_error}; "
                              "use --broker embedded (the default) or --broker external")
        _use_reaper_only_if_available()
        port = free_port()
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




def _use_reaper_only_if_available() -> None:
    """Testcontainers' reaper (Ryuk) removes containers of a process that died; it is itself an image.
    Where that image cannot be had (no registry), the reaper is disabled and `stop` is the only cleanup."""
    import docker
    from testcontainers.core.config import testcontainers_config as config

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
