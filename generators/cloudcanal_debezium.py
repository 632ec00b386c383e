"""CloudCanal's "Debezium Envelope" (`cloudcanal-debezium`): encoder, profiles, oracle, hostile records.

Written as CloudCanal's doc shows it (docs/formats/cloudcanal-debezium.md): `{"payload": {...}}` (the doc's
`"schema": ...` is elided, so no schema is invented), `op` `i` (the example) or `c` (the field table) for
inserts, `{}` for an absent image, values as MySQL's text, MySQL `source` fields with `connector` `MySQL`,
and DDL records without `op`. An update that changes the key is one `u` record. The Kafka key is not
documented: Debezium's schemaless key (the key columns as a JSON object) is written.
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from hypothesis import strategies as st

from cdc_conformance import keys
from cdc_conformance.generators import debezium
from cdc_conformance.generators.bench import history_bench
from cdc_conformance.generators.debezium_connect import binlog_file
from cdc_conformance.generators.history import Change, History, Table, Transaction
from cdc_conformance.generators.oracle import change_events
from cdc_conformance.generators.plugin import FormatGenerator, Hostile, json_mutator, profile_examples, profile_render
from cdc_conformance.generators.records import Expected, KafkaRecord, default_partition
from cdc_conformance.generators.values import LogicalType, canonical_text
from cdc_conformance.model import CanonicalEvent, Code

FORMAT = "cloudcanal-debezium"
# without a schema a value keeps its JSON text: the types whose MySQL text is their canonical text
VALUE_TYPES = [LogicalType(k) for k in ("INT16", "INT32", "INT64", "STRING", "DATE")] + [
    LogicalType("DECIMAL", 10, 2), LogicalType("DECIMAL", 38, 10), LogicalType("DECIMAL", 5, 0)]


@dataclass(frozen=True)
class Profile:
    # CloudCanal's field table defines `c` for an insert; its one DML example writes `i` (shared/specs/canal-and-cloudcanal.md
    # B.4). CloudCanal is closed and does not run here, so its doc page is all there is: the definition is drawn three
    # times in four, the example's spelling once (issue 60, F9: drawn half and half, `i` made 106 of 207 units of the peers'
    # matrix hinge on one example)
    insert_op: str = "c"
    partitions: int = 1
    topic: str = "cloudcanal.shop"
    database: str = "shop"


def profiles():
    return st.builds(Profile, insert_op=st.sampled_from(["c", "c", "c", "i"]), partitions=st.integers(1, 3))


@dataclass
class Encoder:
    profile: Profile
    table: Table
    index: int = 0
    position: int = 154

    def _row(self, row) -> dict:
        return {} if row is None else {c.name: canonical_text(c.logical, row[c.name]) for c in self.table.columns}

    def _key(self, row) -> dict:
        return {c.name: canonical_text(c.logical, row[c.name]) for c in self.table.key_columns}

    def _source(self, tx: Transaction) -> dict:
        self.position += 100
        return {"ts_ms": _ms(tx.commit_time), "db": self.profile.database, "table": self.table.name, "connector": "MySQL",
                "gtid": None, "file": self._binlog_file(), "pos": self.position, "server_id": 223344}

    def _binlog_file(self) -> str:
        """Files roll over every few transactions, across .999999 to .1000000 (issue 39 A10)."""
        return f"mysql-bin.{999_998 + self.position // 300:06d}"

    def encode(self, history: History) -> list[Expected]:
        return [self._change(change, tx) for tx in history.transactions for change in tx.changes]

    def _change(self, change: Change, tx: Transaction) -> Expected:
        op = {"INSERT": self.profile.insert_op, "UPDATE": "u", "DELETE": "d"}[change.kind]
        source = self._source(tx)
        payload = {"op": op, "ts_ms": _ms(tx.commit_time) + tx.emit_lag_us // 1000, "after": self._row(change.after),
                   "before": self._row(change.before), "source": source}
        row = change.after if change.after is not None else change.before
        key = json.dumps(self._key(row), ensure_ascii=False).encode()
        value = json.dumps({"payload": payload}, ensure_ascii=False).encode()
        record = KafkaRecord(self.profile.topic, default_partition(key, self.profile.partitions), key, value)
        return Expected(record, self._oracle(change, tx, source))

    # -- oracle --------------------------------------------------------------------------------------
    def _oracle(self, change: Change, tx: Transaction, source: dict) -> list[CanonicalEvent]:
        commit = tx.commit_time.replace(microsecond=tx.commit_time.microsecond // 1000 * 1000)
        position = {"commit": f"{binlog_file(source['file'])}:{source['pos']:020d}", "event": None, "seq": keys.PLAIN_SEQ}
        base = dict(event_id="", format=FORMAT, kind="ROW", origin=[], snapshot=False,
                    source={"system": "mysql", "server": None, "database": self.profile.database, "schema": None,
                            "table": self.table.name},
                    position=position, commit_ts=commit,
                    emit_ts=commit + dt.timedelta(milliseconds=tx.emit_lag_us // 1000))

        def image(row):
            return self._row(row)

        def key(row):
            return list(self._key(row).items())

        return change_events(change, base, key, image, {"system": "mysql", "server": "", "database": self.profile.database,
                                                        "schema": "", "table": self.table.name})


def _ms(instant: dt.datetime) -> int:
    return int(instant.timestamp() * 1000)


def encode(history: History, profile: Profile, index: int = 0) -> list[Expected]:
    return Encoder(profile, history.table, index).encode(history)


# ------------------------------------------------------------------------------------------------
# Mutators
# ------------------------------------------------------------------------------------------------

def _unknown_op(document: dict) -> bool:
    document["payload"]["op"] = "x"
    return True


def _no_source(document: dict) -> bool:
    document["payload"]["source"] = None
    return True


def _empty_after(document: dict) -> bool:
    if document["payload"]["op"] not in ("i", "c", "u"):
        return False
    document["payload"]["after"] = {}
    return True


MUTATORS = {
    "unknown-op": json_mutator(_unknown_op, Code.UNKNOWN_OPERATION),
    "source-missing": json_mutator(_no_source, Code.MISSING_FIELD),
    "insert-or-update-with-after-{}": json_mutator(_empty_after, Code.MISSING_FIELD),
}


# ------------------------------------------------------------------------------------------------
# Hostile records
# ------------------------------------------------------------------------------------------------

def hostile_record(n: int, **payload) -> bytes:
    body = {"op": "i", "ts_ms": 1669796261933 + n, "after": {"id": str(n), "v": "x"}, "before": {},
            "source": {"ts_ms": 1669796261933, "db": "db_test", "table": "t", "connector": "MySQL", "gtid": None,
                       "file": "mysql-bin.000003", "pos": 154 + n, "server_id": 223344}}
    body.update(payload)
    return json.dumps({"payload": {k: v for k, v in body.items() if v != "<absent>"}}).encode()


_DDL = {"type": "ALTER", "table": {"columns": [{"jdbcType": 4, "name": "id", "position": 0, "typeExpression": "int",
                                                "typeName": "int"}], "primaryKeyColumnNames": ["id"]}}
HOSTILE: dict[str, Hostile] = {name: Hostile(value, code, key) for name, (value, code, key) in {
    "not JSON": (b"{", Code.MALFORMED_JSON, None),
    "unknown op": (hostile_record(1, op="x"), Code.UNKNOWN_OPERATION, None),
    "op a without ddl": (hostile_record(2, op="a", after={}), Code.MISSING_FIELD, None),
    "insert with after {}": (hostile_record(3, after={}), Code.MISSING_FIELD, None),
    "no source": (hostile_record(4, source=None), Code.MISSING_FIELD, None),
    "DDL without op, tableChanges an object": (hostile_record(5, op="<absent>", after="<absent>", before="<absent>",
                                                              ddl="alter table t add w int", tableChanges=_DDL), None, None),
    "update changing the key": (hostile_record(6, op="u", before={"id": "5", "v": "x"}), None, b'{"id":"6"}'),
    "binlog pos of 25 digits": (hostile_record(20, source={"ts_ms": 1, "db": "d", "table": "t", "connector": "MySQL",
                                                        "file": "mysql-bin.000003", "pos": 10 ** 24}),
                                Code.UNDECODABLE_VALUE, None),
    "valid neighbour": (hostile_record(100), None, b'{"id":"100"}'),
}.items()}


# ------------------------------------------------------------------------------------------------
# The plug-in declaration
# ------------------------------------------------------------------------------------------------

examples = profile_examples(profiles, VALUE_TYPES, allow_snapshot=False, allow_truncate=False, max_changes=8)
render = profile_render(encode)


def coverage(events: list[dict], quarantine: list[dict]) -> list[str]:
    return [] if any(e["pk_change"] for e in events) else ["no key change drawn"]


def shared_history(history, topic: str, index: int):
    return render((Profile(), history), topic, index)


def _plain_schema() -> str:
    return debezium.PLAIN_SCHEMA  # Debezium's envelope


GENERATOR = FormatGenerator(
    format_id=FORMAT,
    examples=examples,
    render=render,
    partitions=lambda example: example[0].partitions,
    mutators=MUTATORS,
    hostile=HOSTILE,
    coverage=coverage,
    shared_history=shared_history,
    bench=history_bench(shared_history, _plain_schema),
    value_types=tuple(VALUE_TYPES),
    history_features=frozenset({"key-change"}),
)
