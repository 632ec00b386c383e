"""SQL Server 2025 change event streaming (CES), CloudEvents JSON: encoder, profiles, oracle, mutators.

Events are written as the docs' examples and the captured events show them (docs/formats/ces.md):
`data` is pretty-printed JSON text whose `eventrow.old/current` are JSON texts again, values are
strings, and an event larger than the message size is split into segments that share `logicalid`.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from cdc_conformance import keys
from cdc_conformance.generators.history import Change, History, Row, Table, Transaction, histories, tables
from cdc_conformance.generators.plugin import Bench, FormatGenerator, Hostile, Mutator
from cdc_conformance.generators.records import Expected, KafkaRecord
from cdc_conformance.generators.values import KEY_TYPES, LogicalType, canonical_text
from cdc_conformance.model import CanonicalEvent, Code, Column

FORMAT = "ces-json"
EVENT_TYPE = "com.microsoft.SQL.CES.DML.V1"


MOST_DRAWN_SEGMENTS = 12


@dataclass(frozen=True)
class Profile:
    attribute_names: str = "current"          # current: segmentindex/finalsegment (1-based); legacy: splitindex/splittotalcnt
    content_type: str = "application/json"    # the docs; captures of JSON events say application/avro-json
    escape_slashes: bool = True               # SQL Server writes "\\/"
    with_transaction: bool = True             # in the Avro schema and captures, absent from the docs' examples
    include_old_values: bool = True           # @include_old_values
    include_all_columns: bool = True          # @include_all_columns
    # with @include_all_columns = 0, a key column the statement did not set is still in the images (True) or
    # left out like any other unset column (False; pkkey then keys the row). Unverified: both are drawn
    partial_images_keep_key: bool = True
    segment_chars: int | None = None          # split `data` every n characters (None: never)
    # at most this many segments an event (None: no bound): SQL Server splits at its message size, so the count is
    # unbounded there, but drawn small segments of a drawn 15,000-character text made one example hundreds of
    # segments and one streaming property run six minutes; curated cases and the 10 MB test pin the long splits
    most_segments: int | None = None
    partitions: int = 1
    topic: str = "ces.stream"
    stream_guid: str = "9c8d4ad2-bf54-4f10-a96f-038af496997f"


def profiles():
    return st.builds(
        Profile,
        attribute_names=st.sampled_from(["current", "legacy"]),
        content_type=st.sampled_from(["application/json", "application/avro-json"]),
        escape_slashes=st.booleans(), with_transaction=st.booleans(), include_old_values=st.booleans(),
        include_all_columns=st.booleans(), partial_images_keep_key=st.booleans(),
        segment_chars=st.one_of(st.none(), st.integers(7, 400)), most_segments=st.just(MOST_DRAWN_SEGMENTS),
        partitions=st.integers(1, 3),
    )


# SQL Server column type for each logical type, and the canonical logical type CES values get
SQL_TYPES: dict[str, tuple[str, str]] = {
    "INT16": ("smallint", "INT16"), "INT32": ("int", "INT32"), "INT64": ("bigint", "INT64"),
    "BOOLEAN": ("bit", "BOOLEAN"), "STRING": ("nvarchar(100)", "STRING"), "FLOAT64": ("float", "FLOAT64"),
    "DATE": ("date", "DATE"), "TIME": ("time(6)", "TIME(6)"), "TIMESTAMP": ("datetime2(6)", "TIMESTAMP(6)"),
    "TIMESTAMP_TZ": ("datetimeoffset(6)", "TIMESTAMP_TZ"),
}
VALUE_TYPES = [LogicalType(k) for k in ("INT16", "INT32", "INT64", "BOOLEAN", "STRING", "FLOAT64", "DATE")] + [
    LogicalType("TIME", 6), LogicalType("TIMESTAMP", 6), LogicalType("TIMESTAMP_TZ"),
    LogicalType("DECIMAL", 10, 2), LogicalType("DECIMAL", 38, 10), LogicalType("DECIMAL", 5, 0)]


def sql_type(logical: LogicalType) -> tuple[str, str]:
    if logical.kind == "DECIMAL":
        return f"decimal({logical.precision},{logical.scale})", logical.name
    return SQL_TYPES[logical.kind]


def value_text(logical: LogicalType, value) -> str | None:
    """A value as CES writes it inside old/current: a string (NULL stays JSON null).

    SQL Server's text differs from the canonical text only for bit and the date-times (space, no `T`/`Z`).
    """
    if value is None:
        return None
    kind = logical.kind
    if kind == "BOOLEAN":
        return "1" if value else "0"
    if kind == "TIMESTAMP":
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if kind == "TIMESTAMP_TZ":
        return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f +00:00")
    return canonical_text(logical, value)


def _lsn(n: int) -> str:
    return f"0000002C:{n:08X}:{n % 0x10000:04X}"


@dataclass
class CesEncoder:
    profile: Profile
    table: Table
    database: str = "db1"
    counter: int = 0x300
    sent: int = 0
    format_id = FORMAT

    def _id(self, *parts) -> str:
        self.sent += 1
        return str(uuid.UUID(hashlib.md5(f"{self.profile.stream_guid}/{self.sent}/{parts}".encode()).hexdigest()))

    def _images(self, change: Change) -> tuple[list, Row | None, Row | None]:
        """Columns listed in `cols`, and the old/current values CES sends for this change."""
        table, key_names = self.table, {c.name for c in self.table.key_columns}
        columns = list(table.columns)
        old, current = change.before, change.after
        if change.kind == "UPDATE" and not self.profile.include_all_columns:  # the update mask's columns
            sent = change.columns_set(table) | (key_names if self.profile.partial_images_keep_key else set())
            columns = [c for c in columns if c.name in sent]
        if change.kind == "UPDATE" and not self.profile.include_old_values:
            old = None
        return columns, old, current

    def encode(self, history: History) -> list[Expected]:
        out: list[Expected] = []
        for tx in history.transactions:
            self.counter += 1
            commit_lsn, begin_lsn = _lsn(self.counter + 1), _lsn(self.counter)
            self.counter += 1
            for sequence, change in enumerate(tx.changes, start=1):
                out.extend(self._encode_change(change, tx, commit_lsn, begin_lsn, sequence))
        return out

    def _data_record(self, change, tx, columns, old, current, commit_lsn, begin_lsn, sequence) -> dict:
        """The `Data` datum: eventsource and eventrow, whose old/current are JSON texts in both encodings."""
        key_row = change.before if change.kind == "DELETE" else change.after
        source: dict[str, Any] = {"db": self.database, "schema": self.table.schema, "tbl": self.table.name,
                  "cols": [{"name": c.name, "type": sql_type(c.logical)[0], "index": self.table.columns.index(c)}
                           for c in columns],
                  "pkkey": [{"columnname": c.name, "value": value_text(c.logical, key_row[c.name])}
                            for c in self.table.key_columns]}
        if self.profile.with_transaction:
            source["transaction"] = {"commitlsn": commit_lsn, "beginlsn": begin_lsn, "sequencenumber": sequence,
                                     "committime": _iso_ms(tx.commit_time)}
        image = lambda row: "{}" if row is None else json.dumps(  # noqa: E731
            {c.name: value_text(c.logical, row[c.name]) for c in columns}, ensure_ascii=False)
        return {"eventsource": source, "eventrow": {"old": image(old), "current": image(current)}}

    def _data(self, record: dict):
        """JSON mode: `data` is pretty-printed JSON text."""
        return json.dumps(record, indent=2, ensure_ascii=False)

    def _split(self, data):
        size = self.profile.segment_chars or len(data) or 1
        if self.profile.most_segments:
            size = max(size, -(-len(data) // self.profile.most_segments))
        return [data[i:i + size] for i in range(0, len(data), size)] or [data[:0]]

    def _attributes(self, operation: str, tx: Transaction, logical_id: str, index: int) -> dict:
        return {"specversion": "1.0", "type": EVENT_TYPE, "source": "/", "id": self._id(logical_id, index),
                "logicalid": logical_id, "time": _iso_ms(tx.commit_time), "datacontenttype": self.profile.content_type,
                "operation": operation}

    def _envelopes(self, operation: str, tx: Transaction, data: Any, logical_id: str) -> list[bytes]:
        p = self.profile
        fragments = self._split(data)
        out = []
        for index, fragment in enumerate(fragments):
            envelope = self._attributes(operation, tx, logical_id, index)
            if p.attribute_names == "current":
                envelope.update(segmentindex=index + 1, finalsegment=index == len(fragments) - 1)
            else:  # docs' examples: 0/0 for an unsplit event
                envelope.update(splitindex=index, splittotalcnt=0 if len(fragments) == 1 else len(fragments))
            envelope["data"] = fragment
            text = json.dumps(envelope, ensure_ascii=False, indent=2)
            out.append((text.replace("/", "\\/") if p.escape_slashes else text).encode("utf-8"))
        return out

    def _encode_change(self, change: Change, tx: Transaction, commit_lsn, begin_lsn, sequence) -> list[Expected]:
        operation = {"INSERT": "INS", "UPDATE": "UPD", "DELETE": "DEL"}[change.kind]
        columns, old, current = self._images(change)
        data = self._data(self._data_record(change, tx, columns, old, current, commit_lsn, begin_lsn, sequence))
        logical_id = f"{self.profile.stream_guid}:{commit_lsn.replace(':', '')}:{sequence:020d}"
        events = self._oracle(change, tx, columns, old, current, commit_lsn, sequence)
        out = []
        for index, value in enumerate(self._envelopes(operation, tx, data, logical_id)):
            partition = self._partition(logical_id, index)
            out.append(Expected(KafkaRecord(self.profile.topic, partition, None, value),
                                events if index == 0 else [], logical=f"{self.profile.topic}|{logical_id}",
                                segment=index))
        return out

    def _partition(self, logical_id: str, index: int) -> int:
        """`@partition_key_scheme = None` spreads records round-robin: segments land anywhere."""
        digest = hashlib.md5(f"{logical_id}/{index}".encode()).digest()
        return digest[0] % self.profile.partitions

    # -- oracle --------------------------------------------------------------------------------------
    def _oracle(self, change, tx, columns, old, current, commit_lsn, sequence) -> list[CanonicalEvent]:
        key_columns = self.table.key_columns
        canonical = lambda row: None if row is None else {  # noqa: E731
            c.name: canonical_text(c.logical, row[c.name]) for c in columns}
        cols = [Column(c.name, self.table.columns.index(c) + 1, sql_type(c.logical)[0], sql_type(c.logical)[1], None,
                       c.pk_position) for c in columns]
        position = ({"commit": commit_lsn.replace(":", ""), "event": f"{sequence:020d}", "seq": keys.PLAIN_SEQ}
                    if self.profile.with_transaction else None)
        commit = tx.commit_time.replace(microsecond=tx.commit_time.microsecond // 1000 * 1000)
        base = dict(event_id="", format=self.format_id, format_version="1", kind="ROW", snapshot=False, origin=[],
                    source={"system": "sqlserver", "server": None, "database": self.database,
                            "schema": self.table.schema, "table": self.table.name},
                    columns=cols, position=position, tx_id=commit_lsn if self.profile.with_transaction else None,
                    commit_ts=commit)

        def key(row):
            return [(c.name, canonical_text(c.logical, row[c.name])) for c in key_columns]

        if change.kind == "INSERT":
            return [CanonicalEvent(op="INSERT", key=key(current), before=None, after=canonical(current), **base)]
        if change.kind == "DELETE":
            return [CanonicalEvent(op="DELETE", key=key(old), before=canonical(old), after=None, **base)]
        if old is not None and self.table.key_of(old) != self.table.key_of(current):
            old_key = {c.name: value_text(c.logical, old[c.name]) for c in key_columns}
            new_key = {c.name: value_text(c.logical, current[c.name]) for c in key_columns}
            group = pk_change_group(self.database, self.table, position, old_key, new_key)
            def half(role: str) -> dict:
                return {**base, "position": position and {**position, "seq": keys.HALF_SEQ[role]}}
            return [CanonicalEvent(op="DELETE", key=key(old), before=canonical(old), after=None,
                                   pk_change={"group": group, "role": "OLD"}, **half("OLD")),
                    CanonicalEvent(op="INSERT", key=key(current), before=None, after=canonical(current),
                                   pk_change={"group": group, "role": "NEW"}, **half("NEW"))]
        return [CanonicalEvent(op="UPDATE", key=key(current), before=canonical(old), after=canonical(current), **base)]


def _iso_ms(instant: dt.datetime) -> str:
    utc = instant.astimezone(dt.UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def pk_change_group(database: str, table: Table, position: dict | None, old_key: dict, new_key: dict) -> str:
    """The group both halves of a key change get (cdc_conformance.keys, the decoder's own definition)."""
    return keys.group({"system": "sqlserver", "server": "", "database": database, "schema": table.schema,
                       "table": table.name, "commit": (position or {}).get("commit"),
                       "event": (position or {}).get("event")}, old_key, new_key)


def encode(history: History, profile: Profile) -> list[Expected]:
    return CesEncoder(profile, history.table).encode(history)


# ------------------------------------------------------------------------------------------------
# Mutators
# ------------------------------------------------------------------------------------------------

def resend(items: list[Expected], index: int) -> list[Expected]:
    """At-least-once delivery: the same record (same source + id) arrives again; it is dropped."""
    copy = replace(items[index], events=[])
    return items[: index + 1] + [copy] + items[index + 1:]


def drop_segment(items: list[Expected], index: int) -> list[Expected] | None:
    """The final segment never arrives: every other segment of the event is SEGMENT_INCOMPLETE."""
    logical = items[index].logical
    members = [i for i in items if i.logical == logical]
    if len(members) < 2:
        return None
    last = max(members, key=lambda m: m.segment)
    return [i.now_quarantined(Code.SEGMENT_INCOMPLETE) if i.logical == logical else i
            for i in items if i is not last]


def _other_json_data(value: bytes) -> bytes | None:
    event = json.loads(value)
    if "data" not in event or not event["data"]:
        return None
    event["data"] = event["data"][:-1] + ("x" if event["data"][-1] != "x" else "y")
    event["id"] = event["id"] + "-conflict"
    return json.dumps(event).encode()


def conflict(items: list[Expected], index: int, other_data=_other_json_data) -> list[Expected] | None:
    """A segment index sent twice with different content: the whole event is quarantined.

    `other_data(value)` gives the record again with another id and other data (None: cannot).
    """
    target = items[index]
    value = other_data(target.record.written_value)
    if value is None:
        return None
    twin = Expected.quarantined(replace(target.record, value=value), Code.SEGMENT_DUPLICATE_CONFLICT,
                                logical=target.logical, segment=target.segment)
    marked = [i.now_quarantined(Code.SEGMENT_DUPLICATE_CONFLICT)
              if i.logical == target.logical else i for i in items]
    return marked[: index + 1] + [twin] + marked[index + 1:]


# ------------------------------------------------------------------------------------------------
# Hostile records: each changes one thing in an otherwise valid event
# ------------------------------------------------------------------------------------------------

def hostile_event(n: int, data: dict | str | None = None, **envelope) -> bytes:
    """A valid unsplit INS event (unique ids per `n`), with `data` or envelope attributes replaced."""
    default = {"eventsource": {"db": "db1", "schema": "dbo", "tbl": "t",
                               "cols": [{"name": "id", "type": "int", "index": 0},
                                        {"name": "v", "type": "varchar(10)", "index": 1}],
                               "pkkey": [{"columnname": "id", "value": str(n)}]},
               "eventrow": {"old": "{}", "current": json.dumps({"id": str(n), "v": "x"})}}
    body = {"specversion": "1.0", "type": EVENT_TYPE, "source": "/", "id": f"id-{n}",
            "logicalid": f"L-{n}", "time": "2025-03-14T16:45:20.650Z", "datacontenttype": "application/json",
            "operation": "INS", "segmentindex": 1, "finalsegment": True,
            "data": data if isinstance(data, str) else json.dumps(data or default)}
    body.update(envelope)
    return json.dumps({k: v for k, v in body.items() if v is not None}).encode()


def hostile_data(n: int, cols=None, pkkey=None, current=None, old="{}") -> dict:
    cols = cols if cols is not None else [{"name": "id", "type": "int", "index": 0}]
    return {"eventsource": {"db": "db1", "schema": "dbo", "tbl": "t", "cols": cols,
                            "pkkey": pkkey if pkkey is not None else [{"columnname": "id", "value": str(n)}]},
            "eventrow": {"old": old, "current": current if current is not None else json.dumps({"id": str(n)})}}


_INT_COL = {"name": "id", "type": "int", "index": 0}
HOSTILE: dict[str, Hostile] = {name: Hostile(value, code) for name, (value, code) in {
    "column declared twice": (hostile_event(1, hostile_data(1, cols=[_INT_COL, _INT_COL])), Code.SCHEMA_MISMATCH),
    "key column named twice": (hostile_event(2, hostile_data(2, pkkey=[{"columnname": "id", "value": "2"}] * 2)),
                               Code.SCHEMA_MISMATCH),
    "undeclared column": (hostile_event(3, hostile_data(3, current=json.dumps({"id": "3", "extra": "x"}))),
                          Code.SCHEMA_MISMATCH),
    "unknown column type": (hostile_event(4, hostile_data(4, cols=[{"name": "id", "type": "geography", "index": 0}])),
                            Code.UNKNOWN_COLUMN_TYPE),
    "value not of its type": (hostile_event(5, hostile_data(5, current=json.dumps({"id": "five"}))),
                              Code.UNDECODABLE_VALUE),
    "int16 out of range": (hostile_event(6, hostile_data(6, cols=[{"name": "id", "type": "smallint", "index": 0}],
                                                         current=json.dumps({"id": "99999"}))), Code.UNDECODABLE_VALUE),
    "data not JSON": (hostile_event(7, "{not json"), Code.MALFORMED_DATA),
    "data a JSON array": (hostile_event(8, "[1, 2]"), Code.MALFORMED_DATA),
    "row image not JSON": (hostile_event(9, hostile_data(9, current="{oops")), Code.MALFORMED_DATA),
    "cols not an array": (hostile_event(10, hostile_data(10, cols="int")), Code.MALFORMED_DATA),
    "no eventrow": (hostile_event(11, {"eventsource": hostile_data(11)["eventsource"]}), Code.MISSING_FIELD),
    "INS without values": (hostile_event(12, hostile_data(12, current="{}")), Code.MISSING_FIELD),
    "DEL with current values": (hostile_event(13, operation="DEL"), Code.UNEXPECTED_IMAGE),
    "unknown operation": (hostile_event(14, operation="MRG"), Code.UNKNOWN_OPERATION),
    "not a CES type": (hostile_event(15, type="com.example.Other"), Code.UNKNOWN_EVENT_TYPE),
    "no logicalid": (hostile_event(16, logicalid=None), Code.MISSING_FIELD),
    "no segment attributes": (hostile_event(17, segmentindex=None, finalsegment=None), Code.MISSING_FIELD),
    "only segment 2 of 2": (hostile_event(18, segmentindex=2), Code.SEGMENT_INCOMPLETE),
    "column without a name": (hostile_event(19, hostile_data(19, cols=[{"type": "int", "index": 0}])),
                              Code.SCHEMA_MISMATCH),
    "not JSON": (b"{" * 5000, Code.MALFORMED_JSON),
    "not UTF-8": (b'{"type":"\xff"}', Code.NOT_UTF8),
    "no value": (None, Code.MISSING_FIELD),
    # issue 18: integers and times from the message, at their type's extremes
    "decimal scale 2147483647": (hostile_event(20, hostile_data(20, cols=[_INT_COL, {"name": "d", "type": "decimal(10,2147483647)",
                                                                                      "index": 1}])), Code.UNKNOWN_COLUMN_TYPE),
    "column index int32 max": (hostile_event(21, hostile_data(21, cols=[{**_INT_COL, "index": 2147483647}])),
                               Code.SCHEMA_MISMATCH),
    "splitindex int32 max without segmentindex": (hostile_event(22, segmentindex=None, finalsegment=None,
                                                                splitindex=2147483647, splittotalcnt=2), Code.MISSING_FIELD),
    "segmentindex int32 max": (hostile_event(23, segmentindex=2147483647, logicalid="L-23-24"), Code.SEGMENT_INCOMPLETE),
    "segmentindex -5 of the same event": (hostile_event(24, segmentindex=-5, finalsegment=False, logicalid="L-23-24"),
                                          Code.SEGMENT_INCOMPLETE),
    "time in year 0": (hostile_event(25, time="0000-06-01T00:00:00Z"), Code.UNDECODABLE_VALUE),
    "time in year 10000": (hostile_event(26, time="10000-01-01T00:00:00Z"), Code.UNDECODABLE_VALUE),
    "current names a member twice": (hostile_event(27, hostile_data(27, current='{"id":"27","id":"28"}')),
                                     Code.DUPLICATE_KEY),
    "decimal as a JSON number of 41 digits": (hostile_event(28, hostile_data(28, cols=[_INT_COL, {"name": "d", "type": "decimal(38,37)", "index": 1}],
                                                                       current='{"id":"28","d":0.12345678901234567890123456789012345678901}')),
                                                Code.UNDECODABLE_VALUE),
    "valid neighbour": (hostile_event(100), None),
}.items()}


# ------------------------------------------------------------------------------------------------
# The plug-in declaration
# ------------------------------------------------------------------------------------------------

def examples_of(profile_strategy):
    history = histories(table_strategy=tables(key_types=KEY_TYPES, value_types=VALUE_TYPES),
                        allow_truncate=False, allow_snapshot=False, max_changes=6)
    return lambda: st.tuples(profile_strategy(), history)


def render_with(encode_function):
    def render(example, topic: str, index: int) -> list[Expected]:
        profile, history = example
        return encode_function(history, replace(profile, topic=topic,
                                                stream_guid=f"00000000-0000-4000-8000-{index:012d}"))
    return render


def coverage(events: list[dict], quarantine: list[dict]) -> list[str]:
    problems = [] if any(len(e["origin"]) > 1 for e in events) else ["no split event was reassembled"]
    return problems + ([] if any(e["pk_change"] for e in events) else ["no key change drawn"])


def edit_json_data(value: bytes, edit: Callable[[dict], bool]) -> bytes | None:
    """The record with its `data` datum changed by `edit` (False: does not apply), in the JSON mode."""
    event = json.loads(value)
    if not event.get("data"):
        return None
    data = json.loads(event["data"])
    if not edit(data):
        return None
    event["data"] = json.dumps(data, indent=2, ensure_ascii=False)
    return json.dumps(event, ensure_ascii=False, indent=2).encode("utf-8")


def _null_old_key(data: dict) -> bool:
    """`old` (JSON text) with its first key column NULL; False where the event has no old key value."""
    row, key = data.get("eventrow") or {}, [k["columnname"] for k in data.get("eventsource", {}).get("pkkey") or []]
    old = json.loads(row["old"]) if row.get("old") else {}
    if not key or old.get(key[0]) is None:
        return False
    row["old"] = json.dumps({**old, key[0]: None}, ensure_ascii=False)
    return True


def old_key_null(edit_data: Callable[[bytes, Callable[[dict], bool]], bytes | None]):
    """An unsplit UPD or DEL whose `old` holds NULL for a key column: which row changed is unknown
    (MISSING_OLD_KEY), never a DELETE of a NULL key or a key change from NULL (issue 19 A)."""
    def apply(items: list[Expected], index: int) -> list[Expected] | None:
        target = items[index]
        if target.quarantine or [i for i in items if i.logical == target.logical] != [target]:
            return None
        value = edit_data(target.record.written_value, _null_old_key)
        if value is None:
            return None
        changed = target.now_quarantined(Code.MISSING_OLD_KEY, record=replace(target.record, value=value))
        return items[:index] + [changed] + items[index + 1:]
    return apply


def _other_json_id(value: bytes) -> bytes:
    event = json.loads(value)
    event["id"] = event["id"] + "-again"
    return json.dumps(event).encode()


def late_records(members: list[Expected], other_data=_other_json_data,
                 other_id=_other_json_id) -> list[tuple[KafkaRecord, Code]]:
    """For an emitted event: a true copy of its first segment, and the same segment sent again under a new
    CloudEvent id (the same index and content: a copy by ces.md's rule, issue 58) (DUPLICATE_AFTER_EMIT both), and its
    last segment again with other data under another id, what a reused `logicalid` or a conflicting copy looks like
    (SEGMENT_DUPLICATE_CONFLICT): the event cannot be retracted, so only the late record is quarantined."""
    first, last = members[0].record, members[-1].record
    other = other_data(last.value)
    copies = [(first, Code.DUPLICATE_AFTER_EMIT), (replace(first, value=other_id(first.written_value)), Code.DUPLICATE_AFTER_EMIT)]
    return copies + ([(replace(last, value=other), Code.SEGMENT_DUPLICATE_CONFLICT)] if other else [])


def totals_disagree(items: list[Expected], index: int) -> list[Expected] | None:
    """A legacy segment (splitindex/splittotalcnt) of a split event whose splittotalcnt says one segment more
    than the others: which total is true is unknown, so the whole event is SEGMENT_DUPLICATE_CONFLICT, never
    assembled from the segments that happen to agree (issue 19 C)."""
    target = items[index]
    event = json.loads(target.record.written_value)
    if not event.get("splittotalcnt") or len([i for i in items if i.logical == target.logical]) < 2:
        return None
    event["splittotalcnt"] += 1
    changed = replace(target, record=replace(target.record, value=json.dumps(event, ensure_ascii=False, indent=2).encode()))
    return [i.now_quarantined(Code.SEGMENT_DUPLICATE_CONFLICT) if i.logical == target.logical else i
            for i in items[:index] + [changed] + items[index + 1:]]


def mutators_for(conflict_function, edit_data=edit_json_data) -> dict[str, Mutator]:
    return {"resend": Mutator(resend, None),
            "drop-final-segment": Mutator(drop_segment, Code.SEGMENT_INCOMPLETE),
            "conflicting-copy": Mutator(conflict_function, Code.SEGMENT_DUPLICATE_CONFLICT),
            "old-key-null": Mutator(old_key_null(edit_data), Code.MISSING_OLD_KEY)}


# ------------------------------------------------------------------------------------------------
# Benchmark data: the docs' 8-column row, unsplit (cdc-conformance bench)
# ------------------------------------------------------------------------------------------------

PLAIN_CES = """
  from_json(CAST(value AS STRING), 'struct<specversion:string,type:string,source:string,id:string,logicalid:string,
            time:string,datacontenttype:string,operation:string,segmentindex:int,finalsegment:boolean,data:string>') AS e
"""


def json_event(envelope: dict, data: dict) -> bytes:
    """A benchmark event as JSON mode writes it (compactly: SQL Server indents it; only the size differs)."""
    return json.dumps({**envelope, "data": json.dumps(data, separators=(",", ":"))}, separators=(",", ":")).encode()


def ces_template_events(count: int, target_bytes: int = 1000, write: Callable[[dict, dict], bytes] = json_event) -> list[bytes]:
    """Distinct unsplit CES events: the docs' 8-column Purchases row with the captures' transaction block,
    written by `write(envelope, data)` (json_event, or the Avro mode's writer in generators.ces_avro).

    Padded so that the JSON event reaches `target_bytes`; the docs' row is already ~1.5 KB in JSON (the escaped
    `cols` dominate), so that is the floor. In Avro the same events are ~0.7 KB (no names, no escaping).
    """
    padding = "x" * max(0, target_bytes - len(json_event(*_ces_event(0, ""))))
    return [write(*_ces_event(n, padding)) for n in range(count)]


def _ces_event(n: int, padding: str) -> tuple[dict, dict]:
    """(envelope without `data`, data) of benchmark event `n`."""
    current = {"purchase_id": str(n), "customer_name": f"Customer {n}", "product_id": str(n % 977),
               "product_name": "Game " + padding, "price_per_item": str(n % 100), "quantity": str(n % 7 + 1),
               "purchase_date": "2025-03-14 16:45:01.000", "payment_method": "Credit Card"}
    cols = [{"name": k, "type": t, "index": i} for i, (k, t) in enumerate(zip(current, [
        "int", "varchar(100)", "int", "varchar(100)", "int", "int", "datetime", "varchar(50)"]))]
    data = {"eventsource": {"db": "db1", "schema": "dbo", "tbl": "Purchases", "cols": cols,
                            "pkkey": [{"columnname": "purchase_id", "value": str(n)}],
                            "transaction": {"commitlsn": f"0000002C:{n:08X}:0001", "beginlsn": f"0000002C:{n:08X}:0000",
                                            "sequencenumber": 1, "committime": "2025-03-14T16:45:20.650Z"}},
            "eventrow": {"old": "{}", "current": json.dumps(current, separators=(",", ":"))}}
    envelope = {"specversion": "1.0", "type": "com.microsoft.SQL.CES.DML.V1", "source": "/",
                "id": str(uuid.UUID(int=n)), "logicalid": f"9c8d4ad2-bf54-4f10-a96f-038af496997f:{n:020d}:{1:020d}",
                "time": "2025-03-14T16:45:20.650Z", "datacontenttype": "application/json", "operation": "INS",
                "segmentindex": 1, "finalsegment": True}
    return envelope, data


def ces_records(topic: str, messages: int, partitions: int = 2, distinct: int = 5000,
                write: Callable[[dict, dict], bytes] = json_event):
    """`messages` events: `distinct` templates, re-keyed so that every event has its own id and logicalid.

    The replacements keep every string's length, so they are valid in Avro (length-prefixed) too.
    """
    templates = ces_template_events(min(distinct, messages), write=write)
    for n in range(messages):
        template = templates[n % len(templates)]
        if n >= len(templates):  # new id / logicalid, same size: distinct events, no duplicates
            template = template.replace(b"-4f10-a96f-038af496997f:", f"-4f10-a96f-{n:012d}:".encode(), 1)
            old_id = str(uuid.UUID(int=n % len(templates))).encode()
            template = template.replace(old_id, f"{n:08x}-0000-4000-8000-{n:012x}".encode(), 1)
        yield KafkaRecord(topic, n % partitions, None, template)


_PLAIN_DATA = ("struct<eventsource:struct<db:string,schema:string,tbl:string,"
               "cols:array<struct<name:string,type:string,index:int>>,pkkey:array<struct<columnname:string,value:string>>,"
               "transaction:struct<commitlsn:string,beginlsn:string,sequencenumber:int,committime:string>>,"
               "eventrow:struct<old:string,current:string>>")


def plain_images(parsed):
    """The plain pass's last level: both row images of the parsed envelope `e` and data `d` as maps."""
    return parsed.selectExpr("e", "d", "from_json(d.eventrow.old, 'map<string,string>') AS old",
                             "from_json(d.eventrow.current, 'map<string,string>') AS current")


def _plain_json(raw):
    """Only the three levels parsed: envelope, data, and the two row images."""
    return plain_images(raw.selectExpr(PLAIN_CES).selectExpr("e", f"from_json(e.data, '{_PLAIN_DATA}') AS d"))


def bench_for(write: Callable[[dict, dict], bytes], plain: Callable, plain_label: str) -> Bench:
    return Bench(records=lambda topic, messages, partitions: ces_records(topic, messages, partitions, write=write),
                 plain=plain, plain_label=plain_label)


SHARED_PROFILE = Profile(partitions=1)  # unsplit, full images, transaction block

GENERATOR = FormatGenerator(
    format_id=FORMAT,
    examples=examples_of(profiles),
    render=render_with(encode),
    partitions=lambda example: example[0].partitions,
    mutators={**mutators_for(conflict), "totals-disagree": Mutator(totals_disagree, Code.SEGMENT_DUPLICATE_CONFLICT)},
    late_records=late_records,
    hostile=HOSTILE,
    coverage=coverage,
    shared_history=lambda history, topic, index: render_with(encode)((SHARED_PROFILE, history), topic, index),
    value_types=tuple(VALUE_TYPES),
    history_features=frozenset({"key-change"}),
    bench=bench_for(json_event, _plain_json, "plain from_json (3 levels)"),
)
