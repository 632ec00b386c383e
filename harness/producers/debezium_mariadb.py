"""One drawn history through the real producer: MariaDB (a throwaway server, binary log in ROW format) -> Debezium's
MariaDB connector on Kafka Connect -> the broker. What comes back is what the connector wrote, byte for byte, with
the database's final state and the versions that wrote it (harness.producers.runs: how a run waits).

The connector reads the binary log only after its snapshot; a statement that changes a table's definition
(TRUNCATE is one) while the snapshot's transaction is open fails the snapshot ("Table definition has changed"),
so the history streams once the connector's binlog dump is on the server's process list.
"""
from __future__ import annotations

import random
import uuid

from cdc_conformance.generators import debezium
from cdc_conformance.generators.history import History
from cdc_conformance.harness.jvm import DEFAULT_MARIADB_DEBEZIUM_VERSION
from cdc_conformance.harness.producers.connect import ConnectWorker, converter_classpath
from cdc_conformance.harness.producers.mariadb import PASSWORD, USER, MariaDbServer
from cdc_conformance.harness.producers.runs import (
    CONNECTOR_SETTINGS,
    PROGRESS_TABLE,
    RealRun,
    read_topic,
    run_names,
    wait_for_progress,
    wait_for_streaming,
)
from cdc_conformance.harness.producers.settings import DEFAULT, Setting
from cdc_conformance.harness.producers.statements import MARIADB


def connector_settings(run_id: str, server: MariaDbServer, history: History, prefix: str, snapshot: bool,
                       debezium_version: str = DEFAULT_MARIADB_DEBEZIUM_VERSION) -> dict:
    return table_connector_settings(run_id, server, history.table.schema, history.table.name, prefix, snapshot,
                                    debezium_version)


def table_connector_settings(run_id: str, server: MariaDbServer, database: str, table: str, prefix: str, snapshot: bool,
                             debezium_version: str = DEFAULT_MARIADB_DEBEZIUM_VERSION) -> dict:
    """The connector's settings for one table `database`.`table`."""
    if not uses_mariadb_connector(debezium_version):
        return _mysql_connector_settings(run_id, server, database, table, prefix, snapshot)
    release = debezium.Profile(version=debezium_version).release
    return {
        **_server_settings(run_id, server, database, table),
        "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
        # a loopback server without TLS; 2.7.0's default (`preferred`) is a value its MariaDB driver refuses, and
        # 3.0 renamed the modes after the driver's
        "database.ssl.mode": "disabled" if release < (3, 0) else "disable",
        "topic.prefix": prefix,
        # the schema history in a file beside the server's data (removed with it), not in a topic of its own
        "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "schema.history.internal.file.filename": str(server.directory / "schema-history.dat"),
        "snapshot.mode": "initial" if snapshot else "no_data",
        **CONNECTOR_SETTINGS,
    }


# Debezium's MariaDB connector is its own since 2.7; before, its MySQL connector read MariaDB (issue 40: 1.9 on MariaDB)
MARIADB_CONNECTOR_SINCE = (2, 7)


def uses_mariadb_connector(debezium_version: str) -> bool:
    return debezium.Profile(version=debezium_version).release >= MARIADB_CONNECTOR_SINCE


def _server_settings(run_id: str, server: MariaDbServer, database: str, table: str) -> dict:
    """What either connector is told of the server and the tables to read: the loopback server, a replica's id,
    the table and the progress table."""
    return {
        "name": f"cdc-{run_id}", "tasks.max": 1,
        "database.hostname": "127.0.0.1", "database.port": server.port, "database.user": USER,
        "database.password": PASSWORD, "database.server.id": random.randint(1000, 2 ** 31 - 1),  # a replica's id
        "database.include.list": f"{database},{PROGRESS_TABLE[0]}",
        "table.include.list": f"{database}\\.{table},{PROGRESS_TABLE[0]}\\.{PROGRESS_TABLE[1]}",
    }


