"""Debezium's ExtractNewRecordState SMT as the canonical model sees it: from the events of the envelope the connector
would have written to the events of the flat records the SMT writes instead (docs/formats/debezium-json.md, "Flattened
records"). The rules are the SMT's (Debezium 3.3: AbstractExtractNewRecordState, DefaultDeleteHandlingStrategy,
ExtractNewRecordState.doApply), restated on events, so that a run with the SMT is checked against a run without it.

What a flat record keeps: the row's state (after, or a rewritten delete's before), its Kafka key, its schema's
columns, and what `add.fields` adds. What it loses: the before image of an update, the position, the key-change pair,
TRUNCATE (the SMT drops it), and, without `op` added, whether the row was inserted or updated (UPSERT).
"""
from __future__ import annotations

from dataclasses import dataclass

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
    out = []
    for event in events:
        if event["kind"] == "TRUNCATE":
            continue  # handleTruncateRecord: dropped in every mode
        if event["kind"] == "TOMBSTONE":
            if smt.mode == "rewrite-with-tombstone":
                out.append(event)
            continue
        if event["kind"] != "ROW":
            out.append(event)  # not an Envelope: passed unchanged
            continue
        flat = _flat_row(event, smt)
        if flat is not None:
            out.append(flat)
    return out


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


def _to_ms(instant: str | None) -> str | None:
    """An instant as its milliseconds give it (`...T12:00:00.123456Z` -> `...T12:00:00.123000Z`)."""
    if instant is None:
        return None
    whole, fraction = instant.rstrip("Z").split(".")
    return f"{whole}.{fraction[:3]}{'0' * (len(fraction) - 3)}Z"
