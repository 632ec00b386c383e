"""Canonical change-event model v1: Spark schemas, the matching Python dataclasses, and the enums.

docs/canonical-model.md explains every field. The Spark schema is the contract of the normalizer's
output; the dataclasses are what the generators' oracle builds and what the diff compares, via
`canonical_json` (one rendering for both sides).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

MODEL_VERSION = 1


class Kind(str, Enum):
    ROW = "ROW"
    TRUNCATE = "TRUNCATE"
    DDL = "DDL"
    HEARTBEAT = "HEARTBEAT"
    TX_BEGIN = "TX_BEGIN"
    TX_END = "TX_END"
    MESSAGE = "MESSAGE"
    TOMBSTONE = "TOMBSTONE"


class Op(str, Enum):
    INSERT = "INSERT"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    # the row's state after a change that was an insert or an update, the record does not say which (Debezium's
    # ExtractNewRecordState without `__op`): a sink upserts it by key
    UPSERT = "UPSERT"


class Phase(str, Enum):
    DECODE = "DECODE"      # the bytes are not the format at all (not UTF-8, not JSON, wrong shape)
    VALIDATE = "VALIDATE"  # well-formed, but required parts are missing or contradictory
    ASSEMBLE = "ASSEMBLE"  # multi-record events (segments, update halves) cannot be put together
    CONVERT = "CONVERT"    # a column value cannot be turned into canonical text


class Code(str, Enum):
    """Stable quarantine codes. Cases assert on these; never rename one, only add."""

    MALFORMED_JSON = "MALFORMED_JSON"
    MALFORMED_AVRO = "MALFORMED_AVRO"            # the value is not a datum of the format's Avro schema
    UNKNOWN_SCHEMA_ID = "UNKNOWN_SCHEMA_ID"      # the record names a schema id its schema registry does not hold
    NOT_UTF8 = "NOT_UTF8"
    MALFORMED_KEY = "MALFORMED_KEY"
    MISSING_FIELD = "MISSING_FIELD"
    UNKNOWN_OPERATION = "UNKNOWN_OPERATION"
    UNKNOWN_MESSAGE_SHAPE = "UNKNOWN_MESSAGE_SHAPE"
    SCHEMA_MISMATCH = "SCHEMA_MISMATCH"
    UNDECODABLE_VALUE = "UNDECODABLE_VALUE"
    MALFORMED_DATA = "MALFORMED_DATA"            # a nested JSON level (CES `data`, row images) does not parse
    UNKNOWN_EVENT_TYPE = "UNKNOWN_EVENT_TYPE"    # CloudEvents `type` this format does not define
    UNKNOWN_COLUMN_TYPE = "UNKNOWN_COLUMN_TYPE"  # a column type name the decoder cannot type values by
    UNEXPECTED_IMAGE = "UNEXPECTED_IMAGE"        # a row image the operation cannot have (an insert's old values)
    DUPLICATE_AFTER_EMIT = "DUPLICATE_AFTER_EMIT"  # streaming: a copy arrived after its event was emitted
    SEGMENT_INCOMPLETE = "SEGMENT_INCOMPLETE"
    SEGMENT_DUPLICATE_CONFLICT = "SEGMENT_DUPLICATE_CONFLICT"
    UNPAIRED_UPDATE_HALF = "UNPAIRED_UPDATE_HALF"
    UNMAPPED_CONTROL_EVENT = "UNMAPPED_CONTROL_EVENT"  # a documented control event the model has no kind for
    DUPLICATE_KEY = "DUPLICATE_KEY"              # a JSON object names one member twice (parsers disagree on which wins)
    MISSING_OLD_KEY = "MISSING_OLD_KEY"          # an update's or delete's before image lacks a key column, or holds NULL
    READER_FAILURE = "READER_FAILURE"            # the record made a JVM reader throw (a bug of the reader, not a crash)


# The one table that gives each code its phase: decoders name a code, never a phase, and the linter
# rejects a case that expects a code under another phase.
CODE_PHASE: dict[Code, Phase] = {
    Code.MALFORMED_JSON: Phase.DECODE,
    Code.MALFORMED_AVRO: Phase.DECODE,
    Code.UNKNOWN_SCHEMA_ID: Phase.DECODE,
    Code.NOT_UTF8: Phase.DECODE,
    Code.MALFORMED_KEY: Phase.DECODE,
    Code.MALFORMED_DATA: Phase.DECODE,
    Code.MISSING_FIELD: Phase.VALIDATE,
    Code.UNKNOWN_OPERATION: Phase.VALIDATE,
    Code.UNKNOWN_MESSAGE_SHAPE: Phase.VALIDATE,
    Code.SCHEMA_MISMATCH: Phase.VALIDATE,
    Code.UNKNOWN_EVENT_TYPE: Phase.VALIDATE,
    Code.UNKNOWN_COLUMN_TYPE: Phase.VALIDATE,
    Code.UNEXPECTED_IMAGE: Phase.VALIDATE,
    Code.UNDECODABLE_VALUE: Phase.CONVERT,
    Code.DUPLICATE_AFTER_EMIT: Phase.ASSEMBLE,
    Code.SEGMENT_INCOMPLETE: Phase.ASSEMBLE,
    Code.SEGMENT_DUPLICATE_CONFLICT: Phase.ASSEMBLE,
    Code.UNPAIRED_UPDATE_HALF: Phase.ASSEMBLE,
    Code.UNMAPPED_CONTROL_EVENT: Phase.VALIDATE,
    Code.DUPLICATE_KEY: Phase.DECODE,
    Code.MISSING_OLD_KEY: Phase.VALIDATE,
    Code.READER_FAILURE: Phase.DECODE,
}


# ---------------------------------------------------------------------------------------------------
# Spark schemas
# ---------------------------------------------------------------------------------------------------

ORIGIN_TYPE = ArrayType(StructType([
    StructField("topic", StringType(), False),
    StructField("partition", IntegerType(), False),
    StructField("offset", LongType(), False),
]), False)

COLUMN_TYPE = StructType([
    StructField("name", StringType(), False),
    StructField("position", IntegerType(), True),
    StructField("source_type", StringType(), True),
    StructField("logical_type", StringType(), True),
    StructField("nullable", BooleanType(), True),
    StructField("pk_position", IntegerType(), True),
])

KEY_ENTRY_TYPE = StructType([
    StructField("name", StringType(), False),
    StructField("value", StringType(), True),
])

SOURCE_TYPE = StructType([StructField(name, StringType(), True)
                          for name in ("system", "server", "database", "schema", "table")])
PK_CHANGE_TYPE = StructType([StructField("group", StringType(), True), StructField("role", StringType(), True)])
POSITION_TYPE = StructType([StructField(name, StringType(), True) for name in ("commit", "event", "seq")])
DDL_TYPE = StructType([StructField("statement", StringType(), True), StructField("change", StringType(), True)])
MESSAGE_TYPE = StructType([StructField("prefix", StringType(), True), StructField("content", StringType(), True)])
IMAGE_TYPE = MapType(StringType(), StringType(), True)

EVENT_SCHEMA = StructType([
    StructField("event_id", StringType(), False),
    StructField("format", StringType(), False),
    StructField("format_version", StringType(), True),
    StructField("kind", StringType(), False),
    StructField("op", StringType(), True),
    StructField("snapshot", BooleanType(), True),
    StructField("source", SOURCE_TYPE, True),
    StructField("columns", ArrayType(COLUMN_TYPE, False), True),
    StructField("key", ArrayType(KEY_ENTRY_TYPE, False), True),
    StructField("before", IMAGE_TYPE, True),
    StructField("after", IMAGE_TYPE, True),
    StructField("pk_change", PK_CHANGE_TYPE, True),
    StructField("position", POSITION_TYPE, True),
    StructField("tx_id", StringType(), True),
    StructField("commit_ts", TimestampType(), True),
    StructField("emit_ts", TimestampType(), True),
    StructField("ddl", DDL_TYPE, True),
    StructField("message", MESSAGE_TYPE, True),
    StructField("origin", ORIGIN_TYPE, False),
])

HEADERS_TYPE = ArrayType(StructType([StructField("key", StringType(), True),
                                     StructField("value", BinaryType(), True)]), True)

QUARANTINE_SCHEMA = StructType([
    StructField("origin", ORIGIN_TYPE, False),
    StructField("format", StringType(), False),
    StructField("phase", StringType(), False),
    StructField("code", StringType(), False),
    StructField("detail", StringType(), True),
    StructField("raw_key", BinaryType(), True),
    StructField("raw_value", BinaryType(), True),
    StructField("raw_headers", HEADERS_TYPE, True),
])


def _sample_sql(data_type: DataType) -> str:
    """A non-NULL value of `data_type` whose nested nullability is the model's (SQL's CAST cannot say NOT NULL)."""
    if isinstance(data_type, StructType):
        return "named_struct(" + ", ".join(
            f"'{f.name}', {_sample_sql(f.dataType) if not f.nullable else f'CAST(NULL AS {f.dataType.simpleString()})'}"
            for f in data_type.fields) + ")"
    if isinstance(data_type, ArrayType):
        element = _sample_sql(data_type.elementType) if not data_type.containsNull else \
            f"CAST(NULL AS {data_type.elementType.simpleString()})"
        return f"array({element})"
    if isinstance(data_type, MapType):
        return f"CAST(map() AS {data_type.simpleString()})"
    return f"CAST('' AS {data_type.simpleString()})" if data_type.simpleString() == "string" else \
        f"CAST(0 AS {data_type.simpleString()})"


def typed_null(data_type: DataType) -> str:
    """SQL for NULL of `data_type`, keeping the model's NOT NULL on nested fields (an array's elements, say): for any
    normalizer building the model's records in Spark SQL."""
    return f"IF(false, {_sample_sql(data_type)}, NULL)"