def _mysql_connector_settings(run_id: str, server: MariaDbServer, database: str, table: str, prefix: str,
                              snapshot: bool) -> dict:
    """Debezium 1.x's MySQL connector on the MariaDB server: its 1.x names (`database.server.name`, `database.history`,
    snapshot mode `schema_only` for no data), TRUNCATE under its own switch, as the PostgreSQL 1.9 run has it."""
    return {
        **_server_settings(run_id, server, database, table),
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "database.ssl.mode": "disabled",
        "database.server.name": prefix,
        "database.history": "io.debezium.relational.history.FileDatabaseHistory",
        "database.history.file.filename": str(server.directory / "schema-history.dat"),
        "snapshot.mode": "initial" if snapshot else "schema_only",
        **CONNECTOR_SETTINGS,
        "truncate.handling.mode": "include",
    }


def run(broker, history: History, row_image: str = "FULL",
        debezium_version: str = DEFAULT_MARIADB_DEBEZIUM_VERSION, setting: Setting = DEFAULT) -> RealRun:
    """The history through MariaDB and the connector; everything it started is stopped and removed."""
    run_id, prefix, snapshot = run_names(history)
    with MariaDbServer(row_image=row_image) as server:
        server.create_tables(history.table)
        server.run_transactions(MARIADB.transactions(history, snapshot=True))
        settings = {**connector_settings(run_id, server, history, prefix, snapshot, debezium_version), **setting.connector_for("mariadb")}
        with ConnectWorker(broker.bootstrap_servers, settings, debezium_version=debezium_version,
                           connector_artifact="mariadb" if uses_mariadb_connector(debezium_version) else "mysql",
                           worker_settings=setting.worker, extra_classpath=converter_classpath(setting)) as worker:
            wait_for_streaming(server.streams_binlog, worker, "the connector's binlog dump")
            server.run_transactions(MARIADB.transactions(history, snapshot=False))
            server.mark_progress()
            wait_for_progress(broker, ".".join((prefix, *PROGRESS_TABLE)), worker)
        topic = f"{prefix}.{history.table.schema}.{history.table.name}"
        return RealRun(history, "mariadb", row_image, prefix, topic, read_topic(broker.bootstrap_servers, topic),
                       server.rows(history.table), {"debezium": debezium_version, "mariadb": server.version}, setting)


def capture(broker, table: str, columns: str, snapshot_rows: list[str], streamed: list[str],
            debezium_version: str = DEFAULT_MARIADB_DEBEZIUM_VERSION, setting: Setting = DEFAULT) -> list:
    """What the connector writes for the table `table` (`database.name`, made with `columns`) under `setting`: its
    snapshot of `snapshot_rows` (VALUES tuples as SQL), then the statements `streamed`, each its own transaction (an
    ALTER TABLE among them: the connector's schema history follows it). As debezium_postgres.capture."""
    run_id, prefix = uuid.uuid4().hex[:10], f"real{uuid.uuid4().hex[:10]}"
    database, name = table.split(".")
    with MariaDbServer() as server:
        server.run_transactions([[f"CREATE DATABASE {database}", f"CREATE TABLE {table} ({columns})",
                                  f"INSERT INTO {table} VALUES {', '.join(snapshot_rows)}",
                                  f"CREATE DATABASE {PROGRESS_TABLE[0]}",
                                  f"CREATE TABLE {'.'.join(PROGRESS_TABLE)} (id int PRIMARY KEY)"]])
        settings = {**table_connector_settings(run_id, server, database, name, prefix, True, debezium_version),
                    **setting.connector_for("mariadb")}
        with ConnectWorker(broker.bootstrap_servers, settings, debezium_version=debezium_version,
                           connector_artifact="mariadb" if uses_mariadb_connector(debezium_version) else "mysql",
                           worker_settings=setting.worker, extra_classpath=converter_classpath(setting)) as worker:
            wait_for_streaming(server.streams_binlog, worker, "the connector's binlog dump")
            server.run_transactions([[statement] for statement in streamed])
            server.mark_progress()
            wait_for_progress(broker, ".".join((prefix, *PROGRESS_TABLE)), worker)
        return read_topic(broker.bootstrap_servers, f"{prefix}.{table}")
