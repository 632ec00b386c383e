"""Debezium's ExtractNewRecordState SMT as the canonical model sees it: from the events of the envelope the connector
would have written to the events of the flat records the SMT writes instead (docs/formats/debezium-json.md, "Flattened
records"). The rules are the SMT's (Debezium 3.3: AbstractExtractNewRecordState, DefaultDeleteHandlingStrategy,
ExtractNewRecordState.doApply), restated on events, so that a run with the SMT is checked against a run without it.

What a flat record keeps: the row's state (after, or a rewritten delete's before), its Kafka key, its schema's
columns, and what `add.fields` adds. What it loses: the before image of an update, the position, the key-change pair,
TRUNCATE (the SMT drops it), and, without `op` added, whether the row was inserted or updated (UPSERT).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, replace

from cdc_conformance.generators.jsontext import dumps_bytes, loads_tokens
from cdc_conformance.generators.records import Expected
from cdc_conformance.model import CanonicalEvent

MODES = ("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone")
# the canonical source's members and the source block's fields they come from
SOURCE_MEMBERS = {"system": "connector", "server": "name", "database": "db", "schema": "schema", "table": "table"}


@dataclass(frozen=True)
class Smt:
    mode: str = "tombstone"
    added: tuple[str, ...] = ()   # add.fields as given: `op`, `table`, `source.ts_ms`, ...

    @classmethod
    def parse(cls, option: str) -> Smt:
        """The format option `flattened`'s text: `name=value` separated by `;`."""
        properties = dict(pair.split("=", 1) for pair in option.split(";") if pair.strip())
        mode = properties.get("delete.tombstone.handling.mode", "tombstone")
        if mode not in MODES:
            raise ValueError(f"delete.tombstone.handling.mode {mode} is none of {MODES}")
        return cls(mode, tuple(f.strip() for f in properties.get("add.fields", "").split(",") if f.strip()))

    def adds(self, struct: str | None, field: str) -> bool:
        """Whether `add.fields` names `field` of `struct` (None: the payload's own op and ts_ms; an unqualified field
        other than those and the transaction's is the source block's, FieldReference.determineStruct)."""
        top_level = {"op", "ts_ms", "ts_us", "ts_ns"}
        for spec in self.added:
            path = spec.split(":")[0].split(".")
            named = (path[0], path[1]) if len(path) == 2 else (None if path[0] in top_level else "source", path[0])
            if named == (struct, field):
                return True
        return False

    @property
    def rewrites(self) -> bool:
        return self.mode.startswith("rewrite")


def flattened_events(events: list[dict], option: str) -> list[dict]:
    """The canonical events of the records the SMT writes for the records whose events are `events` (canonical JSON
    dicts, as a normalizer's output renders them), in their order."""
    smt = Smt.parse(option)
    return [flat for flat in (flattened_event(event, smt) for event in events) if flat is not None]


def flattened_event(event: dict, smt: Smt) -> dict | None:
    """One event of the envelope's, as the SMT leaves its record: None when it drops the record."""
    if event["kind"] == "TRUNCATE":
        return None  # handleTruncateRecord: dropped in every mode
    if event["kind"] == "TOMBSTONE":
        return event if smt.mode == "rewrite-with-tombstone" else None
    if event["kind"] != "ROW":
        return event  # not an Envelope: passed unchanged
    return _flat_row(event, smt)


def flattened(expected: list[Expected], option: str, schemas_enable: bool) -> list[Expected]:
    """The generator's records and events for a connector with the SMT (`option`: the format option's text): each
    record as the SMT rewrites it (JsonConverter's document, with or without its schema), the records it drops
    left out, the events as `flattened_event` says. The record's key and headers are the SMT's input's."""
    smt = Smt.parse(option)
    out = []
    for item in expected:
        value = _flat_value(item, smt, schemas_enable)
        if value is _DROPPED:
            continue
        events = [CanonicalEvent(**flat) for flat in (flattened_event(_fields(e), smt) for e in item.events) if flat is not None]
        out.append(replace(item, record=replace(item.record, value=value), events=events))
    return out


_DROPPED = object()


def _fields(event: CanonicalEvent) -> dict:
    return {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}


