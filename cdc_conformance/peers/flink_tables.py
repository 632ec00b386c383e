"""The Flink table a user declares over a topic: one DDL per table, typed as Flink's documentation maps the source's
types, from the table's first record (issue 60: typed tables, one DDL per topic, so that a schema change shows).

A Flink user declares a table once, from the source table's columns, before reading its topic; the record that
first names the table stands for that moment here. A column the table gains later is not in the DDL: Flink drops it
without a word, as a real job does until its DDL is altered. The types:

- canal: each column's `mysqlType` (MySQL's type text), as Flink CDC's MySQL connector maps it (its "Data Type
  Mapping", how Flink documents MySQL's types);
- Debezium with `schemas.enable`: the source column's type that the Connect schema's type and logical name stand for,
  mapped likewise: a user declares the table's types, not Connect's encodings (Flink's debezium-json docs:
  `weight DECIMAL(10, 2)`);
- Debezium without schemas: STRING; the record says no type, and the comparison reads a STRING column's text by the
  value's type.

The MySQL mapping: `TINYINT(1)`/`BIT(1)` BOOLEAN, an UNSIGNED integer the next wider type, `BIGINT UNSIGNED`
DECIMAL(20, 0), `DECIMAL(p, s)` DECIMAL(p, s) (STRING past 38 digits), `DATETIME(p)` TIMESTAMP(p), `TIMESTAMP(p)`
TIMESTAMP_LTZ(p), `TIME(p)` TIME(p), `YEAR` INT, `BIT(n)` BINARY, binary and blob types BYTES, the rest STRING. A `SET`
is STRING, not Flink CDC's ARRAY<STRING>: its connector builds an array, canal writes one text, which an ARRAY column
refuses in every record (a canal-json user declares STRING).

Connect's: int8..int64 TINYINT..BIGINT, float32/64 FLOAT/DOUBLE, boolean, string STRING, bytes BYTES;
`Decimal` DECIMAL(p, s) (its `connect.decimal.precision` and `scale`, 38 without one), `io.debezium.time.Date` DATE,
`Time`/`MicroTime`/`NanoTime` TIME(3/6/9), `Timestamp`/`MicroTimestamp`/`NanoTimestamp` TIMESTAMP(3/6/9),
`ZonedTimestamp` TIMESTAMP_LTZ(6), `Year` INT; structs, arrays and maps STRING.

Character types are STRING rather than CHAR(n)/VARCHAR(n): Flink's JSON reader gives the same text for all three.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable

_MYSQL = re.compile(r"^\s*([a-z]+)\s*(?:\(([^)]*)\))?\s*(.*)$", re.S)
_CONNECT_PHYSICAL = {"int8": "TINYINT", "int16": "SMALLINT", "int32": "INT", "int64": "BIGINT", "float32": "FLOAT",
                     "float64": "DOUBLE", "boolean": "BOOLEAN", "string": "STRING", "bytes": "BYTES"}
_CONNECT_LOGICAL = {"io.debezium.time.Date": "DATE", "org.apache.kafka.connect.data.Date": "DATE",
                    "io.debezium.time.Time": "TIME(3)", "org.apache.kafka.connect.data.Time": "TIME(3)",
                    "io.debezium.time.MicroTime": "TIME(6)", "io.debezium.time.NanoTime": "TIME(9)",
                    "io.debezium.time.Timestamp": "TIMESTAMP(3)", "org.apache.kafka.connect.data.Timestamp": "TIMESTAMP(3)",
                    "io.debezium.time.MicroTimestamp": "TIMESTAMP(6)", "io.debezium.time.NanoTimestamp": "TIMESTAMP(9)",
                    "io.debezium.time.ZonedTimestamp": "TIMESTAMP_LTZ(6)", "io.debezium.time.Year": "INT",
                    "io.debezium.data.Json": "STRING", "io.debezium.data.Enum": "STRING", "io.debezium.data.EnumSet": "STRING",
                    "io.debezium.data.Uuid": "STRING", "io.debezium.data.Xml": "STRING", "io.debezium.data.Bits": "BYTES",
                    "io.debezium.time.ZonedTime": "STRING", "io.debezium.time.Interval": "STRING",
                    "io.debezium.time.MicroDuration": "BIGINT"}


# java.sql.Types codes as a JDBC driver's mapping to Flink types gives them (canal's `sqlType`)
_JDBC: dict[object, str] = {-7: "BOOLEAN", -6: "TINYINT", 5: "SMALLINT", 4: "INT", -5: "BIGINT", 7: "FLOAT", 6: "DOUBLE", 8: "DOUBLE",
         16: "BOOLEAN", 91: "DATE", -2: "BYTES", -3: "BYTES", -4: "BYTES", 2004: "BYTES"}


def mysql_type(text: str) -> str:
    """A canal `mysqlType` as Flink CDC's MySQL type mapping types the column."""
    match = _MYSQL.match(str(text).lower())
    if not match:
        return "STRING"
    base, parameters, rest = match.groups()
    unsigned = "unsigned" in rest
    numbers = [int(n) for n in re.findall(r"\d+", parameters or "")] if base not in ("enum", "set") else []
    if base in ("tinyint", "bit", "bool", "boolean") and (numbers[:1] == [1] or base in ("bool", "boolean")):
        return "BOOLEAN"
    integers = {"tinyint": ("TINYINT", "SMALLINT"), "smallint": ("SMALLINT", "INT"), "mediumint": ("INT", "INT"),
                "int": ("INT", "BIGINT"), "integer": ("INT", "BIGINT"), "bigint": ("BIGINT", "DECIMAL(20, 0)")}
    if base in integers:
        return integers[base][unsigned]
    if base in ("decimal", "numeric", "dec", "fixed"):
        precision, scale = (numbers + [10, 0])[:2] if numbers else (10, 0)
        return f"DECIMAL({precision}, {scale})" if 1 <= precision <= 38 and scale <= precision else "STRING"
    simple = {"float": "FLOAT", "double": "DOUBLE", "real": "DOUBLE", "date": "DATE", "year": "INT",
              "bit": f"BINARY({max(1, math.ceil((numbers or [1])[0] / 8))})"}
    if base in simple:
        return simple[base]
    if base in ("datetime", "timestamp", "time"):
        precision = min((numbers or [0])[0], 9)
        return {"datetime": f"TIMESTAMP({precision})", "timestamp": f"TIMESTAMP_LTZ({precision})",
                "time": f"TIME({precision})"}[base]
    if base in ("binary", "varbinary") or base.endswith("blob"):
        return "BYTES"
    return "STRING"  # character and text types, json, enum, the spatial types


