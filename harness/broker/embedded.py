"""The embedded backend: a real Apache Kafka broker+controller process (KRaft, one node) from Maven-resolved jars."""
from __future__ import annotations

import base64
import os
import shutil
import signal
import subprocess
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from cdc_conformance.harness import jvm
from cdc_conformance.harness.broker.base import TEST_BROKER_SETTINGS, Broker, BrokerError, free_port
from cdc_conformance.harness.processes import LOG4J2_TO_FILE, log_tail, started, stop_group


@dataclass
class EmbeddedKafka(Broker):
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
    # a second listener for clients that must authenticate, as production clusters do: SASL/SCRAM-SHA-512 over
    # TLS with a self-signed certificate made at start (its PEM at `ca_file`), for this (user, password)
    secured_user: tuple[str, str] | None = None
    secured_bootstrap_servers: str = ""
    ca_file: Path | None = None
    kafka_version: str | None = None  # None: harness/maven/kafka-broker's; the canal run's broker is older
    _process: subprocess.Popen | None = field(default=None, repr=False)
    _config: Path | None = field(default=None, repr=False)

    @property
    def log_file(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "server.log"

    def log_tail(self, lines: int = 60) -> str:
        return log_tail(self.workdir and self.log_file, lines, "(no broker log)")

    def _write_config(self, port: int, controller_port: int) -> Path:
        assert self.workdir is not None
        config = self.workdir / "server.properties"
        secured = self._secured_listener() if self.secured_user else {}
        listeners = [f"PLAINTEXT://127.0.0.1:{port}", *secured.get("listeners", []), f"CONTROLLER://127.0.0.1:{controller_port}"]
        config.write_text("\n".join([
            "process.roles=broker,controller",
            "node.id=1",
            f"controller.quorum.voters=1@127.0.0.1:{controller_port}",
            f"listeners={','.join(listeners)}",
            f"advertised.listeners={','.join(listeners[:-1])}",
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" + secured.get("protocol", ""),
            *secured.get("settings", []),
            f"log.dirs={self.workdir / 'data'}",
            *(f"{name}={value}" for name, value in TEST_BROKER_SETTINGS.items()),
            "",
        ]))
        (self.workdir / "log4j2.properties").write_text(
            LOG4J2_TO_FILE.format(log=self.log_file, level=os.environ.get("CDC_KAFKA_LOG_LEVEL", "INFO")))
        return config

    def _secured_listener(self) -> dict:
        """The SECURED listener: SASL/SCRAM-SHA-512 over TLS, its keystore made here with the JDK's keytool."""
        assert self.workdir is not None
        port, password = free_port(), uuid.uuid4().hex
        keystore, self.ca_file = self.workdir / "broker.p12", self.workdir / "ca.pem"
        keytool = str(Path(jvm.java_executable()).with_name("keytool"))
        for args in (["-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                      "-dname", "CN=localhost", "-ext", "SAN=IP:127.0.0.1,DNS:localhost", "-keystore", str(keystore),
                      "-storetype", "PKCS12", "-storepass", password, "-keypass", password],
                     ["-exportcert", "-rfc", "-alias", "broker", "-keystore", str(keystore), "-storepass", password,
                      "-file", str(self.ca_file)]):
            made = subprocess.run([keytool, *args], capture_output=True, text=True)
            if made.returncode != 0:
                raise BrokerError(f"keytool failed: {(made.stderr or made.stdout).strip().splitlines()[-1:]}")
        self.secured_bootstrap_servers = f"127.0.0.1:{port}"
        return {"listeners": [f"SECURED://127.0.0.1:{port}"], "protocol": ",SECURED:SASL_SSL",
                "settings": ["sasl.enabled.mechanisms=SCRAM-SHA-512",
                             "listener.name.secured.scram-sha-512.sasl.jaas.config="
                             "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                             f"listener.name.secured.ssl.keystore.location={keystore}",
                             "listener.name.secured.ssl.keystore.type=PKCS12",
                             f"listener.name.secured.ssl.keystore.password={password}",
                             f"listener.name.secured.ssl.key.password={password}"]}

    def _java(self, main_class: str, *args: str) -> list[str]:
        assert self.workdir is not None
        return [
            jvm.java_executable(), f"-Xmx{self.heap}", f"-Xms{self.heap}", "-XX:+UseG1GC",
            "-XX:TieredStopAtLevel=1",  # faster start; the broker is never the bottleneck here
            f"-Dlog4j2.configurationFile={self.workdir / 'log4j2.properties'}",
            "-Djava.awt.headless=true", "-cp", jvm.kafka_broker_classpath(self.kafka_version), main_class, *args,
        ]

    def start(self) -> EmbeddedKafka:
        if self._process is not None:
            return self
        self.workdir = Path(tempfile.mkdtemp(prefix="cdc-kafka-"))
        try:
            port, controller_port = free_port(), free_port()
            self._config = self._write_config(port, controller_port)
            # `--cluster-id=ID`, not `-t ID`: a base64 id may start with '-' and would parse as an option
            scram = ([f"--add-scram=SCRAM-SHA-512=[name={self.secured_user[0]},password={self.secured_user[1]}]"]
                     if self.secured_user else [])  # KRaft stores SCRAM credentials at format time
            formatted = subprocess.run(self._java("kafka.tools.StorageTool", "format", f"--cluster-id={self.cluster_id}",
                                                  "-c", str(self._config), "--ignore-formatted", *scram),
                                       capture_output=True, text=True)
        except BaseException:  # no java on PATH, no broker jars: nothing started, nothing left behind
            self.stop()
            raise
        if formatted.returncode != 0:
            self.stop()  # the error carries the tool's output; the temp dir goes (unless keep_dir)
            raise BrokerError(f"kafka storage format failed:\n{formatted.stdout}\n{formatted.stderr}")
        self.bootstrap_servers = f"127.0.0.1:{port}"
        self._launch()
        return self

    def _launch(self) -> None:
        assert self.workdir is not None
        self._process = started(subprocess.Popen(self._java("kafka.Kafka", str(self._config)), stdout=subprocess.DEVNULL,
                                                 stderr=open(self.workdir / "stderr.log", "ab"),
                                                 start_new_session=True))
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
        stop_group(process)
        if self.workdir is not None and not self.keep_dir:
            # after a failure the logs stay for a post-mortem, the (possibly large) log segments do not
            shutil.rmtree(self.workdir / "data" if keep_logs else self.workdir, ignore_errors=True)

    def __exit__(self, *exc) -> None:
        # a failure keeps the broker's logs for a post-mortem; a command that exits inside the block (`sys.exit(0)`,
        # or 1 for failed cases: the broker did its part) is no broker failure, and leaves nothing behind
        failed = exc[0] is not None and not (issubclass(exc[0], SystemExit) and exc[1].code in (None, 0, 1))
        self.stop(keep_logs=failed)
