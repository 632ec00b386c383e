"""Decoder for `ces-json`: SQL Server 2025 change event streaming, CloudEvents structured mode, JSON.

Three JSON levels: the CloudEvent envelope, `data` (a JSON text), and `eventrow.old`/`current` (JSON texts again).
Events larger than `@max_message_size_kb` arrive as segments sharing `logicalid`; segments are grouped by
`logicalid` (normalizer.assembly), re-sent copies (same `source` + `id`, or same index and content) are dropped, and
the `data` fragments are concatenated in index order. Values are strings typed by `cols[].type` through the SQL
Server type table.

Records and logical events are read on the JVM (normalizer/java): `CesRecords` gives each record its segment
attributes and record-level verdict; once its segments are assembled, `CesChanges` reads the event's `data`, types
its images and builds its events. docs/formats/ces.md records every decision.
"""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql.types import BinaryType, BooleanType, IntegerType, StringType, StructField, StructType

from cdc_conformance.model import Code
from cdc_conformance.normalizer import assembly, events, jvm_functions, sql
from cdc_conformance.normalizer.kafka_source import kafka_columns
from cdc_conformance.normalizer.plugin import FormatDecoder, register
from cdc_conformance.normalizer.verdicts import from_code

FORMAT = "ces-json"
# what a record reader returns: its verdict and the segment attributes the grouping reads
RECORD_STAGE = StructType([
    *(StructField(name, StringType(), True) for name in ("code", "detail", "logicalid")),
    StructField("seg_index", IntegerType(), True), StructField("seg_final", BooleanType(), True),
    StructField("data", BinaryType(), True),
    *(StructField(name, StringType(), True) for name in ("source", "id", "operation", "type", "time")),
    StructField("total", IntegerType(), True),
])


@dataclass(frozen=True)
class Encoding:
    """What differs between `ces-json` and `ces-avro`: the JVM readers of a record (the envelope, with `data` as
    bytes: the JSON text's, or the Avro datum's, so that a split event's fragments concatenate) and of an assembled
    event (its `data`)."""
    format_id: str
    record_reader: str
    event_reader: str


JSON = Encoding(format_id=FORMAT, record_reader="ces.CesRecords", event_reader="ces.CesChanges")
READER, GROUP_READER = JSON.record_reader, JSON.event_reader


def records(raw: DataFrame, encoding: Encoding = JSON) -> DataFrame:
    """Stage 1, one row per Kafka record: its segment attributes and its verdict."""
    columns = kafka_columns(raw)
    return columns.select("*", jvm_functions.read_records(columns, encoding.record_reader, RECORD_STAGE).alias("record")).selectExpr(
        "*", f"{from_code('record.code', 'record.detail')} AS rejection")


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
    group_key="record.logicalid",
    fields={"seg_index": ("record.seg_index", "int"), "seg_final": ("record.seg_final", "boolean"),
            "data": ("record.data", "binary"), "source": ("record.source", "string"), "id": ("record.id", "string"),
            "operation": ("record.operation", "string"), "type": ("record.type", "string"), "time": ("record.time", "string"),
            "total": ("record.total", "int")},
    ready=segments_ready,
    release_rule="ces.SegmentsReady",
    fingerprints=(("source", "id"), ("seg_index", "data")),  # a copy: the same source and id, or index and data
    late_conflict=Code.SEGMENT_DUPLICATE_CONFLICT,  # an extra segment, or a logicalid reused by another event
)


def _summary(parts: str, sorted_segments: str, single: bool) -> str:
    """What the later stages need of a group: verdicts on completeness, the data bytes, the records.

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
        data = f"aggregate(transform({parts}, p -> p.data), unhex(''), (ct_all, ct_d) -> concat(ct_all, ct_d))"
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
    """(stream, group_key, members) -> one row per logical event: its data bytes, verdicts and records.

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
# Stages 3 and 4: the data, the row images, the rules and the events of each logical event, on the JVM
# ---------------------------------------------------------------------------------------------------

def outputs(assembled: DataFrame, encoding: Encoding = JSON) -> DataFrame:
    """Assembled groups -> canonical events, or one quarantine record per record of a failed group."""
    event = ("named_struct('logicalid', logicalid, 'conflict', conflict, 'complete', complete, 'segment_count', segment_count, "
             "'data', data, 'head', head, 'origin', origin)")
    framed = assembled.selectExpr("origin", "raw", f"{event} AS event")
    return framed.select("origin", "raw", jvm_functions.read_groups(framed, encoding.event_reader, "event").alias("change")).selectExpr(
        "*", f"{from_code('change.code', 'change.detail')} AS verdict").selectExpr(
        *events.group_output("change.events", "verdict", encoding.format_id))


def decode(raw: DataFrame, encoding: Encoding = JSON) -> DataFrame:
    """Batch: every segment is in the input."""
    return outputs(assemble(assembly.group_batch(records(raw, encoding), SEGMENTS)), encoding)


def decode_stream(raw: DataFrame, segment_timeout_seconds: float = assembly.DEFAULT_TIMEOUT_SECONDS,
                  encoding: Encoding = JSON, copy_window_seconds: float = assembly.DEFAULT_COPY_WINDOW_SECONDS,
                  group_stream: assembly.StreamGrouping = assembly.group_stream) -> DataFrame:
    """Structured Streaming: open segment groups wait in state (checkpointed) until complete or timed out; a
    released event's fingerprints stay for the copy window."""
    grouped = group_stream(records(raw, encoding), SEGMENTS, segment_timeout_seconds, copy_window_seconds)
    return outputs(assemble(grouped), encoding)


DECODER = register(FormatDecoder(FORMAT, decode=decode, decode_stream=decode_stream))
