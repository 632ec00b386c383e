"""Debezium through Kafka Connect's Avro converter, as a schema registry's clients write it: the same changes as
debezium-json (generators/debezium.py draws and encodes them), each record's key and value turned from JsonConverter's
`{"schema","payload"}` into the Confluent wire format: magic byte 0, the writer schema's 4-byte id, the Avro datum.

The Avro schema is the converter's rendering of the Connect schema (AvroData.fromConnectSchema, as Apicurio's
converter 2.6.13 registered it for the real Debezium 3.3.2 connector here: docs/formats/debezium-avro.md): a struct a
record named by its Connect name, `connect.name`, `connect.version`, `connect.parameters` and `connect.default` kept as
properties, int8 and int16 as ints marked `connect.type`, a Decimal as bytes with its scale and precision, an optional
field a union with null (null first, unless the field has another default), a named type written once and named after.
The id is the registry's: each record names its schemas (`Registration`) and the harness registers them as it produces.
"""
from __future__ import annotations

import base64
import datetime as dt
import functools
import json
import re
from dataclasses import replace
from decimal import Decimal

from hypothesis import strategies as st

from cdc_conformance.generators import debezium
from cdc_conformance.generators.history import ColumnSpec, History
from cdc_conformance.generators.plugin import FormatGenerator, Hostile, record_mutator
from cdc_conformance.generators.records import Expected, KafkaRecord, Registration, default_partition
from cdc_conformance.generators.values import LogicalType
from cdc_conformance.model import Code

FORMAT = "debezium-avro"
MAGIC = b"\x00"
PLACEHOLDER_ID = b"\x00\x00\x00\x00"  # the harness writes the registry's id here
# how a subject is named for a record (Confluent's SubjectNameStrategy; Apicurio's ArtifactResolverStrategy)
SUBJECT_STRATEGIES = ("topic", "record", "topic-record")
_PRIMITIVES = {"int32": "int", "int64": "long", "float": "float", "double": "double", "boolean": "boolean",
               "string": "string", "bytes": "bytes"}
# Kafka Connect's logical types that AvroData writes as Avro's own
_AVRO_LOGICAL = {"org.apache.kafka.connect.data.Date": "date", "org.apache.kafka.connect.data.Time": "time-millis",
                 "org.apache.kafka.connect.data.Timestamp": "timestamp-millis"}
_DECIMAL = "org.apache.kafka.connect.data.Decimal"


def avro_schema(connect: dict, defined: set[str], namespace: str | None = None) -> dict | str:
    """The Avro schema of a Connect schema (JsonConverter's JSON of it), as AvroData writes it; `defined`: the full
    names of the records already written in this schema (named after, never twice)."""
    kind = connect["type"]
    properties = _connect_properties(connect)
    if kind == "struct":
        full = avro_name(connect.get("name") or "io.confluent.connect.avro.ConnectDefault")
        space, _, name = full.rpartition(".")
        if full in defined:  # named after its first writing, relative to the enclosing namespace as Avro writes names
            return name if (space or None) == namespace else full
        defined.add(full)
        fields = [_avro_field(field, defined, space or None) for field in connect["fields"]]
        record: dict = {"type": "record", "name": name}
        if space and space != namespace:
            record["namespace"] = space
        return {**record, "fields": fields, **properties}
    if kind == "array":
        return {"type": "array", "items": _optional(connect["items"], defined, namespace), **properties}
    if kind == "map":
        return {"type": "map", "values": _optional(connect["values"], defined, namespace), **properties}
    primitive = "int" if kind in ("int8", "int16") else _PRIMITIVES[kind]
    extra: dict = {"connect.type": kind} if kind in ("int8", "int16") else {}
    if connect.get("name") == _DECIMAL:
        parameters = connect.get("parameters", {})
        extra.update(scale=int(parameters["scale"]), precision=int(parameters.get("connect.decimal.precision", 64)),
                     logicalType="decimal")
    elif connect.get("name") in _AVRO_LOGICAL:
        extra["logicalType"] = _AVRO_LOGICAL[connect["name"]]
    return {"type": primitive, **extra, **properties} if extra or properties else primitive


