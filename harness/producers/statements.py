"""A drawn history (generators.history) as the SQL an application would run: the table's DDL from the generators'
logical types, then each transaction's statements with bound parameters. One dialect per database: PostgreSQL
(psycopg adapts Decimal -> numeric, bytes -> bytea, aware datetime -> timestamptz, ...) and MariaDB (PyMySQL
quotes the values itself: `mariadb_parameter` hands it what MariaDB's columns take)."""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from cdc_conformance.generators.history import Change, History, Table
from cdc_conformance.generators.mariadb_ddl import KEY_CHARS as MARIADB_KEY_CHARS
from cdc_conformance.generators.mariadb_ddl import labels_text
from cdc_conformance.generators.postgres_values import double_quoted, hstore_from_text, hstore_input, interval_from_text, interval_input
from cdc_conformance.generators.values import POSTGRES_INFINITIES, LogicalType, duration_text

# logical type -> column type. Debezium's adaptive time precision maps TIMESTAMP(3) to io.debezium.time.Timestamp and
# TIMESTAMP(6) to MicroTimestamp, as the generator does, on both connectors
_POSTGRES = {"INT16": "smallint", "INT32": "integer", "INT64": "bigint", "BOOLEAN": "boolean", "STRING": "text",
             "FLOAT64": "double precision", "DATE": "date", "TIMESTAMP_TZ": "timestamptz", "BYTES": "bytea",
             "TIME": "time({p})", "TIMESTAMP": "timestamp({p})", "DECIMAL": "numeric({p},{s})", "BITS": "bit({p})",
             "VARBIT": "bit varying({p})", "TIME_24": "time({p})", "PG_TIMESTAMP": "timestamp({p})",
             "PG_TIMESTAMP_TZ": "timestamptz",
             # PostgreSQL's own types (generators.postgres_values); ltree and hstore are extensions' (CREATE EXTENSION)
             "UUID": "uuid", "PG_JSON": "json", "PG_JSONB": "jsonb", "XML": "xml", "INET": "inet", "LTREE": "ltree",
             "INT_RANGE": "int4range", "TIME_TZ": "timetz", "NUMERIC": "numeric", "INT_ARRAY": "integer[]",
             "TEXT_ARRAY": "text[]", "INTERVAL": "interval", "HSTORE": "hstore", "CIDR": "cidr", "TS_RANGE": "tsrange",
             "MONEY": "money", "INT8_RANGE": "int8range", "NUM_RANGE": "numrange", "DATE_RANGE": "daterange", "TSTZ_RANGE": "tstzrange"}
# MariaDB: BOOLEAN is TINYINT(1), which the connector writes as int16; BIT(1) is what it writes as a boolean.
# DATETIME is the zone-less timestamp, TIMESTAMP the instant (kept in UTC, written as io.debezium.time.ZonedTimestamp)
_MARIADB = {"INT16": "smallint", "INT32": "int", "INT64": "bigint", "BOOLEAN": "bit(1)", "STRING": "longtext",
            "FLOAT64": "double", "DATE": "date", "TIMESTAMP_TZ": "timestamp({p6}) NULL", "BYTES": "longblob",
            "TIME": "time({p})", "DURATION": "time({p})", "TIMESTAMP": "datetime({p})", "DECIMAL": "decimal({p},{s})",
            "ENUM": "enum({labels})", "SET": "set({labels})", "YEAR": "year", "JSON": "json",
            "UINT32": "int unsigned", "UINT64": "bigint unsigned", "BITS": "bit({p})",
            "GEOMETRY": "geometry"}


