"""Decoder for `ces-json`: SQL Server 2025 change event streaming, CloudEvents structured mode, JSON.

Three JSON levels: the CloudEvent envelope, `data` (a JSON text), and `eventrow.old`/`current` (JSON texts
again). Events larger than `@max_message_size_kb` arrive as segments sharing `logicalid`; segments are
grouped by `logicalid`, re-sent copies (same `source` + `id`, or same index and content) are dropped,
and the `data` fragments are concatenated in index order. Values are strings typed by `cols[].type`.
docs/formats/ces.md records every decision.
"""
from __future__ import annotations

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
DATA_SCHEMA = ("struct<eventsource:struct<db:string,schema:string,tbl:string,"
               "cols:array<struct<name:string,type:string,index:string>>,"
               "pkkey:array<struct<columnname:string,value:string>>,"
               "transaction:struct<commitlsn:string,beginlsn:string,sequencenumber:string,committime:string>>,"
               "eventrow:struct<old:string,current:string>,_corrupt_record:string>")
_CORRUPT = "map('columnNameOfCorruptRecord', '_corrupt_record')"
# the three branches of the output are unioned, so their struct types must be exactly the model's
_EVENT_TYPE = EVENT_SCHEMA.simpleString()
_QUARANTINE_TYPE = QUARANTINE_SCHEMA.simpleString()

# ---------------------------------------------------------------------------------------------------
# SQL Server type names -> logical types and value conversions
# ---------------------------------------------------------------------------------------------------

_BASE = "lower(regexp_extract(trim({t}), '^([A-Za-z0-9_]+)', 1))"
_ARG1 = "try_cast(regexp_extract({t}, '\\\\(\\\\s*([0-9]+)', 1) AS INT)"
_ARG2 = "try_cast(regexp_extract({t}, '\\\\(\\\\s*[0-9]+\\\\s*,\\\\s*([0-9]+)', 1) AS INT)"


def _fractional_digits(t: str) -> str:
    """time/datetime2/datetimeoffset default to 7 fraction digits; more than 6 needs nanosecond text."""
    return f"CASE WHEN coalesce({_ARG1.format(t=t)}, 7) > 6 THEN 9 ELSE 6 END"


def logical_type(t: str) -> str:
    base = _BASE.format(t=t)
    precision, scale = _ARG1.format(t=t), _ARG2.format(t=t)
    return f"""CASE
      WHEN {base} = 'int' THEN 'INT32'
      WHEN {base} = 'bigint' THEN 'INT64'
      WHEN {base} IN ('smallint', 'tinyint') THEN 'INT16'
      WHEN {base} = 'bit' THEN 'BOOLEAN'
      WHEN {base} IN ('decimal', 'numeric') THEN concat('DECIMAL(', coalesce({precision}, 18), ',', coalesce({scale}, 0), ')')
      WHEN {base} = 'money' THEN 'DECIMAL(19,4)'
      WHEN {base} = 'smallmoney' THEN 'DECIMAL(10,4)'
      WHEN {base} = 'float' THEN 'FLOAT64'
      WHEN {base} = 'real' THEN 'FLOAT32'
      WHEN {base} IN ('char', 'varchar', 'nchar', 'nvarchar', 'sysname') THEN 'STRING'
      WHEN {base} = 'uniqueidentifier' THEN 'UUID'
      WHEN {base} IN ('binary', 'varbinary') THEN 'BYTES'
      WHEN {base} = 'date' THEN 'DATE'
      WHEN {base} = 'time' THEN concat('TIME(', {_fractional_digits(t)}, ')')
      WHEN {base} IN ('datetime', 'smalldatetime') THEN 'TIMESTAMP(3)'
      WHEN {base} = 'datetime2' THEN concat('TIMESTAMP(', {_fractional_digits(t)}, ')')
      WHEN {base} = 'datetimeoffset' THEN 'TIMESTAMP_TZ'
    END"""


