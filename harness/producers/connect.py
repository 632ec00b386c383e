"""Kafka Connect standalone with a Debezium connector, from Maven-resolved jars (harness/maven/kafka-connect): one
worker process per run, its configuration, offsets and log in a temporary directory removed on stop."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from cdc_conformance.harness import jvm
from cdc_conformance.harness.broker.base import free_port
from cdc_conformance.harness.jvm import DEFAULT_DEBEZIUM_VERSION
from cdc_conformance.harness.processes import LOG4J2_TO_FILE, log_tail, started, stop_group
from cdc_conformance.harness.producers.postgres import ProducerUnavailable


def converter_classpath(setting) -> list:
    """The jars a run's setting adds after Connect's: Kafka Connect's Avro converter where it writes Avro."""
    return jvm.ensure(jvm.avro_converter_artifacts()) if setting.avro_converter else []


def _properties(settings: dict[str, object]) -> str:
    return "".join(f"{key}={value}\n" for key, value in settings.items())


@dataclass
class ConnectWorker:
    """One standalone worker running one connector (`connector`: its settings) against `bootstrap_servers`."""

    bootstrap_servers: str
    connector: dict[str, object]
    debezium_version: str = DEFAULT_DEBEZIUM_VERSION
    connector_artifact: str = "postgres"   # debezium-connector-<this>
    worker_settings: dict = field(default_factory=dict)  # converter properties a run's setting chooses
    extra_classpath: list = field(default_factory=list)  # jars after Connect's (a converter's: Kafka's own classes win)
    start_timeout: float = 90.0
    workdir: Path | None = None
    _process: subprocess.Popen | None = field(default=None, repr=False)
    _port: int = 0

    @property
    def name(self) -> str:
        return str(self.connector["name"])

    def start(self) -> ConnectWorker:
        try:
            classpath = os.pathsep.join(str(jar) for jar in [*jvm.ensure(
                jvm.kafka_connect_artifacts(self.debezium_version, self.connector_artifact)), *self.extra_classpath])
        except jvm.ArtifactError as error:
            raise ProducerUnavailable(f"Debezium {self.connector_artifact} {self.debezium_version} from Maven: "
                                      f"{str(error).splitlines()[0]}") from error
        self.workdir = Path(tempfile.mkdtemp(prefix="cdc-connect-"))
        self._port = free_port()
        converter = "org.apache.kafka.connect.json.JsonConverter"
        (self.workdir / "worker.properties").write_text(_properties({
            "bootstrap.servers": self.bootstrap_servers,
            "key.converter": converter, "value.converter": converter,
            "key.converter.schemas.enable": "true", "value.converter.schemas.enable": "true",
            "offset.storage.file.filename": self.workdir / "offsets",
            "offset.flush.interval.ms": 1000,
            "listeners": f"http://127.0.0.1:{self._port}",
            "plugin.discovery": "only_scan",  # the connector is on the classpath; no plugin.path to scan
            **self.worker_settings,
        }))
        (self.workdir / "connector.properties").write_text(_properties(self.connector))
        (self.workdir / "log4j2.properties").write_text(LOG4J2_TO_FILE.format(log=self.workdir / "connect.log", level="INFO"))
        command = [jvm.java_executable(), "-Xmx512m", "-XX:TieredStopAtLevel=1", "-Duser.timezone=UTC",
                   f"-Dlog4j2.configurationFile={self.workdir / 'log4j2.properties'}",
                   "-cp", classpath, "org.apache.kafka.connect.cli.ConnectStandalone",
                   str(self.workdir / "worker.properties"), str(self.workdir / "connector.properties")]
        self._process = started(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(self.workdir / "stderr.log", "ab"),
                                                 start_new_session=True, cwd=self.workdir))
        try:
            self._wait_running()
        except BaseException:
            self.stop()
            raise
        return self

    def status(self) -> dict | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self._port}/connectors/{self.name}/status", timeout=2) as reply:
                return json.load(reply)
        except (OSError, ValueError):
            return None

    def _wait_running(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            process = self._process
            if process is None or process.poll() is not None:
                raise ProducerUnavailable(f"Kafka Connect exited with {process and process.returncode}:\n{self.log_tail()}")
            status = self.status()
            tasks = (status or {}).get("tasks", [])
            if any(task.get("state") == "FAILED" for task in tasks):
                raise RuntimeError(f"connector task failed: {tasks[0].get('trace', '')[:2000]}")
            if tasks and all(task.get("state") == "RUNNING" for task in tasks):
                return
            time.sleep(0.2)
        raise RuntimeError(f"connector {self.name} not running after {self.start_timeout}s:\n{self.log_tail()}")

    def failure(self) -> str | None:
        """The task's failure trace, if it failed since it started."""
        status = self.status() or {}
        failed = [task for task in status.get("tasks", []) if task.get("state") == "FAILED"]
        return failed[0].get("trace", "FAILED")[:2000] if failed else None

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.workdir and self.workdir / "connect.log", lines, "(no Connect log)")

    def stop(self) -> None:
        process, self._process = self._process, None
        stop_group(process)
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def __enter__(self) -> ConnectWorker:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