@dataclass(frozen=True)
class Dialect:
    name: str
    types: dict[str, str]
    quote_char: str
    holds: Callable[[LogicalType], bool]
    create_schema: str                      # {schema}: the statement that makes the table's schema
    key_types: dict[str, str]               # column types a key column takes instead
    replica_identity: bool = False          # PostgreSQL's ALTER TABLE ... REPLICA IDENTITY
    parameter: Callable[[LogicalType, object], object] = lambda logical, value: value
    # the SQL that takes a column's value: one %s, or an expression of several (its parameter is then a tuple)
    placeholder: Callable[[LogicalType], str] = lambda logical: "%s"

    def quoted(self, name: str) -> str:
        q = self.quote_char
        return q + name.replace(q, q + q) + q

    def table_name(self, table: Table) -> str:
        return f"{self.quoted(table.schema)}.{self.quoted(table.name)}"

    def column_type(self, logical: LogicalType, key: bool = False) -> str:
        if not self.holds(logical):
            raise ValueError(f"{self.name} has no column type for {logical.name}")
        types = {**self.types, **self.key_types} if key else self.types
        return types[logical.kind].format(p=logical.precision, s=logical.scale, p6=6, labels=labels_text(logical.labels))

    def create_table(self, table: Table, replica_identity: str = "FULL") -> list[str]:
        columns = [f"{self.quoted(c.name)} {self.column_type(c.logical, key=bool(c.pk_position))}"
                   f"{'' if c.nullable else ' NOT NULL'}" for c in table.columns]
        key = ", ".join(self.quoted(c.name) for c in table.key_columns)
        made = [self.create_schema.format(schema=self.quoted(table.schema)),
                f"CREATE TABLE {self.table_name(table)} ({', '.join(columns)}, PRIMARY KEY ({key}))"]
        if self.replica_identity:
            made.append(f"ALTER TABLE {self.table_name(table)} REPLICA IDENTITY {replica_identity}")
        return made

    def _values(self, table: Table, row: dict, names: list[str]) -> tuple:
        kinds = {c.name: c.logical for c in table.columns}
        values: list = []
        for name in names:
            value: Any = self.parameter(kinds[name], row[name])  # a placeholder of several %s takes a sequence
            values += value if self.placeholder(kinds[name]).count("%s") > 1 else [value]
        return tuple(values)

    def _placeholders(self, table: Table, names: list[str]) -> list[str]:
        kinds = {c.name: c.logical for c in table.columns}
        return [self.placeholder(kinds[name]) for name in names]

    def _where_key(self, table: Table, row: dict) -> tuple[str, tuple]:
        names = [c.name for c in table.key_columns]
        return " AND ".join(f"{self.quoted(n)} = %s" for n in names), self._values(table, row, names)

    def change_statement(self, table: Table, change: Change) -> Statement:
        name = self.table_name(table)
        if change.kind in ("INSERT", "READ"):
            return self.insert_statement(table, (change,))
        if change.kind == "UPDATE":
            assigned = [c.name for c in table.columns if c.name in change.columns_set(table)]
            if not assigned:  # a statement sets at least one column: the key, to the value it has
                assigned = [table.key_columns[0].name]
            where, key = self._where_key(table, change.old)
            sets = ", ".join(f"{self.quoted(n)} = {p}" for n, p in zip(assigned, self._placeholders(table, assigned)))
            return Statement(f"UPDATE {name} SET {sets} WHERE {where}", self._values(table, change.new, assigned) + key)
        if change.kind == "DELETE":
            where, key = self._where_key(table, change.old)
            return Statement(f"DELETE FROM {name} WHERE {where}", key)
        if change.kind == "TRUNCATE":
            return Statement(f"TRUNCATE {name}")
        raise ValueError(f"no statement for a {change.kind}")

    def insert_statement(self, table: Table, changes: tuple[Change, ...]) -> Statement:
        """One INSERT of the changes' rows, in their order (the order a binlog keeps them in)."""
        names = [c.name for c in table.columns]
        row = f"({', '.join(self._placeholders(table, names))})"
        return Statement(f"INSERT INTO {self.table_name(table)} ({', '.join(map(self.quoted, names))}) "
                         f"VALUES {', '.join([row] * len(changes))}",
                         sum((self._values(table, change.new, names) for change in changes), ()))

    def transactions(self, history: History, snapshot: bool) -> Iterator[list[Statement]]:
        """The statements of each transaction, the snapshot's (`snapshot`) or the streamed ones."""
        for transaction in history.transactions:
            if transaction.snapshot == snapshot:
                yield [self.insert_statement(history.table, statement) if len(statement) > 1
                       else self.change_statement(history.table, statement[0]) for statement in transaction.statements()]


@dataclass(frozen=True)
class Statement:
    sql: str
    parameters: tuple = ()