def connect_type(field: dict) -> str:
    """A column of a Connect schema as the Flink type of the source column it stands for."""
    name, physical = field.get("name"), field.get("type")
    if name == "org.apache.kafka.connect.data.Decimal":
        parameters = field.get("parameters") or {}
        scale, precision = _int(parameters.get("scale"), 0), _int(parameters.get("connect.decimal.precision"), 38)
        return f"DECIMAL({precision}, {scale})" if 1 <= precision <= 38 and 0 <= scale <= precision else "STRING"
    if name in _CONNECT_LOGICAL:
        return _CONNECT_LOGICAL[name]
    return _CONNECT_PHYSICAL.get(physical, "STRING") if isinstance(physical, str) else "STRING"


def _int(text, default: int) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        return default


def columns(format_id: str, document) -> list[tuple[str, str]] | None:
    """The table's columns and Flink types as the record declares them, or None if it names no table's columns."""
    if not isinstance(document, dict):
        return None
    if format_id == "canal-json":
        types, codes = _object(document.get("mysqlType")), _object(document.get("sqlType"))
        rows = document.get("data")
        first = _object(rows[0]) if isinstance(rows, list) and rows else {}
        # the type text where canal wrote one, else the JDBC code (sqlType), else STRING
        declared = [(str(name), mysql_type(text)) for name, text in types.items()]
        declared += [(str(name), _JDBC.get(codes.get(name), "STRING")) for name in [*codes, *first] if name not in types]
        return list(dict(declared).items()) or None
    schema, payload = document.get("schema"), document.get("payload")
    if isinstance(payload, dict) and isinstance(schema, dict):
        for image in schema.get("fields") or []:
            if isinstance(image, dict) and image.get("field") in ("after", "before") and image.get("fields"):
                return [(str(f.get("field")), connect_type(f)) for f in image["fields"] if isinstance(f, dict)]
    envelope = payload if isinstance(payload, dict) else document
    for image in ("after", "before"):
        if isinstance(envelope.get(image), dict) and envelope[image]:
            return [(str(name), "STRING") for name in envelope[image]]
    return None


def _object(value) -> dict:
    """A JSON object of the record, or an empty one where the record has something else."""
    return value if isinstance(value, dict) else {}


def table_of(format_id: str, document) -> tuple:
    """What names the record's table: a topic carries one table in production; drawn examples share a topic."""
    if not isinstance(document, dict):
        return ()
    if format_id == "canal-json":
        names = [document.get("database"), document.get("table")]
    else:
        envelope = _object(document.get("payload")) or document
        source = _object(envelope.get("source"))
        names = [source.get(part) for part in ("name", "db", "schema", "table")]
    return tuple(name if name is None or isinstance(name, str) else json.dumps(name, sort_keys=True) for name in names)


def row_type(declared: list[tuple[str, str]]) -> str:
    """The DDL's columns as Flink's row type text (names quoted: a source's column names may hold anything)."""
    return "ROW<" + ", ".join(f"`{name.replace('`', '``')}` {kind}" for name, kind in declared) + ">"


def parsed_value(value: bytes | None):
    """A record's value as JSON data; None for a tombstone or a value that is not JSON."""
    try:
        return json.loads(value) if value is not None else None
    except (ValueError, UnicodeDecodeError):
        return None


def declared_tables(format_id: str, records: Iterable[tuple[str, int, int, bytes | None]]) -> dict[tuple, str]:
    """Each record's (topic, partition, offset) -> the row type of its table's DDL: declared from the first record
    (by partition and offset) of the topic that types the table's columns, or, where no record types them (schemaless
    Debezium), every column its records name; none for a record of no table."""
    ordered = sorted(records, key=lambda r: (r[0], r[1], r[2]))
    documents = {(topic, partition, offset): parsed_value(value) for topic, partition, offset, value in ordered}
    typed: dict[tuple, list[tuple[str, str]]] = {}
    untyped: dict[tuple, dict[str, str]] = {}
    for (topic, _, _), document in documents.items():
        table = (topic, *table_of(format_id, document))
        declared = columns(format_id, document) or []
        if all(kind == "STRING" for _, kind in declared) and format_id != "canal-json":
            # a schemaless record types nothing and may name part of the row (a delete's key): the user's DDL
            # has every column the table's records name
            untyped.setdefault(table, {}).update(dict.fromkeys((name for name, _ in declared if name), "STRING"))
        elif table not in typed and declared:
            typed[table] = declared
    tables = {table: row_type(list(names.items())) for table, names in untyped.items() if names}
    tables.update({table: row_type(declared) for table, declared in typed.items()})
    return {coordinates: tables[(coordinates[0], *table_of(format_id, document))]
            for coordinates, document in documents.items() if (coordinates[0], *table_of(format_id, document)) in tables}
