"""Debezium's Kafka Connect side, as generators.debezium renders it: each column type's Connect schema and value
encoding (JsonConverter, with and without schemas), the source types the connectors propagate, and what each connector
writes for a position. The encoder (generators.debezium) and its hostile records (generators.debezium_hostile) use them.
"""
from __future__ import annotations

import base64
import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from cdc_conformance.generators import mariadb_ddl
from cdc_conformance.generators.drawn_texts import exponent_of
from cdc_conformance.generators.history import Transaction
from cdc_conformance.generators.postgres_values import jackson_json_text, micro_duration, without_trailing_zeros
from cdc_conformance.generators.values import (
    EPOCH,
    POSTGRES_KINDS,
    LogicalType,
    canonical_text,
    finite_type,
    java_bigdecimal_text,
    rescale,
)

# ------------------------------------------------------------------------------------------------
# Connect schemas and value encodings
# ------------------------------------------------------------------------------------------------

def connect_field(name: str, logical: LogicalType, optional: bool) -> dict:
    kind = logical.kind
    semantic = {
        "DATE": ("int32", "io.debezium.time.Date"),
        # time.precision.mode=adaptive: milliseconds up to TIME(3) (int32), micro- and nanoseconds past it
        "TIME": ("int32", "io.debezium.time.Time") if (logical.precision or 6) <= 3 else
                ("int64", "io.debezium.time.NanoTime" if logical.precision == 9 else "io.debezium.time.MicroTime"),
        "DURATION": ("int64", "io.debezium.time.MicroTime"),  # the binlog connectors: a Duration's microseconds
        # PostgreSQL's time, 24:00:00 as 86,400,000,000 (milliseconds under time.precision.mode=connect)
        "TIME_24": ("int32", "io.debezium.time.Time") if (logical.precision or 6) <= 3 else ("int64", "io.debezium.time.MicroTime"),
        "TIMESTAMP": ("int64", {3: "io.debezium.time.Timestamp", 9: "io.debezium.time.NanoTimestamp"}.get(
            logical.precision or 6, "io.debezium.time.MicroTimestamp")),
        "PG_TIMESTAMP": ("int64", "io.debezium.time.Timestamp" if logical.precision == 3 else "io.debezium.time.MicroTimestamp"),
        "PG_TIMESTAMP_TZ": ("string", "io.debezium.time.ZonedTimestamp"),  # an infinity as its name
        "TIMESTAMP_TZ": ("string", "io.debezium.time.ZonedTimestamp"),
        "YEAR": ("int32", "io.debezium.time.Year"),
    }
    plain = {"INT16": "int16", "INT32": "int32", "INT64": "int64", "BOOLEAN": "boolean", "STRING": "string",
             "FLOAT64": "double", "BYTES": "bytes", "JSON": "string",  # JSON: MariaDB's, a LONGTEXT
             "UINT32": "int64", "UINT64": "int64"}  # unsigned INT and BIGINT (bigint.unsigned.handling.mode=long)
    if kind in _POSTGRES_FIELDS:
        return {**_POSTGRES_FIELDS[kind], "optional": optional, "field": name}
    if kind in ("ENUM", "SET"):  # MySQL's and MariaDB's, with the declared labels (the binlog connectors' converters)
        return {"type": "string", "optional": optional,
                "name": "io.debezium.data.Enum" if kind == "ENUM" else "io.debezium.data.EnumSet", "version": 1,
                "parameters": {"allowed": ",".join(logical.labels)}, "field": name}
    if kind == "GEOMETRY":  # io.debezium.data.geometry.Geometry.builder(): a struct of the WKB and the SRID, optional
        #                    even for a NOT NULL column (seen on the real MariaDB 3.3.0 connector)
        return {"type": "struct", "fields": [{"type": "bytes", "optional": False, "field": "wkb"},
                                             {"type": "int32", "optional": True, "field": "srid"}],
                "optional": True, "name": "io.debezium.data.geometry.Geometry", "version": 1, "doc": "Geometry",
                "field": name}
    if kind in ("BITS", "VARBIT"):  # BIT(n), n > 1, and bit varying(n) (JdbcValueConverters.schemaBuilder:
        #                             Bits.builder(length), the declared maximum for a bit varying)
        return {"type": "bytes", "optional": optional, "name": "io.debezium.data.Bits", "version": 1,
                "parameters": {"length": str(logical.precision)}, "field": name}
    if kind == "DECIMAL":
        return {"type": "bytes", "optional": optional, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                "parameters": {"scale": str(logical.scale), "connect.decimal.precision": str(logical.precision)},
                "field": name}
    if kind == "MONEY":  # PostgresValueConverter: Decimal.builder(2), no precision (seen on 3.3.2)
        return {"type": "bytes", "optional": optional, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                "parameters": {"scale": str(logical.scale)}, "field": name}
    if kind in semantic:
        type_, semantic_name = semantic[kind]
        return {"type": type_, "optional": optional, "name": semantic_name, "version": 1, "field": name}
    return {"type": plain[kind], "optional": optional, "field": name}


