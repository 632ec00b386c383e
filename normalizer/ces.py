"""Decoder for `ces-json`: SQL Server 2025 change event streaming, CloudEvents structured mode, JSON.

Three JSON levels: the CloudEvent envelope, `data` (a JSON text), and `eventrow.old`/`current` (JSON texts
again). Events larger than `@max_message_size_kb` arrive as segments sharing `logicalid`; segments are
grouped by `logicalid` (normalizer.assembly), re-sent copies (same `source` + `id`, or same index and
content) are dropped, and the `data` fragments are concatenated in index order. Values are strings
typed by `cols[].type` through the SQL Server type table. docs/formats/ces.md records every decision.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyspark.sql import DataFrame

from normalizer import assembly, events, keys, sql, types
from normalizer import canonical_text as ct
from normalizer.json_text import json_record_rules, parse_json, repeats_a_member, with_corrupt_record
from normalizer.kafka_source import kafka_columns
from normalizer.model import Code
from normalizer.plugin import FormatDecoder, register
from normalizer.verdicts import QuarantineRule, verdict

FORMAT = "ces-json"
# the `_corrupt_record` an encoding gives a `data` level whose strings are not UTF-8 (NUL-led: a JSON text that
# failed to parse never is exactly this); ces-avro's guard sets it
NOT_UTF8_MARK = "\\u0000NOT_UTF8"
# a member whose value is a JSON number (CES writes strings): `"id": 5`
_HOLDS_A_NUMBER = sql.sql_string(r":\s*-?[0-9]")
TYPE_PREFIX = "com.microsoft.SQL.CES.DML.V"
OPERATIONS = {"INS": "INSERT", "UPD": "UPDATE", "DEL": "DELETE"}

ENVELOPE_SCHEMA = with_corrupt_record(
    "specversion:string,type:string,source:string,id:string,logicalid:string,time:string,"
    "datacontenttype:string,operation:string,segmentindex:string,finalsegment:string,"
    "splitindex:string,splittotalcnt:string,data:string")
EVENTSOURCE_TYPE = ("struct<db:string,schema:string,tbl:string,"
                    "cols:array<struct<name:string,type:string,index:string>>,"
                    "pkkey:array<struct<columnname:string,value:string>>,"
                    "transaction:struct<commitlsn:string,beginlsn:string,sequencenumber:string,committime:string>>")
DATA_SCHEMA = with_corrupt_record(f"eventsource:{EVENTSOURCE_TYPE},eventrow:struct<old:string,current:string>")


def type_base(type_text: str) -> str:
    """'Decimal (10, 2)' -> 'decimal'; 'int identity' -> 'int' (string functions: no regexp per column)."""
    return f"lower(substring_index(trim(substring_index(trim({type_text}), '(', 1)), ' ', 1))"


def logical_type(type_text: str) -> str:
    """The logical type of a SQL Server type as CES writes it (NULL: a type CES does not send)."""
    return types.SQLSERVER.logical_type(type_base(type_text), lambda n: types.type_argument(type_text, n))


# ---------------------------------------------------------------------------------------------------
# Stage 1: one row per Kafka record, with its segment attributes and record-level checks
# ---------------------------------------------------------------------------------------------------

_COMMON_RECORD_RULES = [
    QuarantineRule(f"NOT coalesce(cloud_event.type LIKE '{TYPE_PREFIX}%', false)", Code.UNKNOWN_EVENT_TYPE,
                   "concat('CloudEvents type ', coalesce(cloud_event.type, 'null'))"),
    QuarantineRule("cloud_event.id IS NULL OR cloud_event.logicalid IS NULL OR cloud_event.operation IS NULL "
                   "OR cloud_event.data IS NULL", Code.MISSING_FIELD, "'id, logicalid, operation and data are required'"),
    QuarantineRule("seg_index IS NULL OR seg_final IS NULL", Code.MISSING_FIELD,
                   "'no segmentindex/finalsegment (or splitindex/splittotalcnt)'"),
    QuarantineRule(f"cloud_event.operation NOT IN ({', '.join(repr(o) for o in OPERATIONS)})", Code.UNKNOWN_OPERATION,
                   "concat('operation ', cloud_event.operation)"),
]

NO_VALUE = QuarantineRule("value IS NULL", Code.MISSING_FIELD, "'record has no value'")


@dataclass(frozen=True)
class Encoding:
    """What differs between `ces-json` and `ces-avro`: how the envelope and `data` are parsed.

    `envelope` is an SQL expression over the Kafka columns giving the envelope struct `cloud_event`
    (ENVELOPE_SCHEMA, `data` as text: JSON text, or hex of the Avro bytes so that fragments still
    concatenate as text); `decode_rules` reject records whose bytes are not the encoding;
    `parse_data(text)` is an SQL expression giving DATA_SCHEMA (with `_corrupt_record` set, or NULL,
    when `data` does not parse).
    """
    format_id: str
    envelope: str
    decode_rules: tuple[QuarantineRule, ...]
    parse_data: Callable[[str], str]


JSON = Encoding(
    format_id=FORMAT,
    envelope=parse_json("value_text", ENVELOPE_SCHEMA),
    decode_rules=(NO_VALUE, *json_record_rules("cloud_event")),
    parse_data=lambda text: parse_json(text, DATA_SCHEMA),
)


def records(raw: DataFrame, encoding: Encoding = JSON) -> DataFrame:
    return kafka_columns(raw).selectExpr("*", f"{encoding.envelope} AS cloud_event").selectExpr(
        "*",
        # current attributes are 1-based (captures); legacy splitindex is 0-based, so it is shifted
        "coalesce(try_cast(cloud_event.segmentindex AS INT), try_add(try_cast(cloud_event.splitindex AS INT), 1)) AS seg_index",
        """CASE WHEN cloud_event.finalsegment IS NOT NULL THEN lower(cloud_event.finalsegment) = 'true'
                WHEN cloud_event.splittotalcnt IS NOT NULL THEN try_cast(cloud_event.splittotalcnt AS INT) = 0
                  OR try_add(try_cast(cloud_event.splitindex AS INT), 1) = try_cast(cloud_event.splittotalcnt AS INT)
           END AS seg_final""",
    ).selectExpr("*", f"{verdict([*encoding.decode_rules, *_COMMON_RECORD_RULES])} AS rejection")


# ---------------------------------------------------------------------------------------------------
# Stage 2: segments grouped by logicalid and assembled
# ---------------------------------------------------------------------------------------------------

def _is_copy(segment: dict, seen: list[dict]) -> bool:
    return any((s.get("source") == segment.get("source") and s.get("id") == segment.get("id")) or
               (s.get("seg_index") == segment.get("seg_index") and s.get("data") == segment.get("data")) for s in seen)


def segments_ready(segments: list[dict]) -> bool:
    """Streaming release rule, the same as `assemble`'s verdicts: complete (contiguous indices from 0 or
    1, one final, last) or conflicting (one index twice, or legacy totals that disagree: released at once;
    the SQL stage quarantines it)."""
    parts: list[dict] = []
    for segment in sorted(segments, key=lambda s: (s["seg_index"], s["topic"], s["partition"], s["offset"])):
        if not _is_copy(segment, parts):
            parts.append(segment)
    indices = [p["seg_index"] for p in parts]
    if len(set(indices)) < len(indices) or len({p["total"] for p in parts if p.get("total") is not None}) > 1:
        return True
    finals = [bool(p.get("seg_final")) for p in parts]
    return (indices[0] in (0, 1) and indices[-1] - indices[0] + 1 == len(parts) and finals[-1]
            and not any(finals[:-1]))


SEGMENTS = assembly.Grouping(
    group_key="cloud_event.logicalid",
    fields={"seg_index": ("seg_index", "int"), "seg_final": ("seg_final", "boolean"),
            "data": ("cloud_event.data", "string"), "source": ("cloud_event.source", "string"),
            "id": ("cloud_event.id", "string"), "operation": ("cloud_event.operation", "string"),
            "type": ("cloud_event.type", "string"), "time": ("cloud_event.time", "string"),
            "total": ("try_cast(cloud_event.splittotalcnt AS INT)", "int")},
    ready=segments_ready,
    fingerprint=("source", "id", "seg_index", "data"),
    late_conflict=Code.SEGMENT_DUPLICATE_CONFLICT,  # an extra segment, or a logicalid reused by another event
)


def _summary(parts: str, sorted_segments: str, single: bool) -> str:
    """What the later stages need of a group: verdicts on completeness, the data text, the records.

    `single` builds the same struct for a group of one segment (the usual case) without any
    higher-order function: those are interpreted, not compiled, and cost per element.
    """
    if single:
        conflict = "false"
        complete = f"{parts}[0].seg_index IN (0, 1) AND {parts}[0].seg_final"
        data = f"{parts}[0].data"
        # an array access is nullable to Spark, but a group has a member; the fallbacks never apply
        origin = (f"array(named_struct('topic', coalesce({parts}[0].topic, ''), "
                  f"'partition', coalesce({parts}[0].partition, -1), 'offset', coalesce({parts}[0].offset, -1L)))")
        raw = f"array(named_struct('key', {parts}[0].key, 'value', {parts}[0].value, 'headers', {parts}[0].headers))"
    else:
        # one index with two contents, or legacy segments whose splittotalcnt disagree (3, then 2)
        conflict = (f"size(array_distinct(transform({parts}, p -> p.seg_index))) < size({parts}) "
                    f"OR size(array_distinct(filter(transform({parts}, p -> p.total), t -> t IS NOT NULL))) > 1")
        complete = f"""element_at({parts}, 1).seg_index IN (0, 1)
           AND CAST(element_at({parts}, -1).seg_index AS BIGINT) - element_at({parts}, 1).seg_index + 1 = size({parts})
           AND element_at({parts}, -1).seg_final
           AND NOT exists(slice({parts}, 1, size({parts}) - 1), p -> p.seg_final)"""
        data = f"array_join(transform({parts}, p -> p.data), '')"
        origin = (f"transform({sorted_segments}, s -> named_struct('topic', s.topic, 'partition', s.partition, "
                  "'offset', s.offset))")
        raw = f"transform({sorted_segments}, s -> named_struct('key', s.key, 'value', s.value, 'headers', s.headers))"
    return f"""named_struct(
        'conflict', {conflict}, 'complete', {complete}, 'segment_count', size({parts}), 'data', {data},
        'head', named_struct('operation', {parts}[0].operation, 'type', {parts}[0].type, 'time', {parts}[0].time,
                             'rejection', {parts}[0].rejection),
        'origin', {origin},
        'raw', {raw})"""  # raw: kept for quarantine records, which carry every record as read


def assemble(grouped: DataFrame) -> DataFrame:
    """(stream, group_key, members) -> one row per logical event: its data text, verdicts and records.

    Every later step that holds a higher-order function is a projection of its own that copies its
    whole input row, so steps are few and the segment texts do not ride along after this one.
    """
    # comparisons, never differences: indices come from the message (2147483647 - -5 overflows)
    ordered = ("array_sort(members, (a, b) -> CASE WHEN a.seg_index != b.seg_index THEN IF(a.seg_index < b.seg_index, -1, 1) "
               "WHEN a.topic != b.topic THEN IF(a.topic < b.topic, -1, 1) "
               "WHEN a.partition != b.partition THEN a.partition - b.partition "
               "ELSE CAST(signum(a.offset - b.offset) AS INT) END)")
    # a copy is a segment seen before with the same source + id, or the same index and the same content
    unique = ("filter(ct_sorted, (s, i) -> NOT exists(slice(ct_sorted, 1, i), p -> (p.source <=> s.source AND p.id = s.id)"
              " OR (p.seg_index = s.seg_index AND p.data = s.data)))")
    general = sql.let(ordered, "ct_sorted", sql.let(unique, "ct_parts", _summary("ct_parts", "ct_sorted", single=False)))
    summary = f"IF(size(members) = 1, {_summary('members', 'members', single=True)}, {general})"
    return grouped.selectExpr("substr(group_key, 3) AS logicalid", f"{summary} AS assembled").selectExpr(
        "logicalid", "assembled.*")


# ---------------------------------------------------------------------------------------------------
# Stage 3: data and row images
# ---------------------------------------------------------------------------------------------------

def _decode_data(assembled: DataFrame, encoding: Encoding) -> DataFrame:
    """The data text -> row images typed by `cols`. Each step is one projection, and the higher-order
    functions over the columns are kept to four passes (type, convert, and one filter per image)."""
    carried = ["logicalid", "conflict", "complete", "segment_count", "origin", "head", "raw"]
    # names are never NULL past the rules (bad_columns); coalesce tells Spark, for the model's NOT NULL
    column = ("named_struct('name', coalesce(c.name, ''), 'position', try_add(try_cast(c.index AS INT), 1), 'source_type', c.type, "
              f"'logical_type', {logical_type('c.type')}, 'nullable', CAST(NULL AS BOOLEAN), "
              "'pk_position', CAST(nullif(array_position(pk_names, c.name), 0) AS INT))")
    def lookup(image: str) -> str:
        # the text to convert: a JSON number's exact digits (ct.exact_number), or the string as written
        raw = f"try_element_at({image}_raw, c.name)"
        exact = ct.exact_number(raw, f"try_element_at({image}_numbers, c.name)", logical_type("c.type"))
        return f"'{image}_raw', {raw}, '{image}_text', IF({image}_numbers IS NULL, {raw}, {exact})"

    lookups = f"{lookup('old')}, {lookup('current')}"
    # whether an image has the column, asked of its map only when the lookup gave NULL (sql.has_key)
    present = {image: sql.has_key(f"{image}_raw", "c.column.name", f"c.{image}_raw") for image in ("old", "current")}
    convert = (f"'old', {types.convert('c.old_text', 'c.column.logical_type', types.TEXT)}, "
               f"'current', {types.convert('c.current_text', 'c.column.logical_type', types.TEXT)}")
    return assembled.selectExpr(
        *carried, f"IF(complete AND NOT conflict, {encoding.parse_data('data')}, NULL) AS data_document",
        f"{ct.escapes_lone_surrogate('data')} AS data_lone_surrogate",
        f"{repeats_a_member('data')} AS data_repeats_a_member",  # the Avro encoding's hex is no JSON: false
    ).selectExpr(  # from here on without the data text and its parse
        *carried,
        "data_document IS NULL OR data_document._corrupt_record IS NOT NULL AS data_malformed",
        f"coalesce(data_document._corrupt_record = '{NOT_UTF8_MARK}', false) OR data_lone_surrogate AS data_not_utf8",
        "data_document.eventsource IS NULL OR data_document.eventrow IS NULL OR data_document.eventsource.cols IS NULL"
        " AS data_incomplete",
        "data_document.eventsource AS source_doc", "data_repeats_a_member",
        "data_document.eventrow.old AS old_text", "data_document.eventrow.current AS current_text",
        "from_json(data_document.eventrow.old, 'map<string,string>') AS old_raw",
        "from_json(data_document.eventrow.current, 'map<string,string>') AS current_raw",
        # CES writes every value as a string; an image holding JSON numbers is parsed again to keep their digits
        *(f"IF(data_document.eventrow.{image} RLIKE {_HOLDS_A_NUMBER}, from_json(data_document.eventrow.{image}, "
          f"'map<string,variant>'), NULL) AS {image}_numbers" for image in ("old", "current")),
        "data_document.eventsource.pkkey.columnname AS pk_names",
        # a column declared twice or without a name is quarantined (SCHEMA_MISMATCH); until then no map
        # may be built from the names (a duplicate or NULL map key is an error that would stop the job)
        "size(array_distinct(data_document.eventsource.cols.name)) < size(data_document.eventsource.cols)"
        " OR exists(data_document.eventsource.cols, c -> c.name IS NULL) AS bad_columns",
    ).selectExpr(
        "*", f"IF(bad_columns, NULL, transform(source_doc.cols, c -> named_struct('column', {column}, {lookups}))) AS cols",
    ).selectExpr(
        "*", f"transform(cols, c -> named_struct('name', c.column.name, 'old_present', {present['old']}, "
             f"'current_present', {present['current']}, 'old_raw', c.old_raw, 'current_raw', c.current_raw, "
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
    QuarantineRule("head.rejection IS NOT NULL", None),  # a rejected record: its own verdict stands
    QuarantineRule("conflict", Code.SEGMENT_DUPLICATE_CONFLICT,
                   "concat('segments of ', logicalid, ' share an index with different data')"),
    QuarantineRule("NOT complete", Code.SEGMENT_INCOMPLETE,
                   "concat('logical event ', logicalid, ' lacks segments (have ', segment_count, ')')"),
    QuarantineRule(f"data_not_utf8 OR {ct.escapes_lone_surrogate('old_text')} OR {ct.escapes_lone_surrogate('current_text')}",
                   Code.NOT_UTF8, "'a string of data is not UTF-8, or escapes a lone surrogate'"),
    QuarantineRule("data_malformed", Code.MALFORMED_DATA, "'data is not a JSON object (or Avro Data datum)'"),
    QuarantineRule("data_incomplete", Code.MISSING_FIELD, "'data needs eventsource.cols and eventrow'"),
    QuarantineRule("(old_text IS NOT NULL AND old_raw IS NULL) OR (current_text IS NOT NULL AND current_raw IS NULL)",
                   Code.MALFORMED_DATA, "'eventrow.old/current is not a JSON object'"),
    QuarantineRule(f"data_repeats_a_member OR {repeats_a_member('old_text')} OR {repeats_a_member('current_text')}",
                   Code.DUPLICATE_KEY, "'an object in data names a member twice'"),
    QuarantineRule("bad_columns", Code.SCHEMA_MISMATCH, "'eventsource.cols declares a column twice or without a name'"),
    QuarantineRule("exists(source_doc.cols, c -> c.index IS NOT NULL AND NOT coalesce(try_cast(c.index AS INT) "
                   "BETWEEN 0 AND 2147483646, false))", Code.SCHEMA_MISMATCH,
                   "'eventsource.cols gives an index that is no column position'"),
    QuarantineRule("size(array_distinct(pk_names)) < size(pk_names) OR exists(pk_names, n -> n IS NULL)",
                   Code.SCHEMA_MISMATCH, "'eventsource.pkkey names a column twice or without a name'"),
    QuarantineRule(f"{_undeclared('old')} OR {_undeclared('current')}", Code.SCHEMA_MISMATCH,
                   "'old/current has a column that eventsource.cols does not declare'"),
    QuarantineRule("exists(cols, c -> c.column.logical_type IS NULL)", Code.UNKNOWN_COLUMN_TYPE,
                   "concat('column type ', get(filter(cols, c -> c.column.logical_type IS NULL), 0).column.source_type)"),
    QuarantineRule("(head.operation = 'INS' AND size(old_raw) > 0) OR (head.operation = 'DEL' AND size(current_raw) > 0)",
                   Code.UNEXPECTED_IMAGE, "concat(head.operation, ' with a row image it cannot have')"),
    QuarantineRule("head.operation IN ('INS', 'UPD') AND size(current_raw) = 0", Code.MISSING_FIELD,
                   "'INS/UPD without current values'"),
    QuarantineRule("undecodable", Code.UNDECODABLE_VALUE, "'a value does not match its column type'"),
    # `old` {} is CES's "no old values" (@include_old_values = 0): no claim about the key; a key column a
    # partial `old` leaves out (@include_all_columns = 0) was not supplied: pkkey keys the row
    keys.missing_old_key_rule(
        f"head.operation IN ('UPD', 'DEL') AND "
        f"{keys.old_key_missing('pk_names', 'IF(size(old_raw) = 0, NULL, old_raw)', keyed_elsewhere=True)}"),
    QuarantineRule(ct.wider_than("source_doc.transaction.sequencenumber"), Code.UNDECODABLE_VALUE,
                   "'sequencenumber has more than 20 digits'"),
    QuarantineRule(f"(source_doc.transaction.committime IS NOT NULL AND "
                   f"{ct.instant_from_text('source_doc.transaction.committime')} IS NULL) OR "
                   f"(head.time IS NOT NULL AND {ct.instant_from_text('head.time')} IS NULL)", Code.UNDECODABLE_VALUE,
                   "'time and committime must be instants of years 0001-9999'"),
]


# ---------------------------------------------------------------------------------------------------
# Stage 4: canonical events (an update that changes the key becomes DELETE + INSERT)
# ---------------------------------------------------------------------------------------------------

def _events(decoded: DataFrame, format_id: str) -> DataFrame:
    key_changed = f"head.operation = 'UPD' AND {keys.key_changed('pk_names', 'old_image', 'current_image')}"
    position = ("IF(source_doc.transaction IS NULL, NULL, named_struct("
                "'commit', upper(regexp_replace(source_doc.transaction.commitlsn, ':', '')), "
                f"'event', {ct.fixed_width('source_doc.transaction.sequencenumber')}, 'seq', '{keys.PLAIN_SEQ}'))")
    group = keys.group_sql(
        {"system": "'sqlserver'", "server": "''", "database": "source_doc.db", "schema": "source_doc.schema",
         "table": "source_doc.tbl", "commit": "position.commit", "event": "position.event"},
        "map_filter(old_raw, (k, v) -> array_contains(pk_names, k))",
        "map_filter(current_raw, (k, v) -> array_contains(pk_names, k))")
    operation = f"CASE head.operation {' '.join(f'WHEN {k!r} THEN {v!r}' for k, v in OPERATIONS.items())} END"
    # Everything that does not depend on the event's part is computed once, outside any lambda (where
    # Spark generates code instead of interpreting). Column names stand in for the shared parts.
    shared = [
        f"{position} AS position",
        "cols.column AS columns_out",
        "origin[0] AS first",
        "named_struct('system', 'sqlserver', 'server', CAST(NULL AS STRING), 'database', source_doc.db, "
        "'schema', source_doc.schema, 'table', source_doc.tbl) AS source_out",
        "nullif(regexp_extract(head.type, 'V([0-9]+)$', 1), '') AS format_version",
        f"coalesce({ct.instant_from_text('source_doc.transaction.committime')}, {ct.instant_from_text('head.time')}) "
        "AS commit_ts",
    ]

    def position_of(part: int) -> str:
        """Both halves of a key change come from one record: `seq` puts the DELETE first (keys.HALF_SEQ)."""
        return "position" if part == 0 else f"IF(position IS NULL, NULL, {keys.half_position('position', part)})"

    def event(part: int) -> str:
        """Part 0: a plain change; 1 and 2: the DELETE of the old key and the INSERT of the new key."""
        op = {0: operation, 1: "'DELETE'", 2: "'INSERT'"}[part]
        key_image = {0: "IF(head.operation = 'DEL', old_image, current_image)", 1: "old_image", 2: "current_image"}[part]
        # the key comes from the row image; pkkey (as written) fills in where a partial image lacks it
        key = (f"transform(pk_names, n -> named_struct('name', coalesce(n, ''), 'value', "
               f"coalesce(try_element_at({key_image}, n), get(filter(source_doc.pkkey, k -> k.columnname = n), 0).value)))")
        pk_change = None if part == 0 else keys.pk_change_sql(part)
        return events.event(
            event_id=f"concat(first.topic, '/', first.partition, '/', first.offset, '#', {max(part - 1, 0)})",
            format=f"'{format_id}'", format_version="format_version", kind="'ROW'", op=op, snapshot="false",
            source="source_out", columns="columns_out", key=key,
            before=None if part == 2 else "IF(size(old_image) = 0, NULL, old_image)",
            after=None if part == 1 else "IF(size(current_image) = 0, NULL, current_image)",
            pk_change=pk_change, position=position_of(part), tx_id="source_doc.transaction.commitlsn",
            # `ct.let` hides from Spark that an assembled group always has an origin
            commit_ts="commit_ts", origin="coalesce(origin, array())")

    event_array = keys.split_on_key_change(key_changed, group, event)
    # one projection for the shared parts and the verdict, one for the output (each one copies its row)
    return decoded.selectExpr("*", *shared, f"{verdict(_EVENT_RULES)} AS event_verdict").selectExpr(
        *events.group_output(event_array, "coalesce(head.rejection, event_verdict)", format_id))


def outputs(assembled: DataFrame, encoding: Encoding = JSON) -> DataFrame:
    """Assembled groups -> canonical events, or one quarantine record per record of a failed group."""
    return _events(_decode_data(assembled, encoding), encoding.format_id)


def decode(raw: DataFrame, encoding: Encoding = JSON) -> DataFrame:
    """Batch: every segment is in the input."""
    return outputs(assemble(assembly.group_batch(records(raw, encoding), SEGMENTS)), encoding)


def decode_stream(raw: DataFrame, segment_timeout_seconds: float = assembly.DEFAULT_TIMEOUT_SECONDS,
                  encoding: Encoding = JSON) -> DataFrame:
    """Structured Streaming: open segment groups wait in state (checkpointed) until complete or timed out."""
    grouped = assembly.group_stream(records(raw, encoding), SEGMENTS, segment_timeout_seconds)
    return outputs(assemble(grouped), encoding)


DECODER = register(FormatDecoder(FORMAT, decode=decode, decode_stream=decode_stream))
