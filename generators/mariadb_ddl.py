"""A table as MariaDB prints it: `SHOW CREATE TABLE` (the Debezium MariaDB connector's schema snapshot writes that
text) and its column types (`desc` prints the same ones; canal's FlatMessage holds them as `mysqlType`). For the
column types the generators draw, as the real-producer tier's server (MariaDB 10.11, harness/producers/mariadb.py)
printed every one of them, nullable and NOT NULL (docs/producers.md, the `schema-changes` row)."""
from __future__ import annotations

from cdc_conformance.generators.history import ColumnSpec, Table
from cdc_conformance.generators.values import LogicalType

# MariaDB's key columns are at most 3,072 bytes, so a text key is a VARCHAR (4 bytes a character in utf8mb4): the
# real-producer tier's tables (harness.producers.statements) and the type a key's source type propagates
KEY_CHARS = 250
CHARSET = "utf8mb4"
# the server's collation (collation_server) and the one the tier's databases are made with (a binary no-pad
# collation keeps 'a' and 'a ' two keys, as the generators have them)
SERVER_COLLATION = "utf8mb4_bin"
DATABASE_COLLATION = "utf8mb4_nopad_bin"

# the type words the server prints (an integer's display width since MariaDB 10.x, as before 8.0 in MySQL)
_TYPES = {"INT16": "smallint(6)", "INT32": "int(11)", "INT64": "bigint(20)", "BOOLEAN": "bit(1)", "STRING": "longtext",
          "FLOAT64": "double", "DATE": "date", "BYTES": "longblob", "YEAR": "year(4)", "GEOMETRY": "geometry",
          "UINT32": "int(10) unsigned", "UINT64": "bigint(20) unsigned",
          # MariaDB's JSON is an alias of LONGTEXT with its own collation and a CHECK (json_valid(...)): _definition
          "JSON": "longtext"}
# fractional-second types: no parentheses at precision 0; the instant (TIMESTAMP) is made with six digits
_FRACTIONAL = {"TIME": "time", "DURATION": "time", "TIMESTAMP": "datetime", "TIMESTAMP_TZ": "timestamp"}


def quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def quoted_labels(labels: tuple[str, ...]) -> list[str]:
    """ENUM and SET members as declared and printed: each in single quotes, a quote doubled."""
    return ["'" + label.replace("'", "''") + "'" for label in labels]


def labels_text(labels: tuple[str, ...]) -> str:
    return ",".join(quoted_labels(labels))


def column_type(logical: LogicalType, key: bool = False) -> str:
    """The column's type as `desc` and SHOW CREATE TABLE print it (a text key is a VARCHAR: KEY_CHARS)."""
    kind = logical.kind
    if kind == "STRING" and key:
        return f"varchar({KEY_CHARS})"
    if kind in ("ENUM", "SET"):
        return f"{kind.lower()}({labels_text(logical.labels)})"
    if kind == "DECIMAL":
        return f"decimal({logical.precision},{logical.scale})"
    if kind == "BITS":
        return f"bit({logical.precision})"
    if kind in _FRACTIONAL:
        digits = 6 if kind == "TIMESTAMP_TZ" else logical.precision
        return _FRACTIONAL[kind] + (f"({digits})" if digits else "")
    return _TYPES[kind]


def _definition(column: ColumnSpec) -> str:
    kind, name = column.logical.kind, quoted(column.name)
    text = column_type(column.logical, key=bool(column.pk_position))
    if kind == "JSON":
        text += f" CHARACTER SET {CHARSET} COLLATE {SERVER_COLLATION}"
    if not column.nullable:
        text += " NOT NULL"
    else:  # a nullable TIMESTAMP says so: TIMESTAMP columns were NOT NULL unless declared (explicit_defaults_for_timestamp)
        text += " NULL DEFAULT NULL" if kind == "TIMESTAMP_TZ" else " DEFAULT NULL"
    return text + (f" CHECK (json_valid({name}))" if kind == "JSON" else "")


def show_create_table(table: Table, collation: str = DATABASE_COLLATION) -> str:
    """SHOW CREATE TABLE's text of `table` (InnoDB, the database's character set and collation)."""
    lines = [f"  {quoted(c.name)} {_definition(c)}" for c in table.columns]
    if table.key_columns:
        lines.append(f"  PRIMARY KEY ({','.join(quoted(c.name) for c in table.key_columns)})")
    return (f"CREATE TABLE {quoted(table.name)} (\n" + ",\n".join(lines)
            + f"\n) ENGINE=InnoDB DEFAULT CHARSET={CHARSET} COLLATE={collation}")