def _optional(connect: dict, defined: set[str], namespace: str | None):
    """An array's items or a map's values: a union with null when Connect's schema says optional."""
    schema = avro_schema(connect, defined, namespace)
    return ["null", schema] if connect.get("optional") else schema


def _connect_properties(connect: dict) -> dict:
    """What AvroData.fromConnectSchema keeps of a Connect schema as Avro properties: its doc (a Geometry's
    "Geometry", seen registered by the real MariaDB connector), version, parameters, default and name."""
    properties: dict = {}
    if "doc" in connect:
        properties["connect.doc"] = connect["doc"]
    if "version" in connect:
        properties["connect.version"] = connect["version"]
    if "parameters" in connect:
        properties["connect.parameters"] = connect["parameters"]
    if "default" in connect and connect["type"] != "struct":
        properties["connect.default"] = connect["default"]
    if connect.get("name") and connect["type"] != "struct":
        properties["connect.name"] = connect["name"]
    elif connect["type"] == "struct" and connect.get("name"):
        properties["connect.name"] = avro_name(connect["name"])
    return properties


def avro_name(name: str) -> str:
    """A schema name as Debezium writes it for Avro (`schema.name.adjustment.mode=avro`, SchemaNameAdjuster): in each
    dotted part, a character Avro does not allow in a name becomes `_`, and so does a leading digit's place. Without it
    a topic prefix with a dash (`my-server`) makes a name the converter cannot register."""
    return ".".join(re.sub(r"[^A-Za-z0-9_]", "_", part if not part[:1].isdigit() else f"_{part[1:]}") for part in name.split("."))


def _avro_field(field: dict, defined: set[str], namespace: str | None) -> dict:
    schema = avro_schema(field, defined, namespace)
    out: dict = {"name": field["field"]}
    if not field.get("optional"):
        return {**out, "type": schema, **({"default": field["default"]} if "default" in field else {})}
    if field.get("default") is not None:  # the default's own type first, as Avro wants for a union's default
        return {**out, "type": [schema, "null"], "default": field["default"]}
    return {**out, "type": ["null", schema], "default": None}


def avro_datum(connect: dict, value):
    """A JsonConverter payload value as the Avro datum the converter writes for it: bytes (and Decimals, base64 in
    JSON) as bytes, structs by their fields, everything else as it is."""
    if value is None:
        return None
    kind = connect["type"]
    if kind == "struct":
        return {field["field"]: avro_datum(field, value.get(field["field"])) for field in connect["fields"]}
    if kind == "array":
        return [avro_datum(connect["items"], item) for item in value]
    if kind == "map":
        return {key: avro_datum(connect["values"], item) for key, item in value.items()}
    if kind == "bytes":
        return base64.b64decode(value)
    if kind in ("float", "double") and isinstance(value, str):  # Jackson quotes NaN and the infinities; Avro holds the number
        return float(value)
    return value


def wire(document: bytes, subject: str, strategy: str) -> tuple[bytes, Registration]:
    """JsonConverter's bytes of a key or value -> the wire format's bytes (placeholder id) and the schema to register."""
    return _wire(json.loads(document), subject, strategy)


def _wire(document: dict, subject: str, strategy: str) -> tuple[bytes, Registration]:
    schema = avro_schema(document["schema"], set())
    text = json.dumps(schema, separators=(",", ":"))
    datum = _written(text, avro_datum(document["schema"], document["payload"]))
    return MAGIC + PLACEHOLDER_ID + datum, Registration(_subject(subject, schema, strategy), text)


@functools.lru_cache(maxsize=512)
def _fastavro_schema(text: str):
    """fastavro's parsed schema for an Avro schema's JSON text, once per text (a history's records share a few)."""
    import fastavro

    return fastavro.parse_schema(_without_logical_types(json.loads(text)), _write_hint=False)


def _written(schema_text: str, datum) -> bytes:
    import io

    import fastavro

    written = io.BytesIO()
    fastavro.schemaless_writer(written, _fastavro_schema(schema_text), datum)
    return written.getvalue()