def _named_string(name: str) -> dict:
    return {"type": "string", "name": name, "version": 1}


# PostgreSQL's own types as its connector's schemas have them (PostgresValueConverter.schemaBuilder): strings, most of
# them with a semantic name, a variable-scale numeric's struct, arrays of their element's schema (optional items)
_POSTGRES_FIELDS = {
    "UUID": _named_string("io.debezium.data.Uuid"), "PG_JSON": _named_string("io.debezium.data.Json"),
    "PG_JSONB": _named_string("io.debezium.data.Json"), "XML": _named_string("io.debezium.data.Xml"),
    "LTREE": _named_string("io.debezium.data.Ltree"), "TIME_TZ": _named_string("io.debezium.time.ZonedTime"),
    "INTERVAL": {"type": "int64", "name": "io.debezium.time.MicroDuration", "version": 1},
    "INTERVAL_ISO": _named_string("io.debezium.time.Interval"),  # interval.handling.mode=string
    "HSTORE": _named_string("io.debezium.data.Json"),
    "HSTORE_MAP": {"type": "map", "keys": {"type": "string", "optional": False},  # hstore.handling.mode=map
                   "values": {"type": "string", "optional": True}},
    **dict.fromkeys(["INET", "CIDR", "INT_RANGE", "INT8_RANGE", "NUM_RANGE", "DATE_RANGE", "TS_RANGE", "TSTZ_RANGE"],
                    {"type": "string"}),
    "NUMERIC": {"type": "struct", "fields": [{"type": "int32", "optional": False, "field": "scale"},
                                             {"type": "bytes", "optional": False, "field": "value"}],
                "name": "io.debezium.data.VariableScaleDecimal", "version": 1, "doc": "Variable scaled decimal"},
    "INT_ARRAY": {"type": "array", "items": {"type": "int32", "optional": True}},
    "TEXT_ARRAY": {"type": "array", "items": {"type": "string", "optional": True}},
}

CONNECT_TIME_NAMES = {"io.debezium.time.Date": "org.apache.kafka.connect.data.Date",
                       "io.debezium.time.Time": "org.apache.kafka.connect.data.Time",
                       "io.debezium.time.Timestamp": "org.apache.kafka.connect.data.Timestamp"}


def postgres_column_type(logical: LogicalType, in_snapshot: bool = False) -> tuple[str, int, int | None] | None:
    """(type, length, scale) as the PostgreSQL connector propagates a column of the real-producer tier's type
    (`column.propagate.source.type`: seen on 1.9.7, 2.7.3, 3.3.2); None for a type PostgreSQL does not hold. A numeric
    without precision is length 0 and no scale in a snapshot's records (the table as JDBC describes it), 131089 and 0
    in streamed ones (as the replication stream's relation message does; seen on 3.3.2)."""
    kind, p, s = logical.kind, logical.precision, logical.scale
    if kind == "NUMERIC" and in_snapshot:
        return "NUMERIC", 0, None
    fixed = {"INT16": ("INT2", 5, 0), "INT32": ("INT4", 10, 0), "INT64": ("INT8", 19, 0), "BOOLEAN": ("BOOL", 1, 0),
             "STRING": ("TEXT", 2 ** 31 - 1, 0), "BYTES": ("BYTEA", 2 ** 31 - 1, 0), "FLOAT64": ("FLOAT8", 17, 17),
             "DATE": ("DATE", 13, 0), "TIMESTAMP_TZ": ("TIMESTAMPTZ", 35, 6), "PG_TIMESTAMP_TZ": ("TIMESTAMPTZ", 35, 6)}
    if kind in fixed:
        return fixed[kind]
    if kind == "DECIMAL":
        return "NUMERIC", logical.digits, s
    if kind in ("BITS", "VARBIT"):
        return ("BIT" if kind == "BITS" else "VARBIT"), logical.digits, 0
    if kind in _POSTGRES_SOURCE_TYPES:
        return _POSTGRES_SOURCE_TYPES[kind]
    p = 6 if p is None else p  # the temporal types' default fraction digits
    if kind == "TIME_24":
        return "TIME", 9 + p, p
    if kind == "TIME" and p <= 6:  # the length: hh:mm:ss, the point and the digits
        return "TIME", 9 + p, p
    if kind in ("TIMESTAMP", "PG_TIMESTAMP") and p <= 6:
        return "TIMESTAMP", 23 + p, p
    return None


