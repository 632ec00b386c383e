"""Assembly of events that span several Kafka records (CES segments, DataWorks update halves).

Records that build one event together form a *group*: the same stream (topic) and group key. In batch
mode every member is in the input, so a plain groupBy collects them. In Structured Streaming, Spark's
`flatMapGroupsWithState` runs the group state machine (the JVM's `shared.GroupMachine`; its Python twin
`normalizer.group_machine` through Spark Connect): it holds the members of each open group across micro-batches (and
a restart from the checkpoint) and releases the group once the format's release rule says so, or when it is due;
everything after that is the same Spark SQL as in batch, so both modes give the same output.

Time is the records' own (event time: the Kafka timestamp, never later than the micro-batch that read it), not the
wall clock: a group is due once the query has read records `timeout_seconds` newer than its newest member, so a query
stopped for an hour, or a backlog read over many micro-batches, changes nothing. After release, a group's fingerprints
stay in state for the copy window (event time again). A record arriving within it for the group is compared with
them: a true copy (at-least-once delivery) is quarantined as DUPLICATE_AFTER_EMIT instead of emitting the event
twice; anything else (an extra segment, a reused id, a conflicting half, the rest of a group that timed out) gets the
format's conflict code (`late_conflict`). After the window the group is forgotten. Batch mode sees every record at
once: it folds copies into the event's origin and quarantines the whole group on a conflict, which streaming cannot
do to an event it has already emitted; each format's doc lists these divergences.

Records already rejected on their own (a verdict in column `rejection`) form groups of their own: every record takes
the same single path (one shuffle), and no valid group waits for them.

Output of both `group_batch` and `group_stream`: columns `stream`, `group_key` and `members`, an array
of member structs (the format's fields plus topic, partition, offset, key, value, headers and rejection).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupStateTimeout

from cdc_conformance.model import CODE_PHASE, Code
from cdc_conformance.normalizer.canonical_text import base64_text
from cdc_conformance.normalizer.catalyst import is_connect
from cdc_conformance.normalizer.shipping import ship_to_executors
from cdc_conformance.normalizer.verdicts import VERDICT_TYPE

DEFAULT_TIMEOUT_SECONDS = 600.0
# how long a released group's fingerprints stay to recognise copies (docs/performance.md: what state holds)
DEFAULT_COPY_WINDOW_SECONDS = 60.0
_RECORD_FIELDS = {"topic": "string", "partition": "int", "offset": "bigint", "key": "binary", "value": "binary",
                  "headers": "array<struct<key:string,value:binary>>",
                  "rejection": "struct<phase:string,code:string,detail:string>"}


@dataclass(frozen=True)
class Grouping:
    """How a format groups its records.

    `group_key`: SQL giving the group of an accepted record within its topic. `fields`: the format's
    own member fields, name -> (SQL expression, scalar type). `ready(members)`: streaming only; whether
    an open group (members as dicts, in arrival order) can be released now. `fingerprints`: the
    alternatives that make a late record a copy of a released member (each a tuple of member fields: CES's
    same source and id, or same index and data); `late_conflict`: the code of a record that arrives
    for a released group and is no copy of any of its members.
    """

    group_key: str
    fields: dict[str, tuple[str, str]]
    ready: Callable[[list[dict]], bool]
    fingerprints: tuple[tuple[str, ...], ...]
    late_conflict: Code
    release_rule: str  # the JVM's `ready`: a GroupAssembly.ReleaseRule of io.cdcconformance (`ces.SegmentsReady`)

    def _member(self, binary_as_text: bool = False) -> str:
        own = ", ".join(f"'{name}', {expression}" for name, (expression, _) in self.fields.items())
        record = (f"'key', {base64_text('key')}, 'value', {base64_text('value')}, "
                  f"'headers', transform(headers, h -> named_struct('key', h.key, 'value', {base64_text('h.value')}))"
                  if binary_as_text else "'key', key, 'value', value, 'headers', headers")
        return f"named_struct({own}, 'topic', topic, 'partition', partition, 'offset', offset, {record}, 'rejection', rejection)"

    def _group(self) -> str:
        return f"IF(rejection IS NULL, concat('G:', {self.group_key}), concat('R:', partition, ':', offset)) AS group_key"

    def _keyed(self, records: DataFrame, member: str, *more: str) -> DataFrame:
        return records.selectExpr("topic AS stream", self._group(), f"{member} AS member", *more)


# How a stateful decoder's streaming path groups its records: `group_stream`, or the benchmark's `floor_stream`
StreamGrouping = Callable[[DataFrame, Grouping, float, float], DataFrame]


def group_batch(records: DataFrame, grouping: Grouping) -> DataFrame:
    """Every member of a group is in the input: one groupBy."""
    return (grouping._keyed(records, grouping._member()).groupBy("stream", "group_key")
            .agg(F.collect_list("member").alias("members")))


# ---------------------------------------------------------------------------------------------------
# Structured Streaming
# ---------------------------------------------------------------------------------------------------

def group_stream(records: DataFrame, grouping: Grouping, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
                 copy_window_seconds: float = DEFAULT_COPY_WINDOW_SECONDS) -> DataFrame:
    """The streaming counterpart of `group_batch`: the same columns, one row per released group (or per run of
    late records, their verdict set). Spark's own stateful operator with the JVM's machine (GroupAssembly) in a
    classic session; through Spark Connect, which cannot call the JVM, its Python twin."""
    timeout_ms, window_ms = _milliseconds(timeout_seconds), _milliseconds(copy_window_seconds)
    if is_connect(records.sparkSession):
        return _group_stream_in_python(records, grouping, timeout_ms, window_ms)
    keyed = _with_event_time(records, grouping, grouping._member())
    jvm: Any = records.sparkSession._jvm  # py4j's view of the JVM: untyped
    released = type(records)(jvm.io.cdcconformance.shared.GroupAssembly.groupStream(
        keyed._jdf, grouping.release_rule, ";".join(",".join(fields) for fields in grouping.fingerprints),
        Code.DUPLICATE_AFTER_EMIT.value, grouping.late_conflict.value, timeout_ms, window_ms), records.sparkSession)
    return released.selectExpr("stream", "group_key",
                               f"IF(late IS NULL, members, transform(members, m -> {_with_late_verdict(grouping, 'm')})) AS members")


def floor_stream(records: DataFrame, grouping: Grouping, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
                 copy_window_seconds: float = DEFAULT_COPY_WINDOW_SECONDS) -> DataFrame:
    """What `group_stream` costs without its state, for the benchmark only (`bench --streaming`'s floor): the same keyed
    records under the same watermark, shuffled by their group as the stateful operator's input is, each record a group
    of its own. Its output is no normalizer's (an update's halves are never paired); its speed is the floor any
    grouping in Spark stands on (docs/performance.md)."""
    keyed = _with_event_time(records, grouping, grouping._member())
    return keyed.repartition("stream", "group_key").selectExpr("stream", "group_key", "array(member) AS members")


# A record's event time: its Kafka timestamp, but never later than the micro-batch that read it (Spark's
# current_timestamp() in a stream: the batch's time, kept in the offset log, so a replayed batch gets the same), so
# that one record stamped in the future cannot carry the watermark past every open group; the batch's time where the
# source gives no timestamp.
_EVENT_TIME = "least(coalesce(timestamp, current_timestamp()), current_timestamp())"
# The column Spark's event-time timeouts require among the operator's input: Spark drops an input row whose watermark
# column lies behind the watermark (a late row, for aggregations). A record behind it here is one from a slower
# partition, and none may be dropped, so the operator's watermark column is this constant, which no watermark passes
# (event times are never later than the batch's time); the watermark itself is the records' event time's, set
# upstream of it. Within the years pandas holds, for the Python twin.
_NEVER_LATE = "CAST('2200-01-01 00:00:00' AS TIMESTAMP)"
_WATERMARK_DELAY = "spark.watermarkDelayMs"  # Spark's EventTimeWatermark.delayKey: how a column says it is one


def _with_event_time(records: DataFrame, grouping: Grouping, member: str) -> DataFrame:
    """The keyed records (stream, group_key, member) with their event time in ms, under a watermark of the newest
    event time read."""
    timed = records.withColumn("cdc_event_time", F.expr(_EVENT_TIME)).withWatermark("cdc_event_time", "0 seconds")
    keyed = grouping._keyed(timed, member, "unix_millis(cdc_event_time) AS event_ms")
    return keyed.select("*", F.expr(_NEVER_LATE).alias("cdc_never_late", metadata={_WATERMARK_DELAY: 0}))


def _milliseconds(seconds: float) -> int:
    """A timeout as the state operator takes it; a caller's number, checked before arithmetic."""
    if not 0 <= seconds <= 366 * 86400:
        raise ValueError(f"a streaming timeout or copy window of {seconds!r} s is outside 0 s to a year")
    return int(seconds * 1000)


