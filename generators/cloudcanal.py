"""CloudCanal's default JSON (`cloudcanal-json`): encoder, profiles, oracle, mutators, hostile records.

The statements are canal's (generators.canal: a transaction's consecutive changes of one kind are one
message of several rows); CloudCanal writes them with its own fields (docs/formats/cloudcanal-json.md):
`action`, full `before` rows paired with `data` by index, empty lists for no image, `dbValType` and
`jdbcType`, `pks` (the doc's example leaves it empty), the DDL flag as `isDdl` or, in the older doc, `ddl`,
and a `TRANSACTIONEND` message after each transaction.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from hypothesis import strategies as st

from cdc_conformance.generators import canal
from cdc_conformance.generators.bench import history_bench
from cdc_conformance.generators.history import Change, History, Transaction
from cdc_conformance.generators.plugin import FormatGenerator, Hostile, absorbed_json_mutator, json_mutator, profile_examples, profile_render
from cdc_conformance.generators.records import Expected
from cdc_conformance.model import CanonicalEvent, Code

FORMAT = "cloudcanal-json"
VALUE_TYPES = canal.VALUE_TYPES


@dataclass(frozen=True)
class Profile:
    ddl_flag: str = "isDdl"          # the current doc; its older revision writes `ddl`
    pks: str = "named"               # "named", or "empty" as in the doc's DML example (then no key is known)
    transaction_end: bool = True     # a TRANSACTIONEND message after each transaction
    partition_hash: str | None = None
    partitions: int = 1
    topic: str = "cloudcanal.shop"
    database: str = "shop"
    # the canal encoder's axes (generators.canal.Profile), fixed at what CloudCanal's flavour writes
    annotations: bool = False
    per_statement: bool = False
    server_types: bool = False
    quirks: bool = True


def profiles():
    return st.builds(Profile, ddl_flag=st.sampled_from(["isDdl", "ddl"]), pks=st.sampled_from(["named", "empty"]),
                     transaction_end=st.booleans(), partition_hash=st.sampled_from([None, "table", "pk"]),
                     partitions=st.integers(1, 3))


@dataclass
class CloudCanalEncoder(canal.CanalEncoder):
    format_id = FORMAT
    format_version = "1"
    binlog_decimals = False  # CloudCanal's own reader: decimals at their scale
    profile: Profile  # type: ignore[assignment]  # its own (the fields canal's encoder reads, and CloudCanal's)

    def _source(self) -> dict:
        return {"system": None, "server": None, "database": self.profile.database, "schema": self.profile.database,
                "table": self.table.name}

    def _key_columns(self) -> list:
        return self.table.key_columns if self.profile.pks == "named" else []

    def encode(self, history: History) -> list[Expected]:
        if not self.profile.transaction_end:
            return super().encode(history)
        out = []
        for tx in history.transactions:  # each transaction rendered alone, then its end
            out += super().encode(History(history.table, (tx,)))
            out.append(self._transaction_end(tx))
        return out

    def _transaction_end(self, tx: Transaction) -> Expected:
        """The end's shape is not published: the message fields without rows or types."""
        message: dict[str, object] = {"action": None, "before": [], "bid": 0, "data": [], "db": self.profile.database,
                   "schema": self.profile.database, "table": self.table.name, "dbValType": {}, "jdbcType": {},
                   "entryType": "TRANSACTIONEND", self.profile.ddl_flag: False, "pks": [], "execTs": self._es(tx),
                   "sendTs": self._es(tx) + tx.emit_lag_us // 1000, "sql": ""}
        return self._expected(message, 0, lambda offset: [CanonicalEvent(kind="TX_END", **self._base(tx, offset, None))])

    def _message(self, tx: Transaction, type_: str, rows: list[Change] | None, sql: str = "") -> dict:
        columns = self.table.columns
        ddl = rows is None
        data = [] if rows is None else [self._row(c.old if type_ == "DELETE" else c.new) for c in rows]
        before = [self._row(c.old) for c in rows] if rows is not None and type_ == "UPDATE" else []
        return {"action": type_, "before": before, "bid": 0, "data": data, "db": self.profile.database,
                "schema": self.profile.database, "table": self.table.name,
                "dbValType": {c.name: canal.mysql_type(c.logical, c.name)[0] for c in columns},
                "jdbcType": {c.name: canal.mysql_type(c.logical, c.name)[1] for c in columns}, "entryType": "ROWDATA",
                self.profile.ddl_flag: ddl, "pks": [c.name for c in self._key_columns()], "execTs": self._es(tx),
                "sendTs": self._es(tx) + tx.emit_lag_us // 1000, "sql": sql}


def encode(history: History, profile: Profile, index: int = 0) -> list[Expected]:
    return CloudCanalEncoder(profile, history.table, index).encode(history)


# ------------------------------------------------------------------------------------------------
# Mutators and hostile records
# ------------------------------------------------------------------------------------------------

def _unknown_type(message: dict) -> bool:
    if not message.get("dbValType") or message.get("action") not in ("INSERT", "UPDATE", "DELETE"):
        return False
    message["dbValType"][next(iter(message["dbValType"]))] = "geography"
    return True


MUTATORS = {
    "before-longer-than-data": json_mutator(canal.longer_list("before", "action"), Code.SCHEMA_MISMATCH),
    "row-names-undeclared-column": json_mutator(canal.undeclared_column, Code.SCHEMA_MISMATCH),
    "unknown-db-type": json_mutator(_unknown_type, Code.UNKNOWN_COLUMN_TYPE),
    "values-as-json-numbers": absorbed_json_mutator(canal.numbers_unquoted(("data", "before"), "dbValType")),
    "float-beyond-double": json_mutator(canal.float_beyond_double(("data", "before"), "dbValType"), Code.UNDECODABLE_VALUE),
}


def hostile_message(n: int, action="INSERT", data="default", before=(), db_types=None, **fields) -> bytes:
    message = {"action": action, "before": list(before), "bid": 0, "data": [{"id": str(n), "v": "x"}] if data == "default" else data,
               "db": "db_test", "schema": "db_test", "table": "t", "dbValType": db_types or {"id": "int(11)", "v": "varchar(22)"},
               "jdbcType": {"id": 4, "v": 12}, "entryType": "ROWDATA", "isDdl": False, "pks": ["id"],
               "execTs": 1669789152000 + n * 1000, "sendTs": 1669789153377 + n * 1000, "sql": ""}
    message.update(fields)
    return json.dumps({k: v for k, v in message.items() if v != "<absent>"}).encode()


HOSTILE: dict[str, Hostile] = {name: Hostile(value, code) for name, (value, code) in {
    "no value": (None, Code.MISSING_FIELD),
    "not JSON": (b'{"action": ', Code.MALFORMED_JSON),
    "no action": (hostile_message(1, action="<absent>"), Code.MISSING_FIELD),
    "unknown action": (hostile_message(2, action="MERGE"), Code.UNKNOWN_OPERATION),
    "unknown entryType": (hostile_message(3, entryType="TRANSACTIONBEGIN"), Code.UNKNOWN_OPERATION),
    "lists of different lengths": (hostile_message(4, action="UPDATE", before=[{"id": "4", "v": "a"}] * 2), Code.SCHEMA_MISMATCH),
    "row names an undeclared column": (hostile_message(5, data=[{"id": "5", "v": "x", "w": "y"}]), Code.SCHEMA_MISMATCH),
    "unknown dbValType": (hostile_message(6, db_types={"id": "int(11)", "v": "geography"}), Code.UNKNOWN_COLUMN_TYPE),
    "INSERT with no rows": (hostile_message(7, data=[]), Code.MISSING_FIELD),
    "UPDATE without before (before unknown)": (hostile_message(8, action="UPDATE"), None),
    "TRANSACTIONEND": (hostile_message(9, action=None, data=[], entryType="TRANSACTIONEND"), None),
    "DDL flag spelled ddl": (hostile_message(10, action="ALTER", data=[], isDdl="<absent>", ddl=True,
                                             sql="alter table t add w int"), None),
    "10,000 rows in one message": (hostile_message(11, data=[{"id": str(i), "v": "x"} for i in range(10_000)]), None),
    # issue 18: extremes and duplicate members
    "decimal scale 2147483647": (hostile_message(30, db_types={"id": "int(11)", "v": "decimal(10,2147483647)"}),
                                 Code.UNKNOWN_COLUMN_TYPE),
    "execTs int64 max": (hostile_message(31, execTs=2 ** 63 - 1), Code.UNDECODABLE_VALUE),
    "data row names a member twice": (b'{"action":"INSERT","data":[{"id":"32","v":"a","v":"b"}],"db":"d","table":"t",'
                                      b'"dbValType":{"id":"int(11)","v":"varchar(2)"},"pks":["id"],"execTs":1,"sendTs":1}',
                                      Code.DUPLICATE_KEY),
    "valid neighbour": (hostile_message(100), None),
}.items()}


# ------------------------------------------------------------------------------------------------
# The plug-in declaration
# ------------------------------------------------------------------------------------------------

# ENUM and SET as canal writes them (its encoder's), numeric labels included (issue 49)
examples = profile_examples(profiles, VALUE_TYPES + canal.ENUM_SET_TYPES, allow_snapshot=False, max_changes=10)
render = profile_render(encode)


def coverage(events: list[dict], quarantine: list[dict]) -> list[str]:
    problems = [] if any(e["pk_change"] for e in events) else ["no key change drawn"]
    return problems + ([] if any(e["kind"] == "TX_END" for e in events) else ["no TRANSACTIONEND drawn"])


def shared_history(history, topic: str, index: int):
    return render((Profile(transaction_end=False), history), topic, index)


# CloudCanal's JSON as Spark DDL, the way a job that only parses the topic reads it (the benchmark's plain pass)
PLAIN_SCHEMA = ("struct<action:string,bid:string,before:array<map<string,string>>,data:array<map<string,string>>,db:string,"
                "schema:string,table:string,dbValType:map<string,string>,jdbcType:map<string,string>,entryType:string,"
                "isDdl:string,ddl:string,pks:array<string>,execTs:string,sendTs:string,sql:string,tableChanges:string>")


def _plain_schema() -> str:
    return PLAIN_SCHEMA


GENERATOR = FormatGenerator(
    format_id=FORMAT,
    examples=examples,
    render=render,
    partitions=lambda example: example[0].partitions if example[0].partition_hash else 1,
    mutators=MUTATORS,
    hostile=HOSTILE,
    coverage=coverage,
    # no TRANSACTIONEND: the other formats' renderings of a shared history carry no transaction marks
    shared_history=shared_history,
    bench=history_bench(shared_history, _plain_schema),
    value_types=tuple(VALUE_TYPES + canal.ENUM_SET_TYPES),
    history_features=frozenset({"key-change", "truncate"}),
    ordered_within_partition=True,
    ordered_members=frozenset({"dbValType", "jdbcType"}),  # LinkedHashMaps in column order: the column positions
)
