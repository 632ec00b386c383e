"""DataWorks whole-database sync to Kafka (`dataworks-json`): encoder, profiles, oracle, mutators.

Records are written as the DataWorks docs show them (docs/formats/dataworks-json.md): the value template
with `schema`/`payload`/`version`, values as JSON typed by six DataWorks types, the Kafka key the
primary-key values, and updates either as one `UPDATE_AFTER` record with both images or as the
`UPDATE_BEFOR` + `UPDATE_AFTER` halves that share a `sequenceId` (the default task option).
"""
from __future__ import annotations

import base64
import datetime as dt
import json
import math
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from cdc_conformance import keys
from cdc_conformance.generators import spellings
from cdc_conformance.generators.history import Change, History, Table, Transaction
from cdc_conformance.generators.oracle import change_events
from cdc_conformance.generators.plugin import Bench, FormatGenerator, Hostile, Mutator, profile_examples, profile_render
from cdc_conformance.generators.records import Expected, KafkaRecord, default_partition
from cdc_conformance.generators.values import LogicalType, canonical_text, java_double_text
from cdc_conformance.model import CanonicalEvent, Code, Column

FORMAT = "dataworks-json"
SEQUENCE_BASE = 1620457642589000000  # the docs' sequenceIds: 19 digits, one per record (both halves share one)

# DataWorks type for each logical type, and the logical type its values come back as
DATAWORKS_TYPES: dict[str, tuple[str, str]] = {
    "INT16": ("LONG", "INT64"), "INT32": ("LONG", "INT64"), "INT64": ("LONG", "INT64"),
    "FLOAT64": ("DOUBLE", "FLOAT64"), "BOOLEAN": ("BOOLEAN", "BOOLEAN"), "STRING": ("STRING", "STRING"),
    "BYTES": ("BYTES", "BYTES"), "TIMESTAMP": ("DATE", "TIMESTAMP(3)"),
}
VALUE_TYPES = [LogicalType(k) for k in ("INT16", "INT32", "INT64", "FLOAT64", "BOOLEAN", "STRING", "BYTES")] + [
    LogicalType("TIMESTAMP", 3)]


@dataclass(frozen=True)
class Profile:
    two_record_updates: bool = True     # the task option "one Kafka record per source update" unchecked (default)
    version: str = "0.0.1"              # every concrete example says 0.0.1, the template 1.0.0
    db_type: str = "MySQL"              # the examples say MySQL, the template mysql
    transaction_markers: bool = False   # TRANSACTION_BEGIN / TRANSACTION_END around each transaction
    partitions: int = 1
    topic: str = "dataworks.db"
    database: str = "shop"


def profiles():
    return st.builds(Profile, two_record_updates=st.booleans(), version=st.sampled_from(["0.0.1", "1.0.0"]),
                     db_type=st.sampled_from(["MySQL", "mysql"]), transaction_markers=st.booleans(),
                     partitions=st.integers(1, 3))


def dataworks_type(logical: LogicalType) -> tuple[str, str]:
    return DATAWORKS_TYPES[logical.kind]


def json_value(logical: LogicalType, value):
    """A value as DataWorks writes it in `dataColumn`: a JSON number, boolean or string."""
    if value is None:
        return None
    kind = logical.kind
    if kind in ("INT16", "INT32", "INT64", "BOOLEAN", "STRING"):
        return value
    if kind == "FLOAT64":  # a JSON number; a Java writer (Jackson) quotes NaN and the infinities
        return value if math.isfinite(value) else java_double_text(value)
    if kind == "BYTES":
        return base64.b64encode(value).decode()
    if kind == "TIMESTAMP":
        return _epoch_ms(value.replace(tzinfo=dt.UTC))
    raise ValueError(f"DataWorks has no type for {logical}")


def _epoch_ms(instant: dt.datetime) -> int:
    return (instant - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)


def _dumps(document) -> bytes:
    return json.dumps(document, ensure_ascii=False, indent=4).encode()