# how a column is read back so that its Python value is the history's: PostgreSQL's own types are held as their text
# (`format('%s', c)` is the type's output function, what the connector reads, where an inet's cast to text adds a
# /32; format makes a NULL '', which an ltree can be)
READ_AS = {"TIME_24": "{0}::interval", "MONEY": "{0}::numeric", **dict.fromkeys(["UUID", "PG_JSON", "PG_JSONB", "XML", "INET", "LTREE",
                                                       "INT_RANGE", "TIME_TZ", "INTERVAL", "HSTORE", "CIDR",
                                                       "TS_RANGE", "PG_TIMESTAMP", "PG_TIMESTAMP_TZ", "INT8_RANGE",
                                                       "NUM_RANGE", "DATE_RANGE", "TSTZ_RANGE"],
                                                      "CASE WHEN {0} IS NULL THEN NULL ELSE format('%s', {0}) END")}
# ... and what makes the history's value of what psycopg reads: BIT(n)'s digits, an interval's text
READ_BACK = {"BITS": lambda digits: int(digits, 2), "INTERVAL": interval_from_text, "HSTORE": hstore_from_text,
             **dict.fromkeys(["PG_TIMESTAMP", "PG_TIMESTAMP_TZ"],
                             lambda text: text if text in POSTGRES_INFINITIES else dt.datetime.fromisoformat(text))}


def _postgres_holds(logical: LogicalType) -> bool:
    """PostgreSQL's times stop at microseconds (no TIME(9), TIMESTAMP(9))."""
    return logical.kind in _POSTGRES and not (logical.kind in ("TIME", "TIMESTAMP") and logical.precision == 9)


def _postgres_parameter(logical: LogicalType, value):
    """A BIT(n) value as the bit string PostgreSQL reads, a time that may be 24:00 as its text (psycopg sends a str
    untyped: the column's type decides; a timedelta would be an interval)."""
    if logical.kind == "BITS" and value is not None:
        return format(value, f"0{logical.precision}b")
    if logical.kind == "TIME_24" and value is not None:
        return duration_text(value)
    if logical.kind in ("INT_ARRAY", "TEXT_ARRAY") and value is not None:
        return array_literal(value)
    if logical.kind == "INTERVAL" and value is not None:
        return interval_input(value)
    if logical.kind == "HSTORE" and value is not None:
        return hstore_input(value)
    return value


def array_literal(items: list) -> str:
    """A one-dimensional array as PostgreSQL's array input reads it: NULL, numbers, text in double quotes with its
    quotes and backslashes escaped (psycopg cannot type a list of NULLs alone)."""
    def item(value) -> str:
        if value is None:
            return "NULL"
        if isinstance(value, int):
            return str(value)
        return double_quoted(value)
    return "{" + ",".join(map(item, items)) + "}"


def _mariadb_holds(logical: LogicalType) -> bool:
    """MariaDB's times stop at microseconds; DECIMAL at 65 digits, 30 of them after the point."""
    if logical.kind in ("TIME", "TIMESTAMP") and logical.precision == 9:
        return False
    if logical.kind == "DECIMAL":
        return logical.digits <= 65 and logical.places <= 30
    if logical.kind == "BITS":
        return logical.digits <= 64
    return logical.kind in _MARIADB


def _mariadb_parameter(logical: LogicalType, value):
    """PyMySQL writes an aware datetime without its offset: a TIMESTAMP column takes the instant in the session's
    zone, which the server's connections set to UTC (harness.producers.mariadb). A geometry is its WKB and SRID."""
    if logical.kind == "GEOMETRY":
        return (None, None) if value is None else (value[1], value[0])
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    return value


def _mariadb_placeholder(logical: LogicalType) -> str:
    return "ST_GeomFromWKB(%s, %s)" if logical.kind == "GEOMETRY" else "%s"


POSTGRES = Dialect("PostgreSQL", _POSTGRES, '"', _postgres_holds, "CREATE SCHEMA IF NOT EXISTS {schema}", {},
                   replica_identity=True, parameter=_postgres_parameter)
# a MariaDB schema is a database; its binary no-pad collation keeps 'a' and 'a ' two keys, as the generator has them
MARIADB = Dialect("MariaDB", _MARIADB, "`", _mariadb_holds,
                  "CREATE DATABASE IF NOT EXISTS {schema} CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin",
                  {"STRING": f"varchar({MARIADB_KEY_CHARS})"}, parameter=_mariadb_parameter,
                  placeholder=_mariadb_placeholder)
