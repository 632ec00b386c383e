"""CES in Structured Streaming: segment groups kept in state across micro-batches, with a checkpoint.

Only the grouping step differs from batch mode. `applyInPandasWithState` holds the segments of each
open (topic, logicalid) group and releases the group once it is complete, conflicting, or timed out;
everything after that (assembly, the three JSON levels, typing, events and quarantine) is the same
Spark SQL as in batch, so both modes produce the same output for the same records.

A group's state is also kept for a while after release, so that a copy arriving later (at-least-once
delivery) is recognised: it is quarantined as DUPLICATE_AFTER_EMIT instead of emitting the event twice.
Batch mode instead folds such copies into the event's origin; it sees all records at once.
"""
from __future__ import annotations

import json
from typing import Iterator

from pyspark.sql import DataFrame
from pyspark.sql.streaming.state import GroupStateTimeout

from normalizer import ces

DEFAULT_SEGMENT_TIMEOUT_SECONDS = 600.0
_FIELDS = ("seg_index", "seg_final", "data", "source", "id", "operation", "type", "time", "topic", "partition",
           "offset", "key", "value", "headers", "q")
_SEGMENT_JSON = ("struct<seg_index:int,seg_final:boolean,data:string,source:string,id:string,operation:string,"
                 "type:string,time:string,topic:string,partition:int,offset:bigint,key:string,value:string,"
                 "headers:array<struct<key:string,value:string>>,q:struct<phase:string,code:string,detail:string>>")
OUTPUT_SCHEMA = "stream string, logicalid string, segs_json string, late boolean"
STATE_SCHEMA = "segments string, emitted boolean"


def _is_copy(segment: dict, seen: list[dict]) -> bool:
    return any((s.get("source") == segment.get("source") and s.get("id") == segment.get("id")) or
               (s.get("seg_index") == segment.get("seg_index") and s.get("data") == segment.get("data")) for s in seen)


def ready(segments: list[dict]) -> bool:
    """The same rule as ces.assemble: complete (contiguous indices from 0 or 1, one final, last) or conflicting."""
    if any(s.get("q") is not None for s in segments):  # to_json leaves NULL fields out
        return True
    parts: list[dict] = []
    for segment in sorted(segments, key=lambda s: (s["seg_index"], s["topic"], s["partition"], s["offset"])):
        if not _is_copy(segment, parts):
            parts.append(segment)
    indices = [p["seg_index"] for p in parts]
    if len(set(indices)) < len(indices):
        return True  # conflict: release now, the SQL stage quarantines it
    finals = [bool(p.get("seg_final")) for p in parts]
    return (indices[0] in (0, 1) and indices[-1] - indices[0] + 1 == len(parts) and finals[-1]
            and not any(finals[:-1]))


def _assembler(timeout_ms: int):
    import pandas as pd

    def release(stream, logicalid, segments: list[str], late: bool):
        return pd.DataFrame({"stream": [stream], "logicalid": [logicalid],
                             "segs_json": ["[" + ",".join(segments) + "]"], "late": [late]})

    def assemble_segments(key, batches: Iterator, state) -> Iterator:
        stream, logicalid = key
        stored: list[str] = json.loads(state.get[0]) if state.exists else []
        emitted = state.exists and bool(state.get[1])
        if state.hasTimedOut:
            state.remove()
            if not emitted and stored:  # the final segment never came: released as is -> SEGMENT_INCOMPLETE
                yield release(stream, logicalid, stored, False)
            return
        arrived = [text for batch in batches for text in batch["segment"]]
        if emitted:  # copies of an event that was already emitted
            yield release(stream, logicalid, arrived, True)
            return
        segments = stored + arrived
        state.setTimeoutDuration(timeout_ms)
        if ready([json.loads(text) for text in segments]):
            # keep only what recognises later copies, until the timeout
            state.update((json.dumps([json.dumps({k: json.loads(t).get(k) for k in ("source", "id", "seg_index", "data")})
                                      for t in segments]), True))
            yield release(stream, logicalid, segments, False)
        else:
            state.update((json.dumps(segments), False))

    return assemble_segments


def decode_stream(raw: DataFrame, segment_timeout_seconds: float = DEFAULT_SEGMENT_TIMEOUT_SECONDS,
                  encoding: ces.Encoding = ces.JSON) -> DataFrame:
    """A streaming Kafka source DataFrame -> the same `event` / `quarantine` rows as `ces.decode`."""
    segment = ("to_json(named_struct('seg_index', seg_index, 'seg_final', seg_final, 'data', e.data, "
               "'source', e.source, 'id', e.id, 'operation', e.operation, 'type', e.type, 'time', e.time, "
               "'topic', topic, 'partition', partition, 'offset', offset, 'key', base64(key), 'value', base64(value), "
               "'headers', transform(headers, h -> named_struct('key', h.key, 'value', base64(h.value))), 'q', q))")
    records = ces.records(raw, encoding).selectExpr("topic AS stream", f"{ces._GROUP} AS logicalid", f"{segment} AS segment")
    released = records.groupBy("stream", "logicalid").applyInPandasWithState(
        _assembler(int(segment_timeout_seconds * 1000)), OUTPUT_SCHEMA, STATE_SCHEMA, "append", GroupStateTimeout.ProcessingTimeTimeout)
    late = ("named_struct('phase', 'ASSEMBLE', 'code', 'DUPLICATE_AFTER_EMIT', "
            "'detail', concat('copy of ', logicalid, ' after its event was emitted'))")
    # a late copy becomes a failed group of its own: its record-level verdict (q) carries the code
    verdict = {"q": f"IF(late, {late}, s.q)"}
    fields = ", ".join(f"'{name}', {verdict.get(name) or _decoded(name)}" for name in _FIELDS)
    segs = f"transform(from_json(segs_json, 'array<{_SEGMENT_JSON}>'), s -> named_struct({fields}))"
    return ces.outputs(ces.assemble(released.selectExpr("stream", "logicalid", f"{segs} AS segs")), encoding)


def _decoded(name: str) -> str:
    if name in ("key", "value"):
        return f"unbase64(s.{name})"
    if name == "headers":
        return "transform(s.headers, h -> named_struct('key', h.key, 'value', unbase64(h.value)))"
    return f"s.{name}"
