"""One drawn history through the real producer: PostgreSQL 15 (a throwaway cluster) -> Debezium's PostgreSQL
connector on Kafka Connect -> the broker. What comes back is what the connector wrote, byte for byte, with
the database's final state and the versions that wrote it (harness.producers.runs: how a run waits).
"""
from __future__ import annotations

import uuid

from cdc_conformance.generators import debezium
from cdc_conformance.generators.history import History
from cdc_conformance.harness.producers.connect import DEFAULT_DEBEZIUM_VERSION, ConnectWorker, converter_classpath
from cdc_conformance.harness.producers.postgres import PostgresCluster
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
from cdc_conformance.harness.producers.statements import POSTGRES, READ_AS, READ_BACK


def connector_settings(run_id: str, cluster: PostgresCluster, history: History, prefix: str, snapshot: bool,
                       debezium_version: str = DEFAULT_DEBEZIUM_VERSION) -> dict:
    table = history.table
    return table_connector_settings(run_id, cluster, f"{table.schema}\\.{table.name}", prefix, snapshot, debezium_version)


def table_connector_settings(run_id: str, cluster: PostgresCluster, table_pattern: str, prefix: str, snapshot: bool,
                             debezium_version: str = DEFAULT_DEBEZIUM_VERSION) -> dict:
    """The connector's settings for one table (`table_pattern`: a regular expression over schema.table)."""
    before_2 = debezium.Profile(version=debezium_version).release < (2, 0)  # 2.0 renamed database.server.name and snapshot mode `never`
    return {
        "name": f"cdc-{run_id}",
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "tasks.max": 1,
        "database.hostname": "127.0.0.1", "database.port": cluster.port, "database.user": "postgres",
        "database.password": "unused", "database.dbname": cluster.database,
        "database.server.name" if before_2 else "topic.prefix": prefix,
        "plugin.name": "pgoutput", "slot.name": f"cdc_{run_id}", "publication.name": f"cdc_{run_id}",
        "publication.autocreate.mode": "filtered",
        # regular expressions over schema.table; the drawn names are [a-z0-9_] only
        "table.include.list": f"{table_pattern},cdc_harness\\.progress",
        "snapshot.mode": "initial" if snapshot else "never" if before_2 else "no_data",
        **CONNECTOR_SETTINGS,
        # 1.x wrote TRUNCATE only under its own switch (`skipped.operations` took it over in 2.0)
        **({"truncate.handling.mode": "include"} if before_2 else {}),
    }


def run(broker, history: History, replica_identity: str = "FULL",
        debezium_version: str = DEFAULT_DEBEZIUM_VERSION, setting: Setting = DEFAULT) -> RealRun:
    """The history through PostgreSQL and the connector; everything it started is stopped and removed."""
    run_id, prefix, snapshot = run_names(history)
    with PostgresCluster() as cluster:
        with cluster.connect() as connection:
            for statement in POSTGRES.create_table(history.table, replica_identity):
                connection.execute(statement)
            _execute(connection, POSTGRES.transactions(history, snapshot=True))
        settings = {**connector_settings(run_id, cluster, history, prefix, snapshot, debezium_version), **setting.connector_for("postgresql")}
        _stream(broker, cluster, settings, debezium_version, setting,
                lambda connection: _execute(connection, POSTGRES.transactions(history, snapshot=False)))
        topic = f"{prefix}.{history.table.schema}.{history.table.name}"
        return RealRun(history, "postgresql", replica_identity, prefix, topic, read_topic(broker.bootstrap_servers, topic),
                       _final_rows(cluster, history), {"debezium": debezium_version, "postgresql": cluster.version}, setting)


def capture(broker, table: str, columns: str, snapshot_rows: list[str], streamed: list[str],
            debezium_version: str = DEFAULT_DEBEZIUM_VERSION, setting: Setting = DEFAULT) -> list:
    """What the connector writes for the table `table` (`schema.name`, made with `columns`) under `setting`: its
    snapshot of `snapshot_rows` (VALUES tuples as SQL), then the statements `streamed`. For what no drawn history
    holds: the connector's own losses (docs/producers.md)."""
    run_id, prefix = uuid.uuid4().hex[:10], f"real{uuid.uuid4().hex[:10]}"
    schema, name = table.split(".")
    with PostgresCluster() as cluster:
        with cluster.connect() as connection:
            connection.execute(f"CREATE SCHEMA {schema}")
            connection.execute(f"CREATE TABLE {table} ({columns})")
            connection.execute(f"INSERT INTO {table} VALUES {', '.join(snapshot_rows)}")
        settings = {**table_connector_settings(run_id, cluster, f"{schema}\\.{name}", prefix, True, debezium_version),
                    **setting.connector_for("postgresql")}
        _stream(broker, cluster, settings, debezium_version, setting,
                lambda connection: [connection.execute(statement) for statement in streamed])
        return read_topic(broker.bootstrap_servers, f"{prefix}.{table}")


def _stream(broker, cluster: PostgresCluster, settings: dict, debezium_version: str, setting: Setting, changes) -> None:
    """The connector from its snapshot (if any) until it has streamed `changes(connection)`: it reads the log before
    they are made, and has written them once the progress table's row made after them is on its topic."""
    with cluster.connect() as connection:
        connection.execute(f"CREATE SCHEMA {PROGRESS_TABLE[0]}")
        connection.execute(f"CREATE TABLE {'.'.join(PROGRESS_TABLE)} (id integer PRIMARY KEY)")
    with ConnectWorker(broker.bootstrap_servers, settings, debezium_version=debezium_version,
                       worker_settings=setting.worker, extra_classpath=converter_classpath(setting)) as worker:
        with cluster.connect() as connection:
            wait_for_streaming(lambda: connection.execute(
                "SELECT 1 FROM pg_replication_slots WHERE slot_name = %s AND active", (settings["slot.name"],)
            ).fetchone() is not None, worker, f"an active replication slot {settings['slot.name']}")
        with cluster.connect() as connection:
            changes(connection)
            connection.execute(f"INSERT INTO {'.'.join(PROGRESS_TABLE)} VALUES (1)")
        wait_for_progress(broker, ".".join((settings.get("topic.prefix") or settings["database.server.name"], *PROGRESS_TABLE)), worker)


def _execute(connection, transactions) -> None:
    for transaction in transactions:
        with connection.transaction():
            for statement in transaction:
                connection.execute(statement.sql, statement.parameters)


def _final_rows(cluster: PostgresCluster, history: History) -> list[dict]:
    table = history.table
    names = [c.name for c in table.columns]
    order = ", ".join(POSTGRES.quoted(c.name) for c in table.key_columns)
    # a time read as an interval (psycopg's time has no 24:00:00), PostgreSQL's own types as the text it prints
    selected = [READ_AS.get(c.logical.kind, "{0}").format(POSTGRES.quoted(c.name)) for c in table.columns]
    with cluster.connect() as connection:
        connection.execute("SET TIME ZONE 'UTC'")
        rows = connection.execute(f"SELECT {', '.join(selected)} FROM "
                                  f"{POSTGRES.table_name(table)} ORDER BY {order}").fetchall()
    read_back = {c.name: READ_BACK.get(c.logical.kind, lambda value: value) for c in table.columns}
    return [{name: value if value is None else read_back[name](value) for name, value in zip(names, row)} for row in rows]
