"""Decoder for `dataworks-json`: Alibaba DataWorks "sync whole database to Kafka" (versions 0.0.1, 1.0.0).

One JSON object per record: `schema` (columns with one of six DataWorks types, `primaryKey`, `source`) and `payload`
(`before`/`after` row images one level down in `dataColumn`, `op`, `sequenceId`, `timestamp`, `ddl`). An update comes
as one record (`UPDATE_AFTER` with both images) or as two halves, `UPDATE_BEFOR` then `UPDATE_AFTER`, sharing a
`sequenceId`; halves are paired by table and sequenceId (normalizer.assembly, as CES segments are), and identical
records are grouped as copies of one. `ddl.ddlMeta` (a Java-serialized object) is never read.

Records and groups are read on the JVM (normalizer/java): `DataWorksRecords` gives each record its half, group and
record-level verdict; once a group is assembled, `DataWorksChanges` reads it as one change: columns, images, rules,
events. docs/formats/dataworks-json.md records every decision.
"""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql.types import StringType, StructField, StructType

from cdc_conformance.model import Code
from cdc_conformance.normalizer import assembly, events, jvm_functions
from cdc_conformance.normalizer.kafka_source import kafka_columns
from cdc_conformance.normalizer.plugin import FormatDecoder, register
from cdc_conformance.normalizer.verdicts import from_code

FORMAT = "dataworks-json"
READER = "dataworks.DataWorksRecords"
GROUP_READER = "dataworks.DataWorksChanges"
RECORD_STAGE = StructType([StructField(name, StringType(), True) for name in ("code", "detail", "half", "group_key")])


def records(raw: DataFrame) -> DataFrame:
    """Stage 1, one row per Kafka record: its half (BEFORE, AFTER or none), its group, its verdict."""
    columns = kafka_columns(raw)
    return columns.select("*", jvm_functions.read_records(columns, READER, RECORD_STAGE).alias("record")).selectExpr(
        "*", "record.half AS half", f"{from_code('record.code', 'record.detail')} AS rejection")


def pairs_ready(members: list[dict]) -> bool:
    """Streaming release rule: a record that is no half is complete; halves wait for both sides."""
    halves = {m.get("half") for m in members}
    return None in halves or {"BEFORE", "AFTER"} <= halves


# Stage 2: halves paired by table + sequenceId; any other record grouped with its identical copies
PAIRS = assembly.Grouping(
    group_key="record.group_key",
    fields={"half": ("half", "string")},
    ready=pairs_ready,
    release_rule="dataworks.PairsReady",
    fingerprints=(("half", "value"),),
    late_conflict=Code.UNPAIRED_UPDATE_HALF,  # a half that conflicts with the pair already emitted
)

# BEFORE half first (its record is the event's id), then arrival order on each partition
_ORDER = ("array_sort(members, (a, b) -> CASE WHEN coalesce(a.half, '') != coalesce(b.half, '') "
          "THEN IF(a.half = 'BEFORE', -1, 1) WHEN a.partition != b.partition THEN a.partition - b.partition "
          "ELSE CAST(signum(a.offset - b.offset) AS INT) END)")


def outputs(grouped: DataFrame) -> DataFrame:
    """Stages 3 and 4, one row per group: its events, or one quarantine record per member."""
    ordered = grouped.selectExpr(f"{_ORDER} AS members")
    return ordered.select("members", jvm_functions.read_groups(ordered, GROUP_READER, "members").alias("change")).selectExpr(
        "change",
        "transform(members, m -> named_struct('topic', m.topic, 'partition', m.partition, 'offset', m.offset)) AS origin",
        "transform(members, m -> named_struct('key', m.key, 'value', m.value, 'headers', m.headers)) AS raw",
    ).selectExpr("*", f"{from_code('change.code', 'change.detail')} AS verdict").selectExpr(
        *events.group_output("change.events", "verdict", FORMAT))


def decode(raw: DataFrame) -> DataFrame:
    """Batch: both halves of every update are in the input; a half without its partner is unpaired."""
    return outputs(assembly.group_batch(records(raw), PAIRS))


def decode_stream(raw: DataFrame, pair_timeout_seconds: float = assembly.DEFAULT_TIMEOUT_SECONDS,
                  copy_window_seconds: float = assembly.DEFAULT_COPY_WINDOW_SECONDS,
                  group_stream: assembly.StreamGrouping = assembly.group_stream) -> DataFrame:
    """Structured Streaming: a half waits in state (checkpointed) for its partner until the timeout; a released
    change's fingerprints stay for the copy window."""
    return outputs(group_stream(records(raw), PAIRS, pair_timeout_seconds, copy_window_seconds))


DECODER = register(FormatDecoder(FORMAT, decode=decode, decode_stream=decode_stream))
