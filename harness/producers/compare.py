"""The three comparisons of a real run (issue 22):

- the normalizer's events vs the oracle's for the same history (what the property tests check);
- the database's final state vs the normalizer's events folded by key;
- generator fidelity: the project's Debezium generator renders the same history, and its records are diffed
  with the connector's, field by field, values that depend on the run (clocks, LSNs, transaction ids) masked.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from cdc_conformance.generators import debezium
from cdc_conformance.harness.diff import deep_diff, readable_path
from cdc_conformance.harness.producers import debezium_mariadb
from cdc_conformance.harness.producers.runs import RealRun
from cdc_conformance.model import event_to_json

# what the history decides about an event; the rest (ids, positions, clocks, source) is the run's
_HISTORY_FIELDS = ("kind", "op", "snapshot", "format_version", "columns", "key", "before", "after")


def profile(run: RealRun) -> debezium.Profile:
    """How the connector of this run writes, as the generator's profile."""
    connector = run.database
    if run.database == "mariadb" and not debezium_mariadb.uses_mariadb_connector(run.versions["debezium"]):
        connector = "mysql"  # 1.x read MariaDB with its MySQL connector
    fields = dict(connector=connector, version=run.versions["debezium"], schemas_enable=True,
                  replica_identity=run.replica_identity, tombstones=True, partitions=1, prefix=run.prefix,
                  database="cdc", decimal_format="base64", toasted=False)
    # the setting's profile fields where the generator writes it for this database (Setting.drawn)
    return debezium.Profile(**{**fields, **(run.setting.profile if run.database in run.setting.drawn else {})})


def encoded(run: RealRun) -> list:
    """The generator's records and expected events for the run's history, on every topic (list[Expected])."""
    return debezium.encode(run.history, profile(run))


def generated(run: RealRun, items: list | None = None) -> list:
    """Those on the history's topic (of `items`, the run's `encoded`, when given); the ones on other topics
    (heartbeats, schema changes) are `heartbeat_fidelity`'s and `schema_change_fidelity`'s."""
    return [item for item in (encoded(run) if items is None else items) if item.record.topic == run.topic]


def _projected(events: list[dict]) -> list[dict]:
    return [{name: event.get(name) for name in _HISTORY_FIELDS} for event in events]


def oracle_problems(generated_items: list, events: list[dict]) -> list[str]:
    """The normalizer's events (canonical JSON, in offset order) vs the oracle's (`generated(run)`), field by field."""
    expected = _projected([event_to_json(e) for item in generated_items for e in item.events])
    actual = _projected(events)
    problems = [] if len(expected) == len(actual) else [f"{len(actual)} events, the oracle has {len(expected)}"]
    for index, (want, got) in enumerate(zip(expected, actual)):
        diff = deep_diff(want, got)
        if diff:
            problems.append(f"event {index}: {json.dumps(diff.to_dict(), default=str)[:800]}")
    return problems


def folded(events: list[dict]) -> dict[tuple, dict]:
    """Row events applied in order: key -> the row's last image (canonical text)."""
    state: dict[tuple, dict] = {}
    for event in events:
        if event["kind"] == "TRUNCATE":
            state.clear()
        elif event["kind"] == "ROW":
            key = tuple(part["value"] for part in event["key"])
            if event["op"] == "DELETE":
                state.pop(key, None)
            else:
                state[key] = event["after"]
    return state


def state_problems(run: RealRun, events: list[dict]) -> list[str]:
    """The table as the database holds it after the history vs the normalizer's events folded by key. Each row is
    rendered as the run's settings write it (a hex binary is the STRING of its digits; without schemas each value is
    its JSON text), which is what the events can hold: the generator's encoder says how."""
    table, run_profile = run.history.table, profile(run)
    written = debezium.DebeziumEncoder(run_profile, debezium.written_table(table, run_profile))
    database = {}
    for row in run.final_rows:
        texts = written.canonical_image(debezium.written_row(table, run_profile, row))
        database[tuple(texts[c.name] for c in table.key_columns)] = texts
    return state_differences(database, folded(events))


