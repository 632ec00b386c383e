"""Debezium (SQL Server, PostgreSQL, MariaDB) through Kafka Connect's JsonConverter: profiles, encoder, oracle, and the
plug-in declaration. Its Connect types and positions are generators.debezium_connect; its adversarial records (mutators
and hostile records) generators.debezium_hostile.

Records are rendered as the connector would write them (docs: debezium `sqlserver.adoc`, `postgresql.adoc`,
`mariadb.adoc`; code: `Envelope`, `RelationalChangeRecordEmitter`; the real connectors, docs/producers.md;
see docs/formats/debezium-json.md):
key and value through JsonConverter, partitioned by Kafka's default partitioner on the key bytes,
key changes as delete + tombstone + create with `__debezium.oldkey/newkey` headers.
"""
from __future__ import annotations

import base64
import datetime as dt
import functools
import itertools
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import overload

from hypothesis import strategies as st

from cdc_conformance import keys
from cdc_conformance.generators import debezium_flattened, mariadb_ddl
from cdc_conformance.generators.bench import history_bench
from cdc_conformance.generators.debezium_connect import (
    BINLOG_SOURCE,
    RUN_ID,
    SourceClock,
    encode_value,
    epoch_ms,
    from_epoch_ms,
)
from cdc_conformance.generators.debezium_hostile import HOSTILE, MUTATORS
from cdc_conformance.generators.debezium_oracle import DebeziumOracle
from cdc_conformance.generators.debezium_profile import Profile
from cdc_conformance.generators.debezium_schemas import HEARTBEAT, SERVER_NAME_KEY, ConnectSchemas
from cdc_conformance.generators.history import Change, History, Row, Table, Transaction, histories, tables
from cdc_conformance.generators.jsontext import dumps_bytes
from cdc_conformance.generators.plugin import FormatGenerator
from cdc_conformance.generators.postgres_values import interval_iso_text
from cdc_conformance.generators.records import Expected, KafkaRecord, default_partition
from cdc_conformance.generators.values import (
    ALL_TYPES,
    BITS_TYPES,
    DURATION_TYPE,
    MONEY_TYPE,
    PG_TIMESTAMP_TYPES,
    POSTGRES_TYPES,
    SCALE_ABOVE_PRECISION_TYPE,
    TIME_24_TYPE,
    VARBIT_TYPES,
    LogicalType,
    java_double_text,
    rescale,
)
from cdc_conformance.model import CanonicalEvent

FORMAT = "debezium-json"


PRODUCER_VERSIONS = ("1.9.7.Final", "2.7.3.Final", "3.2.0.Final")  # one release per registry version
BINARY_HANDLING_MODES = ("bytes", "base64", "base64-url-safe", "hex")
DECIMAL_HANDLING_MODES = ("precise", "string", "double")


def _binary_text(mode: str, value: bytes) -> str:
    """A binary value as binary.handling.mode writes it (BinaryHandlingMode: java.util.Base64's encoder, its URL-safe
    one with padding, HexConverter's lower-case digits)."""
    if mode == "hex":
        return value.hex()
    return (base64.urlsafe_b64encode if mode == "base64-url-safe" else base64.b64encode)(value).decode()


# a BIGINT UNSIGNED under bigint.unsigned.handling.mode=precise: its 20 digits, scale 0
UNSIGNED_BIGINT_DECIMAL = LogicalType("DECIMAL", 20, 0)
UNSIGNED_BIGINT_DECIMAL_1X = LogicalType("MONEY", scale=0)  # a Connect Decimal of scale 0 and no precision


