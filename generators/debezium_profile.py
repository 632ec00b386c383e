"""How one Debezium deployment writes: the connector, its release, the converter's and the table's settings (a profile),
and what follows from them (topics, the source block's members, the transaction block). The encoder
(generators/debezium.py), the Connect schemas (generators/debezium_schemas.py) and the oracle
(generators/debezium_oracle.py) all read it."""
from __future__ import annotations

from dataclasses import dataclass

from cdc_conformance.generators.history import Table


@dataclass(frozen=True)
class Profile:
    """How one Debezium deployment writes: connector, release, converter and table settings."""

    connector: str = "postgresql"          # postgresql | sqlserver | mariadb | mysql (1.x's MySQL connector on MariaDB)
    version: str = "2.7.3.Final"
    schemas_enable: bool = True
    snapshot_style: str = "enum"           # enum (the wire format since 0.10) | boolean (old doc examples)
    replica_identity: str = "FULL"         # PostgreSQL only: FULL | DEFAULT
    tombstones: bool = True
    partitions: int = 1
    prefix: str = "dbserver1"  # topic.prefix (database.server.name before 2.0)
    database: str = "inventory"
    topic_override: str | None = None  # batched property runs share topics across examples
    decimal_format: str = "base64"         # JsonConverter's decimal.format: base64 (the default) | numeric
    # the connector's binary.handling.mode: bytes (the default) | base64 | base64-url-safe | hex; and its
    # decimal.handling.mode: precise (the default) | string | double (issue 40: what users choose)
    binary_handling: str = "bytes"
    decimal_handling: str = "precise"
    toasted: bool = False                  # PostgreSQL RI DEFAULT: unchanged text/bytea values are TOASTed
    # column.propagate.source.type=.* (PostgreSQL, MariaDB): each value field's schema names its column's type (issue 40)
    source_types: bool = False
    # time.precision.mode (PostgreSQL): adaptive (the default) | connect: Kafka Connect's own Date, Time, Timestamp,
    # in milliseconds (a time's and a timestamp's microseconds are lost: the connector's)
    time_precision: str = "adaptive"
    # interval.handling.mode (PostgreSQL): numeric (the default: MicroDuration, microseconds with 30.4375-day months)
    # | string (io.debezium.time.Interval, ISO 8601)
    interval_handling: str = "numeric"
    # hstore.handling.mode (PostgreSQL): json (the default: the pairs as a JSON object's text) | map (a Connect map)
    hstore_handling: str = "json"
    # bigint.unsigned.handling.mode (MariaDB, MySQL): long (the default: an int64, negative past 2^63 - 1) | precise
    # (a Connect Decimal of scale 0)
    bigint_unsigned_handling: str = "long"
    # provide.transaction.metadata (PostgreSQL, MariaDB): each streamed change's `transaction` block names its
    # transaction (PostgreSQL `<xid>:<the event's LSN>` since 2.0, the xid before; MariaDB its GTID) and its place
    # in it; the BEGIN/END records on
    # `<prefix>.transaction` are not drawn (their cases are curated)
    transaction_metadata: bool = False
    # heartbeat.interval.ms: a heartbeat on `__debezium-heartbeat.<prefix>` after each streamed transaction (the
    # connector sends one when the interval has passed; here one per transaction, the most a history can see)
    heartbeats: bool = False
    # include.schema.changes (the binlog connectors; PostgreSQL's writes none): the schema snapshot's statements on
    # `<prefix>` (the connector writes no schema change for the histories' streamed statements: a TRUNCATE is none
    # since 2.x, and 1.9's MySQL connector, which wrote one, streams no TRUNCATE from MariaDB here)
    schema_changes: bool = False
    # binlog files (MariaDB): None, the server's first file and no rotation (as the real-producer tier's server
    # writes); or (first file's index, statements per file): MySQL numbers files .000001 on and past .999999 the
    # number grows (.1000000), so profiles draw histories that rotate across it (issue 39 A10)
    binlog_rotation: tuple[int, int] | None = None
    # what carries the connector's records to Kafka: "connect" (Kafka Connect and its JsonConverter), or "flink-cdc"
    # (Flink CDC's MySQL source, Debezium 1.9 inside Flink, its JsonDebeziumDeserializationSchema's text written by a
    # Flink Kafka sink): the value only (no Kafka key, no headers, tombstones dropped by MySqlRecordEmitter), and the
    # snapshot phase's rows read by Flink CDC itself from BinlogOffset.ofEarliest(): file "", pos 0, server_id 0,
    # source.ts_ms 0, snapshot "false" (StatefulTaskContext, RecordUtils.formatMessageTimestamp; issue 49)
    pipeline: str = "connect"
    # Debezium's ExtractNewRecordState SMT on the connector, its properties as the format option `flattened` gives
    # them (`delete.tombstone.handling.mode=rewrite;add.fields=op`); empty: the envelope as the connector writes it
    flattened: str = ""

    @property
    def release(self) -> tuple[int, int]:
        major, minor = self.version.split(".")[:2]
        return int(major), int(minor)

    @property
    def format_version(self) -> str:
        return "{}.{}".format(*self.release)

    @property
    def binlog(self) -> bool:
        """MariaDB's connector (its own since 2.7), or the MySQL connector that read MariaDB before it: a schema is a
        database, positions are binlog ones."""
        return self.connector in ("mariadb", "mysql")

    @property
    def flink_cdc(self) -> bool:
        return self.pipeline == "flink-cdc"

    def database_of(self, table: Table) -> str:
        return table.schema if self.binlog else self.database

    @property
    def padded_bits(self) -> bool:
        """BIT(n) bytes padded to ceil(n / 8): JdbcValueConverters.convertBits does it for the binlog connectors;
        PostgreSQL's writes as few bytes as the value needs (seen on the real 3.3.2)."""
        return self.connector != "postgresql"

    def canonical_source(self, table: Table) -> dict:
        """The canonical `source` of this deployment's events for `table` (the decoder's, and the key-change group's
        parts): a binlog connector's schema is its database, so it has none of its own."""
        return {"system": self.connector, "server": self.prefix, "database": self.database_of(table),
                "schema": None if self.binlog else table.schema, "table": table.name}

    @property
    def names_source_column(self) -> bool:
        """`__debezium.source.column.name` among a propagated type's parameters (seen on 2.7.3 and 3.3.2, not 1.9.7)."""
        return self.release >= (2, 7)

    @property
    def loses_streamed_ltree(self) -> bool:
        """1.9's PostgreSQL connector writes a streamed ltree value as null, or "" in a NOT NULL column (its snapshot
        reads them right; seen on the real 1.9.7, not on 2.7.3 or 3.3.2)."""
        return self.connector == "postgresql" and self.release < (2, 0)

    @property
    def has_sub_millis(self) -> bool:
        return self.release >= (2, 6)  # ts_us / ts_ns in source and envelope (DBZ-7107)

    @property
    def has_transaction_field(self) -> bool:
        """`transaction` after `source`, named event.block (SchemaFactory, DBZ-5044). Before 2.0 the envelope
        has it too, last and unnamed (seen on the real 1.9.7 connector: `legacy_transaction_field`)."""
        return self.release >= (2, 0)

    @property
    def legacy_transaction_field(self) -> bool:
        return self.release < (2, 0)

    @property
    def has_context_headers(self) -> bool:
        """`__debezium.context.*` headers on every record (seen on the real 3.2.0 and 3.3.2, not on 2.7.3)."""
        return self.release >= (3, 0)

    @property
    def has_run_id_header(self) -> bool:
        """... and `__debezium.context.runId`, a UUID of the connector's run, since 3.4 (seen on the real MariaDB
        connector 3.4.0 and 3.5.0, not on 3.3.0)."""
        return self.release >= (3, 4)

    @property
    def versions_source_schema(self) -> bool:
        """The Source struct's schema says `"version": 1` (real 3.2.0 and 3.3.2; not 2.7.3 or 1.9.7)."""
        return self.release >= (3, 0)

    @property
    def marks_first_snapshot_record(self) -> bool:
        """The first record of a snapshot says `first` (real 2.7.3 and 3.x; 1.9.7 says `true`)."""
        return self.release >= (2, 0)

    @property
    def snapshot_values(self) -> str:
        """The `snapshot` Enum's allowed values as the schema lists them: 2.7.3 lists four though it writes
        `first` too (both seen on the real connectors)."""
        if self.release >= (3, 0):
            return "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
        return "true,last,false,incremental"

    @property
    def has_schema_factory(self) -> bool:
        """SchemaFactory (2.0, DBZ-5044) gives the connector's own schemas a version: heartbeats', schema changes'
        (1.9.7 wrote none; both probed)."""
        return self.release >= (2, 0)

    def schema_change_topic(self) -> str:
        return self.topic_override or self.prefix

    def heartbeat_topic(self) -> str:
        return self.topic_override or f"__debezium-heartbeat.{self.prefix}"

    def topic(self, table: Table) -> str:
        if self.topic_override:
            return self.topic_override
        if self.connector == "sqlserver" and self.release >= (2, 0):
            return f"{self.prefix}.{self.database}.{table.schema}.{table.name}"  # DBZ-4726
        return f"{self.prefix}.{table.schema}.{table.name}"