@dataclass
class DataWorksEncoder:
    profile: Profile
    table: Table
    index: int = 0
    sent: int = 0

    def _next_sequence(self) -> int:
        self.sent += 1
        return SEQUENCE_BASE + self.index * 10_000 + self.sent

    def _schema(self) -> dict:
        return {"dataColumn": [{"name": c.name, "type": dataworks_type(c.logical)[0]} for c in self.table.columns],
                "primaryKey": [c.name for c in self.table.key_columns],
                "source": {"dbType": self.profile.db_type, "dbName": self.profile.database, "tableName": self.table.name}}

    def _image(self, row) -> dict | None:
        return None if row is None else {"dataColumn": {c.name: json_value(c.logical, row[c.name]) for c in self.table.columns}}

    def _timestamps(self, tx: Transaction) -> dict:
        event = _epoch_ms(tx.commit_time)
        return {"eventTime": event, "systemTime": event + tx.emit_lag_us // 1000, "checkpointTime": event}

    def _value(self, op: str, tx: Transaction, sequence: int | None, before=None, after=None, ddl=None,
               schema: dict | None = None) -> bytes:
        payload = {"before": self._image(before), "after": self._image(after),
                   "sequenceId": None if sequence is None else str(sequence),
                   "timestamp": self._timestamps(tx), "op": op, "ddl": ddl}
        return _dumps({"schema": schema if schema is not None else self._schema(), "payload": payload,
                       "version": self.profile.version})

    def _record(self, value: bytes, row=None, events=(), logical: str | None = None, segment: int = 0) -> Expected:
        """Kafka key: the primary-key values (DataWorks keys by them so one key stays on one partition)."""
        key = None if row is None else json.dumps(
            {c.name: json_value(c.logical, row[c.name]) for c in self.table.key_columns}, ensure_ascii=False).encode()
        partition = default_partition(key, self.profile.partitions)
        return Expected(KafkaRecord(self.profile.topic, partition, key, value), list(events), logical=logical,
                        segment=segment)

    def encode(self, history: History) -> list[Expected]:
        out: list[Expected] = []
        for tx in history.transactions:
            if self.profile.transaction_markers:
                out.append(self._marker("TRANSACTION_BEGIN", tx))
            for change in tx.changes:
                out.extend(self._change(change, tx))
            if self.profile.transaction_markers:
                out.append(self._marker("TRANSACTION_END", tx))
        return out

    def _marker(self, op: str, tx: Transaction) -> Expected:
        """Transaction markers' shape is not published: written as the heartbeat is, with a sequenceId."""
        sequence = self._next_sequence()
        value = self._value(op, tx, sequence, schema={"dataColumn": None, "primaryKey": None, "source": None})
        event = CanonicalEvent(event_id="", format=FORMAT, kind="TX_BEGIN" if op == "TRANSACTION_BEGIN" else "TX_END",
                               origin=[], format_version=self.profile.version, position=_position(sequence),
                               commit_ts=_ms(tx.commit_time), emit_ts=self._emit(tx))
        return self._record(value, events=[event])

    def _change(self, change: Change, tx: Transaction) -> list[Expected]:
        sequence = self._next_sequence()
        oracle = self._oracle(change, tx, sequence)
        if change.kind == "TRUNCATE":
            ddl = {"text": f"TRUNCATE TABLE `{self.table.name}`", "ddlMeta": _DDL_META}
            return [self._record(self._value("TRUNCATE", tx, sequence, ddl=ddl), events=oracle)]
        if change.kind in ("INSERT", "READ"):
            return [self._record(self._value("INSERT", tx, sequence, after=change.after), change.after, oracle)]
        if change.kind == "DELETE":
            return [self._record(self._value("DELETE", tx, sequence, before=change.before), change.before, oracle)]
        if not self.profile.two_record_updates:
            value = self._value("UPDATE_AFTER", tx, sequence, before=change.before, after=change.after)
            return [self._record(value, change.after, oracle)]
        logical = f"{self.profile.topic}|{self.table.name}|{sequence}"
        return [self._record(self._value("UPDATE_BEFOR", tx, sequence, before=change.before), change.before, oracle,
                             logical, 0),
                self._record(self._value("UPDATE_AFTER", tx, sequence, after=change.after), change.after, (), logical, 1)]

    def _emit(self, tx: Transaction) -> dt.datetime:
        return _ms(tx.commit_time) + dt.timedelta(milliseconds=tx.emit_lag_us // 1000)

    # -- oracle --------------------------------------------------------------------------------------
    def _oracle(self, change: Change, tx: Transaction, sequence: int) -> list[CanonicalEvent]:
        table, p = self.table, self.profile
        source = {"system": p.db_type.lower(), "server": None, "database": p.database, "schema": None,
                  "table": table.name}
        base: dict[str, Any] = dict(event_id="", format=FORMAT, format_version=p.version, origin=[], source=source,
                    position=_position(sequence), commit_ts=_ms(tx.commit_time), emit_ts=self._emit(tx))
        if change.kind == "TRUNCATE":
            return [CanonicalEvent(kind="TRUNCATE", ddl={"statement": f"TRUNCATE TABLE `{table.name}`",
                                                         "change": "TRUNCATE"}, **base)]
        columns = [Column(c.name, i + 1, *dataworks_type(c.logical), None, c.pk_position)
                   for i, c in enumerate(table.columns)]
        row = dict(kind="ROW", snapshot=False, columns=columns, **base)

        def image(values):
            return None if values is None else {c.name: canonical_text(c.logical, values[c.name]) for c in table.columns}

        def key(values):
            return [(c.name, canonical_text(c.logical, values[c.name])) for c in table.key_columns]

        return change_events(change, row, key, image, {"system": source["system"], "server": "", "database": p.database,
                                                       "schema": "", "table": table.name})


def _position(sequence: int) -> dict:
    return {"commit": f"{sequence:020d}", "event": None, "seq": keys.PLAIN_SEQ}


def _ms(instant: dt.datetime) -> dt.datetime:
    return instant.replace(microsecond=instant.microsecond // 1000 * 1000)


# A stand-in for `ddl.ddlMeta`: the start of a Java serialization stream (magic AC ED 00 05), base64. The
# decoder never reads it; hostile records put a real-looking serialized object here.
_DDL_META = base64.b64encode(bytes.fromhex("aced0005") + b"sr\x00\x10SQLStatementMeta").decode()


def encode(history: History, profile: Profile, index: int = 0) -> list[Expected]:
    return DataWorksEncoder(profile, history.table, index).encode(history)


# ------------------------------------------------------------------------------------------------
# Mutators
# ------------------------------------------------------------------------------------------------

def drop_half(segment: int):
    """One half of a two-record update never arrives: the other is UNPAIRED_UPDATE_HALF."""
    def apply(items: list[Expected], index: int) -> list[Expected] | None:
        target = items[index]
        if target.logical is None or target.segment != segment:
            return None
        return [i.now_quarantined(Code.UNPAIRED_UPDATE_HALF) if i.logical == target.logical
                else i for i in items if i is not target]
    return apply


def resend(items: list[Expected], index: int) -> list[Expected]:
    """At-least-once delivery: the same record again, right after it. Identical records are one event
    whose origin lists both (invariant 3, docs/invariants.md)."""
    target = items[index]
    logical = target.logical or f"copy|{index}|{target.record.written_value[:64]!r}"
    original = replace(target, logical=logical)
    return items[:index] + [original, replace(original, events=[])] + items[index + 1:]


def late_records(members: list[Expected]) -> list[tuple[KafkaRecord, Code]]:
    """For an emitted two-record update: a true copy of its first half (DUPLICATE_AFTER_EMIT), and its last
    half captured again with another `systemTime`, which is no copy (UNPAIRED_UPDATE_HALF): the update cannot
    be retracted, so only the late record is quarantined (docs/formats/dataworks-json.md, Streaming)."""
    first, last = members[0].record, members[-1].record
    document = json.loads(last.written_value)
    document["payload"]["timestamp"]["systemTime"] += 1
    return [(first, Code.DUPLICATE_AFTER_EMIT), (replace(last, value=_dumps(document)), Code.UNPAIRED_UPDATE_HALF)]


def _column_value_mutator(kind: str, bad):
    """A value of a column of type `kind` replaced by one that is not of its type (a spellings.Number is
    written as the number token it holds)."""
    def apply(items: list[Expected], index: int) -> list[Expected] | None:
        target = items[index]
        if target.logical is not None or target.record.value is None:
            return None
        document = json.loads(target.record.written_value)
        image = (document["payload"].get("after") or document["payload"].get("before") or {}).get("dataColumn")
        columns = [c["name"] for c in document["schema"].get("dataColumn") or [] if c["type"] == kind]
        if not image or not columns:
            return None
        image[columns[0]] = bad
        changed = target.now_quarantined(Code.UNDECODABLE_VALUE, record=replace(target.record, value=spellings.dumps(document)))
        return items[:index] + [changed] + items[index + 1:]
    return apply


def _old_key_null(items: list[Expected], index: int) -> list[Expected] | None:
    """A one-record UPDATE or a DELETE whose before image holds NULL for a key column: which row changed is
    unknown (MISSING_OLD_KEY), never a DELETE of key NULL (issue 19 A)."""
    target = items[index]
    if target.logical is not None or target.record.value is None or target.quarantine:
        return None
    document = json.loads(target.record.written_value)
    payload, key_names = document["payload"], document["schema"].get("primaryKey") or []
    before = (payload.get("before") or {}).get("dataColumn")
    if payload.get("op") not in ("UPDATE_AFTER", "DELETE") or not before or not key_names or key_names[0] not in before:
        return None
    before[key_names[0]] = None
    changed = target.now_quarantined(Code.MISSING_OLD_KEY, record=replace(target.record, value=_dumps(document)))
    return items[:index] + [changed] + items[index + 1:]


MUTATORS = {
    "drop-update-before": Mutator(drop_half(0), Code.UNPAIRED_UPDATE_HALF),
    "drop-update-after": Mutator(drop_half(1), Code.UNPAIRED_UPDATE_HALF),
    "resend": Mutator(resend, None),
    "long-not-a-number": Mutator(_column_value_mutator("LONG", "12x"), Code.UNDECODABLE_VALUE),
    # only a double could read these, as Infinity and 0.0 (docs/formats/dataworks-json.md)
    "double-beyond-range": Mutator(_column_value_mutator("DOUBLE", spellings.Number("-1e400")), Code.UNDECODABLE_VALUE),
    "double-below-range": Mutator(_column_value_mutator("DOUBLE", spellings.Number("0." + "0" * 399 + "1")), Code.UNDECODABLE_VALUE),
    "old-key-null": Mutator(_old_key_null, Code.MISSING_OLD_KEY),
}


# ------------------------------------------------------------------------------------------------
# Hostile records: each changes one thing in an otherwise valid record
# ------------------------------------------------------------------------------------------------

def hostile_record(n: int, op: str | None = "INSERT", columns=None, primary_key=("id",), before=None, after="default",
                   table: str = "t", ddl=None, source="default", **payload) -> bytes:
    columns = columns if columns is not None else [{"name": "id", "type": "LONG"}, {"name": "v", "type": "STRING"}]
    after = {"id": n, "v": "x"} if after == "default" else after
    document: dict[str, Any] = {"schema": {"dataColumn": columns, "primaryKey": None if primary_key is None else list(primary_key),
                           "source": {"dbType": "MySQL", "dbName": "shop", "tableName": table}
                           if source == "default" else source},
                "payload": {"before": None if before is None else {"dataColumn": before},
                            "after": None if after is None else {"dataColumn": after},
                            "sequenceId": str(SEQUENCE_BASE + 900_000 + n),
                            "timestamp": {"eventTime": 1620457896000 + n, "systemTime": 1620457896977 + n},
                            "op": op, "ddl": ddl},
                "version": "0.0.1"}
    document["payload"].update(payload)
    return json.dumps(document).encode()


# a Java serialization stream of a commons-collections gadget chain's head: what a deserializer would run
GADGET = base64.b64encode(bytes.fromhex("aced0005737200") + b"2org.apache.commons.collections.functors.InvokerTransformer"
                          + bytes(range(256))).decode()
_ALTER = {"text": "ALTER TABLE t ADD COLUMN w varchar(8)", "ddlMeta": GADGET}
_LONG_AND_BYTES = [{"name": "id", "type": "LONG"}, {"name": "b", "type": "BYTES"}]

HOSTILE: dict[str, Hostile] = {name: Hostile(value, code) for name, (value, code) in {
    "comments (the doc's samples)": (b'{"schema": {}, // the schema\n "payload": {}}', Code.MALFORMED_JSON),
    "not UTF-8": (b'{"payload":{"op":"\xff"}}', Code.NOT_UTF8),
    "no value": (None, Code.MISSING_FIELD),
    "no op": (hostile_record(1, op=None), Code.MISSING_FIELD),
    "unknown op": (hostile_record(2, op="UPSERT"), Code.UNKNOWN_OPERATION),
    "op in lower case": (hostile_record(3, op="insert"), Code.UNKNOWN_OPERATION),
    "GTID": (hostile_record(4, op="GTID", after=None), Code.UNMAPPED_CONTROL_EVENT),
    "XAROLLBACK": (hostile_record(5, op="XAROLLBACK", after=None), Code.UNMAPPED_CONTROL_EVENT),
    "no eventTime": (hostile_record(6, timestamp={"systemTime": 1}), Code.MISSING_FIELD),
    "eventTime not a number": (hostile_record(7, timestamp={"eventTime": "yesterday"}), Code.UNDECODABLE_VALUE),
    "LONG not a number": (hostile_record(8, after={"id": "eight", "v": "x"}), Code.UNDECODABLE_VALUE),
    "LONG beyond 64 bits": (hostile_record(9, after={"id": 2 ** 64, "v": "x"}), Code.UNDECODABLE_VALUE),
    "BYTES not base64": (hostile_record(10, columns=_LONG_AND_BYTES, after={"id": 10, "b": "not base64!"}),
                         Code.UNDECODABLE_VALUE),
    "unknown column type": (hostile_record(11, columns=[{"name": "id", "type": "DECIMAL"}], after={"id": 11}),
                            Code.UNKNOWN_COLUMN_TYPE),
    "undeclared column": (hostile_record(12, after={"id": 12, "v": "x", "extra": 1}), Code.SCHEMA_MISMATCH),
    "column declared twice": (hostile_record(13, columns=[{"name": "id", "type": "LONG"}] * 2, after={"id": 13}),
                              Code.SCHEMA_MISMATCH),
    "column without a name": (hostile_record(14, columns=[{"type": "LONG"}], after={}), Code.SCHEMA_MISMATCH),
    "primaryKey names an undeclared column": (hostile_record(15, primary_key=("pkName1",)), Code.SCHEMA_MISMATCH),
    "INSERT with before": (hostile_record(16, before={"id": 16, "v": "y"}), Code.UNEXPECTED_IMAGE),
    "DELETE without before": (hostile_record(17, op="DELETE", after=None), Code.MISSING_FIELD),
    "DELETE with after": (hostile_record(18, op="DELETE", before={"id": 18, "v": "x"}), Code.UNEXPECTED_IMAGE),
    "INSERT without after": (hostile_record(19, after=None), Code.MISSING_FIELD),
    "lone UPDATE_BEFOR": (hostile_record(20, op="UPDATE_BEFOR", before={"id": 20, "v": "x"}, after=None),
                          Code.UNPAIRED_UPDATE_HALF),
    "UPDATE_BEFOR with after": (hostile_record(21, op="UPDATE_BEFOR", before={"id": 21, "v": "x"}),
                                Code.UNEXPECTED_IMAGE),
    "half without sequenceId": (hostile_record(22, op="UPDATE_AFTER", sequenceId=None), Code.MISSING_FIELD),
    # the same sequenceId, another table: never paired with each other
    "UPDATE_BEFOR of table a": (hostile_record(23, op="UPDATE_BEFOR", before={"id": 23, "v": "x"}, after=None,
                                               table="a"), Code.UNPAIRED_UPDATE_HALF),
    "UPDATE_AFTER naming table b": (hostile_record(23, op="UPDATE_AFTER", table="b"), Code.UNPAIRED_UPDATE_HALF),
    "row change without source": (hostile_record(24, source=None), Code.MISSING_FIELD),
    "payload a string": (b'{"schema": null, "payload": "INSERT", "version": "0.0.1"}', Code.MALFORMED_JSON),
    "a JSON array": (b"[1, 2, 3]", Code.MALFORMED_JSON),
    "hostile ddlMeta (never deserialized)": (hostile_record(25, op="ALTER", after=None, ddl=_ALTER), None),
    "ten megabyte value": (hostile_record(26, after={"id": 26, "v": "x" * 10_000_000}), None),
    # issue 18: times and positions at their type's extremes, duplicate members
    "eventTime int64 max": (hostile_record(27, timestamp={"eventTime": 2 ** 63 - 1, "systemTime": 1}), Code.UNDECODABLE_VALUE),
    "eventTime int64 min": (hostile_record(28, timestamp={"eventTime": -2 ** 63, "systemTime": 1}), Code.UNDECODABLE_VALUE),
    "eventTime in year 10000": (hostile_record(29, timestamp={"eventTime": 253402300800000}), Code.UNDECODABLE_VALUE),
    "eventTime -1 (no binlog time)": (hostile_record(30, timestamp={"eventTime": -1, "systemTime": 1620457896977}), None),
    "sequenceId of 24 digits": (hostile_record(31, sequenceId="1" * 24), Code.UNDECODABLE_VALUE),
    "after names a member twice": (b'{"schema":{"dataColumn":[{"name":"id","type":"LONG"}],"primaryKey":["id"],'
                                   b'"source":{"dbType":"MySQL","dbName":"shop","tableName":"t"}},"payload":{"before":null,'
                                   b'"after":{"dataColumn":{"id":32,"id":33}},"sequenceId":"32","timestamp":{"eventTime":1},'
                                   b'"op":"INSERT"},"version":"0.0.1"}', Code.DUPLICATE_KEY),
    "valid neighbour": (hostile_record(100), None),
}.items()}


# ------------------------------------------------------------------------------------------------
# Benchmark data: an 8-column row (cdc-conformance bench), half of the updates in two records
# ------------------------------------------------------------------------------------------------

_BENCH_COLUMNS = [{"name": n, "type": t} for n, t in [("id", "LONG"), ("customer", "STRING"), ("product_id", "LONG"),
                                                      ("product", "STRING"), ("price", "DOUBLE"), ("quantity", "LONG"),
                                                      ("purchased", "DATE"), ("paid", "BOOLEAN")]]


def bench_records(topic: str, messages: int, partitions: int):
    """INSERTs, and every fourth message an update as UPDATE_BEFOR + UPDATE_AFTER (two messages)."""
    n = 0
    while n < messages:
        row = {"id": n, "customer": f"Customer {n}", "product_id": n % 977, "product": "Game", "price": n % 100 + 0.5,
               "quantity": n % 7 + 1, "purchased": 1741970701000 + n, "paid": n % 2 == 0}
        key = json.dumps({"id": n}).encode()
        ops = [("UPDATE_BEFOR", row, None), ("UPDATE_AFTER", None, {**row, "quantity": 9})] \
            if n % 4 == 3 and n + 1 < messages else [("INSERT", None, row)]
        sequence = str(SEQUENCE_BASE + n)  # an update's halves share it: they pair (each its own, both were unpaired)
        for op, before, after in ops:
            value = hostile_record(n, op=op, columns=_BENCH_COLUMNS, before=before, after=after, table="purchases",
                                   sequenceId=sequence)
            yield KafkaRecord(topic, default_partition(key, partitions), key, value)
            n += 1


BENCH = Bench(records=bench_records,
              plain=lambda raw: raw.selectExpr(f"from_json(CAST(value AS STRING), '{_plain_schema()}') AS d"),
              plain_label="plain from_json (1 level)")


def _plain_schema() -> str:
    """The document as Spark DDL, the way a job that only parses the topic reads it (the benchmark's plain pass)."""
    image = "struct<dataColumn:map<string,string>>"
    return ("struct<schema:struct<dataColumn:array<struct<name:string,type:string>>,primaryKey:array<string>,"
            "source:struct<dbType:string,dbVersion:string,dbName:string,schemaName:string,tableName:string>>,"
            f"payload:struct<before:{image},after:{image},sequenceId:string,scn:string,op:string,"
            "timestamp:struct<eventTime:string,systemTime:string,checkpointTime:string>,ddl:struct<text:string,ddlMeta:string>>,"
            "version:string>")


# ------------------------------------------------------------------------------------------------
# The plug-in declaration
# ------------------------------------------------------------------------------------------------

examples = profile_examples(profiles, VALUE_TYPES, allow_snapshot=False, max_changes=8)
render = profile_render(encode)


def coverage(events: list[dict], quarantine: list[dict]) -> list[str]:
    problems = [] if any(len(e["origin"]) > 1 and e["op"] for e in events) else ["no two-record update was paired"]
    problems += [] if any(e["pk_change"] for e in events) else ["no key change drawn"]
    return problems + ([] if any(e["kind"] == "TX_END" for e in events) else ["no transaction marker drawn"])


SHARED_PROFILE = Profile()  # two-record updates, one partition

GENERATOR = FormatGenerator(
    format_id=FORMAT,
    examples=examples,
    version_profile=lambda version: {"version": version},
    render=render,
    partitions=lambda example: example[0].partitions,
    mutators=MUTATORS,
    late_records=late_records,
    hostile=HOSTILE,
    coverage=coverage,
    shared_history=lambda history, topic, index: render((SHARED_PROFILE, history), topic, index),
    value_types=tuple(VALUE_TYPES),
    history_features=frozenset({"key-change", "truncate"}),
    bench=BENCH,
)
