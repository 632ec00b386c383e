"""A real schema registry, started by the harness like the broker: Apicurio Registry's application (harness/maven/
schema-registry, built once into the cache by Maven and Quarkus's plugin), its storage H2 in memory, on a free loopback
port, its Confluent-compatible API (`/apis/ccompat/v6`) what Kafka Connect's Avro converters and the normalizer talk
to. One process per registry, its log in a temporary directory removed on stop (kept when the start failed).

Only the tiers that need a registry start one; nothing here runs at bootstrap.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from cdc_conformance.harness import jvm
from cdc_conformance.harness.broker.base import free_port
from cdc_conformance.harness.processes import log_tail, started, stop_group

CONFLUENT_API = "/apis/ccompat/v6"
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


class SchemaRegistryError(RuntimeError):
    """The registry did not start, or answered a request with an error: what it said."""


class RegistryClient:
    """The Confluent-compatible API of a registry at `url`, as a converter uses it."""

    # one registration at a time from this process: Apicurio 2.4's in-memory H2 storage answered two concurrent ones
    # (the runner's formats and option groups run on threads) with 500 "Timeout trying to lock table"
    _registering = threading.Lock()

    @property
    def url(self) -> str:
        raise NotImplementedError

    def request(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={"Content-Type": CONTENT_TYPE})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise SchemaRegistryError(f"{method} {path}: {error.code} {error.read()[:500]!r}") from error

    def subjects(self) -> list[str]:
        return self.request("GET", "/subjects")

    def register(self, subject: str, schema: str) -> int:
        """The id of `schema` (an Avro schema's JSON text) under `subject`, registered if it is new there."""
        with RegistryClient._registering:
            return int(self.request("POST", f"/subjects/{quote(subject, safe='')}/versions", {"schema": schema})["id"])

    def schema(self, schema_id: int) -> str:
        return self.request("GET", f"/schemas/ids/{int(schema_id)}")["schema"]


@dataclass
class ExternalSchemaRegistry(RegistryClient):
    """A registry the harness does not run (`--schema-registry URL`: a team's own, or a Connect server's)."""

    address: str

    @property
    def url(self) -> str:
        return self.address.rstrip("/")

    def __enter__(self) -> ExternalSchemaRegistry:
        return self

    def __exit__(self, *exc) -> None:
        pass


@dataclass
class SchemaRegistry(RegistryClient):
    start_timeout: float = 180.0
    port: int = 0
    workdir: Path | None = None
    _process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The Confluent-compatible API's base URL (what a converter's `schema.registry.url` names)."""
        return f"http://127.0.0.1:{self.port}{CONFLUENT_API}"

    def start(self) -> SchemaRegistry:
        if self._process is not None:  # `with SchemaRegistry().start()` must not start a second (the first was left running)
            return self
        (runner,) = [jar for jar in jvm.ensure(jvm.schema_registry_artifacts()) if jar.name.endswith("-runner.jar")]
        self.workdir = Path(tempfile.mkdtemp(prefix="cdc-registry-"))
        self.port = self.port or free_port()
        command = [jvm.java_executable(), "-Xmx384m", "-XX:TieredStopAtLevel=1", "-Duser.timezone=UTC",
                   f"-Dquarkus.http.port={self.port}", "-Dquarkus.http.host=127.0.0.1", "-jar", str(runner)]
        with open(self.workdir / "registry.log", "ab") as log:
            self._process = started(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                                     cwd=self.workdir))
        try:
            self._wait_ready()
        except BaseException:
            self.stop(keep_log=True)
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise SchemaRegistryError(f"the schema registry exited ({self._process.returncode}):\n{self._log_tail()}")
            try:
                self.subjects()
                return
            except (OSError, SchemaRegistryError):
                time.sleep(0.5)
        raise SchemaRegistryError(f"the schema registry did not answer within {self.start_timeout:.0f} s:\n{self._log_tail()}")

    def _log_tail(self) -> str:
        return log_tail(self.workdir / "registry.log" if self.workdir else None, 30, "(no log)")

    def stop(self, keep_log: bool = False) -> None:
        stop_group(self._process)
        self._process = None
        if self.workdir is not None and not keep_log:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> SchemaRegistry:
        return self.start()

    def __exit__(self, kind, error, traceback) -> None:
        self.stop(keep_log=error is not None and not isinstance(error, SystemExit))


class LazySchemaRegistry(RegistryClient):
    """The harness's own registry for a run, started on first use: a run whose records name no schema, and whose
    formats need none, never starts one. `stop()` stops it if it started."""

    def __init__(self) -> None:
        self._started: SchemaRegistry | None = None
        # the runner runs formats on threads of its own: two asking at once must not start two (one would be left running)
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        with self._lock:
            if self._started is None:
                self._started = SchemaRegistry().start()
            return self._started.url

    def stop(self) -> None:
        with self._lock:
            if self._started is not None:
                self._started.stop()
                self._started = None

    def __enter__(self) -> LazySchemaRegistry:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def registered(records: Iterable, registry: RegistryClient | None) -> Iterator:
    """`records` as they go to the broker, one at a time (a benchmark's million are never held at once): each key and
    value that names a writer schema (`KafkaRecord.registrations`) with that schema registered and its id written
    after the magic byte. Without registrations, as they are; with some and no registry, an error naming the
    records' subject."""
    from dataclasses import replace

    ids: dict[tuple[str, str], int] = {}
    for record in records:
        if not record.registrations:
            yield record
            continue
        if registry is None:
            raise SchemaRegistryError(f"{record.topic}: its records name schemas ({record.registrations[0][1].subject}) "
                                      "and no schema registry runs")
        parts = {}
        for part, registration in record.registrations:
            wanted = (registration.subject, registration.schema)
            if wanted not in ids:
                ids[wanted] = registry.register(*wanted)
            written = getattr(record, part)
            parts[part] = written[:1] + ids[wanted].to_bytes(4, "big") + written[5:]
        yield replace(record, **parts)
