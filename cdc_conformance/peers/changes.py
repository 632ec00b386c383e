"""What every peer shares: its changes of each record (operation, before and after image) as the model's events, and
its refusal of a record (an exception, a parse that found nothing) as a quarantine record.

A peer's event says what the peer says and no more: kind ROW, the operation, the images; the model's other fields are
NULL, and `expresses()` tells the harness not to compare them. Its event id is the record's coordinates and the
change's index, so that a record's events keep their order. A refusal is `DECODE/READER_FAILURE` with the peer's
message: a peer has no quarantine codes, only "this record failed".
"""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame

from cdc_conformance.model import EVENT_SCHEMA, typed_null

CHANGES_TYPE = "array<struct<op: string, before: map<string, string>, after: map<string, string>>>"
_ORIGIN = ("array(named_struct('topic', coalesce(topic, ''), 'partition', coalesce(partition, 0), "
           "'offset', coalesce(offset, 0L)))")


@dataclass
class Output:
    events: DataFrame
    quarantine: DataFrame


def _event(format_id: str) -> str:
    given = {"event_id": "concat(coalesce(topic, ''), '/', coalesce(partition, 0), '/', coalesce(offset, 0L), '#', pos)",
             "format": f"'{format_id}'", "kind": "'ROW'", "op": "change.op", "before": "change.before",
             "after": "change.after", "origin": _ORIGIN}
    return "named_struct(" + ", ".join(f"'{f.name}', {given.get(f.name) or typed_null(f.dataType)}"
                                       for f in EVENT_SCHEMA.fields) + ")"


def output(decoded: DataFrame, format_id: str, changes: str, error: str) -> Output:
    """`decoded`: the Kafka source's columns with `changes` (an expression of CHANGES_TYPE) and `error` (a string
    expression: NULL unless the peer refused the record)."""
    rows = decoded.selectExpr("*", f"{changes} AS peer_changes", f"{error} AS peer_error")
    events = (rows.where("peer_error IS NULL").selectExpr("*", "posexplode(peer_changes) AS (pos, change)")
              .selectExpr(f"{_event(format_id)} AS event").select("event.*"))
    quarantine = rows.where("peer_error IS NOT NULL").selectExpr(
        f"{_ORIGIN} AS origin", f"'{format_id}' AS format", "'DECODE' AS phase", "'READER_FAILURE' AS code",
        "peer_error AS detail", "key AS raw_key", "value AS raw_value", "headers AS raw_headers")
    return Output(events, quarantine)