def convert_value(raw: str, logical: str) -> str:
    """Canonical text of the string `raw` for the logical type name `logical` (an SQL expression)."""
    scale = "try_cast(regexp_extract(" + logical + ", ',([0-9]+)\\\\)', 1) AS INT)"
    return f"""CASE
      WHEN {raw} IS NULL THEN NULL
      WHEN {logical} = 'INT16' THEN {ct.integer_text(raw, 'INT16')}
      WHEN {logical} = 'INT32' THEN {ct.integer_text(raw, 'INT32')}
      WHEN {logical} = 'INT64' THEN {ct.integer_text(raw, 'INT64')}
      WHEN {logical} = 'BOOLEAN' THEN CASE lower({raw}) WHEN '1' THEN 'true' WHEN '0' THEN 'false'
                                        WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END
      WHEN {logical} LIKE 'DECIMAL(%' THEN {ct.decimal_text(raw, scale)}
      WHEN {logical} = 'FLOAT64' THEN {ct.float64_text(raw)}
      WHEN {logical} = 'FLOAT32' THEN {ct.float32_text(raw)}
      WHEN {logical} = 'DATE' THEN {ct.date_text(raw)}
      WHEN {logical} = 'TIME(6)' THEN {ct.time_text(raw, 6)}
      WHEN {logical} = 'TIME(9)' THEN {ct.time_text(raw, 9)}
      WHEN {logical} IN ('TIMESTAMP(3)', 'TIMESTAMP(6)') THEN {ct.naive_timestamp_text(raw, 6)}
      WHEN {logical} = 'TIMESTAMP(9)' THEN {ct.naive_timestamp_text(raw, 9)}
      WHEN {logical} = 'TIMESTAMP_TZ' THEN {ct.timestamp_tz_from_iso(raw)}
      ELSE {raw}
    END"""


# ---------------------------------------------------------------------------------------------------
# Stage 1: one row per Kafka record, with its segment attributes and record-level checks
# ---------------------------------------------------------------------------------------------------

_RECORD_RULES = [
    QuarantineRule("value IS NULL", "VALIDATE", "MISSING_FIELD", "'record has no value'"),
    QuarantineRule("NOT is_valid_utf8(value_text)", "DECODE", "NOT_UTF8", "'value is not UTF-8'"),
    QuarantineRule("e IS NULL OR e._corrupt_record IS NOT NULL", "DECODE", "MALFORMED_JSON", "'value is not a JSON object'"),
    QuarantineRule(f"NOT coalesce(e.type LIKE '{TYPE_PREFIX}%', false)", "VALIDATE", "UNKNOWN_EVENT_TYPE",
                   "concat('CloudEvents type ', coalesce(e.type, 'null'))"),
    QuarantineRule("e.id IS NULL OR e.logicalid IS NULL OR e.operation IS NULL OR e.data IS NULL", "VALIDATE",
                   "MISSING_FIELD", "'id, logicalid, operation and data are required'"),
    QuarantineRule("seg_index IS NULL OR seg_final IS NULL", "VALIDATE", "MISSING_FIELD",
                   "'no segmentindex/finalsegment (or splitindex/splittotalcnt)'"),
    QuarantineRule(f"e.operation NOT IN ({', '.join(repr(o) for o in OPERATIONS)})", "VALIDATE", "UNKNOWN_OPERATION",
                   "concat('operation ', e.operation)"),
]


def records(raw: DataFrame) -> DataFrame:
    return kafka_columns(raw).selectExpr(
        "*", f"from_json(value_text, '{ENVELOPE_SCHEMA}', {_CORRUPT}) AS e",
    ).selectExpr(
        "*",
        # current attributes are 1-based (captures); legacy splitindex is 0-based, so it is shifted
        "coalesce(try_cast(e.segmentindex AS INT), try_cast(e.splitindex AS INT) + 1) AS seg_index",
        """CASE WHEN e.finalsegment IS NOT NULL THEN lower(e.finalsegment) = 'true'
                WHEN e.splittotalcnt IS NOT NULL THEN try_cast(e.splittotalcnt AS INT) = 0
                  OR try_cast(e.splitindex AS INT) + 1 = try_cast(e.splittotalcnt AS INT) END AS seg_final""",
    ).selectExpr("*", *quarantine_columns(_RECORD_RULES))  # column q


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


def assemble(grouped: DataFrame) -> DataFrame:
    """(stream, logicalid, segs) -> the ordered segments, the copies removed, the verdict on completeness."""
    ordered = ("array_sort(segs, (a, b) -> CASE WHEN a.seg_index != b.seg_index THEN a.seg_index - b.seg_index "
               "WHEN a.topic != b.topic THEN IF(a.topic < b.topic, -1, 1) "
               "WHEN a.partition != b.partition THEN a.partition - b.partition "
               "ELSE CAST(signum(a.offset - b.offset) AS INT) END)")
    # a copy is a segment seen before with the same source + id, or the same index and the same content
    unique = ("filter(sorted, (s, i) -> NOT exists(slice(sorted, 1, i), p -> (p.source <=> s.source AND p.id = s.id)"
              " OR (p.seg_index = s.seg_index AND p.data = s.data)))")
    return grouped.selectExpr("logicalid", f"{ordered} AS sorted").selectExpr(
        "logicalid", "sorted", f"{unique} AS parts",
    ).selectExpr(
        "*",
        "size(array_distinct(transform(parts, p -> p.seg_index))) < size(parts) AS conflict",
        """element_at(parts, 1).seg_index IN (0, 1)
           AND element_at(parts, -1).seg_index - element_at(parts, 1).seg_index + 1 = size(parts)
           AND element_at(parts, -1).seg_final
           AND NOT exists(slice(parts, 1, size(parts) - 1), p -> p.seg_final) AS complete""",
        "array_join(transform(parts, p -> p.data), '') AS data",
        "transform(sorted, s -> named_struct('topic', s.topic, 'partition', s.partition, 'offset', s.offset)) AS origin",
        "element_at(parts, 1) AS head",
    )