# ---------------------------------------------------------------------------------------------------
# Python mirror (oracle + diff)
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Origin:
    topic: str
    partition: int
    offset: int


@dataclass
class Column:
    name: str
    position: int | None = None
    source_type: str | None = None
    logical_type: str | None = None
    nullable: bool | None = None
    pk_position: int | None = None


@dataclass
class CanonicalEvent:
    event_id: str
    format: str
    kind: str
    origin: list[Origin]
    format_version: str | None = None
    op: str | None = None
    snapshot: bool | None = None
    source: dict[str, str | None] | None = None
    columns: list[Column] | None = None
    key: list[tuple[str, str | None]] | None = None
    before: dict[str, str | None] | None = None
    after: dict[str, str | None] | None = None
    pk_change: dict[str, str | None] | None = None
    position: dict[str, str | None] | None = None
    tx_id: str | None = None
    commit_ts: dt.datetime | None = None
    emit_ts: dt.datetime | None = None
    ddl: dict[str, str | None] | None = None
    message: dict[str, str | None] | None = None


@dataclass
class QuarantineRecord:
    origin: list[Origin]
    format: str
    phase: str
    code: str
    detail: str | None = None
    raw_key: bytes | None = None
    raw_value: bytes | None = None
    raw_headers: list[tuple[str, bytes | None]] = field(default_factory=list)