def _setting_view(profile: Profile, logical: LogicalType, value):
    """A column's type and value as the connector's settings write them: under binary.handling.mode other than bytes
    a binary column is a plain string; under decimal.handling.mode=string a decimal is its plain digits in a plain
    string (seen on the real PostgreSQL 3.3.2: `0.000000000000000000000000000001`, never exponent form), under double
    a float64 that has lost digits (SpecialValueDecimal.fromLogical: doubleValue)."""
    if logical.kind == "BYTES" and profile.binary_handling != "bytes":
        return LogicalType("STRING"), None if value is None else _binary_text(profile.binary_handling, value)
    if logical.kind in ("DECIMAL", "NUMERIC") and profile.decimal_handling == "string":  # numeric: its own scale
        return LogicalType("STRING"), None if value is None else f"{value if logical.kind == 'NUMERIC' else rescale(value, logical.places):f}"
    if logical.kind == "MONEY" and profile.decimal_handling == "string":  # streamed: its digits at scale 2 (`12.30`);
        # a snapshot's is the double's text (`snapshot_money_text`, as_written), both seen on 3.3.2 (issue 49)
        return LogicalType("STRING"), None if value is None else f"{rescale(value, 2):f}"
    if logical.kind in ("DECIMAL", "NUMERIC", "MONEY") and profile.decimal_handling == "double":
        return LogicalType("FLOAT64"), None if value is None else float(value)
    if logical.kind == "UINT64" and profile.bigint_unsigned_handling == "precise":
        # 1.9's MySQL connector gives the Decimal no precision (Flink CDC's records, seen with 3.1.1's 1.9.8)
        written = UNSIGNED_BIGINT_DECIMAL if profile.release >= (2, 0) else UNSIGNED_BIGINT_DECIMAL_1X
        return written, None if value is None else Decimal(value)
    if logical.kind == "HSTORE" and profile.hstore_handling == "map":
        return LogicalType("HSTORE_MAP"), value
    if logical.kind == "INTERVAL" and profile.interval_handling == "string":
        return LogicalType("INTERVAL_ISO"), None if value is None else interval_iso_text(value)
    if logical.kind == "VARBIT" and not profile.source_types:  # no record says varying: the normalizer's BITS(n)
        return LogicalType("BITS", logical.precision), None if value is None else int(value or "0", 2)
    if logical.kind in ("TIME", "TIMESTAMP", "TIME_24", "PG_TIMESTAMP") and profile.time_precision == "connect" \
            and (logical.precision or 6) <= 6:  # java.util.Date: milliseconds, the rest dropped; 24:00:00 is
        #                                          86,400,000 (seen on the real PostgreSQL 3.3.2)
        if value is not None and logical.kind == "TIME_24":
            value = dt.timedelta(milliseconds=value // dt.timedelta(milliseconds=1))
        elif value is not None and not isinstance(value, str):  # an infinity is the same sentinel in ms
            value = value.replace(microsecond=value.microsecond // 1000 * 1000)
        return replace(logical, precision=3), value
    return logical, value


def written_table(table: Table, profile: Profile) -> Table:
    """`table` with each column's type as the profile's connector settings write it (`_setting_view`)."""
    return replace(table, columns=tuple(replace(c, logical=_setting_view(profile, c.logical, None)[0])
                                        for c in table.columns))


@overload
def written_row(table: Table, profile: Profile, row: Row) -> Row: ...


@overload
def written_row(table: Table, profile: Profile, row: None) -> None: ...


def written_row(table: Table, profile: Profile, row: Row | None) -> Row | None:
    """A row of `table` with each value as the profile's connector settings write it."""
    return None if row is None else {c.name: _setting_view(profile, c.logical, row[c.name])[1] for c in table.columns}


def written_fallbacks(table: Table, profile: Profile) -> dict:
    """Each column's fallback (what the connector writes for a NOT NULL column it has no value for) as the settings
    write it: the column type's own zero, then viewed (a decimal under string mode is `0.00` at scale 2, seen on the
    real PostgreSQL 3.3.2 under REPLICA IDENTITY DEFAULT; the STRING it became would say "")."""
    return {c.name: _setting_view(profile, c.logical, _fallback(c.logical))[1] for c in table.columns
            if c.logical.kind in _FALLBACKS}


def as_written(history: History, profile: Profile) -> History:
    """`history` with every column and value as the profile's connector settings write them, so that the encoder and
    the oracle see what the connector does: the canonical event of a hex binary is the STRING of its digits, the
    normalizer having no way to know the column held bytes (docs/formats/debezium-json.md, settings)."""
    table = history.table
    if all(_setting_view(profile, c.logical, None)[0] == c.logical for c in table.columns) \
            and profile.time_precision == "adaptive":  # (under connect a TIME(3)'s value is cut, its type not)
        return history
    def written(tx, row: Row | None) -> Row | None:
        return _snapshot_view(table, profile, tx, written_row(table, profile, row), row)

    transactions = tuple(replace(tx, changes=tuple(replace(ch, before=written(tx, ch.before), after=written(tx, ch.after))
                                                   for ch in tx.changes)) for tx in history.transactions)
    return replace(history, table=written_table(table, profile), transactions=transactions)


def _snapshot_view(table: Table, profile: Profile, tx, written: Row | None, row: Row | None) -> Row | None:
    """A snapshot's row as written: PostgreSQL's snapshot reads money through a double, so under
    decimal.handling.mode=string its text is `Double.toString` (`1.0E7`, `12.3`; seen on 3.3.2, docs/producers.md)."""
    if written is None or not tx.snapshot or profile.decimal_handling != "string" or profile.connector != "postgresql":
        return written
    return {**written, **{c.name: java_double_text(float(row[c.name])) for c in table.columns
                          if row is not None and c.logical.kind == "MONEY" and row[c.name] is not None}}


def profiles(prefix: str = "dbserver1", fixed: dict | None = None):
    """Producer configurations as run; `fixed` pins fields (a certified version) before the rules of what ran
    apply, so that a pinned 3.2 never draws a profile only 1.9 was run with."""
    fixed = fixed or {}
    drawn = dict(
        schemas_enable=st.booleans(),
        snapshot_style=st.sampled_from(["enum", "boolean"]),
        replica_identity=st.sampled_from(["FULL", "DEFAULT"]),
        tombstones=st.booleans(),
        partitions=st.integers(1, 3),
        prefix=st.just(prefix),
        database=st.sampled_from(["inventory", "testDB"]),
        decimal_format=st.sampled_from(["base64", "numeric"]),
        binlog_rotation=st.sampled_from([None, (999_998, 3)]),
        heartbeats=st.booleans(),
        schema_changes=st.booleans(),
    )
    drawn.update({name: st.just(value) for name, value in fixed.items() if name not in _RULED and name not in _WEIGHTED})
    ruled = {name: value for name, value in fixed.items() if name in _RULED or name in _WEIGHTED}
    return st.builds(_ruled_profile, _ruled_fields(tuple(sorted(ruled.items()))), st.fixed_dictionaries(drawn)).filter(_was_run)


# The fields the rules of what ran read (_was_run, _as_pipeline_writes): drawn together, from the combinations that pass
# the rules, instead of each on its own and the profile thrown away when they failed. Three Debezium profiles in four
# failed, and a filter that gives up costs a whole example: half the time a Debezium example took to draw.
_RULED = {
    "connector": ("postgresql", "sqlserver", "mariadb", "mysql"),
    "version": PRODUCER_VERSIONS,
    "toasted": (False, True),
    "source_types": (False, True),
    "time_precision": ("adaptive", "connect"),
    "interval_handling": ("numeric", "string"),
    "hstore_handling": ("json", "map"),
    "transaction_metadata": (False, True),
    "bigint_unsigned_handling": ("long", "precise"),
}
# ruled too, but drawn first, at their own weights: the defaults half of the time, so that bytes and Decimals keep most
# of the draws; Kafka Connect two times in three
_WEIGHTED = {
    "binary_handling": st.one_of(st.just("bytes"), st.sampled_from(BINARY_HANDLING_MODES)),
    "decimal_handling": st.one_of(st.just("precise"), st.sampled_from(DECIMAL_HANDLING_MODES)),
    "pipeline": st.sampled_from(["connect", "connect", "flink-cdc"]),
}


@st.composite
def _ruled_fields(draw, pinned: tuple) -> dict:
    """The ruled fields: the weighted ones at their weights (or as pinned), then one of the combinations of the rest
    that, with them and the pins, the rules let through (the first of them the most default: shrinking goes there)."""
    chosen = dict(pinned)
    chosen.update({name: draw(strategy) for name, strategy in _WEIGHTED.items() if name not in chosen})
    return dict(draw(st.sampled_from(_runnable(tuple(sorted(chosen.items()))))))


@functools.cache
def _runnable(chosen: tuple) -> list[tuple]:
    """Every combination of the ruled fields not in `chosen` that passes the rules with `chosen` (other fields at
    their defaults: no rule reads them, and the filter after the draw would say so)."""
    known = dict(chosen)
    free = [name for name in _RULED if name not in known]
    combinations = [dict(zip(free, values), **known) for values in itertools.product(*(_RULED[name] for name in free))]
    return [tuple(sorted(c.items())) for c in combinations if _was_run(_ruled_profile(c, {}))]


def _ruled_profile(ruled: dict, others: dict) -> Profile:
    return _as_pipeline_writes(Profile(**ruled, **others))


def _was_run(p: Profile) -> bool:
    return (not (p.connector == "mariadb" and p.release < (2, 7))  # MariaDB's connector is 2.7's
             # the MySQL connector as run here: 1.9.7 on MariaDB (docs/producers.md)
             and not (p.connector == "mysql" and p.release >= (2, 7))
             # what the connector writes for an unchanged TOASTed bytea under a text mode has not been run here
             and not (p.toasted and p.binary_handling != "bytes")
             # propagated source types as run on PostgreSQL and MariaDB's own connector, with the types as the column
             # has them
             and not (p.source_types and (p.connector not in ("postgresql", "mariadb") or p.binary_handling != "bytes"
                                          or p.decimal_handling != "precise" or p.time_precision != "adaptive"
                                          or p.interval_handling != "numeric" or p.hstore_handling != "json"))
             # Connect's time types, ISO intervals and hstore maps as run on PostgreSQL
             and not (p.time_precision == "connect" and p.connector != "postgresql")
             and not (p.connector != "postgresql" and (p.interval_handling, p.hstore_handling) != ("numeric", "json"))
             # transaction blocks as run on PostgreSQL and on MariaDB's own connector
             and not (p.transaction_metadata and p.connector not in ("postgresql", "mariadb"))
             # exact unsigned BIGINTs as run on MariaDB, with decimals in their default mode
             and not (p.bigint_unsigned_handling == "precise" and (not p.binlog or p.decimal_handling != "precise")))


def _as_pipeline_writes(profile: Profile) -> Profile:
    """Flink CDC's MySQL source as run by its users: the MySQL connector of Debezium 1.9 (Flink CDC 2.3 to 3.x), the
    default server name, a JSON string per record (the Snapshot enum's text, no tombstone, one partition: no key
    to place it by), none of the connector-side extras (transaction metadata, heartbeats and schema changes are
    records its emitter drops or a separate option's)."""
    if not profile.flink_cdc:
        return profile
    # bigint.unsigned.handling.mode=precise: Flink CDC sets it (MySqlSourceConfigFactory), decimals in their default mode
    return replace(profile, connector="mysql", version="1.9.7.Final", prefix="mysql_binlog_source", snapshot_style="enum",
                   bigint_unsigned_handling="precise", decimal_handling="precise",
                   tombstones=False, partitions=1, transaction_metadata=False, heartbeats=False, schema_changes=False,
                   source_types=False, replica_identity="FULL", toasted=False)


# ------------------------------------------------------------------------------------------------
# The encoder
# ------------------------------------------------------------------------------------------------

@dataclass
class DebeziumEncoder:
    profile: Profile
    table: Table
    clock: SourceClock = field(default_factory=SourceClock)
    _in_snapshot: bool = False  # the transaction being encoded is a snapshot's (_zoned_fixed)
    # the transaction id of the last streamed change and how many of its changes came so far (_transaction_block)
    _tx_events: tuple[str | None, int] = (None, 0)
    # a NOT NULL column's fallback as the settings write it, where they changed its type (`written_fallbacks`)
    fallbacks: dict = field(default_factory=dict)
    # each column's type in the database, where the settings write another (`as_written`): what its propagated source
    # type names (a timestamp(6) under time.precision.mode=connect is still TIMESTAMP, 29, 6)
    database_types: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.profile.binlog_rotation is not None:
            self.clock.binlog_index, self.clock.statements_per_file = self.profile.binlog_rotation
        self.schemas = ConnectSchemas(self.profile, self.table, self.database_types)
        self.oracle = DebeziumOracle(self.profile, self.table, self.schemas, FORMAT)

    # -- JsonConverter ---------------------------------------------------------------------------
    def _wrap(self, schema: dict, payload):
        return {"schema": schema, "payload": payload} if self.profile.schemas_enable else payload

    # -- payload parts -----------------------------------------------------------------------------
    def _zoned_fixed(self) -> bool:
        """2.2+ keeps a TIMESTAMP WITH TIME ZONE's fraction width (DBZ-5996). MariaDB's snapshot reads the column
        over JDBC and writes as many digits as needed; its binlog reader writes six (seen on the real 3.3.0)."""
        if self.profile.binlog:  # 1.9's MySQL connector streams as many digits as needed (seen on the real 1.9.7)
            return not self._in_snapshot and self.profile.release >= (2, 2)
        return self.profile.release >= (2, 2)

    def _written(self, logical: LogicalType, value, zoned_fixed: bool):
        """`encode_value` with this profile's encodings."""
        return encode_value(logical, value, zoned_fixed, self.profile.decimal_format, self.profile.padded_bits)

    @overload
    def row_json(self, row: Row, columns=None) -> dict: ...

    @overload
    def row_json(self, row: None, columns=None) -> None: ...

    def row_json(self, row: Row | None, columns=None) -> dict | None:
        if row is None:
            return None
        columns = columns if columns is not None else self.table.columns
        return {c.name: self._written(c.logical, row[c.name], self._zoned_fixed()) for c in columns}

    def key_payload(self, row: Row) -> dict:
        return self.row_json(row, self.table.key_columns)

    def key_bytes(self, row: Row) -> bytes:
        return dumps_bytes(self._wrap(self.schemas.key_schema(), self.key_payload(row)))

    def _snapshot_marker(self, snapshot: bool, last: bool, first: bool = False):
        if self.profile.flink_cdc:  # its own snapshot reader's offset context is never in snapshot mode
            return "false"
        if self.profile.snapshot_style == "boolean":
            return snapshot
        if not snapshot:
            return "false"
        # one table: the last record says `last` even when it is also the first (seen on the real connectors)
        return "last" if last else "first" if first and self.profile.marks_first_snapshot_record else "true"

    def _source(self, tx: Transaction, position: dict, last_in_snapshot: bool, first_in_snapshot: bool = False) -> dict:
        p, commit_ms = self.profile, epoch_ms(tx.commit_time)
        if p.flink_cdc and tx.snapshot:  # RecordUtils.formatMessageTimestamp: 0 for every snapshot-phase record
            commit_ms = 0
        source = {"version": p.version, "connector": p.connector, "name": p.prefix, "ts_ms": commit_ms,
                  "snapshot": self._snapshot_marker(tx.snapshot, last_in_snapshot, first_in_snapshot),
                  "db": p.database_of(self.table)}
        if p.connector == "postgresql":
            source["sequence"] = position["sequence"]
        elif p.has_transaction_field or p.flink_cdc:  # Flink CDC's 1.9 writes it too (seen with 1.5.4, 1.9.7, 1.9.8)
            source["sequence"] = None
        if p.has_sub_millis:
            source.update(ts_us=commit_ms * 1000, ts_ns=commit_ms * 1_000_000)
        if p.binlog:
            return {**source, "table": self.table.name, **{k: position[k] for k in BINLOG_SOURCE}}
        source.update(schema=self.table.schema, table=self.table.name)
        if p.connector == "sqlserver":
            source.update(change_lsn=position["change_lsn"], commit_lsn=position["commit_lsn"],
                          event_serial_no=position["serial"])
        else:
            source.update(txId=position["tx_id"], lsn=position["lsn"], xmin=None)
        return source

    def _envelope(self, op: str, before, after, source: dict, tx: Transaction) -> dict:
        emit_us = epoch_ms(tx.commit_time) * 1000 + tx.emit_lag_us
        envelope = {"before": before, "after": after, "source": source}
        block = self._transaction_block(source, tx)
        if self.profile.has_transaction_field:
            envelope["transaction"] = block
        envelope.update(op=op, ts_ms=emit_us // 1000)
        if self.profile.has_sub_millis:
            envelope.update(ts_us=emit_us, ts_ns=emit_us * 1000)
        if self.profile.legacy_transaction_field:
            envelope["transaction"] = block
        return envelope

    def _transaction_block(self, source: dict, tx: Transaction) -> dict | None:
        """provide.transaction.metadata: a streamed change's place in its transaction, counted from 1 (one table: both
        orders agree; each half of a key change counts, its tombstone does not). MariaDB's id is the GTID
        (`0-1-9`, seen on 3.3.0). PostgreSQL's appends the event's own LSN since 2.0 (DBZ-5329), so it differs between
        the events of one transaction (seen on 3.3.2; 1.9.7 writes the xid): the oracle's tx_id is the xid all the same."""
        if not self.profile.transaction_metadata or tx.snapshot:
            return None
        transaction = source["gtid"] if self.profile.binlog else str(source["txId"])
        last, count = self._tx_events
        self._tx_events = transaction, (count if transaction == last else 0) + 1
        order = {"total_order": self._tx_events[1], "data_collection_order": self._tx_events[1]}
        if self.profile.binlog or self.profile.release < (2, 0):
            return {"id": transaction, **order}
        return {"id": f"{transaction}:{source['lsn']}", **order}

    # -- the oracle's view of one record (generators/debezium_oracle.py) -----------------------------
    @overload
    def canonical_image(self, row: Row, columns=None) -> dict: ...

    @overload
    def canonical_image(self, row: None, columns=None) -> None: ...

    def canonical_image(self, row: Row | None, columns=None) -> dict | None:
        return self.oracle.canonical_image(row, columns, self._zoned_fixed())

    # -- records -----------------------------------------------------------------------------------
    def _record(self, key: bytes | None, value: dict | None, headers=(), topic: str | None = None) -> KafkaRecord:
        if self.profile.flink_cdc:  # a Flink Kafka sink of the deserializer's strings: the value alone
            key, headers = None, ()
        partition = default_partition(key, self.profile.partitions)
        if self.profile.has_context_headers:
            headers = (*headers, ("__debezium.context.connectorLogicalName", self.profile.prefix.encode()),
                       ("__debezium.context.taskId", b"0"),
                       ("__debezium.context.connectorName", self.profile.connector.encode()))
            if self.profile.has_run_id_header:
                headers = (*headers, ("__debezium.context.runId", RUN_ID))
        return KafkaRecord(topic or self.profile.topic(self.table), partition, key,
                           None if value is None else dumps_bytes(value), tuple(headers))

    def _value(self, op, before, after, source, tx) -> dict:
        return self._wrap(self.schemas.value_schema(self._in_snapshot), self._envelope(op, before, after, source, tx))

    def _deleted_image(self, row: Row) -> tuple[dict, dict]:
        """A delete's `before` (JSON) and its canonical image. Under PostgreSQL's REPLICA IDENTITY DEFAULT the
        old row holds only the key: the connector still writes every column, NULL where the column is optional
        and the converter's fallback where it is NOT NULL (0, false, "", epoch: JdbcValueConverters), seen on
        the real 1.9.7, 2.7.3 and 3.3.2 connectors. Nothing in the record marks those values."""
        if not (self.profile.connector == "postgresql" and self.profile.replica_identity == "DEFAULT"):
            return self.row_json(row), self.canonical_image(row)
        old = {c.name: row[c.name] if c.pk_position else None if c.nullable else self.fallbacks.get(c.name, _fallback(c.logical))
               for c in self.table.columns}
        written = {c.name: self._written(c.logical, old[c.name], self._zoned_fixed() and bool(c.pk_position))
                   for c in self.table.columns}
        if self.profile.schemas_enable:
            return written, self.canonical_image(old)
        return written, {c.name: self.oracle.schemaless(c.logical, old[c.name], self._zoned_fixed() and bool(c.pk_position))
                         for c in self.table.columns}

    def _positions(self, tx: Transaction) -> list[dict]:
        """One position per change, as the database assigns them (commit LSN shared by the transaction)."""
        c = self.clock
        if self.profile.binlog:
            positions = c.binlog(tx)
            if self.profile.connector == "mysql" and not tx.snapshot:  # the MySQL connector's thread (0 on MariaDB)
                positions = [{**position, "thread": 0} for position in positions]
            if self.profile.flink_cdc and tx.snapshot:  # a snapshot split read from BinlogOffset.ofEarliest()
                positions = [{**position, "file": "", "pos": 0, "row": 0, "server_id": 0} for position in positions]
            elif self.profile.flink_cdc:  # its binlog reader names no MariaDB GTID (seen with Flink CDC 3.1.1)
                positions = [{**position, "gtid": None} for position in positions]
            return positions
        if self.profile.connector == "sqlserver":
            changes = [None if tx.snapshot else c.sqlserver_lsn() for _ in tx.changes]
            commit = c.sqlserver_lsn()
            return [{"change_lsn": lsn, "commit_lsn": commit, "serial": None if tx.snapshot else 1, "tx_id": None}
                    for lsn in changes]
        c.tx_count += 1
        positions = []
        for _ in tx.changes:
            lsn = c.next_log_position()
            last_commit = None if tx.snapshot else c.pg_last_commit
            positions.append({"lsn": lsn, "last_commit": last_commit, "tx_id": c.tx_count,
                              "sequence": f'[{_quoted(last_commit)},"{lsn}"]'})
        if not tx.snapshot:
            c.pg_last_commit = c.next_log_position()
        return positions

    def encode(self, history: History) -> list[Expected]:
        out: list[Expected] = []
        if self.profile.schema_changes and self.profile.binlog:
            out.extend(self._schema_snapshot(history))
        for tx in history.transactions:
            self._in_snapshot = tx.snapshot
            if self.profile.binlog:
                tx = replace(tx, changes=self._binlogged(tx))
            if self.profile.loses_streamed_ltree and not tx.snapshot:
                tx = replace(tx, changes=tuple(replace(c, before=self._ltree_lost(c.before), after=self._ltree_lost(c.after))
                                               for c in tx.changes))
            for index, (change, position) in enumerate(zip(tx.changes, self._positions(tx))):
                last = tx.snapshot and index == len(tx.changes) - 1
                out.extend(self._encode_change(change, tx, position, last, first=tx.snapshot and index == 0))
            if self.profile.heartbeats and not tx.snapshot:
                out.append(self._heartbeat(tx))
        return out

    def _heartbeat(self, tx: Transaction) -> Expected:
        """A heartbeat (Debezium's HeartbeatImpl, the same on every connector; seen on 3.3.2 and 1.9.7): the key names
        the server, the value is the time it was sent, no headers. Its event: HEARTBEAT, the server its source."""
        sent_ms = (epoch_ms(tx.commit_time) * 1000 + tx.emit_lag_us) // 1000 + 1
        # SchemaFactory (2.0, DBZ-5044) gives both schemas a version; 1.9.7 wrote none
        versioned = {"version": 1} if self.profile.has_schema_factory else {}
        key = self._wrap({**SERVER_NAME_KEY, **versioned}, {"serverName": self.profile.prefix})
        value = self._wrap({**HEARTBEAT, **versioned}, {"ts_ms": sent_ms})
        key_bytes = dumps_bytes(key)
        record = KafkaRecord(self.profile.heartbeat_topic(), default_partition(key_bytes, self.profile.partitions),
                             key_bytes, dumps_bytes(value))
        source = {"system": None, "server": self.profile.prefix, "database": None, "schema": None, "table": None}
        return Expected(record, [CanonicalEvent(event_id="", format=FORMAT, kind="HEARTBEAT", origin=[], source=source,
                                                emit_ts=from_epoch_ms(sent_ms))])

    # -- schema changes (include.schema.changes) ---------------------------------------------------
    def _schema_snapshot(self, history: History) -> list[Expected]:
        """The schema snapshot of a binlog connector (seen on the real MariaDB 3.3.0 and 1.9.7 connectors, every type
        of the tier's list): the server's character set; a DROP TABLE IF EXISTS for each table; then for each database
        DROP DATABASE IF EXISTS, CREATE DATABASE, USE and each table's SHOW CREATE TABLE text; databases and tables in
        the order of their names. The history's table and database are the generator's (the real-producer tier's
        progress database sorts before every drawn one). Each record holds the snapshot's binlog position; the last says
        `last` when no row of the table is read after it."""
        database, name = self.profile.database_of(self.table), self.table.name
        both = f"{mariadb_ddl.quoted(database)}.{mariadb_ddl.quoted(name)}"
        table_id = f'"{database}"."{name}"'  # TableId.toDoubleQuotedString: no escaping
        statements: list[tuple[str, str | None, str, str, list]] = [
            ("", None, f"SET character_set_server={mariadb_ddl.CHARSET}, collation_server={mariadb_ddl.SERVER_COLLATION}",
             "OTHER", []),
            # the table change of a DROP: 3.3.0 writes it, 1.9.7 an empty list
            (database, name, f"DROP TABLE IF EXISTS {both}", "DROP",
             [{"type": "DROP", "id": table_id, "table": None}] if self.profile.has_schema_factory else []),
            (database, None, f"DROP DATABASE IF EXISTS {mariadb_ddl.quoted(database)}", "DROP", []),
            (database, None, f"CREATE DATABASE {mariadb_ddl.quoted(database)} CHARSET {mariadb_ddl.CHARSET} "
                             f"COLLATE {mariadb_ddl.DATABASE_COLLATION}", "CREATE", []),
            (database, None, f"USE {mariadb_ddl.quoted(database)}", "OTHER", []),
            (database, name, mariadb_ddl.show_create_table(self.table), "CREATE",
             [{"type": "CREATE", "id": table_id, "table": self.schemas.table_description()}])]
        made_ms = min((epoch_ms(tx.commit_time) for tx in history.transactions), default=0) - 1
        rows_follow = any(tx.snapshot for tx in history.transactions)
        schema = self.schemas.schema_change_value()  # the connector's own: the same for every record
        return [self._schema_change(schema, made_ms, database_name, table_name, ddl, change, table_changes,
                                    last=index == len(statements) - 1 and not rows_follow)
                for index, (database_name, table_name, ddl, change, table_changes) in enumerate(statements)]

    def _schema_change(self, schema: dict, made_ms: int, database: str, table_name: str | None, ddl: str, change: str,
                       table_changes: list, last: bool) -> Expected:
        """One schema-change record: its key the database, its value the statement and the tables it changes. Its
        event: DDL with the statement, and the change its first table change (or its first word) names."""
        p = self.profile
        coordinates = self.clock.snapshot_coordinates()
        source = {"version": p.version, "connector": p.connector, "name": p.prefix, "ts_ms": made_ms,
                  "snapshot": self._snapshot_marker(True, last), "db": database, "sequence": None}
        if p.has_sub_millis:
            source.update(ts_us=made_ms * 1000, ts_ns=made_ms * 1_000_000)
        source.update(table=table_name, **{k: coordinates[k] for k in BINLOG_SOURCE})
        sent_ms = made_ms + 1
        value = {"source": source, **({"ts_ms": sent_ms} if p.has_schema_factory else {}), "databaseName": database,
                 "schemaName": None, "ddl": ddl, "tableChanges": table_changes}
        key = dumps_bytes(self._wrap(self.schemas.schema_change_key(), {"databaseName": database}))
        record = self._record(key, self._wrap(schema, value), topic=p.schema_change_topic())
        event = CanonicalEvent(
            event_id="", format=FORMAT, kind="DDL", origin=[], format_version=p.format_version, snapshot=True,
            source={"system": p.connector, "server": p.prefix, "database": database, "schema": None, "table": table_name},
            position=self.oracle.canonical_position(coordinates), commit_ts=from_epoch_ms(made_ms),
            emit_ts=from_epoch_ms(sent_ms) if p.has_schema_factory else None, ddl={"statement": ddl, "change": change})
        return Expected(record, [event])

    def _ltree_lost(self, row: Row | None) -> Row | None:
        """`row` with its ltree values as 1.9 streams them (Profile.loses_streamed_ltree)."""
        if row is None:
            return None
        return {**row, **{c.name: None if c.nullable else "" for c in self.table.columns
                          if c.logical.kind == "LTREE" and row[c.name] is not None}}

    def _binlogged(self, tx: Transaction) -> tuple[Change, ...]:
        """The changes of a transaction as MariaDB logs them (seen on the real 3.3.0 connector): a snapshot reads the
        table in its clustered index's order, the key's; an UPDATE that leaves its row as it was writes no row event
        (handler::ha_update_row logs only rows whose image changed, compare_record)."""
        if tx.snapshot:
            return tuple(sorted(tx.changes, key=lambda change: self.table.key_of(change.new)))
        return tuple(c for c in tx.changes if c.binlogged)

    def _encode_change(self, change: Change, tx: Transaction, position: dict, last: bool, first: bool = False) -> list[Expected]:
        source = self._source(tx, position, last, first)
        columns = self.oracle.columns(self._in_snapshot)
        if change.kind == "TRUNCATE":
            value = self._value("t", None, None, source, tx)
            return [Expected(self._record(None, value), [self.oracle.event("TRUNCATE", tx, position)])]
        if change.kind in ("READ", "INSERT"):
            op = "r" if change.kind == "READ" else "c"
            value = self._value(op, None, self.row_json(change.new), source, tx)
            event = self.oracle.event("ROW", tx, position, op="INSERT", snapshot=tx.snapshot, columns=columns,
                                key=self.oracle.canonical_key(change.new), after=self.canonical_image(change.new))
            return [Expected(self._record(self.key_bytes(change.new), value), [event])]
        if change.kind == "DELETE":
            return self._delete(change.old, tx, position, source, columns)
        if self.table.key_of(change.old) != self.table.key_of(change.new):
            return self._key_change(change, tx, position, columns)
        before_columns = (self.table.columns if not (self.profile.connector == "postgresql"
                                                    and self.profile.replica_identity == "DEFAULT") else None)
        if self.profile.connector == "sqlserver":
            position = {**position, "serial": 2}  # CDC's old-values row is serial 1 and is dropped
            source = self._source(tx, position, last)
        before_json = self.row_json(change.old, before_columns) if before_columns else None
        toasted = self._toasted(change)
        after_json = {**self.row_json(change.new), **{c.name: _placeholder(c.logical) for c in toasted}}
        value = self._value("u", before_json, after_json, source, tx)
        kept = [c for c in self.table.columns if c not in toasted]
        event = self.oracle.event("ROW", tx, position, op="UPDATE", snapshot=False, columns=columns,
                            key=self.oracle.canonical_key(change.new),
                            before=self.canonical_image(change.old, before_columns) if before_columns else None,
                            after=self.canonical_image(change.new, kept))
        return [Expected(self._record(self.key_bytes(change.new), value), [event])]

    def _toasted(self, change: Change) -> list:
        """Columns whose unchanged values PostgreSQL does not send (TOASTed, REPLICA IDENTITY DEFAULT): the
        connector writes its placeholder instead, and the canonical image leaves them out (not supplied)."""
        p = self.profile
        if not (p.toasted and p.connector == "postgresql" and p.replica_identity == "DEFAULT"):
            return []
        return [c for c in self.table.columns if not c.pk_position and c.logical.kind in ("STRING", "BYTES")
                and change.old[c.name] is not None and change.old[c.name] == change.new[c.name]]

    def _delete(self, row: Row, tx, position, source, columns, headers=(), pk_change=None) -> list[Expected]:
        before_json, before = self._deleted_image(row)
        value = self._value("d", before_json, None, source, tx)
        key = self.key_bytes(row)
        event = self.oracle.event("ROW", tx, position, op="DELETE", snapshot=False, columns=columns,
                            key=self.oracle.canonical_key(row), before=before, pk_change=pk_change)
        out = [Expected(self._record(key, value, headers), [event])]
        if self.profile.tombstones:  # with the delete's headers (a key change's partner key too)
            out.append(Expected(self._record(key, None, headers),
                                [self.oracle.event("TOMBSTONE", tx, None, key=self.oracle.canonical_key(row))]))
        return out

    def _key_change(self, change: Change, tx, position, columns) -> list[Expected]:
        old_key, new_key = self.key_payload(change.old), self.key_payload(change.new)
        canonical_position = self.oracle.canonical_position(position)
        group = pk_change_group(self.profile, self.table, canonical_position, old_key, new_key)
        if self.profile.connector == "sqlserver":  # CDC's serial numbers order the halves
            delete_position, insert_position = position, {**position, "serial": 2}
        else:  # one log position for both: the normalizer orders them by seq (keys.HALF_SEQ)
            delete_position, insert_position = ({**position, "key_change_half": role} for role in ("OLD", "NEW"))
        out = self._delete(change.old, tx, delete_position, self._source(tx, delete_position, False), columns,
                           headers=[("__debezium.newkey", connect_header_text(new_key))],
                           pk_change={"group": group, "role": "OLD"})
        value = self._value("c", None, self.row_json(change.new), self._source(tx, insert_position, False), tx)
        event = self.oracle.event("ROW", tx, insert_position, op="INSERT", snapshot=False, columns=columns,
                            key=self.oracle.canonical_key(change.new), after=self.canonical_image(change.new),
                            pk_change={"group": group, "role": "NEW"})
        out.append(Expected(self._record(self.key_bytes(change.new), value,
                                         [("__debezium.oldkey", connect_header_text(old_key))]), [event]))
        return out


def connect_header_text(payload: dict) -> bytes:
    """A key struct as Kafka Connect's default header converter writes it (SimpleHeaderConverter ->
    Values.convertToString): JSON-like, but strings escape only backslashes and double quotes, so control
    characters stay raw (seen on the real connector; a strict JSON parser refuses them)."""
    def text(value) -> str:
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return str(value)

    return ("{" + ",".join(f"{text(name)}:{text(value)}" for name, value in payload.items()) + "}").encode()


def _placeholder(logical: LogicalType) -> str:
    """The unavailable-value placeholder as the connector writes it for a text or bytea column."""
    placeholder = "__debezium_unavailable_value"
    return base64.b64encode(placeholder.encode()).decode() if logical.kind == "BYTES" else placeholder


# what the connector's value converters give a NOT NULL column it has no value for (JdbcValueConverters'
# fallbacks), as the Python values the encoder renders: a zone-less epoch for the zoned timestamp
_FALLBACKS = {"INT16": 0, "INT32": 0, "INT64": 0, "BOOLEAN": False, "STRING": "", "DECIMAL": Decimal(0), "MONEY": Decimal(0),
              "FLOAT64": 0.0, "DATE": dt.date(1970, 1, 1), "TIME": dt.time(0), "DURATION": dt.timedelta(0), "TIMESTAMP": dt.datetime(1970, 1, 1),
              "PG_TIMESTAMP": dt.datetime(1970, 1, 1), "PG_TIMESTAMP_TZ": dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
              "TIMESTAMP_TZ": dt.datetime(1970, 1, 1, tzinfo=dt.UTC), "BYTES": b"", "BITS": 0,
              "VARBIT": "", "TIME_24": dt.timedelta(0), **dict.fromkeys(
                  ["UUID", "PG_JSON", "PG_JSONB", "XML", "INET", "LTREE", "INT_RANGE", "CIDR", "TS_RANGE", "INT8_RANGE",
                   "NUM_RANGE", "DATE_RANGE", "TSTZ_RANGE"], ""),
              "TIME_TZ": "00:00:00+00:00",  # written 00:00:00Z (seen on 3.3.2)
              "NUMERIC": Decimal(0), "INT_ARRAY": [], "TEXT_ARRAY": [], "INTERVAL": (0, 0, 0), "INTERVAL_ISO": "",
              "HSTORE": {}, "HSTORE_MAP": {}}

def _fallback(logical: LogicalType):
    """A NOT NULL column's fallback; a nanosecond type's epoch is the count 0."""
    return 0 if logical.kind in ("TIME", "TIMESTAMP") and logical.precision == 9 else _FALLBACKS[logical.kind]


def _quoted(value) -> str:
    return "null" if value is None else f'"{value}"'


def pk_change_group(profile: Profile, table: Table, position: dict | None, old_key: dict, new_key: dict) -> str:
    """The group id both halves of a key change compute (cdc_conformance.keys, the decoder's own definition)."""
    at = position or {}  # Flink CDC's snapshot phase has no position: the group is the table's and keys' alone
    return keys.group({**profile.canonical_source(table), "commit": at.get("commit"), "event": at.get("event")},
                      old_key, new_key)


def encode(history: History, profile: Profile) -> list[Expected]:
    """Records with expected events; call `with_coordinates` once their topics' state is known."""
    fallbacks = written_fallbacks(history.table, profile)
    database_types = {c.name: c.logical for c in history.table.columns}
    history = as_written(history, profile)
    expected = DebeziumEncoder(profile, history.table, fallbacks=fallbacks, database_types=database_types).encode(history)
    # the connector's SMT rewrites each record before the converter writes it
    return debezium_flattened.flattened(expected, profile.flattened, profile.schemas_enable) if profile.flattened else expected


# ------------------------------------------------------------------------------------------------
# The plug-in declaration
# ------------------------------------------------------------------------------------------------

@st.composite
def examples(draw, fixed: dict | None = None):
    profile = draw(profiles(fixed=fixed))
    return profile, draw(histories(tables(value_types=value_types(profile)),
                                   # 1.9's MySQL connector wrote no TRUNCATE (seen on MariaDB: docs/producers.md)
                                   allow_truncate=profile.connector in ("postgresql", "mariadb"),
                                   # Flink CDC drops the headers that pair a key change's halves, which share one
                                   # binlog position: a plain DELETE and INSERT no position orders (the page's gap)
                                   allow_key_change=not profile.flink_cdc))


def value_types(profile: Profile) -> list[LogicalType]:
    """The column types a profile's connector writes: BIT(n) as Bits where the database has it (MySQL's stop at 64
    bits; SQL Server's BIT is one bit, a boolean), MariaDB's GEOMETRY as a Geometry struct."""
    if profile.connector == "sqlserver":
        return ALL_TYPES
    if profile.connector == "postgresql":  # its bit varying, its time's 24:00, its timestamps' infinity, the types of its own users hold
        # money under decimal.handling.mode=string too: streamed as its digits, in a snapshot as Double.toString
        # (`1.0E7`; seen on 3.3.2: _setting_view, _snapshot_view)
        return (ALL_TYPES + BITS_TYPES + VARBIT_TYPES + [TIME_24_TYPE] + PG_TIMESTAMP_TYPES + POSTGRES_TYPES + [MONEY_TYPE]
                + [SCALE_ABOVE_PRECISION_TYPE])
    return ALL_TYPES + [t for t in BITS_TYPES if t.digits <= 64] + [LogicalType("GEOMETRY"), DURATION_TYPE]


def render(example, topic: str, index: int) -> list[Expected]:
    profile, history = example
    return encode(history, replace(profile, prefix=f"server{index}", topic_override=topic))


def coverage(events: list[dict], quarantine: list[dict]) -> list[str]:
    kinds = {e["kind"] for e in events}
    problems = [f"no {kind} event drawn" for kind in ("ROW", "TOMBSTONE", "TRUNCATE") if kind not in kinds]
    return problems + ([] if any(e["pk_change"] for e in events) else ["no key change drawn"])


SHARED_PROFILE = Profile(connector="postgresql", version="3.2.0.Final", replica_identity="FULL", prefix="shared")


def shared_history(history, topic: str, index: int):
    return render((SHARED_PROFILE, history), topic, index)


# The envelope as Spark DDL, schema and payload, the way a job that only parses the topic reads it (the benchmark's
# plain pass): every scalar as text, the row images and source as maps
_COLUMN = "struct<type:string,name:string,field:string,optional:string,parameters:map<string,string>>"
_PAYLOAD = ("before:map<string,string>,after:map<string,string>,source:map<string,string>,transaction:map<string,string>,"
            "op:string,ts_ms:string,ts_us:string,ts_ns:string,message:map<string,string>,status:string,id:string,ddl:string,"
            "databaseName:string,tableChanges:string")
PLAIN_SCHEMA = (f"struct<schema:struct<type:string,name:string,fields:array<struct<type:string,name:string,field:string,"
                f"optional:string,fields:array<{_COLUMN}>>>>,payload:struct<{_PAYLOAD}>,{_PAYLOAD}>")


def _plain_schema() -> str:
    return PLAIN_SCHEMA


GENERATOR = FormatGenerator(
    format_id=FORMAT,
    examples=examples,
    # Flink CDC runs Debezium 1.9 only: a version of another line draws Kafka Connect's records
    version_profile=lambda version: {"version": next(v for v in PRODUCER_VERSIONS if v.startswith(f"{version}.")),
                                     **({} if version == "1.9" else {"pipeline": "connect"})},
    examples_pinned=lambda fixed: examples(fixed=fixed),
    render=render,
    partitions=lambda example: example[0].partitions,
    mutators=MUTATORS,
    hostile=HOSTILE,
    coverage=coverage,
    shared_history=shared_history,
    bench=history_bench(shared_history, _plain_schema),
    value_types=tuple(ALL_TYPES),
    history_features=frozenset({"snapshot", "truncate", "key-change"}),
)
