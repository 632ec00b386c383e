"""Assembly of events that span several Kafka records (CES segments, DataWorks update halves).

Records that build one event together form a *group*: the same stream (topic) and group key. In batch
mode every member is in the input, so a plain groupBy collects them. In Structured Streaming, Spark's
`flatMapGroupsWithState` with a JVM function (io.cdcconformance.shared.GroupAssembly) holds the members of each
open group across micro-batches (and a restart from the checkpoint) and releases the group once the format's
release rule says so, or when it times out; everything after that is the same Spark SQL as in batch, so both
modes give the same output.

After release, a group's fingerprints (a SHA-256 per member) stay in state for the copy window. A record arriving
within it for the group is compared with them: a true copy (at-least-once delivery) is quarantined as
DUPLICATE_AFTER_EMIT instead of emitting the event twice; anything else (an extra segment, a reused id, a
conflicting half) gets the format's conflict code (`late_conflict`). After the window the group is forgotten.
Batch mode sees every record at once: it folds copies into the event's origin and quarantines the whole group on a
conflict, which streaming cannot do to an event it has already emitted; each format's doc lists these divergences.

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
    an open group (members as dicts, in arrival order) can be released now. `fingerprint`: the member
    fields that recognise a copy of a released member; `late_conflict`: the code of a record that arrives
    for a released group and is no copy of any of its members.
    """

    group_key: str
    fields: dict[str, tuple[str, str]]
    ready: Callable[[list[dict]], bool]
    fingerprint: tuple[str, ...]
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

    def _keyed(self, records: DataFrame, member: str) -> DataFrame:
        return records.selectExpr("topic AS stream", self._group(), f"{member} AS member")


def group_batch(records: DataFrame, grouping: Grouping) -> DataFrame:
    """Every member of a group is in the input: one groupBy."""
    return (grouping._keyed(records, grouping._member()).groupBy("stream", "group_key")
            .agg(F.collect_list("member").alias("members")))


# ---------------------------------------------------------------------------------------------------
# Structured Streaming
# ---------------------------------------------------------------------------------------------------

def group_stream(records: DataFrame, grouping: Grouping, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
                 copy_window_seconds: float = DEFAULT_COPY_WINDOW_SECONDS) -> DataFrame:
    """The streaming counterpart of `group_batch`: the same columns, one row per released group (or per batch of
    late records, their verdict set). Spark's own stateful operator with the JVM's function (GroupAssembly) in a
    classic session; through Spark Connect, which cannot call the JVM, the same rules in Python."""
    timeout_ms, window_ms = _milliseconds(timeout_seconds), _milliseconds(copy_window_seconds)
    if is_connect(records.sparkSession):
        return _group_stream_in_python(records, grouping, timeout_ms, window_ms)
    keyed = grouping._keyed(records, grouping._member())
    jvm: Any = records.sparkSession._jvm  # py4j's view of the JVM: untyped
    released = type(records)(jvm.io.cdcconformance.shared.GroupAssembly.groupStream(
        keyed._jdf, grouping.release_rule, ",".join(grouping.fingerprint), Code.DUPLICATE_AFTER_EMIT.value,
        grouping.late_conflict.value, timeout_ms, window_ms), records.sparkSession)
    return released.selectExpr("stream", "group_key",
                               f"IF(late IS NULL, members, transform(members, m -> {_with_late_verdict(grouping, 'm')})) AS members")


def _milliseconds(seconds: float) -> int:
    """A timeout as the state operator takes it; a caller's number, checked before arithmetic."""
    if not 0 <= seconds <= 366 * 86400:
        raise ValueError(f"a streaming timeout or copy window of {seconds!r} s is outside 0 s to a year")
    return int(seconds * 1000)


def is_connect(spark) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


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
# Through Spark Connect: the same state in Python (applyInPandasWithState), members as JSON
# ---------------------------------------------------------------------------------------------------

def _group_stream_in_python(records: DataFrame, grouping: Grouping, timeout_ms: int, window_ms: int) -> DataFrame:
    ship_to_executors(records.sparkSession)  # the state function below runs this package's code on executors
    released = grouping._keyed(records, f"to_json({grouping._member(binary_as_text=True)})").groupBy("stream", "group_key").applyInPandasWithState(
        _state_function(grouping, timeout_ms, window_ms), _OUTPUT_SCHEMA, _STATE_SCHEMA, "append",
        GroupStateTimeout.ProcessingTimeTimeout)
    return released.selectExpr("stream", "group_key", f"{_from_json(grouping)} AS members")


_OUTPUT_SCHEMA = "stream string, group_key string, members_json string, late string"
_STATE_SCHEMA = "members string, emitted boolean, expires bigint"


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
    """GroupAssembly's function in Python: the rules are the same, the fingerprints are the fields' JSON."""
    import time

    import pandas as pd

    def release(stream, group_key, members: list[str], late: str | None):
        return pd.DataFrame({"stream": [stream], "group_key": [group_key],
                             "members_json": ["[" + ",".join(members) + "]"], "late": [late]})

    def fingerprint(text: str) -> str:
        member = json.loads(text)
        return json.dumps({name: member.get(name) for name in grouping.fingerprint})

    def assemble(key, batches: Iterator, state) -> Iterator:
        stream, group_key = key
        stored: list[str] = json.loads(state.get[0]) if state.exists else []
        emitted = state.exists and bool(state.get[1])
        if state.hasTimedOut:
            state.remove()
            if not emitted and stored:  # never ready: released as it is (the format's SQL quarantines it)
                yield release(stream, group_key, stored, None)
            return
        arrived = [text for batch in batches for text in batch["member"]]
        if emitted:  # records for a group that was already released: copies of its members, or conflicts
            emitted_members = set(stored)
            left = int(state.get[2]) - int(time.time() * 1000)
            if left > 0:  # a call that sets no timeout leaves the group none: the window's end is in the state
                state.setTimeoutDuration(left)
            else:
                state.remove()
            is_copy = [fingerprint(text) in emitted_members for text in arrived]
            copies = [text for text, copy in zip(arrived, is_copy) if copy]
            conflicts = [text for text, copy in zip(arrived, is_copy) if not copy]
            if copies:
                yield release(stream, group_key, copies, Code.DUPLICATE_AFTER_EMIT.value)
            if conflicts:
                yield release(stream, group_key, conflicts, grouping.late_conflict.value)
            return
        members = stored + arrived
        parsed = [json.loads(text) for text in members]
        rejected = group_key.startswith("R:")  # a record rejected on its own: a group of one, never seen again
        if rejected or grouping.ready(parsed):
            if not rejected and window_ms > 0:
                state.update((json.dumps([fingerprint(text) for text in members]), True, int(time.time() * 1000) + window_ms))
                state.setTimeoutDuration(window_ms)
            elif state.exists:
                state.remove()
            yield release(stream, group_key, members, None)
        else:
            state.update((json.dumps(members), False, None))
            state.setTimeoutDuration(timeout_ms)

    return assemble