# (type, length, scale) as the MariaDB connector's DDL parser describes a column: None is a parameter it leaves out
_MARIADB_SOURCE_TYPES = {"INT16": ("SMALLINT", 6, None), "INT32": ("INT", 11, None), "INT64": ("BIGINT", 20, None),
                         "BOOLEAN": ("BIT", 1, None), "STRING": ("LONGTEXT", None, None), "FLOAT64": ("DOUBLE", None, None),
                         "DATE": ("DATE", None, None), "BYTES": ("LONGBLOB", None, None), "YEAR": ("YEAR", 4, None),
                         "GEOMETRY": ("GEOMETRY", None, None), "JSON": ("LONGTEXT", None, None),  # MariaDB's JSON is LONGTEXT
                         "UINT32": ("INT UNSIGNED", 10, None), "UINT64": ("BIGINT UNSIGNED", 20, None),
                         "TIMESTAMP_TZ": ("TIMESTAMP", 6, None), "ENUM": ("ENUM", 1, None)}
# ... and the types whose length is their declared precision (fraction digits, bits)
_MARIADB_PRECISION_TYPES = {"TIME": "TIME", "DURATION": "TIME", "TIMESTAMP": "DATETIME", "BITS": "BIT"}


def mariadb_column_type(logical: LogicalType, key: bool = False) -> tuple[str, int | None, int | None] | None:
    """(type, length, scale) as the MariaDB connector propagates a column of the real-producer tier's type (seen on
    3.3.0, the same in a snapshot and streamed): its DDL parser's reading of the column, where an ENUM's length is 1 and
    a SET's its members and the commas between them (ColumnDefinitionParserListener, DBZ-132)."""
    kind, p, s = logical.kind, logical.precision, logical.scale
    if key and kind == "STRING":
        return "VARCHAR", mariadb_ddl.KEY_CHARS, None
    if kind == "SET":
        return "SET", max(0, 2 * len(logical.labels) - 1), None
    if kind == "DECIMAL":
        return "DECIMAL", p, s
    if kind in _MARIADB_PRECISION_TYPES:
        return _MARIADB_PRECISION_TYPES[kind], p, None
    return _MARIADB_SOURCE_TYPES.get(kind)


_UNBOUNDED = 2 ** 31 - 1
_POSTGRES_SOURCE_TYPES = {"UUID": ("UUID", _UNBOUNDED, 0), "PG_JSON": ("JSON", _UNBOUNDED, 0),
                          "PG_JSONB": ("JSONB", _UNBOUNDED, 0), "XML": ("XML", _UNBOUNDED, 0),
                          "INET": ("INET", _UNBOUNDED, 0), "LTREE": ("LTREE", _UNBOUNDED, 0),
                          "INT_RANGE": ("INT4RANGE", _UNBOUNDED, 0), "TIME_TZ": ("TIMETZ", 21, 6),
                          "CIDR": ("CIDR", _UNBOUNDED, 0), "TS_RANGE": ("TSRANGE", _UNBOUNDED, 0),
                          "INT8_RANGE": ("INT8RANGE", _UNBOUNDED, 0), "NUM_RANGE": ("NUMRANGE", _UNBOUNDED, 0),
                          "DATE_RANGE": ("DATERANGE", _UNBOUNDED, 0), "TSTZ_RANGE": ("TSTZRANGE", _UNBOUNDED, 0),
                          "NUMERIC": ("NUMERIC", 131089, 0), "MONEY": ("MONEY", _UNBOUNDED, 0), "INTERVAL": ("INTERVAL", 49, 6),
                          "HSTORE": ("HSTORE", _UNBOUNDED, 0), "INT_ARRAY": ("_INT4", 10, 0), "TEXT_ARRAY": ("_TEXT", _UNBOUNDED, 0)}