def _without_logical_types(schema):
    """The schema to write the datum with: the same bytes, no logical type for fastavro to check. The converter
    registers what it has, and PostgreSQL's numeric(3,5) gives a decimal of scale 5 and precision 3, which fastavro
    refuses and Java's Avro reads as plain bytes (both seen with the real connector: docs/formats/debezium-avro.md)."""
    if isinstance(schema, dict):
        return {key: _without_logical_types(value) for key, value in schema.items() if key != "logicalType"}
    if isinstance(schema, list):
        return [_without_logical_types(item) for item in schema]
    return schema


def _subject(topic_and_part: str, schema, strategy: str) -> str:
    topic, _, part = topic_and_part.rpartition("-")
    name = schema if isinstance(schema, str) else ".".join(p for p in (schema.get("namespace"), schema["name"]) if p)
    if strategy == "record":
        return name
    return f"{topic}-{name}" if strategy == "topic-record" else f"{topic}-{part}"


def as_avro(record: KafkaRecord, strategy: str, partitions: int) -> KafkaRecord:
    """A debezium-json record as the Avro converter writes the same Connect record."""
    parts: dict = {}
    registrations = []
    for part in ("key", "value"):
        written = getattr(record, part)
        document = None if written is None else json.loads(written)
        if document is None or document["payload"] is None:
            parts[part] = None  # a null value (the flattening SMT's delete) is no datum: the converter writes none
            continue
        parts[part], registration = _wire(document, f"{record.topic}-{part}", strategy)
        registrations.append((part, registration))
    key = parts.get("key", record.key)
    partition = default_partition(key, partitions) if key is not None else record.partition
    return replace(record, partition=partition, registrations=tuple(registrations), **parts)


def encode(history, profile: debezium.Profile, strategy: str = "topic") -> list[Expected]:
    return [replace(expected, record=as_avro(expected.record, strategy, profile.partitions),
                    events=[replace(event, format=FORMAT) for event in expected.events])
            for expected in debezium.encode(history, profile)]


# Kafka Connect's pipeline with the Avro converter: always a schema (the converter has no schemaless mode), no
# JsonConverter setting (decimal.format is JsonConverter's)
AVRO_PROFILE = {"schemas_enable": True, "decimal_format": "base64", "pipeline": "connect"}


# how the table's schema changes in the middle of the topic (an ALTER TABLE between two transactions): the records
# before the cut are written with the old value schema, those after it with the new one, under another id
EVOLUTIONS = (None, "column added", "column dropped", "column widened")


@st.composite
def examples(draw, fixed: dict | None = None):
    profile, history = draw(debezium.examples(fixed={**AVRO_PROFILE, **(fixed or {})}))
    evolution = draw(st.sampled_from(EVOLUTIONS)), draw(st.floats(0, 1))
    return profile, history, draw(st.sampled_from(SUBJECT_STRATEGIES)), evolution


def render(example, topic: str, index: int) -> list[Expected]:
    profile, history, strategy, (evolution, cut) = example
    profile = replace(profile, prefix=f"server{index}", topic_override=topic)
    if evolution is None:
        return encode(history, profile, strategy)
    before, after = _evolved(history, evolution)
    old, new = encode(before, profile, strategy), encode(after, profile, strategy)
    at = int(cut * len(old))  # one history, one clock: the two renderings' records pair up one for one
    return old[:at] + new[at:]


_ADDED = ColumnSpec("evolved", LogicalType("INT64"), True)


def _evolved(history: History, evolution: str) -> tuple[History, History]:
    """The history over the table before and after the change: a nullable column added (NULL in every row, as
    PostgreSQL and MariaDB add one), the same column dropped (the old schema had it), or an INT32 column widened to
    INT64 (the values stay; a table without one gets a column added)."""
    widened = next((c for c in history.table.columns if c.logical.kind == "INT32" and not c.pk_position), None)
    if evolution == "column widened" and widened is not None:
        wider = replace(widened, logical=LogicalType("INT64"))
        table = replace(history.table, columns=tuple(wider if c is widened else c for c in history.table.columns))
        return history, replace(history, table=table)
    with_column = _with_column(history)
    return (history, with_column) if evolution != "column dropped" else (with_column, history)


