"""A throwaway MariaDB server for the real-producer backend: `mariadb-install-db` in a temporary directory, the
binary log on in ROW format (the image FULL or MINIMAL), one loopback port, removed on stop."""
from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cdc_conformance.generators.history import Table
from cdc_conformance.harness.broker.base import free_port
from cdc_conformance.harness.processes import log_tail, started, stop_group
from cdc_conformance.harness.producers.postgres import ProducerUnavailable, run_as
from cdc_conformance.harness.producers.runs import PROGRESS_TABLE
from cdc_conformance.harness.producers.statements import MARIADB

USER, PASSWORD = "debezium", "debezium"  # the connector's account: replication and select, nothing else


def _binary(name: str) -> str:
    found = shutil.which(name) or (f"/usr/sbin/{name}" if Path(f"/usr/sbin/{name}").exists() else None)
    if found is None:
        raise ProducerUnavailable(f"no MariaDB server here ({name} not found; Debian: apt-get install mariadb-server)")
    return found


@dataclass
class MariaDbServer:
    database: str = "cdc"
    row_image: str = "FULL"      # binlog_row_image: FULL | MINIMAL
    start_timeout: float = 60.0
    port: int = 0
    workdir: Path | None = None
    server: str = field(default_factory=lambda: _binary("mariadbd"))
    _process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def version(self) -> str:
        out = subprocess.run([self.server, "--version"], capture_output=True, text=True).stdout
        return out.split()[2].split("-")[0]  # "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu ..."

    @property
    def directory(self) -> Path:
        """The running server's directory (its data, socket, logs)."""
        if self.workdir is None:
            raise ProducerUnavailable("the MariaDB server is not started")
        return self.workdir

    @property
    def socket(self) -> Path:
        return self.directory / "socket"

    def _settings(self, user: str | None) -> str:
        lines = {
            "datadir": self.directory / "data", "socket": self.socket, "port": self.port, "bind-address": "127.0.0.1",
            "pid-file": self.directory / "server.pid", "log-error": self.directory / "server.log",
            "log-bin": self.directory / "data" / "binlog", "binlog-format": "ROW", "binlog-row-image": self.row_image,
            # a multi-row INSERT stays one Rows event (generators.history.Transaction.multi_row_inserts): past the
            # default 8 KiB the server starts another, at another position
            "binlog-row-event-max-size": 64 * 1024 * 1024,
            "server-id": 1, "skip-name-resolve": None, "character-set-server": "utf8mb4",
            "collation-server": "utf8mb4_bin", "default-time-zone": "+00:00",
            # a throwaway server: no durability, little memory
            "innodb-buffer-pool-size": "32M", "innodb-log-file-size": "16M", "innodb-flush-log-at-trx-commit": 0,
            "sync-binlog": 0, "max-connections": 20, "performance-schema": "OFF",
        }
        if user:
            lines["user"] = user
        return "[mariadbd]\n" + "".join(key + ("" if value is None else f"={value}") + "\n" for key, value in lines.items())

    def start(self) -> MariaDbServer:
        user = run_as("mysql")
        install = _binary("mariadb-install-db")
        self.workdir = Path(tempfile.mkdtemp(prefix="cdc-mariadb-"))
        if user:
            shutil.chown(self.workdir, user)
        self.port = free_port()
        (self.workdir / "my.cnf").write_text(self._settings(user))
        made = subprocess.run([install, f"--defaults-file={self.workdir / 'my.cnf'}", "--skip-test-db",
                               "--auth-root-authentication-method=normal"], capture_output=True, text=True, cwd="/")
        if made.returncode != 0:
            self.stop()
            raise ProducerUnavailable(f"mariadb-install-db failed: {(made.stderr or made.stdout).strip()[-500:]}")
        self._process = started(subprocess.Popen([self.server, f"--defaults-file={self.workdir / 'my.cnf'}"],
                                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                                 start_new_session=True, cwd="/"))
        try:
            self._wait_ready()
            with self.connect(database=None, user="root") as connection, connection.cursor() as cursor:
                for statement in (f"CREATE DATABASE {self.database}",
                                  f"CREATE USER '{USER}'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'",
                                  f"GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, "
                                  f"BINLOG MONITOR, LOCK TABLES ON *.* TO '{USER}'@'127.0.0.1'"):
                    cursor.execute(statement)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        import pymysql

        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            process = self._process
            if process is None or process.poll() is not None:
                raise ProducerUnavailable(f"MariaDB exited with {process and process.returncode}:\n{self.log_tail()}")
            try:
                self.connect(database=None, user="root").close()
                return
            except pymysql.err.OperationalError:
                time.sleep(0.1)
        raise ProducerUnavailable(f"MariaDB not ready after {self.start_timeout}s:\n{self.log_tail()}")

    def connect(self, database: str | None = "", user: str = "root", autocommit: bool = True):
        """A connection over the server's socket (root: no password there); `database` "" is the server's one. Its
        zone is UTC and its sql_mode relaxed (not strict), as many applications run: an ENUM takes '', its
        invalid-value member, which the generators draw."""
        import pymysql

        return pymysql.connect(unix_socket=str(self.socket), user=user, autocommit=autocommit, charset="utf8mb4",
                               database=self.database if database == "" else database, connect_timeout=10,
                               init_command="SET time_zone = '+00:00', sql_mode = 'NO_ENGINE_SUBSTITUTION'")

    def create_tables(self, table: Table) -> None:
        """The history's table (its schema a database) and the progress table every real run ends on."""
        self.run_transactions([[*MARIADB.create_table(table), f"CREATE DATABASE {PROGRESS_TABLE[0]}",
                                f"CREATE TABLE {'.'.join(PROGRESS_TABLE)} (id int PRIMARY KEY)"]])

    def mark_progress(self) -> None:
        """The progress row: its record on the producer's topic says every record before it is there."""
        self.run_transactions([[f"INSERT INTO {'.'.join(PROGRESS_TABLE)} VALUES (1)"]])

    def streams_binlog(self) -> bool:
        """Whether a replica (the producer, as USER) has its `Binlog Dump` running: what it reads from then on."""
        with self.connect(database=None) as connection, connection.cursor() as cursor:
            return cursor.execute("SELECT 1 FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump' "
                                  "AND USER = %s", (USER,)) > 0

    def run_transactions(self, transactions) -> None:
        """Each transaction's statements (SQL text or statements.Statement) in one transaction, in order."""
        with self.connect(database=None) as connection, connection.cursor() as cursor:
            for transaction in transactions:
                connection.begin()
                for statement in transaction:
                    if isinstance(statement, str):
                        cursor.execute(statement)
                    else:
                        cursor.execute(statement.sql, statement.parameters)
                connection.commit()

    def rows(self, table: Table) -> list[dict]:
        """The table's rows, each value as the generators hold it (`_python_value`)."""
        names = [c.name for c in table.columns]
        with self.connect(database=None) as connection, connection.cursor() as cursor:
            cursor.execute(f"SELECT {', '.join(map(MARIADB.quoted, names))} FROM {MARIADB.table_name(table)}")
            return [{c.name: _python_value(c.logical.kind, value, c.logical.labels) for c, value in zip(table.columns, row)}
                    for row in cursor.fetchall()]

    def log_tail(self, lines: int = 30) -> str:
        return log_tail(self.workdir and self.workdir / "server.log", lines, "(no server log)")

    def stop(self) -> None:
        process, self._process = self._process, None
        stop_group(process)  # SIGTERM, then SIGKILL: the server is thrown away
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def __enter__(self) -> MariaDbServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _python_value(kind: str, value, labels: tuple[str, ...] = ()):
    """A value as PyMySQL reads it, as the generators hold it: BIT(n) comes as bytes (big-endian), a geometry in the
    server's own form, TIME as a timedelta, and TIMESTAMP as the zone-less time in the session's zone (UTC)."""
    if value is None:
        return None
    if kind == "BOOLEAN":
        return value != b"\x00"
    if kind == "BITS":
        return int.from_bytes(value, "big")
    if kind == "GEOMETRY":  # MariaDB's own form: the SRID (4 bytes, little-endian), then the WKB
        return int.from_bytes(value[:4], "little"), value[4:]
    if kind == "TIME":
        return (dt.datetime.min + value).time()
    if kind == "DURATION":  # PyMySQL reads TIME as a timedelta, which a duration is
        return value
    if kind == "TIMESTAMP_TZ":
        return value.replace(tzinfo=dt.UTC)
    if kind == "SET" and isinstance(value, set):  # PyMySQL reads a SET as a Python set
        return ",".join(label for label in labels if label in value)
    return value