def _late_verdict(grouping: Grouping) -> str:
    copy, conflict = Code.DUPLICATE_AFTER_EMIT, grouping.late_conflict
    return (f"IF(late = '{copy.value}', named_struct('phase', '{CODE_PHASE[copy].value}', 'code', '{copy.value}', "
            "'detail', concat('copy of a member of ', group_key, ' after its event was emitted')), "
            f"named_struct('phase', '{CODE_PHASE[conflict].value}', 'code', '{conflict.value}', "
            "'detail', concat('a record for ', group_key, ' after its event was emitted, and no copy of its members')))")


def _with_late_verdict(grouping: Grouping, member: str, converted: dict[str, str] | None = None) -> str:
    """A member as released (`converted`: fields that crossed the state in another type, with the expression that
    restores them); a late record is rejected as a whole: its verdict replaces whatever the record had."""
    fields = {name: f"{member}.{name}" for name in [*grouping.fields, *_RECORD_FIELDS]} | (converted or {})
    fields["rejection"] = f"IF(late IS NOT NULL, CAST({_late_verdict(grouping)} AS {VERDICT_TYPE}), {member}.rejection)"
    return "named_struct(" + ", ".join(f"'{name}', {expression}" for name, expression in fields.items()) + ")"


# ---------------------------------------------------------------------------------------------------
# Through Spark Connect: the same machine in Python (applyInPandasWithState), members as JSON
# ---------------------------------------------------------------------------------------------------

