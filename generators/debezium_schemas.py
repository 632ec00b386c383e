"""The Kafka Connect schemas Debezium's connectors declare for a table: its key, its row, the source block, the change
envelope and the schema-change records, per profile (connector, release, settings). How a converter writes them is the
encoder's (generators/debezium.py: JsonConverter's `{"schema","payload"}`); the oracle reads the row's declared types
from here (generators/debezium_oracle.py). Seen on the real connectors (docs/producers.md)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cdc_conformance.generators import mariadb_ddl
from cdc_conformance.generators.debezium_connect import (
    CHARACTER_TYPES,
    CONNECT_TIME_NAMES,
    JDBC_TYPES,
    SCHEMA_CHANGE_COLUMN,
    SCHEMA_CHANGE_COLUMN_SINCE_2,
    connect_field,
    mariadb_column_type,
    postgres_column_type,
)
from cdc_conformance.generators.debezium_profile import Profile
from cdc_conformance.generators.history import Table

SERVER_NAME_KEY = {"type": "struct", "fields": [{"type": "string", "optional": False, "field": "serverName"}],
                   "optional": False, "name": "io.debezium.connector.common.ServerNameKey"}
HEARTBEAT = {"type": "struct", "fields": [{"type": "int64", "optional": False, "field": "ts_ms"}],
             "optional": False, "name": "io.debezium.connector.common.Heartbeat"}
TRANSACTION_BLOCK = [{"type": "string", "optional": False, "field": "id"},
                     {"type": "int64", "optional": False, "field": "total_order"},
                     {"type": "int64", "optional": False, "field": "data_collection_order"}]


@dataclass
class ConnectSchemas:
    profile: Profile
    table: Table
    # each column's type in the database, where the settings write another (`as_written`): what its propagated source
    # type names (a timestamp(6) under time.precision.mode=connect is still TIMESTAMP, 29, 6)
    database_types: dict = field(default_factory=dict)

    def schema_prefix(self) -> str:
        if self.profile.flink_cdc:  # the connector's own topic name inside Flink, whatever topic the sink writes to
            return f"{self.profile.prefix}.{self.profile.database_of(self.table)}.{self.table.name}"
        return self.profile.topic(self.table)

    def row_fields(self, in_snapshot: bool = False) -> list[dict]:
        """The row's fields (`before` and `after`): PostgreSQL propagates other types in a snapshot than in a stream."""
        return [self._propagated(self._time_named(connect_field(c.name, c.logical, c.nullable)), c, in_snapshot)
                for c in self.table.columns]

    def _time_named(self, field_schema: dict) -> dict:
        """Under time.precision.mode=connect a date, a time and a timestamp are Kafka Connect's own logical types
        (their values in milliseconds: `_setting_view` made them TIME(3), TIMESTAMP(3))."""
        connect_name = CONNECT_TIME_NAMES.get(field_schema.get("name", "")) if self.profile.time_precision == "connect" else None
        return field_schema if connect_name is None else {**field_schema, "name": connect_name}

    def _propagated(self, field_schema: dict, column, in_snapshot: bool) -> dict:
        """The field's schema with its column's type among its parameters, after its own (Profile.source_types)."""
        database_type = self.database_types.get(column.name, column.logical)
        propagated = None
        if self.profile.source_types:
            propagated = (mariadb_column_type(database_type, bool(column.pk_position)) if self.profile.binlog
                          else postgres_column_type(database_type, in_snapshot))
        if propagated is None:
            return field_schema
        type_, length, scale = propagated
        parameters = {**field_schema.get("parameters", {}), "__debezium.source.column.type": type_}
        if length is not None:
            parameters["__debezium.source.column.length"] = str(length)
        if scale is not None:
            parameters["__debezium.source.column.scale"] = str(scale)
        if self.profile.names_source_column:
            parameters["__debezium.source.column.name"] = column.name
        return {**{k: v for k, v in field_schema.items() if k != "field"}, "parameters": parameters, "field": column.name}

    def key_fields(self) -> list[dict]:
        return [self._time_named(connect_field(c.name, c.logical, False)) for c in self.table.key_columns]

    def source_fields(self) -> list[dict]:
        p = self.profile
        snapshot = ({"type": "string", "optional": True, "name": "io.debezium.data.Enum", "version": 1,
                     "parameters": {"allowed": p.snapshot_values},
                     "default": "false", "field": "snapshot"} if p.snapshot_style == "enum"
                    else {"type": "boolean", "optional": True, "default": False, "field": "snapshot"})
        common = [{"type": "string", "optional": False, "field": "version"},
                  {"type": "string", "optional": False, "field": "connector"},
                  {"type": "string", "optional": False, "field": "name"},
                  {"type": "int64", "optional": False, "field": "ts_ms"}, snapshot,
                  {"type": "string", "optional": False, "field": "db"},
                  {"type": "string", "optional": True, "field": "sequence"}]
        if p.has_sub_millis:
            common += [{"type": "int64", "optional": True, "field": "ts_us"},
                       {"type": "int64", "optional": True, "field": "ts_ns"}]
        if p.binlog:  # MySqlSourceInfoStructMaker / MariaDbSourceInfoStructMaker: no schema, the binlog's coordinates
            return common + [{"type": "string", "optional": True, "field": "table"},
                             {"type": "int64", "optional": False, "field": "server_id"},
                             {"type": "string", "optional": True, "field": "gtid"},
                             {"type": "string", "optional": False, "field": "file"},
                             {"type": "int64", "optional": False, "field": "pos"},
                             {"type": "int32", "optional": False, "field": "row"},
                             {"type": "int64", "optional": True, "field": "thread"},
                             {"type": "string", "optional": True, "field": "query"}]
        common += [{"type": "string", "optional": False, "field": "schema"},
                   {"type": "string", "optional": False, "field": "table"}]
        if p.connector == "sqlserver":
            return common + [{"type": "string", "optional": True, "field": "change_lsn"},
                             {"type": "string", "optional": True, "field": "commit_lsn"},
                             {"type": "int64", "optional": True, "field": "event_serial_no"}]
        return common + [{"type": "int64", "optional": True, "field": "txId"},
                         {"type": "int64", "optional": True, "field": "lsn"},
                         {"type": "int64", "optional": True, "field": "xmin"}]

    def source_schema(self) -> dict:
        source = {"type": "struct", "fields": self.source_fields(), "optional": False,
                  "name": f"io.debezium.connector.{self.profile.connector}.Source", "field": "source"}
        return {**source, "version": 1, "field": "source"} if self.profile.versions_source_schema else source

    def value_schema(self, in_snapshot: bool = False) -> dict:
        p, name = self.profile, self.schema_prefix()
        row = {"type": "struct", "fields": self.row_fields(in_snapshot), "optional": True, "name": f"{name}.Value"}
        fields = [{**row, "field": "before"}, {**row, "field": "after"}, self.source_schema()]
        if p.has_transaction_field:
            fields.append({"type": "struct", "optional": True, "name": "event.block", "version": 1, "field": "transaction",
                           "fields": TRANSACTION_BLOCK})
        fields += [{"type": "string", "optional": False, "field": "op"},
                   {"type": "int64", "optional": True, "field": "ts_ms"}]
        if p.has_sub_millis:
            fields += [{"type": "int64", "optional": True, "field": "ts_us"},
                       {"type": "int64", "optional": True, "field": "ts_ns"}]
        if p.legacy_transaction_field:
            fields.append({"type": "struct", "fields": TRANSACTION_BLOCK, "optional": True, "field": "transaction"})
        schema = {"type": "struct", "fields": fields, "optional": False, "name": f"{name}.Envelope"}
        if p.has_transaction_field:
            schema["version"] = 2 if p.has_sub_millis else 1
        return schema

    def table_description(self) -> dict:
        """The table as the connector's DDL parser describes it (its columns as `mariadb_column_type`'s, seen on
        3.3.0 and 1.9.7; 1.9 had no default value or ENUM members in it)."""
        description: dict[str, Any] = {"defaultCharsetName": mariadb_ddl.CHARSET,
                       "primaryKeyColumnNames": [c.name for c in self.table.key_columns], "columns": [], "comment": None}
        for position, column in enumerate(self.table.columns, 1):
            typed = mariadb_column_type(column.logical, key=bool(column.pk_position))
            if typed is None:
                raise ValueError(f"{column.logical} is no type of MariaDB's tier")
            type_name, length, scale = typed
            described = {"name": column.name, "jdbcType": JDBC_TYPES[type_name], "nativeType": None, "typeName": type_name,
                         "typeExpression": type_name,
                         "charsetName": mariadb_ddl.CHARSET if type_name in CHARACTER_TYPES else None,
                         "length": length, "scale": scale, "position": position, "optional": column.nullable,
                         "autoIncremented": False, "generated": False, "comment": None}
            if self.profile.has_schema_factory:
                labelled = column.logical.kind in ("ENUM", "SET")
                described.update(defaultValueExpression=None,
                                 enumValues=mariadb_ddl.quoted_labels(column.logical.labels) if labelled else None)
            description["columns"].append(described)
        return description

    def schema_change_value(self) -> dict:
        """SchemaChangeValue's schema (the connector's own: the same for every record)."""
        p = self.profile
        versioned = {"version": 1} if p.has_schema_factory else {}
        columns = SCHEMA_CHANGE_COLUMN + (SCHEMA_CHANGE_COLUMN_SINCE_2 if p.has_schema_factory else [])
        column = {"type": "struct", "fields": columns, "optional": False, "name": "io.debezium.connector.schema.Column",
                  **versioned}
        table = {"type": "struct", "fields": [
            {"type": "string", "optional": True, "field": "defaultCharsetName"},
            {"type": "array", "items": {"type": "string", "optional": False}, "optional": True,
             "field": "primaryKeyColumnNames"},
            {"type": "array", "items": column, "optional": False, "field": "columns"},
            {"type": "string", "optional": True, "field": "comment"}],
            # optional since the DROP's table change (null) is written
            "optional": p.has_schema_factory, "name": "io.debezium.connector.schema.Table", **versioned, "field": "table"}
        change = {"type": "struct", "fields": [{"type": "string", "optional": False, "field": "type"},
                                               {"type": "string", "optional": False, "field": "id"}, table],
                  "optional": False, "name": "io.debezium.connector.schema.Change", **versioned}
        fields = [self.source_schema(), *([{"type": "int64", "optional": False, "field": "ts_ms"}] if versioned else []),
                  {"type": "string", "optional": True, "field": "databaseName"},
                  {"type": "string", "optional": True, "field": "schemaName"},
                  {"type": "string", "optional": True, "field": "ddl"},
                  {"type": "array", "items": change, "optional": False, "field": "tableChanges"}]
        return {"type": "struct", "fields": fields, "optional": False,
                "name": f"io.debezium.connector.{p.connector}.SchemaChangeValue", **versioned}

    def key_schema(self) -> dict:
        return {"type": "struct", "fields": self.key_fields(), "optional": False, "name": f"{self.schema_prefix()}.Key"}

    def schema_change_key(self) -> dict:
        versioned = {"version": 1} if self.profile.has_schema_factory else {}
        return {"type": "struct", "fields": [{"type": "string", "optional": False, "field": "databaseName"}],
                "optional": False, "name": f"io.debezium.connector.{self.profile.connector}.SchemaChangeKey", **versioned}
