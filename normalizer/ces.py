"""Decoder for `ces-json`: SQL Server 2025 change event streaming, CloudEvents structured mode, JSON.

Three JSON levels: the CloudEvent envelope, `data` (a JSON text), and `eventrow.old`/`current` (JSON texts
again). Events larger than `@max_message_size_kb` arrive as segments sharing `logicalid`; segments are
grouped by `logicalid`, re-sent copies (same `source` + `id`, or same index and content) are dropped,
and the `data` fragments are concatenated in index order. Values are strings typed by `cols[].type`.
docs/formats/ces.md records every decision.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pyspark.sql import DataFrame, functions as F

from normalizer import canonical_text as ct
from normalizer.common import QuarantineRule, kafka_columns, quarantine_columns
from normalizer.model import EVENT_SCHEMA, QUARANTINE_SCHEMA

FORMAT = "ces-json"
TYPE_PREFIX = "com.microsoft.SQL.CES.DML.V"
OPERATIONS = {"INS": "INSERT", "UPD": "UPDATE", "DEL": "DELETE"}

ENVELOPE_SCHEMA = ("struct<specversion:string,type:string,source:string,id:string,logicalid:string,time:string,"
                   "datacontenttype:string,operation:string,segmentindex:string,finalsegment:string,"
                   "splitindex:string,splittotalcnt:string,data:string,_corrupt_record:string>")
EVENTSOURCE_TYPE = ("struct<db:string,schema:string,tbl:string,"
                    "cols:array<struct<name:string,type:string,index:string>>,"
                    "pkkey:array<struct<columnname:string,value:string>>,"
                    "transaction:struct<commitlsn:string,beginlsn:string,sequencenumber:string,committime:string>>")
DATA_SCHEMA = f"struct<eventsource:{EVENTSOURCE_TYPE},eventrow:struct<old:string,current:string>,_corrupt_record:string>"
_CORRUPT = "map('columnNameOfCorruptRecord', '_corrupt_record')"
# events and quarantine records share one output array, so their struct types must be exactly the model's
_EVENT_TYPE = EVENT_SCHEMA.simpleString()
_QUARANTINE_TYPE = QUARANTINE_SCHEMA.simpleString()

# ---------------------------------------------------------------------------------------------------
# SQL Server type names -> logical types and value conversions
# ---------------------------------------------------------------------------------------------------

# Inside higher-order functions Spark interprets every expression instead of generating code, and the
# conversions below run once per value of every event: each type is parsed once per column with string
# functions, each value's conversion reads its type from a field at hand, and the common types come first.


def type_base(t: str) -> str:
    """'Decimal (10, 2)' -> 'decimal'; 'int identity' -> 'int' (string functions: no regexp per column)."""
    return f"lower(substring_index(trim(substring_index(trim({t}), '(', 1)), ' ', 1))"


_PLAIN_TYPES = {
    "int": "INT32", "bigint": "INT64", "smallint": "INT16", "tinyint": "INT16", "bit": "BOOLEAN",
    "money": "DECIMAL(19,4)", "smallmoney": "DECIMAL(10,4)", "float": "FLOAT64", "real": "FLOAT32",
    "char": "STRING", "varchar": "STRING", "nchar": "STRING", "nvarchar": "STRING", "sysname": "STRING",
    "uniqueidentifier": "UUID", "binary": "BYTES", "varbinary": "BYTES", "date": "DATE",
    "datetime": "TIMESTAMP(3)", "smalldatetime": "TIMESTAMP(3)", "datetimeoffset": "TIMESTAMP_TZ",
}
_PLAIN_TYPE_MAP = "map(" + ", ".join(f"'{k}', '{v}'" for k, v in _PLAIN_TYPES.items()) + ")"


def logical_type(base: str, t: str) -> str:
    """The logical type name for a type's base name and full text (NULL: a type CES does not send).

    Types without arguments are one lookup; the arguments are read only for the types that have them.
    """
    arg = lambda n: f"try_cast(try_element_at(regexp_extract_all({t}, '[(,]\\\\s*([0-9]+)', 1), {n}) AS INT)"  # noqa: E731
    fraction = f"CASE WHEN coalesce({arg(1)}, 7) > 6 THEN 9 ELSE 6 END"  # time/datetime2 default to 7 digits
    decimal = f"concat('DECIMAL(', coalesce({arg(1)}, 18), ',', coalesce({arg(2)}, 0), ')')"
    # coalesce stops at the first non-NULL: the CASE (and `base` again) only for the types with arguments
    return f"""coalesce(try_element_at({_PLAIN_TYPE_MAP}, {base}), CASE
      WHEN {base} IN ('decimal', 'numeric') THEN {decimal}
      WHEN {base} = 'time' THEN concat('TIME(', {fraction}, ')')
      WHEN {base} = 'datetime2' THEN concat('TIMESTAMP(', {fraction}, ')')
    END)"""


def convert_value(raw: str, logical: str) -> str:
    """Canonical text of the string `raw` for the logical type name `logical` (both cheap to evaluate:
    lambda variables or fields). The common types come first: a CASE tries its branches in order."""
    scale = "try_cast(regexp_extract(" + logical + ", ',([0-9]+)\\\\)', 1) AS INT)"
    return f"""CASE
      WHEN {raw} IS NULL THEN NULL
      WHEN {logical} IN ('STRING', 'UUID', 'BYTES') THEN {raw}
      WHEN {logical} = 'INT32' THEN {ct.integer_text(raw, 'INT32')}
      WHEN {logical} = 'INT64' THEN {ct.integer_text(raw, 'INT64')}
      WHEN {logical} = 'INT16' THEN {ct.integer_text(raw, 'INT16')}
      WHEN {logical} = 'BOOLEAN' THEN CASE lower({raw}) WHEN '1' THEN 'true' WHEN '0' THEN 'false'
                                        WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END
      WHEN {logical} IN ('TIMESTAMP(3)', 'TIMESTAMP(6)') THEN {ct.naive_timestamp_text(raw, 6)}
      WHEN {logical} LIKE 'DECIMAL(%' THEN {ct.decimal_text(raw, scale)}
      WHEN {logical} = 'FLOAT64' THEN {ct.float64_text(raw)}
      WHEN {logical} = 'FLOAT32' THEN {ct.float32_text(raw)}
      WHEN {logical} = 'DATE' THEN {ct.date_text(raw)}
      WHEN {logical} = 'TIME(6)' THEN {ct.time_text(raw, 6)}
      WHEN {logical} = 'TIME(9)' THEN {ct.time_text(raw, 9)}
      WHEN {logical} = 'TIMESTAMP(9)' THEN {ct.naive_timestamp_text(raw, 9)}
      WHEN {logical} = 'TIMESTAMP_TZ' THEN {ct.timestamp_tz_from_iso(raw)}
    END"""


# ---------------------------------------------------------------------------------------------------
# Stage 1: one row per Kafka record, with its segment attributes and record-level checks
# ---------------------------------------------------------------------------------------------------

_COMMON_RECORD_RULES = [
    QuarantineRule(f"NOT coalesce(e.type LIKE '{TYPE_PREFIX}%', false)", "VALIDATE", "UNKNOWN_EVENT_TYPE",
                   "concat('CloudEvents type ', coalesce(e.type, 'null'))"),
    QuarantineRule("e.id IS NULL OR e.logicalid IS NULL OR e.operation IS NULL OR e.data IS NULL", "VALIDATE",
                   "MISSING_FIELD", "'id, logicalid, operation and data are required'"),
    QuarantineRule("seg_index IS NULL OR seg_final IS NULL", "VALIDATE", "MISSING_FIELD",
                   "'no segmentindex/finalsegment (or splitindex/splittotalcnt)'"),
    QuarantineRule(f"e.operation NOT IN ({', '.join(repr(o) for o in OPERATIONS)})", "VALIDATE", "UNKNOWN_OPERATION",
                   "concat('operation ', e.operation)"),
]


NO_VALUE = QuarantineRule("value IS NULL", "VALIDATE", "MISSING_FIELD", "'record has no value'")


@dataclass(frozen=True)
class Encoding:
    """What differs between `ces-json` and `ces-avro`: how the envelope and `data` are parsed.

    `envelope` is an SQL expression over the Kafka columns giving the envelope struct `e` (ENVELOPE_SCHEMA,
    `data` as text: JSON text, or hex of the Avro bytes so that fragments still concatenate as text);
    `decode_rules` reject records whose bytes are not the encoding; `parse_data(text)` is an SQL
    expression giving DATA_SCHEMA (with `_corrupt_record` set, or NULL, when `data` does not parse).
    """
    format_id: str
    envelope: str
    decode_rules: tuple[QuarantineRule, ...]
    parse_data: Callable[[str], str]


JSON = Encoding(
    format_id=FORMAT,
    envelope=f"from_json(value_text, '{ENVELOPE_SCHEMA}', {_CORRUPT})",
    decode_rules=(
        NO_VALUE,
        QuarantineRule("NOT is_valid_utf8(value_text)", "DECODE", "NOT_UTF8", "'value is not UTF-8'"),
        QuarantineRule("e IS NULL OR e._corrupt_record IS NOT NULL", "DECODE", "MALFORMED_JSON",
                       "'value is not a JSON object'"),
    ),
    parse_data=lambda text: f"from_json({text}, '{DATA_SCHEMA}', {_CORRUPT})",
)


def records(raw: DataFrame, encoding: Encoding = JSON) -> DataFrame:
    return kafka_columns(raw).selectExpr("*", f"{encoding.envelope} AS e").selectExpr(
        "*",
        # current attributes are 1-based (captures); legacy splitindex is 0-based, so it is shifted
        "coalesce(try_cast(e.segmentindex AS INT), try_cast(e.splitindex AS INT) + 1) AS seg_index",
        """CASE WHEN e.finalsegment IS NOT NULL THEN lower(e.finalsegment) = 'true'
                WHEN e.splittotalcnt IS NOT NULL THEN try_cast(e.splittotalcnt AS INT) = 0
                  OR try_cast(e.splitindex AS INT) + 1 = try_cast(e.splittotalcnt AS INT) END AS seg_final""",
    ).selectExpr("*", *quarantine_columns([*encoding.decode_rules, *_COMMON_RECORD_RULES]))  # column q


# ---------------------------------------------------------------------------------------------------
# Stage 2: segments grouped by logicalid and assembled
# ---------------------------------------------------------------------------------------------------

_SEGMENT = ("struct(seg_index, seg_final, e.data AS data, e.source AS source, e.id AS id, e.operation AS operation, "
            "e.type AS type, e.time AS time, topic, partition, offset, key, value, headers, q)")
# Rejected records form groups of their own, so that every record takes the same single path (one
# shuffle, one explode) instead of a filtered union that would plan and compute the pipeline twice.
_GROUP = "IF(q IS NULL, concat('L:', e.logicalid), concat('R:', partition, ':', offset))"


def _group_batch(records: DataFrame) -> DataFrame:
    """Batch: every segment of a logical event is in the input, so a plain groupBy collects them."""
    return (records.selectExpr("topic AS stream", f"{_GROUP} AS logicalid", f"{_SEGMENT} AS s")
            .groupBy("stream", "logicalid").agg(F.collect_list("s").alias("segs")))


def _summary(parts: str, sorted_segments: str, single: bool) -> str:
    """What the later stages need of a group: verdicts on completeness, the data text, the records.

    `single` builds the same struct for a group of one segment (the usual case) without any
    higher-order function: those are interpreted, not compiled, and cost per element.
    """
    if single:
        conflict = "false"
        complete = f"{parts}[0].seg_index IN (0, 1) AND {parts}[0].seg_final"
        data = f"{parts}[0].data"
        origin = f"array(named_struct('topic', {parts}[0].topic, 'partition', {parts}[0].partition, 'offset', {parts}[0].offset))"
        raw = f"array(named_struct('key', {parts}[0].key, 'value', {parts}[0].value, 'headers', {parts}[0].headers))"
    else:
        conflict = f"size(array_distinct(transform({parts}, p -> p.seg_index))) < size({parts})"
        complete = f"""element_at({parts}, 1).seg_index IN (0, 1)
           AND element_at({parts}, -1).seg_index - element_at({parts}, 1).seg_index + 1 = size({parts})
           AND element_at({parts}, -1).seg_final
           AND NOT exists(slice({parts}, 1, size({parts}) - 1), p -> p.seg_final)"""
        data = f"array_join(transform({parts}, p -> p.data), '')"
        origin = (f"transform({sorted_segments}, s -> named_struct('topic', s.topic, 'partition', s.partition, "
                  "'offset', s.offset))")
        raw = f"transform({sorted_segments}, s -> named_struct('key', s.key, 'value', s.value, 'headers', s.headers))"
    return f"""named_struct(
        'conflict', {conflict}, 'complete', {complete}, 'segment_count', size({parts}), 'data', {data},
        'head', named_struct('operation', {parts}[0].operation, 'type', {parts}[0].type, 'time', {parts}[0].time,
                             'q', {parts}[0].q),
        'origin', {origin},
        'raw', {raw})"""  # raw: kept for quarantine records, which carry every record as read


def assemble(grouped: DataFrame) -> DataFrame:
    """(stream, logicalid, segs) -> one row per logical event: its data text, verdicts and records.

    Every later step that holds a higher-order function is a projection of its own that copies its
    whole input row, so steps are few and the segment texts do not ride along after this one.
    """
    ordered = ("array_sort(segs, (a, b) -> CASE WHEN a.seg_index != b.seg_index THEN a.seg_index - b.seg_index "
               "WHEN a.topic != b.topic THEN IF(a.topic < b.topic, -1, 1) "
               "WHEN a.partition != b.partition THEN a.partition - b.partition "
               "ELSE CAST(signum(a.offset - b.offset) AS INT) END)")
    # a copy is a segment seen before with the same source + id, or the same index and the same content
    unique = ("filter(ct_sorted, (s, i) -> NOT exists(slice(ct_sorted, 1, i), p -> (p.source <=> s.source AND p.id = s.id)"
              " OR (p.seg_index = s.seg_index AND p.data = s.data)))")
    general = ct.let(ordered, "ct_sorted", ct.let(unique, "ct_parts", _summary("ct_parts", "ct_sorted", single=False)))
    summary = f"IF(size(segs) = 1, {_summary('segs', 'segs', single=True)}, {general})"
    return grouped.selectExpr("logicalid", f"{summary} AS a").selectExpr("logicalid", "a.*")


# ---------------------------------------------------------------------------------------------------
# Stage 3: data and row images
# ---------------------------------------------------------------------------------------------------

def _decode_data(assembled: DataFrame, encoding: Encoding) -> DataFrame:
    """The data text -> row images typed by `cols`. Each step is one projection, and the higher-order
    functions over the columns are kept to four passes (type, convert, and one filter per image)."""
    carried = ["logicalid", "conflict", "complete", "segment_count", "origin", "head", "raw"]
    column = ("named_struct('name', c.name, 'position', try_cast(c.index AS INT) + 1, 'source_type', c.type, "
              f"'logical_type', {logical_type(type_base('c.type'), 'c.type')}, 'nullable', CAST(NULL AS BOOLEAN), "
              "'pk_position', CAST(nullif(array_position(pk_names, c.name), 0) AS INT))")
    lookups = ("'old_present', map_contains_key(old_raw, c.name), 'old_raw', try_element_at(old_raw, c.name), "
               "'current_present', map_contains_key(current_raw, c.name), 'current_raw', try_element_at(current_raw, c.name)")
    convert = (f"'old', {convert_value('c.old_raw', 'c.column.logical_type')}, "
               f"'current', {convert_value('c.current_raw', 'c.column.logical_type')}")
    return assembled.selectExpr(
        *carried, f"IF(complete AND NOT conflict, {encoding.parse_data('data')}, NULL) AS d",
    ).selectExpr(  # from here on without the data text and its parse
        *carried,
        "d IS NULL OR d._corrupt_record IS NOT NULL AS data_malformed",
        "d.eventsource IS NULL OR d.eventrow IS NULL OR d.eventsource.cols IS NULL AS data_incomplete",
        "d.eventsource AS es",
        "d.eventrow.old AS old_text", "d.eventrow.current AS current_text",
        "from_json(d.eventrow.old, 'map<string,string>') AS old_raw",
        "from_json(d.eventrow.current, 'map<string,string>') AS current_raw",
        "d.eventsource.pkkey.columnname AS pk_names",
        # a column declared twice is quarantined (SCHEMA_MISMATCH); until then no map may be built from
        # the names (a duplicate map key is an error that would stop the job)
        "size(array_distinct(d.eventsource.cols.name)) < size(d.eventsource.cols) AS duplicate_columns",
    ).selectExpr(
        "*", f"IF(duplicate_columns, NULL, transform(es.cols, c -> named_struct('column', {column}, {lookups}))) AS cols",
    ).selectExpr(
        "*", f"transform(cols, c -> named_struct('name', c.column.name, 'old_present', c.old_present, "
             f"'current_present', c.current_present, 'old_raw', c.old_raw, 'current_raw', c.current_raw, "
             f"{convert})) AS converted",
    ).selectExpr(
        "*",
        # a value supplied (not NULL) that its column type cannot convert
        "exists(converted, c -> (c.old_raw IS NOT NULL AND c.old IS NULL) "
        "OR (c.current_raw IS NOT NULL AND c.current IS NULL)) AS undecodable",
        "filter(converted, c -> c.old_present) AS old_cells",
        "filter(converted, c -> c.current_present) AS current_cells",
    ).selectExpr(
        "*",
        "map_from_arrays(old_cells.name, old_cells.old) AS old_image",
        "map_from_arrays(current_cells.name, current_cells.current) AS current_image",
    )


def _undeclared(image: str) -> str:
    """A supplied column that `cols` does not declare: fewer declared cells than supplied keys."""
    return f"({image}_raw IS NOT NULL AND coalesce(size({image}_cells), 0) < size({image}_raw))"


_EVENT_RULES = [
    QuarantineRule("head.q IS NOT NULL", None, None),  # a rejected record: its own verdict stands (see decode)
    QuarantineRule("conflict", "ASSEMBLE", "SEGMENT_DUPLICATE_CONFLICT",
                   "concat('segments of ', logicalid, ' share an index with different data')"),
    QuarantineRule("NOT complete", "ASSEMBLE", "SEGMENT_INCOMPLETE",
                   "concat('logical event ', logicalid, ' lacks segments (have ', segment_count, ')')"),
    QuarantineRule("data_malformed", "DECODE", "MALFORMED_DATA", "'data is not a JSON object'"),
    QuarantineRule("data_incomplete", "VALIDATE", "MISSING_FIELD",
                   "'data needs eventsource.cols and eventrow'"),
    QuarantineRule("(old_text IS NOT NULL AND old_raw IS NULL) OR (current_text IS NOT NULL AND current_raw IS NULL)",
                   "DECODE", "MALFORMED_DATA", "'eventrow.old/current is not a JSON object'"),
    QuarantineRule("duplicate_columns", "VALIDATE", "SCHEMA_MISMATCH", "'eventsource.cols declares a column twice'"),
    QuarantineRule("size(array_distinct(pk_names)) < size(pk_names)", "VALIDATE", "SCHEMA_MISMATCH",
                   "'eventsource.pkkey names a column twice'"),
    QuarantineRule(f"{_undeclared('old')} OR {_undeclared('current')}", "VALIDATE", "SCHEMA_MISMATCH",
                   "'old/current has a column that eventsource.cols does not declare'"),
    QuarantineRule("exists(cols, c -> c.column.logical_type IS NULL)", "VALIDATE", "UNKNOWN_COLUMN_TYPE",
                   "concat('column type ', get(filter(cols, c -> c.column.logical_type IS NULL), 0).column.source_type)"),
    QuarantineRule("(head.operation = 'INS' AND size(old_raw) > 0) OR (head.operation = 'DEL' AND size(current_raw) > 0)",
                   "VALIDATE", "UNEXPECTED_IMAGE", "concat(head.operation, ' with a row image it cannot have')"),
    QuarantineRule("head.operation IN ('INS', 'UPD') AND size(current_raw) = 0", "VALIDATE", "MISSING_FIELD",
                   "'INS/UPD without current values'"),
    QuarantineRule("undecodable", "CONVERT", "UNDECODABLE_VALUE",
                   "'a value does not match its column type'"),
]


# ---------------------------------------------------------------------------------------------------
# Stage 4: canonical events (an update that changes the key becomes DELETE + INSERT)
# ---------------------------------------------------------------------------------------------------

def _events(decoded: DataFrame, format_id: str) -> DataFrame:
    key_changed = ("head.operation = 'UPD' AND size(pk_names) > 0 AND size(old_image) > 0 AND "
                   "forall(pk_names, n -> map_contains_key(old_image, n)) AND "
                   "exists(pk_names, n -> NOT (try_element_at(old_image, n) <=> try_element_at(current_image, n)))")
    position = ("IF(es.transaction IS NULL, NULL, named_struct("
                "'commit', upper(regexp_replace(es.transaction.commitlsn, ':', '')), "
                f"'event', {ct.fixed_width('es.transaction.sequencenumber')}, 'seq', CAST(NULL AS STRING)))")
    group = ("substr(sha2(concat_ws('|', 'sqlserver', '', coalesce(es.db, ''), coalesce(es.schema, ''), "
             "coalesce(es.tbl, ''), coalesce(position.commit, ''), coalesce(position.event, ''), "
             f"{ct.sorted_map_text('map_filter(old_raw, (k, v) -> array_contains(pk_names, k))')}, "
             f"{ct.sorted_map_text('map_filter(current_raw, (k, v) -> array_contains(pk_names, k))')}), 256), 1, 16)")
    operation = f"CASE head.operation {' '.join(f'WHEN {k!r} THEN {v!r}' for k, v in OPERATIONS.items())} END"
    # Everything that does not depend on the event's part is computed once, outside any lambda (where
    # Spark generates code instead of interpreting). Column names stand in for the shared parts.
    shared = [
        f"{position} AS position",
        "cols.column AS columns_out",
        "origin[0] AS first",
        "named_struct('system', 'sqlserver', 'server', CAST(NULL AS STRING), 'database', es.db, "
        "'schema', es.schema, 'table', es.tbl) AS source_out",
        "nullif(regexp_extract(head.type, 'V([0-9]+)$', 1), '') AS format_version",
        "coalesce(try_to_timestamp(es.transaction.committime), try_to_timestamp(head.time)) AS commit_ts",
    ]
    def event(part: int) -> str:
        """An output row holding an event. `part` 0: a plain change; 1 and 2: the DELETE of the old key
        and the INSERT of the new key."""
        op = {0: operation, 1: "'DELETE'", 2: "'INSERT'"}[part]
        key_image = {0: "IF(head.operation = 'DEL', old_image, current_image)", 1: "old_image", 2: "current_image"}[part]
        # the key comes from the row image; pkkey (as written) fills in where a partial image lacks it
        key = (f"transform(pk_names, n -> named_struct('name', n, 'value', coalesce(try_element_at({key_image}, n), "
               "get(filter(es.pkkey, k -> k.columnname = n), 0).value)))")
        pk_change = "NULL" if part == 0 else f"named_struct('group', ct_group, 'role', '{'OLD' if part == 1 else 'NEW'}')"
        return f"""named_struct('event', named_struct(
          'event_id', concat(first.topic, '/', first.partition, '/', first.offset, '#', {max(part - 1, 0)}),
          'format', '{format_id}', 'format_version', format_version,
          'kind', 'ROW', 'op', {op}, 'snapshot', false,
          'source', source_out, 'columns', columns_out, 'key', {key},
          'before', {'NULL' if part == 2 else "IF(size(old_image) = 0, NULL, old_image)"},
          'after', {'NULL' if part == 1 else "IF(size(current_image) = 0, NULL, current_image)"},
          'pk_change', {pk_change},
          'position', position,
          'tx_id', es.transaction.commitlsn,
          'commit_ts', commit_ts,
          'emit_ts', CAST(NULL AS TIMESTAMP),
          'ddl', CAST(NULL AS STRUCT<statement: STRING, change: STRING>),
          'message', CAST(NULL AS STRUCT<prefix: STRING, content: STRING>),
          'origin', origin), 'quarantine', CAST(NULL AS {_QUARANTINE_TYPE}))"""

    # one projection for the shared parts and the verdict, one for the events (each one copies its row)
    key_change = ct.let(group, "ct_group", f"array({event(1)}, {event(2)})")
    events = (f"CASE WHEN q IS NOT NULL THEN NULL WHEN coalesce({key_changed}, false) THEN {key_change} "
              f"ELSE array({event(0)}) END")
    return decoded.selectExpr("*", *shared, *quarantine_columns(_EVENT_RULES)).selectExpr(
        "raw", "origin", "coalesce(head.q, q) AS verdict", f"{events} AS events")


def decode(raw: DataFrame, encoding: Encoding = JSON) -> DataFrame:
    """Kafka source rows -> rows with exactly one of `event` / `quarantine` set (batch)."""
    return outputs(assemble(_group_batch(records(raw, encoding))), encoding)


def outputs(assembled: DataFrame, encoding: Encoding = JSON) -> DataFrame:
    """Assembled groups -> canonical events, or one quarantine record per record of a failed group."""
    built = _events(_decode_data(assembled, encoding), encoding.format_id)
    quarantined = (f"transform(raw, (r, i) -> named_struct('event', CAST(NULL AS {_EVENT_TYPE}), 'quarantine', "
                   f"named_struct('origin', array(origin[i]), 'format', '{encoding.format_id}', 'phase', verdict.phase, "
                   f"'code', verdict.code, 'detail', verdict.detail, "
                   f"'raw_key', r.key, 'raw_value', r.value, 'raw_headers', r.headers)))")
    # a failed logical event quarantines each of its records once: every record in exactly one quarantine record
    outputs = f"IF(verdict IS NULL, events, {quarantined})"
    return built.selectExpr(f"inline({outputs})")
