"""A drawn history (generators.history) as the SQL a PostgreSQL application would run: the table's DDL from the
generators' logical types, then each transaction's statements with bound parameters (psycopg adapts the
Python values: Decimal -> numeric, bytes -> bytea, aware datetime -> timestamptz, ...)."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from generators.history import Change, History, Table
from generators.values import LogicalType

# logical type -> PostgreSQL column type; the Debezium connector's adaptive time precision maps TIMESTAMP(3)
# to io.debezium.time.Timestamp and TIMESTAMP(6) to MicroTimestamp, as the generator does
_PLAIN = {"INT16": "smallint", "INT32": "integer", "INT64": "bigint", "BOOLEAN": "boolean", "STRING": "text",
          "FLOAT64": "double precision", "DATE": "date", "TIMESTAMP_TZ": "timestamptz", "BYTES": "bytea"}
POSTGRES_KINDS = frozenset(_PLAIN) | {"DECIMAL", "TIME", "TIMESTAMP"}


def postgres_holds(logical: LogicalType) -> bool:
    """Whether PostgreSQL has a column type for `logical`: its times stop at microseconds (no TIME(9), TIMESTAMP(9))."""
    return logical.kind in POSTGRES_KINDS and not (logical.kind in ("TIME", "TIMESTAMP") and logical.precision == 9)


def column_type(logical: LogicalType) -> str:
    if logical.kind == "DECIMAL":
        return f"numeric({logical.precision},{logical.scale})"
    if logical.kind in ("TIME", "TIMESTAMP"):
        return f"{logical.kind.lower()}({logical.precision})"
    if logical.kind not in _PLAIN:
        raise ValueError(f"PostgreSQL has no column type for {logical.name}")
    return _PLAIN[logical.kind]


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def table_name(table: Table) -> str:
    return f"{quoted(table.schema)}.{quoted(table.name)}"


def create_table(table: Table, replica_identity: str) -> list[str]:
    columns = [f"{quoted(c.name)} {column_type(c.logical)}{'' if c.nullable else ' NOT NULL'}" for c in table.columns]
    key = ", ".join(quoted(c.name) for c in table.key_columns)
    return [f"CREATE SCHEMA IF NOT EXISTS {quoted(table.schema)}",
            f"CREATE TABLE {table_name(table)} ({', '.join(columns)}, PRIMARY KEY ({key}))",
            f"ALTER TABLE {table_name(table)} REPLICA IDENTITY {replica_identity}"]


@dataclass(frozen=True)
class Statement:
    sql: str
    parameters: tuple = ()


def _where_key(table: Table, row: dict) -> tuple[str, tuple]:
    names = [c.name for c in table.key_columns]
    return " AND ".join(f"{quoted(n)} = %s" for n in names), tuple(row[n] for n in names)


def change_statement(table: Table, change: Change) -> Statement:
    if change.kind in ("INSERT", "READ"):
        names = [c.name for c in table.columns]
        return Statement(f"INSERT INTO {table_name(table)} ({', '.join(map(quoted, names))}) "
                         f"VALUES ({', '.join(['%s'] * len(names))})", tuple(change.after[n] for n in names))
    if change.kind == "UPDATE":
        assigned = [c.name for c in table.columns if c.name in change.columns_set(table)]
        if not assigned:  # a statement sets at least one column: the key, to the value it has
            assigned = [table.key_columns[0].name]
        where, key = _where_key(table, change.before)
        return Statement(f"UPDATE {table_name(table)} SET {', '.join(f'{quoted(n)} = %s' for n in assigned)} WHERE {where}",
                         tuple(change.after[n] for n in assigned) + key)
    if change.kind == "DELETE":
        where, key = _where_key(table, change.before)
        return Statement(f"DELETE FROM {table_name(table)} WHERE {where}", key)
    if change.kind == "TRUNCATE":
        return Statement(f"TRUNCATE {table_name(table)}")
    raise ValueError(f"no statement for a {change.kind}")


def transactions(history: History, snapshot: bool) -> Iterator[list[Statement]]:
    """The statements of each transaction, the snapshot's (`snapshot`) or the streamed ones."""
    for transaction in history.transactions:
        if transaction.snapshot == snapshot:
            yield [change_statement(history.table, change) for change in transaction.changes]