# ---------------------------------------------------------------------------------------------------
# Stage 3: data and row images
# ---------------------------------------------------------------------------------------------------

def _decode_data(assembled: DataFrame) -> DataFrame:
    return assembled.selectExpr(
        "*", f"IF(complete AND NOT conflict, from_json(data, '{DATA_SCHEMA}', {_CORRUPT}), NULL) AS d",
    ).selectExpr(
        "*",
        "d.eventsource AS es",
        "from_json(d.eventrow.old, 'map<string,string>') AS old_raw",
        "from_json(d.eventrow.current, 'map<string,string>') AS current_raw",
        f"transform(d.eventsource.cols, c -> named_struct('name', c.name, 'type', c.type, 'index', c.index, "
        f"'logical', {logical_type('c.type')})) AS cols",
    ).selectExpr(
        "*",
        "transform(es.pkkey, k -> k.columnname) AS pk_names",
        "map_from_entries(transform(cols, c -> struct(c.name, c.logical))) AS logical_of",
    ).selectExpr(
        "*",
        f"{_converted('old_raw')} AS old_image",
        f"{_converted('current_raw')} AS current_image",
    )


def _converted(image: str) -> str:
    """Each supplied column converted by its declared type (undeclared columns are SCHEMA_MISMATCH)."""
    return (f"map_from_entries(transform(map_entries({image}), kv -> struct(kv.key, "
            f"{convert_value('kv.value', 'try_element_at(logical_of, kv.key)')})))")


def _undecodable(image: str) -> str:
    return (f"exists(map_entries({image}_raw), kv -> kv.value IS NOT NULL AND "
            f"try_element_at({image}_image, kv.key) IS NULL)")


_EVENT_RULES = [
    QuarantineRule("head.q IS NOT NULL", None, None),  # a rejected record: its own verdict stands (see decode)
    QuarantineRule("conflict", "ASSEMBLE", "SEGMENT_DUPLICATE_CONFLICT",
                   "concat('segments of ', logicalid, ' share an index with different data')"),
    QuarantineRule("NOT complete", "ASSEMBLE", "SEGMENT_INCOMPLETE",
                   "concat('logical event ', logicalid, ' lacks segments (have ', size(parts), ')')"),
    QuarantineRule("d IS NULL OR d._corrupt_record IS NOT NULL", "DECODE", "MALFORMED_DATA", "'data is not a JSON object'"),
    QuarantineRule("es IS NULL OR d.eventrow IS NULL OR es.cols IS NULL", "VALIDATE", "MISSING_FIELD",
                   "'data needs eventsource.cols and eventrow'"),
    QuarantineRule("(d.eventrow.old IS NOT NULL AND old_raw IS NULL) OR (d.eventrow.current IS NOT NULL AND current_raw IS NULL)",
                   "DECODE", "MALFORMED_DATA", "'eventrow.old/current is not a JSON object'"),
    QuarantineRule("exists(concat(coalesce(map_keys(old_raw), array()), coalesce(map_keys(current_raw), array())),"
                   " k -> NOT map_contains_key(logical_of, k))", "VALIDATE", "SCHEMA_MISMATCH",
                   "'old/current has a column that eventsource.cols does not declare'"),
    QuarantineRule("exists(cols, c -> c.logical IS NULL)", "VALIDATE", "UNKNOWN_COLUMN_TYPE",
                   "concat('column type ', get(filter(cols, c -> c.logical IS NULL), 0).type)"),
    QuarantineRule("(head.operation = 'INS' AND size(old_raw) > 0) OR (head.operation = 'DEL' AND size(current_raw) > 0)",
                   "VALIDATE", "UNEXPECTED_IMAGE", "concat(head.operation, ' with a row image it cannot have')"),
    QuarantineRule("head.operation IN ('INS', 'UPD') AND size(current_raw) = 0", "VALIDATE", "MISSING_FIELD",
                   "'INS/UPD without current values'"),
    QuarantineRule(f"{_undecodable('old')} OR {_undecodable('current')}", "CONVERT", "UNDECODABLE_VALUE",
                   "'a value does not match its column type'"),
]