def state_differences(database: dict[tuple, dict], replayed: dict[tuple, dict]) -> list[str]:
    """The database's rows (key -> canonical texts) against the events folded by key."""
    problems = [f"row {list(key)}: the database has it, the events do not" for key in database.keys() - replayed.keys()]
    problems += [f"row {list(key)}: the events have it, the database does not" for key in replayed.keys() - database.keys()]
    for key in sorted(database.keys() & replayed.keys(), key=repr):
        if database[key] != replayed[key]:
            diff = deep_diff(database[key], replayed[key])
            problems.append(f"row {list(key)}: database vs events {json.dumps(diff.to_dict(), default=str)[:600]}")
    return problems


# ---------------------------------------------------------------------------------------------------
# Generator fidelity
# ---------------------------------------------------------------------------------------------------

# values that belong to the run, not to the history: compared by presence and JSON type only
# (without schemas the envelope is the value itself: no `payload` level; the flattening SMT adds them to the row as
# `__ts_ms`, `__source_ts_ms`, `__lsn`: docs/formats/debezium-json.md, "Flattened records")
_RUN_VALUES = re.compile(r"^value\.(payload\.)?(ts_(ms|us|ns)|source\.(ts_(ms|us|ns)|txId|lsn|sequence|xmin|pos|gtid)"
                         r"|__(source_)?(ts_(ms|us|ns)|txId|lsn|sequence|xmin|pos|gtid))$")
_RUN_HEADERS = {"__debezium.context.connectorLogicalName", "__debezium.context.runId"}


@dataclass(frozen=True, order=True)
class Difference:
    """One way the generator's records differ from the connector's: where (a path, list indices as [*]), what
    kind (value, type, only-in-generator, only-in-connector) and an example of each side."""

    where: str
    kind: str
    generator: str = ""
    connector: str = ""

    @property
    def id(self) -> str:
        return f"{self.where} ({self.kind})"


def _document(record) -> dict:
    def parsed(data: bytes | None):
        return None if data is None else json.loads(data)

    headers = {name: None if value is None else value.decode("utf-8", "replace") for name, value in record.headers}
    return {"key": parsed(record.key), "value": parsed(record.value), "headers": headers}


def _named(document):
    """Connect schemas list their fields; keyed by field name here, so a difference says which field (the
    order is compared as a list of names of its own, `(order)`)."""
    if isinstance(document, dict):
        named = {k: _named(v) for k, v in document.items()}
        fields = document.get("fields")
        if isinstance(fields, list) and all(isinstance(f, dict) and isinstance(f.get("field"), str) for f in fields):
            named["fields"] = {f["field"]: _named(f) for f in fields}
            named["fields"]["(order)"] = [f["field"] for f in fields]
        return named
    if isinstance(document, list):
        return [_named(v) for v in document]
    return document


def _masked(document, run_values: re.Pattern, path: str = ""):
    if isinstance(document, dict):
        return {k: _masked(v, run_values, f"{path}.{k}" if path else k) for k, v in document.items()}
    if isinstance(document, list):
        return [_masked(v, run_values, path) for v in document]
    if document is not None and (run_values.match(path) or path.removeprefix("headers.") in _RUN_HEADERS):
        return f"<{type(document).__name__}>"
    return document


def _pattern(path: str) -> str:
    return re.sub(r"\[\d+\]", "[*]", readable_path(path))


def _short(value) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def record_differences(generator_record, connector_record, run_values: re.Pattern = _RUN_VALUES) -> set[Difference]:
    """`run_values`: the paths whose values are the run's (compared by presence and JSON type)."""
    diff = deep_diff(*(_masked(_named(_document(record)), run_values) for record in (generator_record, connector_record)))
    found = set()
    for kind, changes in diff.to_dict().items():
        items = changes.items() if isinstance(changes, dict) else ((path, None) for path in changes)
        for path, change in items:
            if kind in ("values_changed", "type_changes"):
                found.add(Difference(_pattern(path), "value" if kind == "values_changed" else "type",
                                     _short((change or {})["old_value"]), _short((change or {})["new_value"])))
            elif kind.endswith("_added"):
                found.add(Difference(_pattern(path), "only the connector", "", _short(change)))
            elif kind.endswith("_removed"):
                found.add(Difference(_pattern(path), "only the generator", _short(change), ""))
    return found


def fidelity(run: RealRun, generated_items: list) -> list[Difference]:
    """Every difference between the generator's records for the history (`generated(run)`) and the connector's,
    one per kind and place (the first example of each)."""
    return fidelity_of(run.records, generated_items, _RUN_VALUES)