def _with_column(history: History) -> History:
    def row(values):
        return None if values is None else {**values, _ADDED.name: None}
    transactions = tuple(replace(tx, changes=tuple(replace(c, before=row(c.before), after=row(c.after)) for c in tx.changes))
                         for tx in history.transactions)
    return History(replace(history.table, columns=(*history.table.columns, _ADDED)), transactions)


def shared_history(history, topic: str, index: int):
    return render((debezium.SHARED_PROFILE, history, "topic", (None, 0.0)), topic, index)


def _bench():
    """The benchmark's purchases (generators.bench), and the plain pass a Spark user writes for such a topic: the
    5 bytes of the wire format cut off, `from_avro` with the writer schema (one schema here: no evolution)."""
    from cdc_conformance.generators.bench import history_bench, purchase

    (expected,) = shared_history(purchase(0), "bench", 0)
    schema = dict(expected.record.registrations)["value"].schema
    base = history_bench(shared_history, lambda: "", label="plain from_avro (writer schema, 5 bytes cut)")

    def plain(raw):
        from pyspark.sql import functions as F
        from pyspark.sql.avro.functions import from_avro

        return raw.select(from_avro(F.expr("substring(value, 6)"), schema).alias("d"))
    return replace(base, plain=plain)




# ------------------------------------------------------------------------------------------------
# Adversarial records: the wire format's own failures (debezium-json's hostile set covers the envelope)
# ------------------------------------------------------------------------------------------------

def _neighbour() -> tuple[bytes, Registration, bytes, Registration]:
    """A PostgreSQL insert as the Avro converter writes it: its value and key with their schemas."""
    from cdc_conformance.generators.history import Change, ColumnSpec, History, Table, Transaction
    from cdc_conformance.generators.values import LogicalType

    table = Table("public", "t", (ColumnSpec("id", LogicalType("INT32"), False, 1), ColumnSpec("v", LogicalType("STRING"), True, None),
                                  ColumnSpec("p", LogicalType("DECIMAL", 10, 2), True, None)))
    change = Change("INSERT", None, {"id": 3, "v": "text", "p": Decimal("12.30")})
    history = History(table, (Transaction((change,), dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.UTC), 100),))
    (expected,) = debezium.encode(history, replace(debezium.SHARED_PROFILE, prefix="pg", tombstones=False))
    value, value_schema = wire(expected.record.written_value, "hostile-value", "topic")
    key, key_schema = wire(expected.record.key or b"", "hostile-key", "topic")
    return value, value_schema, key, key_schema


def read_datum(value: bytes, schema_text: str):
    """The datum of a wire-format record (its 5 bytes of header skipped) read with the schema `schema_text`."""
    import io

    import fastavro

    return fastavro.schemaless_reader(io.BytesIO(value[5:]), _fastavro_schema(schema_text), None)


def _writer(registration: Registration):
    def read(value: bytes):
        return read_datum(value, registration.schema)

    def write(datum) -> bytes:
        return MAGIC + PLACEHOLDER_ID + _written(registration.schema, datum)
    return read, write


def extremes(value: bytes) -> list[tuple[str, bytes]]:
    """The valid neighbour's integers at their types' extremes, written with its own schema."""
    from cdc_conformance.generators.extremes import avro_variants

    read, write = _writer(_NEIGHBOUR[1])
    return avro_variants(value, read, write)


def _not_utf8(value: bytes, registration: Registration) -> bytes:
    """The neighbour with `op` holding bytes that are no UTF-8 (written through a copy of the schema whose op is bytes:
    a string and a bytes field are written alike)."""
    schema = json.loads(registration.schema)
    schema["fields"] = [{**f, "type": "bytes"} if f["name"] == "op" else f for f in schema["fields"]]
    read, _ = _writer(registration)
    return MAGIC + PLACEHOLDER_ID + _written(json.dumps(schema), {**read(value), "op": b"\xff\xfe"})


_NEIGHBOUR = _neighbour()
_OTHER = Registration("hostile-other-value", json.dumps({"type": "record", "name": "Other", "namespace": "elsewhere",
                                                         "fields": [{"name": "x", "type": "string"}]}))