# ---------------------------------------------------------------------------------------------------
# Stage 4: canonical events (an update that changes the key becomes DELETE + INSERT)
# ---------------------------------------------------------------------------------------------------

def _events(decoded: DataFrame) -> DataFrame:
    columns = ("transform(cols, c -> named_struct('name', c.name, 'position', try_cast(c.index AS INT) + 1, "
               "'source_type', c.type, 'logical_type', c.logical, 'nullable', CAST(NULL AS BOOLEAN), "
               "'pk_position', CAST(nullif(array_position(pk_names, c.name), 0) AS INT)))")
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
    # One template for every event. `part` is 0 for a plain change, or 1 (DELETE of the old key) and
    # 2 (INSERT of the new key) for an update that changed the key.
    before = "CASE WHEN part = 2 OR size(old_image) = 0 THEN NULL ELSE old_image END"
    after = "CASE WHEN part = 1 OR size(current_image) = 0 THEN NULL ELSE current_image END"
    key_image = "IF(part = 1 OR (part = 0 AND head.operation = 'DEL'), old_image, current_image)"
    # the key comes from the row image; pkkey (as written) fills in where a partial image lacks it
    key = (f"transform(pk_names, n -> named_struct('name', n, 'value', coalesce(try_element_at({key_image}, n), "
           "get(filter(es.pkkey, k -> k.columnname = n), 0).value)))")
    template = f"""named_struct(
          'event_id', concat(origin[0].topic, '/', origin[0].partition, '/', origin[0].offset, '#', greatest(part - 1, 0)),
          'format', '{FORMAT}',
          'format_version', nullif(regexp_extract(head.type, 'V([0-9]+)$', 1), ''),
          'kind', 'ROW', 'op', CASE part WHEN 1 THEN 'DELETE' WHEN 2 THEN 'INSERT' ELSE {operation} END, 'snapshot', false,
          'source', named_struct('system', 'sqlserver', 'server', CAST(NULL AS STRING), 'database', es.db,
                                 'schema', es.schema, 'table', es.tbl),
          'columns', {columns},
          'key', {key},
          'before', {before}, 'after', {after},
          'pk_change', IF(part = 0, NULL, named_struct('group', {group}, 'role', IF(part = 1, 'OLD', 'NEW'))),
          'position', position,
          'tx_id', es.transaction.commitlsn,
          'commit_ts', coalesce(try_to_timestamp(es.transaction.committime), try_to_timestamp(head.time)),
          'emit_ts', CAST(NULL AS TIMESTAMP),
          'ddl', CAST(NULL AS STRUCT<statement: STRING, change: STRING>),
          'message', CAST(NULL AS STRUCT<prefix: STRING, content: STRING>),
          'origin', origin)"""
    return decoded.selectExpr("*", f"{position} AS position").selectExpr(
        "*", *quarantine_columns(_EVENT_RULES),
    ).selectExpr(
        "*", f"IF(q IS NULL, transform(IF({key_changed}, array(1, 2), array(0)), part -> {template}), NULL) AS events",
    )


def _quarantine(origin: str, key: str, value: str, headers: str) -> str:
    return (f"named_struct('origin', {origin}, 'format', '{FORMAT}', 'phase', q.phase, 'code', q.code, "
            f"'detail', q.detail, 'raw_key', {key}, 'raw_value', {value}, 'raw_headers', {headers})")


def decode(raw: DataFrame) -> DataFrame:
    """Kafka source rows -> rows with exactly one of `event` / `quarantine` set (batch)."""
    return outputs(assemble(_group_batch(records(raw))))


def outputs(assembled: DataFrame) -> DataFrame:
    """Assembled groups -> canonical events, or one quarantine record per record of a failed group."""
    built = _events(_decode_data(assembled))
    verdict = "coalesce(head.q, q)"
    quarantined = (f"transform(sorted, s -> named_struct('event', CAST(NULL AS {_EVENT_TYPE}), 'quarantine', "
                   f"named_struct('origin', array(named_struct('topic', s.topic, 'partition', s.partition, "
                   f"'offset', s.offset)), 'format', '{FORMAT}', 'phase', v.phase, 'code', v.code, 'detail', v.detail, "
                   f"'raw_key', s.key, 'raw_value', s.value, 'raw_headers', s.headers)))")
    emitted = f"transform(events, ev -> named_struct('event', ev, 'quarantine', CAST(NULL AS {_QUARANTINE_TYPE})))"
    # a failed logical event quarantines each of its records once: every record in exactly one quarantine record
    outputs = f"element_at(transform(array({verdict}), v -> IF(v IS NULL, {emitted}, {quarantined})), 1)"
    return built.selectExpr(f"inline({outputs})")
