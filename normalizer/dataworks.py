"""Decoder for `dataworks-json`: Alibaba DataWorks "sync whole database to Kafka" (versions 0.0.1, 1.0.0).

One JSON object per record: `schema` (columns with one of six DataWorks types, `primaryKey`, `source`)
and `payload` (`before`/`after` row images one level down in `dataColumn`, `op`, `sequenceId`,
`timestamp`, `ddl`). An update comes as one record (`UPDATE_AFTER` with both images) or as two halves,
`UPDATE_BEFOR` then `UPDATE_AFTER`, sharing a `sequenceId`; halves are paired by table and sequenceId
(normalizer.assembly, as CES segments are), and identical records are grouped as copies of one.
`ddl.ddlMeta` (a Java-serialized object) is never read. docs/formats/dataworks-json.md records every decision.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from normalizer import assembly, events, keys, rows, sql, types
from normalizer import canonical_text as ct
from normalizer.json_text import json_record_rules, parse_json, with_corrupt_record
from normalizer.kafka_source import kafka_columns
from normalizer.model import Code
from normalizer.plugin import FormatDecoder, register
from normalizer.verdicts import QuarantineRule, verdict

FORMAT = "dataworks-json"

# op -> (kind, canonical op, ddl.change). The vocabulary is canal's EventType with UPDATE split in two
# halves and TRANSACTION_BEGIN/END added (docs/formats/dataworks-json.md).
OPERATIONS: dict[str, tuple[str, str | None, str | None]] = {
    **{op: parts for op, parts in rows.EVENT_TYPES.items() if op != "UPDATE"},
    "UPDATE_AFTER": ("ROW", "UPDATE", None),  # one-record mode, or the pair the halves become
    "TRANSACTION_BEGIN": ("TX_BEGIN", None, None), "TRANSACTION_END": ("TX_END", None, None),
}
BEFORE_HALF = ("UPDATE_BEFOR", "UPDATE_BEFORE")  # the doc's spelling, and the one a fix would bring
UNMAPPED = rows.UNMAPPED_EVENT_TYPES             # documented, but no canonical kind: quarantined, not dropped
KNOWN = (*OPERATIONS, *BEFORE_HALF, *UNMAPPED)
# Where primaryKey is null, the row id the source adds identifies the row (RDS MySQL, Oracle).
ROW_ID_COLUMNS = ("#alibaba_rds_row_id#", "rowid")

_IMAGE = "struct<dataColumn:map<string,string>>"
DOCUMENT_TYPE = (
    "struct<schema:struct<dataColumn:array<struct<name:string,type:string>>,primaryKey:array<string>,"
    "source:struct<dbType:string,dbVersion:string,dbName:string,schemaName:string,tableName:string>>,"
    f"payload:struct<before:{_IMAGE},after:{_IMAGE},sequenceId:string,scn:string,op:string,"
    "timestamp:struct<eventTime:string,systemTime:string,checkpointTime:string>,ddl:struct<text:string,ddlMeta:string>>,"
    "version:string>")
VALUE_SCHEMA = with_corrupt_record(DOCUMENT_TYPE[len("struct<"):-1])
_OP = "document.payload.op"
# the row images' values as VARIANTs, for a record holding a number with a three-digit exponent: Spark's
# string-typed reading gives `1e-400` as 0.0, a value nobody wrote; the VARIANT tells it from a written zero
# (ct.beyond_double_range)
_IMAGE_VARIANTS = "struct<payload:struct<before:struct<dataColumn:map<string,variant>>,after:struct<dataColumn:map<string,variant>>>>"
_NUMBERS = (f"IF(value_text RLIKE {ct.MAYBE_BEYOND_DOUBLE}, " + sql.let(
    f"from_json(value_text, '{_IMAGE_VARIANTS}').payload", "ct_p",
    "concat(coalesce(map_values(ct_p.before.dataColumn), array()), coalesce(map_values(ct_p.after.dataColumn), array()))")
    + ", NULL)")


def _time(name: str, payload: str = "document.payload") -> str:
    """payload.timestamp.<name> (epoch ms) as TIMESTAMP; -1 is DataWorks' "no time" (a record without a
    binlog time), NULL like an absent one."""
    raw = f"{payload}.timestamp.{name}"
    return f"IF({raw} = '-1', NULL, {ct.epoch_millis_to_timestamp(raw)})"


def _time_undecodable(name: str) -> str:
    raw = f"document.payload.timestamp.{name}"
    return f"({raw} IS NOT NULL AND {raw} != '-1' AND {ct.epoch_millis_to_timestamp(raw)} IS NULL)"


def _in(expression: str, values) -> str:
    return f"{expression} IN ({', '.join(repr(v) for v in values)})"


# ---------------------------------------------------------------------------------------------------
# Stage 1: one row per Kafka record: its document, whether it is an update half, record-level checks
# ---------------------------------------------------------------------------------------------------

_RECORD_RULES = [
    QuarantineRule("value IS NULL", Code.MISSING_FIELD, "'record has no value'"),
    *json_record_rules("document"),
    QuarantineRule(f"{_OP} IS NULL", Code.MISSING_FIELD, "'payload.op is required'"),
    QuarantineRule(f"NOT {_in(_OP, KNOWN)}", Code.UNKNOWN_OPERATION, f"concat('op ', {_OP})"),
    QuarantineRule(_in(_OP, UNMAPPED), Code.UNMAPPED_CONTROL_EVENT,
                   f"concat('op ', {_OP}, ' has no canonical kind')"),
    QuarantineRule("document.payload.timestamp.eventTime IS NULL", Code.MISSING_FIELD,
                   "'payload.timestamp.eventTime is required'"),
    QuarantineRule(f"exists({_NUMBERS}, v -> {ct.beyond_double_range('v')})", Code.UNDECODABLE_VALUE,
                   "'a row image holds a number no double holds (1e-400 underflows to zero, 1e400 overflows)'"),
    QuarantineRule(f"{_time_undecodable('eventTime')} OR {_time_undecodable('systemTime')}", Code.UNDECODABLE_VALUE,
                   "'eventTime/systemTime are not epoch milliseconds of years 0001-9999 (or -1)'"),
    QuarantineRule(ct.wider_than("document.payload.sequenceId"), Code.UNDECODABLE_VALUE,
                   "'sequenceId has more than 20 digits'"),
    QuarantineRule("half IS NOT NULL AND (document.payload.sequenceId IS NULL OR document.schema.source IS NULL)",
                   Code.MISSING_FIELD, "'an update half needs sequenceId and schema.source to be paired'"),
    QuarantineRule(f"{_in(_OP, BEFORE_HALF)} AND document.payload.after IS NOT NULL", Code.UNEXPECTED_IMAGE,
                   f"concat({_OP}, ' with an after image')"),
]


def _table_identity(source: str) -> str:
    return f"concat_ws('.', {source}.dbName, {source}.schemaName, {source}.tableName)"


def records(raw: DataFrame) -> DataFrame:
    half = (f"CASE WHEN {_in(_OP, BEFORE_HALF)} THEN 'BEFORE' "
            f"WHEN {_OP} = 'UPDATE_AFTER' AND document.payload.before IS NULL THEN 'AFTER' END")
    return kafka_columns(raw).selectExpr("*", f"{parse_json('value_text', VALUE_SCHEMA)} AS document").selectExpr(
        "*", f"{half} AS half").selectExpr("*", f"{verdict(_RECORD_RULES)} AS rejection")


# ---------------------------------------------------------------------------------------------------
# Stage 2: halves paired by table + sequenceId; any other record grouped with its identical copies
# ---------------------------------------------------------------------------------------------------

def pairs_ready(members: list[dict]) -> bool:
    """Streaming release rule: a record that is no half is complete; halves wait for both sides."""
    halves = {m.get("half") for m in members}
    return None in halves or {"BEFORE", "AFTER"} <= halves


PAIRS = assembly.Grouping(
    # identical records (at-least-once re-sends) share a group and become one event (invariant 3, docs/invariants.md)
    group_key=(f"IF(half IS NOT NULL, concat('H|', {_table_identity('document.schema.source')}, '|', "
               f"document.payload.sequenceId), concat('C|', sha2(concat_ws('|', {ct.base64_text('key')}, {ct.base64_text('value')}), 256)))"),
    fields={"half": ("half", "string"), "document": ("document", DOCUMENT_TYPE)},
    ready=pairs_ready,
    fingerprint=("half", "value"),
    late_conflict=Code.UNPAIRED_UPDATE_HALF,  # a half that conflicts with the pair already emitted
)

# BEFORE half first (its record is the event's id), then arrival order on each partition
_ORDER = ("array_sort(members, (a, b) -> CASE WHEN coalesce(a.half, '') != coalesce(b.half, '') "
          "THEN IF(a.half = 'BEFORE', -1, 1) WHEN a.partition != b.partition THEN a.partition - b.partition "
          "ELSE CAST(signum(a.offset - b.offset) AS INT) END)")


def _changes(grouped: DataFrame) -> DataFrame:
    """(stream, group_key, members) -> one row per change: the document parts its event is built from."""
    return grouped.selectExpr(f"{_ORDER} AS members").selectExpr(
        "members", "members[0] AS head",
        "filter(members, m -> m.half = 'BEFORE') AS befores", "filter(members, m -> m.half = 'AFTER') AS afters",
    ).selectExpr(
        "head.rejection AS rejection",
        "size(befores) + size(afters) > 0 AS halves",
        "size(array_distinct(befores.value)) = 1 AND size(array_distinct(afters.value)) = 1 AS paired",
        "size(befores) AS before_count", "size(afters) AS after_count",
        "head.document.payload.sequenceId AS sequence_id",
        "NOT (get(befores, 0).document.schema <=> get(afters, 0).document.schema) AS halves_disagree",
        # a pair is the one-record update: the schema and after image of the AFTER half
        "coalesce(get(afters, 0).document.schema, head.document.schema) AS schema_doc",
        "head.document.payload AS payload",
        "head.document.payload.before.dataColumn AS before_raw",
        "coalesce(get(afters, 0).document.payload.after.dataColumn, head.document.payload.after.dataColumn) AS after_raw",
        "IF(size(befores) > 0, 'UPDATE_AFTER', head.document.payload.op) AS op_raw",
        "head.document.version AS version",
        "transform(members, m -> named_struct('topic', m.topic, 'partition', m.partition, 'offset', m.offset)) AS origin",
        "transform(members, m -> named_struct('key', m.key, 'value', m.value, 'headers', m.headers)) AS raw",
    )


# ---------------------------------------------------------------------------------------------------
# Stage 3: columns and row images typed by the six DataWorks types
# ---------------------------------------------------------------------------------------------------

def _typed(changes: DataFrame) -> DataFrame:
    logical = types.DATAWORKS.logical_type("upper(trim(c.type))", lambda n: "NULL")
    column = ("named_struct('name', coalesce(c.name, ''), 'position', i + 1, 'source_type', c.type, "
              f"'logical_type', {logical}, 'nullable', CAST(NULL AS BOOLEAN), "
              "'pk_position', CAST(nullif(array_position(key_names, c.name), 0) AS INT))")

    def cells(image: str) -> str:
        # Two passes: the lookup first, then the conversion reads it as a field. Lambda bodies are evaluated
        # without code generation or common subexpressions, and the converter names its input dozens of
        # times: inlined, the map lookup ran once per reference (measured with JFR).
        written = f"try_element_at({image}_raw, c.name)"
        looked_up = f"transform(columns_out, c -> named_struct('name', c.name, 'logical_type', c.logical_type, 'written', {written}))"
        # a MySQL zero date written as text is SQL NULL (ct.mysql_zero_date), as Debezium gives it
        raw = f"IF({ct.mysql_zero_date('c.written', 'c.logical_type')}, NULL, c.written)"
        with_raw = f"transform({looked_up}, c -> named_struct('name', c.name, 'logical_type', c.logical_type, 'written', c.written, 'raw', {raw}))"
        return (f"IF({image}_raw IS NULL, NULL, transform({with_raw}, c -> named_struct('name', c.name, "
                f"'present', {sql.has_key(f'{image}_raw', 'c.name', 'c.written')}, 'raw', c.raw, "
                f"'value', {types.convert('c.raw', 'c.logical_type', types.CONNECT)})))")

    names = "schema_doc.dataColumn.name"
    # primaryKey null (or empty): the row id the source adds, when the table has one; else no key
    row_id = " ".join(f"WHEN array_contains({names}, '{c}') THEN array('{c}')" for c in ROW_ID_COLUMNS)
    return changes.selectExpr(
        "*", f"{rows.lookup(OPERATIONS, 0, 'op_raw')} AS kind", f"{rows.lookup(OPERATIONS, 1, 'op_raw')} AS op",
        f"{rows.lookup(OPERATIONS, 2, 'op_raw')} AS ddl_change",
        f"CASE WHEN size(schema_doc.primaryKey) > 0 THEN schema_doc.primaryKey {row_id} END AS key_names",
        f"size(array_distinct({names})) < size({names}) OR exists({names}, n -> n IS NULL) AS bad_columns",
    ).selectExpr(
        "*", f"IF(kind = 'ROW' AND NOT bad_columns, transform(schema_doc.dataColumn, (c, i) -> {column}), NULL) "
             "AS columns_out",
    ).selectExpr("*", f"{cells('before')} AS before_cells", f"{cells('after')} AS after_cells").selectExpr(
        "*",
        "map_from_entries(transform(filter(before_cells, c -> c.present), c -> struct(c.name, c.value))) AS before_image",
        "map_from_entries(transform(filter(after_cells, c -> c.present), c -> struct(c.name, c.value))) AS after_image",
    )


def _undeclared(image: str) -> str:
    return f"size(array_except(map_keys({image}_raw), schema_doc.dataColumn.name)) > 0"


def _undecodable(image: str) -> str:
    return f"exists({image}_cells, c -> c.raw IS NOT NULL AND c.value IS NULL)"


_EVENT_RULES = [
    QuarantineRule("rejection IS NOT NULL", None),  # a rejected record: its own verdict stands
    QuarantineRule("halves AND NOT paired", Code.UNPAIRED_UPDATE_HALF,
                   "concat('sequenceId ', sequence_id, ': ', CASE WHEN after_count = 0 THEN 'no UPDATE_AFTER' "
                   "WHEN before_count = 0 THEN 'no UPDATE_BEFOR' ELSE 'halves sent twice with different content' END)"),
    QuarantineRule("halves AND halves_disagree", Code.SCHEMA_MISMATCH, "'the two halves carry different schemas'"),
    QuarantineRule("kind = 'ROW' AND (schema_doc.dataColumn IS NULL OR schema_doc.source.tableName IS NULL)",
                   Code.MISSING_FIELD, "'a row change needs schema.dataColumn and schema.source.tableName'"),
    QuarantineRule("kind = 'ROW' AND bad_columns", Code.SCHEMA_MISMATCH,
                   "'schema.dataColumn declares a column twice or without a name'"),
    QuarantineRule("kind = 'ROW' AND (size(array_distinct(key_names)) < size(key_names) OR "
                   "exists(key_names, n -> NOT coalesce(array_contains(schema_doc.dataColumn.name, n), false)))",
                   Code.SCHEMA_MISMATCH, "'schema.primaryKey names a column twice or one dataColumn lacks'"),
    QuarantineRule("exists(columns_out, c -> c.logical_type IS NULL)", Code.UNKNOWN_COLUMN_TYPE,
                   "concat('column type ', get(filter(columns_out, c -> c.logical_type IS NULL), 0).source_type)"),
    QuarantineRule(f"kind = 'ROW' AND ({_undeclared('before')} OR {_undeclared('after')})", Code.SCHEMA_MISMATCH,
                   "'a row image has a column schema.dataColumn does not declare'"),
    QuarantineRule("(op = 'INSERT' AND before_raw IS NOT NULL) OR (op = 'DELETE' AND after_raw IS NOT NULL)",
                   Code.UNEXPECTED_IMAGE, "concat(op_raw, ' with a row image it cannot have')"),
    QuarantineRule("(op IN ('INSERT', 'UPDATE') AND after_raw IS NULL) OR (op IN ('DELETE', 'UPDATE') AND before_raw IS NULL)",
                   Code.MISSING_FIELD, "concat(op_raw, ' without its row image')"),
    QuarantineRule(f"kind = 'ROW' AND ({_undecodable('before')} OR {_undecodable('after')})", Code.UNDECODABLE_VALUE,
                   "'a value does not match its column type'"),
    keys.missing_old_key_rule(f"op IN ('UPDATE', 'DELETE') AND {keys.old_key_missing('key_names', 'before_raw')}"),
]


# ---------------------------------------------------------------------------------------------------
# Stage 4: canonical events (an update that changes the key becomes DELETE + INSERT)
# ---------------------------------------------------------------------------------------------------

def _events(typed: DataFrame) -> DataFrame:
    key_changed = f"op = 'UPDATE' AND {keys.key_changed('key_names', 'before_image', 'after_image')}"
    source = "schema_doc.source"
    shared = [
        f"IF({source} IS NULL, NULL, named_struct('system', lower({source}.dbType), 'server', CAST(NULL AS STRING), "
        f"'database', {source}.dbName, 'schema', {source}.schemaName, 'table', {source}.tableName)) AS source_out",
        f"named_struct('commit', {ct.fixed_width('sequence_id')}, 'event', CAST(NULL AS STRING), "
        f"'seq', '{keys.PLAIN_SEQ}') AS position",
        f"{_time('eventTime', 'payload')} AS commit_ts",
        f"{_time('systemTime', 'payload')} AS emit_ts",
        "origin[0] AS first",
    ]
    group = keys.group_sql(
        {"system": "source_out.system", "server": "''", "database": "source_out.database", "schema": "source_out.schema",
         "table": "source_out.table", "commit": "position.commit", "event": "position.event"},
        "map_filter(before_image, (k, v) -> array_contains(key_names, k))",
        "map_filter(after_image, (k, v) -> array_contains(key_names, k))")

    def event(part: int) -> str:
        """Part 0: the change as it is; 1 and 2: the DELETE of the old key and the INSERT of the new key."""
        is_row = "kind = 'ROW'"
        fields = keys.part_fields(part, op="op", is_row=is_row, key_names="key_names", before="before_image",
                                  after="after_image", position="position")
        fields["position"] = f"IF(sequence_id IS NULL, NULL, {fields['position']})"
        return events.event(
            event_id=f"concat(first.topic, '/', first.partition, '/', first.offset, '#', {max(part - 1, 0)})",
            format=f"'{FORMAT}'", format_version="version", kind="kind", snapshot=f"IF({is_row}, false, NULL)",
            source="source_out", columns="columns_out", commit_ts="commit_ts", emit_ts="emit_ts", **fields,
            ddl="IF(ddl_change IS NULL, NULL, named_struct('statement', payload.ddl.text, 'change', ddl_change))",
            origin="coalesce(origin, array())")

    event_array = keys.split_on_key_change(key_changed, group, event)
    return typed.selectExpr("*", *shared, f"{verdict(_EVENT_RULES)} AS event_verdict").selectExpr(
        *events.group_output(event_array, "coalesce(rejection, event_verdict)", FORMAT))


def outputs(grouped: DataFrame) -> DataFrame:
    return _events(_typed(_changes(grouped)))


def decode(raw: DataFrame) -> DataFrame:
    """Batch: both halves of every update are in the input; a half without its partner is unpaired."""
    return outputs(assembly.group_batch(records(raw), PAIRS))


def decode_stream(raw: DataFrame, pair_timeout_seconds: float = assembly.DEFAULT_TIMEOUT_SECONDS) -> DataFrame:
    """Structured Streaming: a half waits in state (checkpointed) for its partner until the timeout."""
    return outputs(assembly.group_stream(records(raw), PAIRS, pair_timeout_seconds))


DECODER = register(FormatDecoder(FORMAT, decode=decode, decode_stream=decode_stream))