def avro_fidelity(run: RealRun, generated_items: list, registry) -> list[Difference]:
    """The connector's records through the Avro converter against the generator's records rendered as the converter
    writes them (generators/debezium_avro.py): each key's and value's registered schema (found by the record's id in
    `registry`) against the one the generator registers, and the datums read back, the run's values masked."""
    from dataclasses import replace

    from cdc_conformance.generators import debezium_avro

    found: dict[str, Difference] = {}
    mine = [debezium_avro.as_avro(item.record, "topic", 1) for item in generated_items]
    if len(mine) != len(run.records):
        found["count"] = Difference("records", "count", str(len(mine)), str(len(run.records)))
    for generator_record, connector_record in zip(mine, run.records):
        registered = dict(generator_record.registrations)
        datums = {}
        for part in ("key", "value"):
            theirs, ours = getattr(connector_record, part), getattr(generator_record, part)
            if theirs is None or ours is None:  # no value on one side or both: only whether there is one compares
                datums[part] = tuple(None if side is None else "a datum" for side in (ours, theirs))
                continue
            schema = registry.schema(int.from_bytes(theirs[1:5], "big"))
            if json.loads(schema) != json.loads(registered[part].schema):
                difference = Difference(f"{part} schema", "value", _short(registered[part].schema), _short(schema))
                found[difference.id] = difference
                datums[part] = ("(its schema differs)",) * 2
                continue
            datums[part] = (debezium_avro.read_datum(ours, schema), debezium_avro.read_datum(theirs, schema))
        ours, theirs = (replace(record, key=_json_bytes(datums["key"][side]), value=_json_bytes(datums["value"][side]))
                        for side, record in enumerate((generator_record, connector_record)))
        for difference in sorted(record_differences(ours, theirs)):
            found.setdefault(difference.id, difference)
    return list(found.values())


def _json_bytes(datum) -> bytes | None:
    """An Avro datum as JSON text (bytes as base64), for record_differences; None for no value."""
    import base64

    return None if datum is None else json.dumps(datum, default=lambda value: base64.b64encode(value).decode()).encode()


def heartbeat_fidelity(run: RealRun, items: list, connector_heartbeats: list) -> list[Difference]:
    """The connector's heartbeats against the generator's (Profile.heartbeats): the connector sends one per interval,
    the generator one per streamed transaction, so each of the connector's is compared with the generator's first,
    its clock masked; `heartbeat` before each difference's place."""
    mine = [item.record for item in items if item.record.topic == profile(run).heartbeat_topic()]
    if not mine or not connector_heartbeats:
        return [] if len(mine) == len(connector_heartbeats) else [
            Difference("heartbeat records", "count", str(len(mine)), str(len(connector_heartbeats)))]
    found = set().union(*(record_differences(mine[0], record) for record in connector_heartbeats))
    return sorted({Difference(f"heartbeat {d.where}", d.kind, d.generator, d.connector) for d in found})


def schema_change_fidelity(run: RealRun, items: list, connector_records: list) -> list[Difference]:
    """The connector's schema changes against the generator's (Profile.schema_changes), in order: the server's (no
    database) and the history's database's; the tier's own progress database is the harness's, not the history's.
    `schema change` before each difference's place."""
    run_profile = profile(run)
    database = run_profile.database_of(run.history.table)
    mine = [item for item in items if item.record.topic == run_profile.schema_change_topic()]
    theirs = [record for record in connector_records if _schema_change_database(record) in ("", database)]
    return [Difference(f"schema change {d.where}", d.kind, d.generator, d.connector)
            for d in fidelity_of(theirs, mine, _RUN_VALUES)]


def _schema_change_database(record) -> str:
    key = _document(record)["key"]
    return (key["payload"] if "schema" in key else key)["databaseName"]


def fidelity_of(producer_records: list, generated_items: list, run_values: re.Pattern) -> list[Difference]:
    mine = [item.record for item in generated_items]
    differences: dict[str, Difference] = {}
    if len(mine) != len(producer_records):
        count = Difference("records", "count", str(len(mine)), str(len(producer_records)))
        differences[count.id] = count
    for generator_record, connector_record in zip(mine, producer_records):
        for difference in sorted(record_differences(generator_record, connector_record, run_values)):
            differences.setdefault(difference.id, difference)
    return sorted(differences.values())