def unscaled_base64(value) -> str:
    """Connect Decimal: big-endian two's complement of the unscaled value, minimal length."""
    sign, digits, _ = value.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    length = (unscaled if unscaled >= 0 else ~unscaled).bit_length() // 8 + 1
    return base64.b64encode(unscaled.to_bytes(length, "big", signed=True)).decode()


def _micros(delta: dt.timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


# PostgreSQL's timestamp infinity as the connector writes it (PostgresValueConverter.POSITIVE_INFINITY_INSTANT: pgjdbc's
# sentinel taken as microseconds; in milliseconds for a timestamp(3) and under time.precision.mode=connect: seen on 3.3.2)
POSTGRES_INFINITY_MICROS = {"infinity": 9_223_372_036_825_200_000, "-infinity": -9_223_372_036_832_400_000}


def encode_value(logical: LogicalType, value, zoned_fixed_width: bool, decimal_format: str = "base64",
                 padded_bits: bool = True):
    """A Python value as the JSON value Debezium + JsonConverter writes for it. `padded_bits`: BIT(n) bytes padded to
    ceil(n / 8) (MySQL's and MariaDB's connectors) or as few as the value needs (PostgreSQL's)."""
    if value is None:
        return None
    kind = logical.kind
    if kind in ("TIME", "TIMESTAMP") and logical.precision == 9:
        return value  # NanoTime / NanoTimestamp: the count of nanoseconds it is held as
    if kind == "NUMERIC":  # VariableScaleDecimal: the value's scale without its fraction's last zeros, unscaled bytes
        trimmed = without_trailing_zeros(value)
        return {"scale": -exponent_of(trimmed), "value": unscaled_base64(trimmed)}
    if kind in ("INT_ARRAY", "TEXT_ARRAY", "HSTORE_MAP"):
        return value
    if kind == "INTERVAL":
        return micro_duration(value)
    if kind == "TIME_TZ":  # ZonedTime: in UTC, ISO_OFFSET_TIME's fraction as short as it can be (seen on 3.3.2)
        clock, fraction = (canonical_text(logical, value) or "").rstrip("Z").split(".")
        return clock + ("." + fraction.rstrip("0") if fraction.rstrip("0") else "") + "Z"
    if kind in POSTGRES_KINDS:  # PostgreSQL's own text of the value, as the connector reads it from the server
        return canonical_text(logical, value)
    if kind in ("DECIMAL", "MONEY"):
        exact = rescale(value, logical.places)
        return exact if decimal_format == "numeric" else unscaled_base64(exact)
    if kind == "DATE":
        return (value - EPOCH.date()).days
    if kind in ("DURATION", "TIME_24"):  # negative, or past a day: MySQL's TIME; PostgreSQL's 24:00 (issue 40)
        return _micros(value) // (1000 if (logical.precision or 6) <= 3 else 1)
    if kind == "TIME":
        micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
        return micros // 1000 if (logical.precision or 6) <= 3 else micros
    if kind == "PG_TIMESTAMP" and isinstance(value, str):  # pgjdbc's DATE_(POSITIVE|NEGATIVE)_INFINITY as microseconds
        micros = POSTGRES_INFINITY_MICROS[value]
        return micros // 1000 if logical.precision == 3 else micros
    if kind == "PG_TIMESTAMP_TZ":  # ZonedTimestamp: `infinity` by name (PostgresValueConverter), else as any instant
        return value if isinstance(value, str) else encode_value(finite_type(logical), value, zoned_fixed_width)
    if kind in ("TIMESTAMP", "PG_TIMESTAMP"):
        micros = _micros(value - EPOCH)
        return micros // 1000 if logical.precision == 3 else micros
    if kind == "TIMESTAMP_TZ":
        utc = value.astimezone(dt.UTC)
        if zoned_fixed_width:  # 2.2+ keeps the column's fraction width (DBZ-5996)
            return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        fraction = f"{utc.microsecond:06d}".rstrip("0")  # ISO_OFFSET_DATE_TIME: as many digits as needed
        return utc.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if fraction else "") + "Z"
    if kind == "BYTES":
        return base64.b64encode(value).decode()
    if kind == "GEOMETRY":  # Geometry.createValue(schema, wkb, srid): the struct's members in the schema's order; the
        #                    binlog connectors write SRID 0 as null (seen on the real MariaDB 3.3.0 and 3.5.0)
        srid, wkb = value
        return {"wkb": base64.b64encode(wkb).decode(), "srid": srid or None}
    if kind == "BITS":  # a BitSet's bytes, bit 0 first (BitSet.toByteArray: none for 0); JdbcValueConverters.convertBits
        #                pads them to ceil(n / 8), PostgreSQL's connector does not (seen on 3.3.2, docs/producers.md)
        size = (logical.digits + 7) // 8 if padded_bits else (value.bit_length() + 7) // 8
        return base64.b64encode(value.to_bytes(size, "little")).decode()
    if kind == "VARBIT":  # PostgresValueConverter.convertBits: a BitSet of the bit string, as few bytes as it needs
        bits = int(value or "0", 2)
        return base64.b64encode(bits.to_bytes((bits.bit_length() + 7) // 8, "little")).decode()
    return value


def schemaless_text(logical: LogicalType, value, zoned_fixed_width: bool, decimal_format: str = "base64",
                    padded_bits: bool = True) -> str | None:
    """Without a schema the normalizer can only keep each value's JSON text (see the format doc)."""
    encoded = encode_value(logical, value, zoned_fixed_width, decimal_format, padded_bits)
    if encoded is None:
        return None
    if isinstance(encoded, bool):
        return "true" if encoded else "false"
    if isinstance(encoded, float):
        return canonical_text(logical, encoded)
    if isinstance(encoded, Decimal):  # a NUMERIC decimal: its JSON token, exactly as written
        return java_bigdecimal_text(encoded)
    if isinstance(encoded, (dict, list)):  # a struct or an array: its JSON text, members in name order (no spelling
        #                                     changes it), as the normalizer keeps it
        return jackson_json_text(encoded)
    return str(encoded)


# ------------------------------------------------------------------------------------------------
# Positions: what each connector writes, and what the canonical `position` makes of it
# ------------------------------------------------------------------------------------------------

@dataclass
class SourceClock:
    """Log positions and transaction ids as the database hands them out, in commit order (PostgreSQL LSNs and
    binlog offsets alike; SQL Server's LSNs count on their own)."""

    counter: int = 0x758
    log_position: int = 24_023_128
    tx_count: int = 555
    pg_last_commit: int | None = None
    binlog_index: int = 1
    statements_per_file: int | None = None  # None: one file (the profile's binlog_rotation says otherwise)
    statements_in_file: int = 0

    def sqlserver_lsn(self) -> str:
        self.counter += 1
        return f"{0x27:08x}:{self.counter:08x}:{self.counter % 0x10000:04x}"

    def next_log_position(self) -> int:
        self.log_position += 40
        return self.log_position

    @staticmethod
    def snapshot_coordinates() -> dict:
        """Where a snapshot's records say it started reading: server id 0, no GTID (its schema records' too)."""
        return {"server_id": 0, "gtid": None, "file": "binlog.000001", "pos": 2481, "row": 0, "thread": None,
                "query": None, "tx_id": None}

    def binlog(self, tx: Transaction) -> list[dict]:
        """A transaction's row events' coordinates: a Rows event per statement, its rows numbered from 0 (a
        multi-row INSERT's share the event's position). The snapshot's rows carry the binlog position it started
        at, server id 0 and no GTID; streamed ones the server's id and the transaction's GTID (domain-server-sequence).
        TRUNCATE commits the transaction before it and is a transaction of its own; the application (autocommit on, as
        PyMySQL's connection is) then runs each later statement as one too (seen on MariaDB 10.11 with 3.3.0)."""
        if tx.snapshot:
            return [self.snapshot_coordinates() for _ in tx.changes]
        self.tx_count += 1
        coordinates, truncated = [], False
        for index, statement in enumerate(tx.statements()):
            truncated = truncated or statement[0].kind == "TRUNCATE"
            if truncated and index > 0:
                self.tx_count += 1
            position = self.next_log_position()
            if self.statements_in_file == self.statements_per_file:  # rotate, as max_binlog_size or FLUSH LOGS does
                self.binlog_index, self.statements_in_file = self.binlog_index + 1, 0
            self.statements_in_file += 1
            coordinates += [{"server_id": 1, "gtid": f"0-1-{self.tx_count}", "file": f"binlog.{self.binlog_index:06d}", "pos": position,
                             "row": row, "thread": None, "query": None, "tx_id": None} for row in range(len(statement))]
        return coordinates


RUN_ID = b"01a215e6-7182-7ae7-9b24-5f47f03d00d6"  # a UUID (version 7) as the connector writes one per run

BINLOG_SOURCE = ("server_id", "gtid", "file", "pos", "row", "thread", "query")
# a column's JDBC type as the binlog connectors' DDL parser gives it, by its type name (seen on 3.3.0 and 1.9.7:
# a SET and an ENUM are CHAR, a YEAR an INTEGER, a MariaDB TIMESTAMP TIMESTAMP_WITH_TIMEZONE)
JDBC_TYPES = {"SMALLINT": 5, "INT": 4, "BIGINT": -5, "BIT": -7, "LONGTEXT": 12, "VARCHAR": 12, "DECIMAL": 3, "DOUBLE": 8,
               "DATE": 91, "TIME": 92, "DATETIME": 93, "TIMESTAMP": 2014, "LONGBLOB": 2004, "ENUM": 1, "SET": 1,
               "YEAR": 4, "INT UNSIGNED": 4, "BIGINT UNSIGNED": -5, "GEOMETRY": 1111}
CHARACTER_TYPES = ("LONGTEXT", "VARCHAR", "ENUM", "SET")  # the ones the parser gives the table's character set
SCHEMA_CHANGE_COLUMN = [
    {"type": "string", "optional": False, "field": "name"}, {"type": "int32", "optional": False, "field": "jdbcType"},
    {"type": "int32", "optional": True, "field": "nativeType"}, {"type": "string", "optional": False, "field": "typeName"},
    {"type": "string", "optional": True, "field": "typeExpression"},
    {"type": "string", "optional": True, "field": "charsetName"}, {"type": "int32", "optional": True, "field": "length"},
    {"type": "int32", "optional": True, "field": "scale"}, {"type": "int32", "optional": False, "field": "position"},
    {"type": "boolean", "optional": True, "field": "optional"},
    {"type": "boolean", "optional": True, "field": "autoIncremented"},
    {"type": "boolean", "optional": True, "field": "generated"}, {"type": "string", "optional": True, "field": "comment"}]
SCHEMA_CHANGE_COLUMN_SINCE_2 = [
    {"type": "string", "optional": True, "field": "defaultValueExpression"},
    {"type": "array", "items": {"type": "string", "optional": False}, "optional": True, "field": "enumValues"}]


def epoch_ms(instant: dt.datetime) -> int:
    """Integer milliseconds since the epoch (float timestamps lose a millisecond now and then)."""
    return (instant - EPOCH.replace(tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)


def from_epoch_ms(ms: int) -> dt.datetime:
    return EPOCH.replace(tzinfo=dt.UTC) + dt.timedelta(milliseconds=ms)


def fixed_digits(value) -> str | None:
    return None if value is None else str(value).zfill(20)


def binlog_file(name: str) -> str:
    """The binlog file's index at ten digits (2^31-1 at most), so that positions compare as the files follow each
    other: as written, `binlog.1000000` sorts before `binlog.999999`."""
    base, dot, index = name.rpartition(".")
    return f"{base}.{int(index):010d}" if dot and index.isdigit() else name


def hex_lsn(lsn: str | None) -> str | None:
    return None if lsn is None else lsn.replace(":", "").upper()


def payload_of(document: dict) -> dict:
    """A record's payload, with schemas (`{"schema", "payload"}`) or without."""
    return document["payload"] if "schema" in document and "payload" in document else document
