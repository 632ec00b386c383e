"""What Debezium's records must become: the canonical events of one profile's table (the oracle's side of the encoder,
generators/debezium.py), whatever converter wrote them: images, keys, columns, positions, transactions and times as
docs/formats/debezium-json.md decides them."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any, overload

from cdc_conformance import keys
from cdc_conformance.generators.debezium_connect import binlog_file, epoch_ms, fixed_digits, hex_lsn, schemaless_text
from cdc_conformance.generators.debezium_profile import Profile
from cdc_conformance.generators.debezium_schemas import ConnectSchemas
from cdc_conformance.generators.history import Row, Table, Transaction
from cdc_conformance.generators.values import EPOCH, LogicalType, canonical_text
from cdc_conformance.model import CanonicalEvent, Column


@dataclass
class DebeziumOracle:
    profile: Profile
    table: Table
    schemas: ConnectSchemas
    format_id: str = "debezium-json"

    def schemaless(self, logical: LogicalType, value, zoned_fixed: bool) -> str | None:
        """`schemaless_text` with this profile's encodings: what a value's JSON keeps without a schema."""
        return schemaless_text(logical, value, zoned_fixed, self.profile.decimal_format, self.profile.padded_bits)

    def canonical_key(self, row: Row) -> list[tuple[str, str | None]]:
        return [(c.name, canonical_text(c.logical, row[c.name])) for c in self.table.key_columns]

    def columns(self, in_snapshot: bool = False) -> list[Column] | None:
        if not self.profile.schemas_enable:
            return None
        # nullable is what the schema says (optional), which is not always the column's NOT NULL (a geometry)
        # the source type: a propagated type, else the semantic name, else the Connect type (the normalizer's)
        return [Column(c.name, i + 1, descriptor.get("parameters", {}).get("__debezium.source.column.type")
                       or descriptor.get("name") or descriptor["type"], c.logical.name, descriptor["optional"], c.pk_position)
                for i, (c, descriptor) in enumerate(zip(self.table.columns, self.schemas.row_fields(in_snapshot)))]

    def canonical_position(self, position: dict) -> dict | None:
        if self.profile.binlog and position["file"] == "":  # Flink CDC's snapshot phase: no binlog coordinates
            return None
        if self.profile.binlog:
            return {"commit": f"{binlog_file(position['file'])}:{fixed_digits(position['pos'])}", "event": str(position["row"]).zfill(10),
                    "seq": keys.HALF_SEQ.get(position.get("key_change_half"), keys.PLAIN_SEQ)}
        if self.profile.connector == "sqlserver":
            return {"commit": hex_lsn(position["commit_lsn"]), "event": hex_lsn(position["change_lsn"]),
                    "seq": fixed_digits(position["serial"])}
        # `sequence` [null, lsn] before the connector's first COMMIT: a commit part of zeros, before every later one
        # however a consumer sorts NULLs (issue 39 A10)
        return {"commit": fixed_digits(position["last_commit"] or 0), "event": fixed_digits(position["lsn"]),
                "seq": keys.HALF_SEQ.get(position.get("key_change_half"), keys.PLAIN_SEQ)}

    def event(self, kind: str, tx: Transaction, position: dict | None, **fields) -> CanonicalEvent:
        p = self.profile
        emit_us = epoch_ms(tx.commit_time) * 1000 + tx.emit_lag_us
        if not p.has_sub_millis:
            emit_us -= emit_us % 1000
        base: dict[str, Any] = dict(event_id="", format=self.format_id, kind=kind, origin=[])
        if kind == "TOMBSTONE":
            return CanonicalEvent(**base, **fields)
        if position is None:
            raise ValueError(f"a {kind} event has a source position; only a tombstone has none")
        if p.flink_cdc:  # no Kafka key: the events' key, and which columns are the key's, are unknown
            columns = [replace(c, pk_position=None) for c in fields.get("columns") or []] or fields.get("columns")
            fields = {**fields, "key": None, **({"columns": columns} if "columns" in fields else {})}
        return CanonicalEvent(
            **base, format_version=p.format_version,
            source=p.canonical_source(self.table),
            position=self.canonical_position(position),
            tx_id=self.tx_id(tx, position),
            # a snapshot read's ts_ms of 0 (Flink CDC's snapshot phase) is no time
            commit_ts=None if p.flink_cdc and tx.snapshot else tx.commit_time.replace(microsecond=tx.commit_time.microsecond // 1000 * 1000),
            emit_ts=EPOCH.replace(tzinfo=dt.UTC) + dt.timedelta(microseconds=emit_us),
            **fields)

    def tx_id(self, tx: Transaction, position: dict) -> str | None:
        """PostgreSQL's xid (source.txId); MariaDB's GTID when its transaction block names it (a snapshot has none)."""
        if self.profile.connector == "postgresql" and position["tx_id"] is not None:
            return str(position["tx_id"])
        if self.profile.connector == "mariadb" and self.profile.transaction_metadata and not tx.snapshot:
            return position["gtid"]
        return None

    @overload
    def canonical_image(self, row: Row, columns=None, zoned_fixed: bool = False) -> dict: ...

    @overload
    def canonical_image(self, row: None, columns=None, zoned_fixed: bool = False) -> None: ...

    def canonical_image(self, row: Row | None, columns=None, zoned_fixed: bool = False) -> dict | None:
        """The image's canonical text: the value's own with a schema; without one, the text its JSON keeps (`zoned_fixed`:
        a TIMESTAMP WITH TIME ZONE written with its fraction's full width)."""
        if row is None:
            return None
        columns = columns if columns is not None else self.table.columns
        if self.profile.schemas_enable:
            return {c.name: canonical_text(c.logical, row[c.name]) for c in columns}
        return {c.name: self.schemaless(c.logical, row[c.name], zoned_fixed) for c in columns}
