"""A throwaway PostgreSQL cluster for the real-producer backend: initdb in a temporary directory, logical
decoding on, one loopback port, removed on stop (its replication slots with it)."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cdc_conformance.harness.broker.base import free_port
from cdc_conformance.harness.processes import log_tail


class ProducerUnavailable(RuntimeError):
    """What the real-producer tier needs is missing on this machine (the reason is the message)."""


def _bin_dir() -> Path:
    """The newest installed server's binaries (Debian: /usr/lib/postgresql/<major>/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is None:
        raise ProducerUnavailable("no PostgreSQL server here (initdb not found; Debian: apt-get install postgresql)")
    return Path(initdb).parent


def run_as(user: str) -> str | None:
    """Database servers refuse to run as root: as root, they run as their package's system user (`user`)."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(user)
    except KeyError as error:
        raise ProducerUnavailable(f"running as root without a `{user}` user to run the server as") from error
    return user


@dataclass
class PostgresCluster:
    database: str = "cdc"
    start_timeout: float = 60.0
    port: int = 0
    workdir: Path | None = None
    bin_dir: Path = field(default_factory=_bin_dir)
    _user: str | None = field(default=None, repr=False)
    _started: bool = field(default=False, repr=False)

    @property
    def version(self) -> str:
        out = subprocess.run([str(self.bin_dir / "postgres"), "--version"], capture_output=True, text=True).stdout
        return out.split()[2]  # "postgres (PostgreSQL) 15.18 (Debian ...)"

    def _command(self, *args: str) -> list[str]:
        return ["runuser", "-u", self._user, "--", *args] if self._user else list(args)

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(self._command(*args), capture_output=True, text=True, cwd="/")

    @property
    def data_dir(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "data"

    def start(self) -> PostgresCluster:
        self._user = run_as("postgres")
        self.workdir = Path(tempfile.mkdtemp(prefix="cdc-postgres-"))
        if self._user:
            shutil.chown(self.workdir, self._user)
        self.port = free_port()
        made = self._run(str(self.bin_dir / "initdb"), "-D", str(self.data_dir), "-U", "postgres", "--auth=trust",
                         "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        if made.returncode != 0:
            self.stop()
            raise ProducerUnavailable(f"initdb failed: {(made.stderr or made.stdout).strip()[-500:]}")
        with open(self.data_dir / "postgresql.conf", "a") as conf:
            conf.write("\n".join([
                "listen_addresses = '127.0.0.1'", f"port = {self.port}", f"unix_socket_directories = '{self.workdir}'",
                "wal_level = logical", "max_replication_slots = 4", "max_wal_senders = 4",
                "fsync = off", "synchronous_commit = off", "full_page_writes = off",  # a throwaway cluster
                "shared_buffers = 32MB", "max_connections = 20",
                # a timestamptz's text (a tstzrange's bounds) is printed in the session's zone: the harness reads back
                # in the server's, the connector in its JVM's (ConnectWorker runs it in UTC)
                "timezone = 'UTC'", ""]))
        started = self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.workdir / "server.log"),
                            "-w", "-t", str(int(self.start_timeout)), "start")
        self._started = True
        if started.returncode != 0:
            log = self.log_tail()
            self.stop()
            raise ProducerUnavailable(f"PostgreSQL did not start: {started.stderr.strip()[-300:]}\n{log}")
        self.execute(f"CREATE DATABASE {self.database}", database="postgres")
        for extension in ("ltree", "hstore"):  # types the histories hold (contrib, in Debian's server package)
            self.execute(f"CREATE EXTENSION {extension}")
        return self

    def log_tail(self, lines: int = 30) -> str:
        return log_tail(self.workdir and self.workdir / "server.log", lines, "(no server log)")

    def connect(self, database: str | None = None, autocommit: bool = True):
        import psycopg

        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=database or self.database,
                               autocommit=autocommit, connect_timeout=10)

    def execute(self, statement: str, database: str | None = None) -> None:
        with self.connect(database) as connection:
            connection.execute(statement)

    def stop(self) -> None:
        if self._started and self.workdir is not None:
            self._started = False
            # immediate: the cluster is thrown away, nothing needs a clean checkpoint
            self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "-w", "stop")
            deadline = time.monotonic() + 10
            while (self.data_dir / "postmaster.pid").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def __enter__(self) -> PostgresCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
