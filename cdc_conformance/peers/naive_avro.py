"""What a team writes by hand for a Debezium topic in Avro, as the usual blog post shows it: the subject's latest value
schema fetched from the registry once when the job starts, the wire format's 5 bytes cut off, Spark's own `from_avro`
with that schema, then the textbook op mapping of naive_spark.py. Permissive mode: a datum the schema cannot read is
null (the default, FAILFAST, would stop the job at the first one).

A record written with an older schema (a column added since, on a topic whose schema changed) is read with the latest:
Avro's binary encoding names no fields, so the bytes are read against the wrong fields. That is the bug this peer shows
in the matrix (docs/peers.md).
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import quote

from cdc_conformance.peers import changes

_IMAGE = "from_json(to_json(envelope.{0}), 'map<string, string>')"
_CHANGES = """
    CASE WHEN envelope.op IN ('c', 'r', 'u', 'd') THEN array(named_struct(
        'op', CASE envelope.op WHEN 'u' THEN 'UPDATE' WHEN 'd' THEN 'DELETE' ELSE 'INSERT' END,
        'before', IF(envelope.op IN ('u', 'd'), before, NULL),
        'after', IF(envelope.op = 'd', NULL, after)))
    ELSE array() END"""


def _latest_schema(registry: str, subject: str) -> str | None:
    """The subject's latest schema, as the job fetches it once at its start; None when the subject has none."""
    url = f"{registry}/subjects/{quote(subject, safe='')}/versions/latest"
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return json.load(reply)["schema"]
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def _is_envelope(schema: str) -> bool:
    """Whether the schema is a change event's envelope: the job's SQL reads its `before`, `after` and `op`."""
    try:
        fields = {field.get("name") for field in json.loads(schema).get("fields") or []}
    except (ValueError, AttributeError):
        return False
    return {"before", "after", "op"} <= fields


def normalize(raw, format_id: str, schema_registry: str) -> changes.Output:
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro

    frames = []
    for topic in sorted(row.topic for row in raw.select("topic").distinct().collect()):
        schema = _latest_schema(schema_registry, f"{topic}-value")
        if schema is None or not _is_envelope(schema):
            continue  # no job of this kind is pointed at a topic whose schema is no change envelope (a heartbeat's)
        records = raw.where(F.col("topic") == topic)
        try:  # a user's job per topic: one that fails (a decimal past Spark's 38 digits in the schema, or bytes of an
            # older schema read as one) fails that topic alone; Spark analyses a plan eagerly, and runs it on collect
            read = records.select(
                "*", from_avro(F.expr("substring(value, 6)"), schema, {"mode": "PERMISSIVE"}).alias("envelope"))
            frame = (read.selectExpr("*", _IMAGE.format("before") + " AS before", _IMAGE.format("after") + " AS after")
                     .selectExpr(*raw.columns, f"{_CHANGES} AS avro_changes", "CAST(NULL AS STRING) AS avro_error"))
            frame = raw.sparkSession.createDataFrame(frame.collect(), frame.schema)
        except Exception as error:
            reason = f"the job over {topic} failed: {str(error).splitlines()[0]}".replace("'", "")
            frame = records.selectExpr(*raw.columns, f"CAST(array() AS {changes.CHANGES_TYPE}) AS avro_changes",
                                       f"'{reason}' AS avro_error")
        frames.append(frame)
    decoded = frames[0] if frames else raw.selectExpr("*", f"CAST(array() AS {changes.CHANGES_TYPE}) AS avro_changes",
                                                      "CAST(NULL AS STRING) AS avro_error")
    for frame in frames[1:]:
        decoded = decoded.unionByName(frame)
    return changes.output(decoded, format_id, "avro_changes", "avro_error")


def supported_formats() -> list[str]:
    return ["debezium-avro"]


def expresses() -> dict:
    # a hand-written parse has no refusal: a record it cannot read yields nothing
    return {"kinds": ["ROW"], "fields": ["kind", "op", "before", "after"], "values": "text", "quarantine": "none",
            "reads": ["value"], "topics": "tables"}


def label() -> str:
    return "naive Spark from_avro (latest schema)"