def render_timestamp(value: dt.datetime | None) -> str | None:
    """Canonical instant text: UTC, 6 fraction digits, trailing Z."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _plain(value: Any) -> Any:
    """Spark Rows, dataclasses and tuples to plain JSON-able structures."""
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict(recursive=False).items()}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dt.datetime):
        return render_timestamp(value)
    if isinstance(value, (bytes, bytearray)):
        import base64
        return base64.b64encode(bytes(value)).decode()
    return value


def event_to_json(event: CanonicalEvent | Any) -> dict[str, Any]:
    """One canonical rendering for oracle events and Spark rows (dicts keyed like EVENT_SCHEMA)."""
    data = asdict(event) if isinstance(event, CanonicalEvent) else _plain(event)
    data = _plain(data)
    if data.get("key") is not None:
        data["key"] = [{"name": e[0], "value": e[1]} if isinstance(e, list) else e for e in data["key"]]
    return {name: data.get(name) for name in EVENT_SCHEMA.fieldNames()}


def quarantine_to_json(record: QuarantineRecord | Any) -> dict[str, Any]:
    data = _plain(asdict(record) if isinstance(record, QuarantineRecord) else record)
    if data.get("raw_headers"):
        data["raw_headers"] = [{"key": h[0], "value": h[1]} if isinstance(h, list) else h
                               for h in data["raw_headers"]]
    return {name: data.get(name) for name in QUARANTINE_SCHEMA.fieldNames()}