def _flat_value(item: Expected, smt: Smt, schemas_enable: bool):
    """The record's value as the SMT writes it: bytes, None (no value), or _DROPPED."""
    if item.record.value is None:
        return item.record.value if smt.mode == "rewrite-with-tombstone" else _DROPPED
    if not item.events or item.events[0].kind not in ("ROW", "TRUNCATE"):
        return item.record.value  # a heartbeat, a transaction's, a schema change: no Envelope
    document = loads_tokens(item.record.value)
    payload, schema = (document["payload"], document["schema"]) if schemas_enable else (document, None)
    if payload["after"] is None and payload["before"] is None:
        return _DROPPED  # a TRUNCATE
    deleted = payload["after"] is None
    if deleted and not smt.rewrites:
        if smt.mode in ("drop", "delete-to-tombstone"):
            return _DROPPED if smt.mode == "drop" else None
        # the row's schema and a null (JsonConverter: an optional schema's null; without schemas the text null)
        return dumps_bytes(None if schema is None else {"schema": _without_field(_image(schema)), "payload": None})
    row = dict(payload["before"] if deleted else payload["after"])
    if smt.rewrites:  # InsertField: a static optional string
        row["__deleted"] = "true" if deleted else "false"
    added = [(name, _field(schema, struct) if struct and schema else schema, struct, field)
             for struct, field, name in map(_reference, smt.added)]
    # a field the envelope has not is not added (FieldReference.getSchema is empty)
    added = [(name, parent_schema, struct, field) for name, parent_schema, struct, field in added
             if (_field(parent_schema, field) is not None if schema else field in ((payload.get(struct) or {}) if struct else payload)
                 or struct == "transaction")]
    for name, _, struct, field in added:
        parent = payload if struct is None else payload.get(struct)
        row[name] = None if parent is None else parent.get(field)
    if schema is None:
        return dumps_bytes(row)
    fields = list(_image(schema)["fields"]) + ([{"type": "string", "optional": True, "field": "__deleted"}] if smt.rewrites else [])
    fields += [{**_basics(_field(parent_schema, field) or {}), "optional": True, "field": name}
               for name, parent_schema, _, field in added]
    return dumps_bytes({"schema": {"type": "struct", "fields": fields, "optional": False, "name": _image(schema)["name"]},
                        "payload": row})


def _image(envelope_schema: dict) -> dict:
    """The row's schema: the envelope's `after` field (ExtractField)."""
    image = _field(envelope_schema, "after")
    if image is None:
        raise ValueError("an envelope schema without an after field")
    return image


def _reference(spec: str) -> tuple[str | None, str, str]:
    """add.fields' `f`, `s.f` or `f:n` as (struct, field, the name added), as FieldReference makes them."""
    path, _, renamed = spec.partition(":")
    parts = path.split(".")
    field = parts[-1]
    struct = parts[0] if len(parts) == 2 else None if field in ("op", "ts_ms", "ts_us", "ts_ns") else \
        "transaction" if field in ("id", "total_order", "data_collection_order") else "source"
    return struct, field, "__" + (renamed or (field if len(parts) == 1 else f"{struct}_{field}"))


def _field(schema: dict | None, name: str) -> dict | None:
    return next((f for f in (schema or {}).get("fields") or () if f.get("field") == name), None)


def _without_field(schema: dict) -> dict:
    return {k: v for k, v in schema.items() if k != "field"}


def _basics(schema: dict) -> dict:
    """SchemaUtil.copySchemaBasics: the type, name, version and parameters (no default, no doc here)."""
    return {k: schema[k] for k in ("type", "name", "version", "parameters") if k in schema}


def _flat_row(event: dict, smt: Smt) -> dict | None:
    delete = event["op"] == "DELETE"
    if delete and smt.mode == "drop":
        return None
    flat = {**event, "position": None, "pk_change": None, "before": None,
            "format_version": event["format_version"] if smt.adds("source", "version") else None,
            "tx_id": event["tx_id"] if smt.adds("transaction", "id") or smt.adds("source", "txId") else None}
    if delete and not smt.rewrites:  # a null value: the key alone
        return {**flat, "after": None, "columns": None, "snapshot": False, "source": None, "commit_ts": None,
                "emit_ts": None}
    source = {member: event["source"][member] if event["source"] and smt.adds("source", field) else None
              for member, field in SOURCE_MEMBERS.items()}
    flat.update(source=source if any(source.values()) else None,
                commit_ts=_to_ms(event["commit_ts"]) if smt.adds("source", "ts_ms") else None,
                emit_ts=_to_ms(event["emit_ts"]) if smt.adds(None, "ts_ms") else None)
    if delete:
        return {**flat, "before": event["before"], "after": None}
    if smt.adds(None, "op"):
        return flat
    return {**flat, "op": "UPSERT", "snapshot": None}


def _to_ms(instant):
    """An instant (canonical text or a datetime) as its milliseconds give it (`...T12:00:00.123456Z` ->
    `...T12:00:00.123000Z`)."""
    if instant is None or isinstance(instant, dt.datetime):
        return instant and instant.replace(microsecond=instant.microsecond // 1000 * 1000)
    whole, fraction = instant.rstrip("Z").split(".")
    return f"{whole}.{fraction[:3]}{'0' * (len(fraction) - 3)}Z"
