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
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from generators.history import Change, History, Row, Table, Transaction
from generators.records import Expected, KafkaRecord
from generators.values import LogicalType, canonical_text
from normalizer.model import CanonicalEvent, Column

FORMAT = "ces-json"
EVENT_TYPE = "com.microsoft.SQL.CES.DML.V1"


@dataclass(frozen=True)
class Profile:
    attribute_names: str = "current"          # current: segmentindex/finalsegment (1-based); legacy: splitindex/splittotalcnt
    content_type: str = "application/json"    # the docs; captures of JSON events say application/avro-json
    escape_slashes: bool = True               # SQL Server writes "\\/"
    with_transaction: bool = True             # in the Avro schema and captures, absent from the docs' examples
    include_old_values: bool = True           # @include_old_values
    include_all_columns: bool = True          # @include_all_columns
    segment_chars: int | None = None          # split `data` every n characters (None: never)
    partitions: int = 1
    topic: str = "ces.stream"
    stream_guid: str = "9c8d4ad2-bf54-4f10-a96f-038af496997f"


def profiles():
    return st.builds(
        Profile,
        attribute_names=st.sampled_from(["current", "legacy"]),
        content_type=st.sampled_from(["application/json", "application/avro-json"]),
        escape_slashes=st.booleans(), with_transaction=st.booleans(), include_old_values=st.booleans(),
        include_all_columns=st.booleans(),
        segment_chars=st.one_of(st.none(), st.integers(7, 400)),
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
        return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f +00:00")
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
        if change.kind == "UPDATE" and not self.profile.include_all_columns:
            changed = {c.name for c in columns if old[c.name] != current[c.name]}
            columns = [c for c in columns if c.name in key_names or c.name in changed]
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
        source = {"db": self.database, "schema": self.table.schema, "tbl": self.table.name,
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
        return [data[i:i + size] for i in range(0, len(data), size)] or [data[:0]]

    def _attributes(self, operation: str, tx: Transaction, logical_id: str, index: int) -> dict:
        return {"specversion": "1.0", "type": EVENT_TYPE, "source": "/", "id": self._id(logical_id, index),
                "logicalid": logical_id, "time": _iso_ms(tx.commit_time), "datacontenttype": self.profile.content_type,
                "operation": operation}

    def _envelopes(self, operation: str, tx: Transaction, data: str, logical_id: str) -> list[bytes]:
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
        position = ({"commit": commit_lsn.replace(":", ""), "event": f"{sequence:020d}", "seq": None}
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
            return [CanonicalEvent(op="DELETE", key=key(old), before=canonical(old), after=None,
                                   pk_change={"group": group, "role": "OLD"}, **base),
                    CanonicalEvent(op="INSERT", key=key(current), before=None, after=canonical(current),
                                   pk_change={"group": group, "role": "NEW"}, **base)]
        return [CanonicalEvent(op="UPDATE", key=key(current), before=canonical(old), after=canonical(current), **base)]


def _iso_ms(instant: dt.datetime) -> str:
    utc = instant.astimezone(dt.timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def pk_change_group(database: str, table: Table, position: dict | None, old_key: dict, new_key: dict) -> str:
    """Mirrors the normalizer's group: sha256 over table, position and both keys (sorted name=value)."""
    text = lambda key: ",".join(sorted(f"{k}={'null' if v is None else v}" for k, v in key.items()))  # noqa: E731
    parts = ["sqlserver", "", database, table.schema, table.name, (position or {}).get("commit") or "",
             (position or {}).get("event") or "", text(old_key), text(new_key)]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


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
    return [replace(i, events=[], quarantine=("ASSEMBLE", "SEGMENT_INCOMPLETE")) if i.logical == logical else i
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
    value = other_data(target.record.value)
    if value is None:
        return None
    twin = Expected(replace(target.record, value=value), logical=target.logical, segment=target.segment)
    marked = [replace(i, events=[], quarantine=("ASSEMBLE", "SEGMENT_DUPLICATE_CONFLICT"))
              if i.logical == target.logical else i for i in items]
    twin.quarantine = ("ASSEMBLE", "SEGMENT_DUPLICATE_CONFLICT")
    return marked[: index + 1] + [twin] + marked[index + 1:]