def _group_stream_in_python(records: DataFrame, grouping: Grouping, timeout_ms: int, window_ms: int) -> DataFrame:
    ship_to_executors(records.sparkSession)  # the state function below runs this package's code on executors
    keyed = _with_event_time(records, grouping, f"to_json({grouping._member(binary_as_text=True)})")
    released = keyed.groupBy("stream", "group_key").applyInPandasWithState(
        _state_function(grouping, timeout_ms, window_ms), _OUTPUT_SCHEMA, _STATE_SCHEMA, "append",
        GroupStateTimeout.EventTimeTimeout)
    return released.selectExpr("stream", "group_key", f"{_from_json(grouping)} AS members")


_OUTPUT_SCHEMA = "stream string, group_key string, members_json string, late string"
_STATE_SCHEMA = "members string, newest bigint, prints string, until bigint"


def _member_json_type(grouping: Grouping) -> str:
    """Members cross the Python state as JSON; binary fields travel as base64 text."""
    types = {name: kind for name, (_, kind) in grouping.fields.items()}
    types.update(_RECORD_FIELDS, key="string", value="string", headers="array<struct<key:string,value:string>>")
    return "struct<" + ",".join(f"{name}:{kind}" for name, kind in types.items()) + ">"


def _from_json(grouping: Grouping) -> str:
    restored = {"key": "unbase64(m.key)", "value": "unbase64(m.value)",
                "headers": "transform(m.headers, h -> named_struct('key', h.key, 'value', unbase64(h.value)))"}
    return (f"transform(from_json(members_json, 'array<{_member_json_type(grouping)}>'), "
            f"m -> {_with_late_verdict(grouping, 'm', restored)})")


def _state_function(grouping: Grouping, timeout_ms: int, window_ms: int):
    """GroupAssembly's adapter in Python: the state as JSON texts, the machine (normalizer.group_machine) between."""
    import pandas as pd

    from cdc_conformance.normalizer.group_machine import Arrival, GroupMachine, Stored

    machine = GroupMachine(grouping.ready, grouping.fingerprints, Code.DUPLICATE_AFTER_EMIT.value,
                           grouping.late_conflict.value, timeout_ms, window_ms)

    def stored(state) -> Stored | None:
        if not state.exists:
            return None
        members, newest, prints, until = state.get
        if members is not None:
            return Stored([json.loads(text) for text in json.loads(members)], int(newest))
        return Stored(None, prints=frozenset(json.loads(prints)), until=int(until))

    def assemble(key, batches: Iterator, state) -> Iterator:
        stream, group_key = key
        before = stored(state)
        if state.hasTimedOut:
            step = machine.time_out(before)
        else:
            arrivals = [Arrival(json.loads(text), int(ms)) for batch in batches
                        for text, ms in zip(batch["member"], batch["event_ms"])]
            step = machine.arrive(before, arrivals, group_key.startswith("R:"))
        if step.next is None:
            if before is not None:
                state.remove()
        else:
            after = step.next
            state.update((None if after.members is None else json.dumps([json.dumps(m) for m in after.members]),
                          after.newest, json.dumps(sorted(after.prints)), after.until))
            # a timer may not lie behind the watermark: a group already due goes with the next newer record
            state.setTimeoutTimestamp(max(machine.timer(after), state.getCurrentWatermarkMs(), 1))
        for members, late in step.released:
            yield pd.DataFrame({"stream": [stream], "group_key": [group_key],
                                "members_json": ["[" + ",".join(json.dumps(m) for m in members) + "]"], "late": [late]})

    return assemble