_TEXT = Registration("hostile-text-value", json.dumps("string"))


def _hostile(value: bytes | None, code: Code | None, registration: Registration | None = None, key: bytes | None = None,
             key_registration: Registration | None = None) -> Hostile:
    named = (*((("value", registration),) if registration else ()), *((("key", key_registration),) if key_registration else ()))
    return Hostile(value, code, key=key, registrations=named)


_VALUE, _VALUE_SCHEMA, _KEY, _KEY_SCHEMA = _NEIGHBOUR
HOSTILE: dict[str, Hostile] = {
    "valid neighbour": _hostile(_VALUE, None, _VALUE_SCHEMA, _KEY, _KEY_SCHEMA),
    "empty value": _hostile(b"", Code.MALFORMED_AVRO),
    "shorter than the header": _hostile(b"\x00\x00\x00", Code.MALFORMED_AVRO),
    "magic byte 1": _hostile(b"\x01" + _VALUE[1:], Code.MALFORMED_AVRO, _VALUE_SCHEMA),
    "JSON, not the wire format": _hostile(b'{"op":"c","after":{"id":1}}', Code.MALFORMED_AVRO),
    "unknown schema id": _hostile(MAGIC + (0x7FFFFFF0).to_bytes(4, "big") + _VALUE[5:], Code.UNKNOWN_SCHEMA_ID),
    "truncated datum": _hostile(_VALUE[:-1], Code.MALFORMED_AVRO, _VALUE_SCHEMA),
    "trailing bytes": _hostile(_VALUE + b"\x00", Code.MALFORMED_AVRO, _VALUE_SCHEMA),
    "the key's schema id on the value": _hostile(_VALUE, Code.MALFORMED_AVRO, replace(_KEY_SCHEMA, subject="hostile-value")),
    "a record of no Debezium envelope": _hostile(MAGIC + PLACEHOLDER_ID + b"\x06abc", Code.UNKNOWN_MESSAGE_SHAPE, _OTHER),
    "a schema that is no record": _hostile(MAGIC + PLACEHOLDER_ID + b"\x06abc", Code.UNKNOWN_MESSAGE_SHAPE, _TEXT),
    "a string that is no UTF-8": _hostile(_not_utf8(_VALUE, _VALUE_SCHEMA), Code.NOT_UTF8, _VALUE_SCHEMA),
    "a JSON key beside an Avro value": _hostile(_VALUE, Code.MALFORMED_KEY, _VALUE_SCHEMA, key=b'{"id":3}'),
}


def _value_changed(change, code: Code, keep_registration: bool = True):
    """A mutator of a record's value bytes (a tombstone has none to change); the unknown id drops the value's
    registration, so the registry never hears of it."""
    def mutate(item: Expected) -> Expected | None:
        record = item.record
        if record.value is None:
            return None
        named = tuple(r for r in record.registrations if keep_registration or r[0] != "value")
        return item.now_quarantined(code, record=replace(record, value=change(record.value), registrations=named))
    return record_mutator(mutate, code)


MUTATORS = {
    "magic byte changed": _value_changed(lambda value: b"\x02" + value[1:], Code.MALFORMED_AVRO),
    "schema id unknown": _value_changed(lambda value: MAGIC + (0x7FFFFFF1).to_bytes(4, "big") + value[5:], Code.UNKNOWN_SCHEMA_ID,
                                        keep_registration=False),
    "datum cut short": _value_changed(lambda value: value[:-1], Code.MALFORMED_AVRO),
}


GENERATOR = FormatGenerator(
    format_id=FORMAT,
    examples=examples,
    version_profile=lambda version: {"version": next(v for v in debezium.PRODUCER_VERSIONS if v.startswith(f"{version}."))},
    examples_pinned=lambda fixed: examples(fixed=fixed),
    render=render,
    partitions=lambda example: example[0].partitions,
    coverage=debezium.coverage,
    shared_history=shared_history,
    value_types=debezium.GENERATOR.value_types,
    history_features=debezium.GENERATOR.history_features,
    mutators=MUTATORS,
    hostile=HOSTILE,
    extremes=extremes,
    encoding="avro",
    bench=_bench(),
)
