"""Every way the project's Debezium generator was found to differ from the real connector, with what was done
about it: fixed in the generator (a difference seen again is a regression), or accepted with its reason. The
table in docs/producers.md is rendered from here (`cdc-conformance producers --table`, checked by a test)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from cdc_conformance.harness.producers.compare import Difference

# accepted: compared no further; fixed or kept out: seen again, it fails the run
FIXED, ACCEPTED, AVOIDED = "fixed in the generator", "accepted", "kept out of the histories"


@dataclass(frozen=True)
class KnownDifference:
    where: str            # a regular expression over Difference.where
    what: str             # the generator wrote / the connector wrote
    versions: str         # the connector releases it was seen on
    resolution: str       # FIXED, ACCEPTED or AVOIDED
    reason: str           # why, and where the fix or the rule lives

    def matches(self, difference: Difference) -> bool:
        return re.fullmatch(self.where, difference.where) is not None


KNOWN = (
    KnownDifference(
        r"headers\.__debezium\.(newkey|oldkey)", "the generator wrote the partner key as strict JSON; the connector "
        "escapes only `\\` and `\"` (a tab stays a raw tab)", "1.9.7, 2.7.3, 3.2.0, 3.3.2", FIXED,
        "Kafka Connect's default header converter writes structs with `Values.convertToString`, whose `escape` "
        "touches nothing else. `debezium.connect_header_text` writes it so; the normalizer parses partner headers "
        "allowing raw control characters (a key holding a tab had made its key change unpairable: MALFORMED_KEY)"),
    KnownDifference(
        r"headers(\.__debezium\.newkey)?", "the key change's tombstone: no headers / the delete's `__debezium.newkey`",
        "1.9.7, 2.7.3, 3.2.0, 3.3.2", FIXED,
        "the emitter sends the tombstone with the delete's headers; the generator copies them"),
    KnownDifference(
        r"headers(\.__debezium\.context\..*)?", "no headers / `__debezium.context.connectorLogicalName`, `taskId`, "
        "`connectorName` on every record", "3.2.0, 3.3.2 (not 2.7.3)", FIXED, "`Profile.has_context_headers` (3.x)"),
    KnownDifference(
        r"headers(\.__debezium\.context\.runId)?", "no header / `__debezium.context.runId` (a UUID of the "
        "connector's run) on every record", "MariaDB 3.4.0, 3.5.0 (not 3.3.0)", FIXED,
        "`Profile.has_run_id_header` (3.4+); its value is the run's, compared by presence and type"),
    KnownDifference(
        r"value\.schema\.fields\.source\.version", "the Source struct's schema without / with `\"version\": 1`",
        "3.2.0, 3.3.2 (not 1.9.7, 2.7.3)", FIXED, "`Profile.versions_source_schema` (3.x)"),
    KnownDifference(
        r"value\.payload\.source\.snapshot", "`true` / `first` on a snapshot's first record", "2.7.3, 3.2.0, 3.3.2 "
        "(1.9.7 writes `true`)", FIXED, "`Profile.marks_first_snapshot_record`; a one-record snapshot says `last`"),
    KnownDifference(
        r"value\.schema\.fields\.source\.fields\.snapshot\.parameters\.allowed", "the snapshot Enum's `allowed` list",
        "1.9.7, 2.7.3 list `true,last,false,incremental` (2.7.3 writes `first` all the same)", FIXED,
        "`Profile.snapshot_values`"),
    KnownDifference(
        r"value\.(schema\.fields\.(transaction|\(order\)(\[\*\])?)|payload\.transaction)",
        "1.9: no `transaction` field / an unnamed `transaction` struct after `ts_ms`, null", "1.9.7", FIXED,
        "`Profile.legacy_transaction_field`: the 1.9 envelope has it too, last and without the `event.block` "
        "name that 2.0 gave it (DBZ-5044)"),
    KnownDifference(
        r"value\.payload\.before(\..*)?", "REPLICA IDENTITY DEFAULT delete: `before` with the key only / every "
        "column, NULL or the converter's fallback (0, false, \"\", the epoch) outside the key",
        "1.9.7, 2.7.3, 3.2.0, 3.3.2", FIXED,
        "the old row holds only the key, and the connector fills the NOT NULL columns with its fallbacks; the "
        "canonical `before` carries them as sent, since nothing marks them (docs/formats/debezium-json.md)"),
    KnownDifference(
        r"value\.schema\.fields\.source\.(name|fields\..*)", "MariaDB: PostgreSQL's Source struct / "
        "`io.debezium.connector.mariadb.Source`: no `schema`, `table` optional, then the binlog's `server_id`, `gtid`, "
        "`file`, `pos`, `row`, `thread`, `query`", "MariaDB 3.3.0", FIXED,
        "`Profile.binlog`; a snapshot's rows carry server id 0, no GTID and the position the snapshot began at"),
    KnownDifference(
        r"key\.payload\..*", "MariaDB snapshot: rows in the history's order / in the key's",
        "MariaDB 3.3.0", FIXED, "the snapshot reads the table's clustered index, which is the key "
        "(`DebeziumEncoder._binlogged` sorts a snapshot by key; PostgreSQL's heap order is insertion order)"),
    KnownDifference(
        r"records", "MariaDB: a record / none for an UPDATE that leaves its row as it was", "MariaDB 3.3.0", FIXED,
        "the server logs a row only if its image changed (`handler::ha_update_row`, `compare_record`), so the binlog "
        "has no event for it; PostgreSQL logs every updated row. `DebeziumEncoder._binlogged` drops it (doubles bit "
        "for bit: 0.0 to -0.0 is a change)"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*", "MariaDB snapshot TIMESTAMP (ZonedTimestamp): six fraction digits / as "
        "many as needed (`07.89Z`)", "MariaDB 3.3.0", FIXED,
        "the snapshot reads the column over JDBC, the binlog reader decodes it itself and keeps six digits: "
        "`DebeziumEncoder._zoned_fixed` says which"),
    KnownDifference(
        r"value\.payload\.source\.(connector|thread)", "MariaDB through Debezium 1.9's MySQL connector: `connector` "
        "`mariadb` / `mysql` (and the Source struct `io.debezium.connector.mysql.Source`); `thread` null / 0 on "
        "streamed rows", "MariaDB 1.9.7", FIXED,
        "before 2.7 Debezium read MariaDB with its MySQL connector: `Profile(connector=\"mysql\")`, a binlog profile "
        "like MariaDB's, writes its name and the thread id it reads (0 here); the normalizer reads `mysql` positions "
        "as MariaDB's"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*", "MariaDB through 1.9's MySQL connector, streamed TIMESTAMP "
        "(ZonedTimestamp): six fraction digits / as many as needed (`1970-01-01T00:00:01Z`)", "MariaDB 1.9.7", FIXED,
        "the fixed width came with 2.2 (DBZ-5996) for the binlog reader too: `DebeziumEncoder._zoned_fixed`"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*", "PostgreSQL BIT(n) (`io.debezium.data.Bits`): the BitSet's bytes "
        "padded to ceil(n / 8) / as few as the value needs (178 in a BIT(9): `sgA=` / `sg==`; 0: `AAA=` / `\"\"`)",
        "3.3.2, 1.9.7, 2.7.3", FIXED, "`JdbcValueConverters.convertBits` pads, PostgreSQL's converter hands it the "
        "value's own bytes; the MariaDB connector pads. `Profile.padded_bits`; the normalizer reads both "
        "as the database's digits (`BITS(n)`)"),
    KnownDifference(
        r"value\.schema\.fields\.(before|after)\.fields\..*\.optional", "MariaDB GEOMETRY in a NOT NULL column: "
        "`\"optional\": false` / `true`", "MariaDB 3.3.0", FIXED,
        "`Geometry.builder()` is optional whatever the column says; the generator's geometry field is, and the "
        "canonical `nullable` is the schema's `optional`"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*\.srid", "MariaDB GEOMETRY with SRID 0: `0` / `null`",
        "MariaDB 3.3.0, 3.5.0", FIXED, "the binlog connectors write SRID 0, \"no reference system\", as null; the "
        "generator does, and the canonical text has `\"srid\":null` for 0 from any producer"),
    KnownDifference(
        r"value\.schema\.fields\.(before|after)\.fields\..*\.parameters\.allowed",
        "MariaDB ENUM or SET label outside the BMP: the label / `?`, in `allowed` and in every value of it",
        "MariaDB 3.3.0", AVOIDED,
        "the database's: its metadata is utf8mb3 (`character_set_system`), so the table definition the connector "
        "parses has `?` for a four-byte character; the row holds the label. Nothing downstream can restore it, so "
        "real-producer histories give such labels U+FFFD (harness/producers/histories.py), canal's run too (canal "
        "1.1.4 reads the table's definition from the server as well)"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*", "MariaDB YEAR 0000: 0 / 1900 when streamed; the snapshot fails "
        "(`IllegalArgumentException` in `RelationalSnapshotChangeEventSource.createDataEvents`)", "MariaDB 3.3.0",
        AVOIDED, "the connector's: the binlog's YEAR 0 is read as an offset from 1900, and the snapshot's conversion "
        "refuses year 0; the row holds 0000. Real-producer histories draw 1901 instead (harness/producers/histories.py); "
        "a consumer of this connector cannot tell 0000 from 1900"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*", "MariaDB BIGINT UNSIGNED past 2^63 - 1: the value / a negative int64 "
        "(18446744073709551615 is written -1)", "MariaDB 3.3.0", AVOIDED,
        "the connector's default `bigint.unsigned.handling.mode=long`: the bits of an unsigned 64-bit number read as a "
        "signed one; the row holds the value. Real-producer histories keep such values below 2^63 "
        "(`precise` mode writes a Decimal instead, a setting users choose)"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*\.(scale|value)", "PostgreSQL numeric without precision "
        "(`VariableScaleDecimal`): the written scale / the scale without the fraction's trailing zeros (0.00000080 is "
        "scale 7, 1500.00 and 0.000 scale 0)", "3.3.2", FIXED,
        "the connector's value has lost the column's display scale (`decimal.handling.mode=string` keeps it): "
        "`postgres_values.without_trailing_zeros`, a loss listed under the settings"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*", "PostgreSQL timetz (`io.debezium.time.ZonedTime`): six fraction digits "
        "/ as few as needed (`11:18:12.01176Z`); a NOT NULL column's fallback \"\" / `00:00:00Z`", "3.3.2", FIXED,
        "ISO_OFFSET_TIME in UTC; `encode_value` and `_FALLBACKS`"),
    KnownDifference(
        r"value\.schema\.fields\.(after|before)\.fields\..*\.parameters\.__debezium\.source\.column\.(length|scale)",
        "a numeric without precision's propagated length: one value / length 0 and no scale in a snapshot's records, "
        "131089 and 0 in streamed ones", "3.3.2", FIXED,
        "the snapshot describes the table through JDBC, streaming through the relation message: `postgres_column_type`"),
    KnownDifference(
        r"value\.schema\.fields\.(after|before)\.fields\..*\.parameters\.__debezium\.source\.column\.(length|scale)",
        "time.precision.mode=connect with column.propagate.source.type: a time(6)'s and a timestamp(6)'s length and "
        "scale as if they were (3) (12 and 3, 26 and 3) / the column's (15 and 6, 29 and 6)", "3.3.2", FIXED,
        "the propagated type is the database's, not the one a setting writes: `DebeziumEncoder.database_types` (found by "
        "running the two settings together, seed 72)"),
    KnownDifference(
        r"value\.payload\.transaction\.(total_order|data_collection_order)", "MariaDB, provide.transaction.metadata: "
        "the order counted through the history's transaction / from 1 again after a TRUNCATE and for each statement "
        "after it", "MariaDB 3.3.0", FIXED,
        "a TRUNCATE is DDL: it commits what came before it and is a transaction (GTID) of its own, and the application's "
        "later statements autocommit; `_SourceClock.binlog` gives them their GTIDs (found by the first MariaDB run of "
        "the setting, seed 87: 6 differences)"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*", "interval.handling.mode=string: the seconds as their double's exact "
        "decimal (`10.920757999S`) / its shortest digits (`10.920758S`)", "3.3.2", FIXED,
        "`Interval.toIsoString` gets the seconds through `BigDecimal.valueOf(double)`: `postgres_values.interval_iso_text`"),
    KnownDifference(
        r"value\.payload\.(after|before)\..*", "a streamed ltree: the value / null, or \"\" in a NOT NULL column",
        "1.9.7 (not 2.7.3, 3.3.2)", FIXED,
        "the connector's loss (its snapshot reads ltree right): `Profile.loses_streamed_ltree` writes the same; the "
        "1.9 runs draw no ltree column (`Database.lost_kinds`), the database holding what no record says"),
    KnownDifference(
        r"value\.payload\.(ts_(ms|us|ns)|source\.(ts_(ms|us|ns)|txId|lsn|sequence|xmin|pos|gtid)|transaction\.id)"
        r"|headers\.__debezium\.context\.(connectorLogicalName|runId)", "clock readings, log positions, transaction ids, "
        "the logical name, the run's id", "all", ACCEPTED,
        "the database's and the run's, not the history's: compared by presence and JSON type only (masked)"),
)


# canal's own server (1.1.4, the newest Maven Central serves) reading MariaDB 10.11: harness/producers/canal_mariadb.py
CANAL_KNOWN = (
    KnownDifference(
        r"records|value\.(type|isDdl|data|old|mysqlType|sqlType|pkNames|table|database)", "no message / a `QUERY` "
        "message before each statement's rows: `sql` the statement's text, `database` and `table` empty, the rest null",
        "canal 1.1.4", FIXED,
        "MariaDB logs the statement before its rows (`binlog_annotate_row_events`, on by default) and canal keeps it "
        "(`canal.instance.filter.query.dml=false`, its default; `LogEventConvert.parseAnnotateRowsEvent`). "
        "`Profile.annotations`; the normalizer makes it a `DDL` of change `OTHER` with the statement, its database and "
        "table null (the reader kept an empty `database` as \"\" until this run)"),
    KnownDifference(
        r"records|value\.(data|old)(\[\*\].*)?", "a run of changes of one kind in one message / one message per "
        "statement, none for an UPDATE that leaves its row as it was", "canal 1.1.4", FIXED,
        "one rows event per statement, and MariaDB logs no row for an unchanged one (as for Debezium). "
        "`Profile.per_statement` writes the binary log's statements (`Transaction.statements`, `Change.binlogged`); "
        "drawn profiles keep multi-row messages of several statements too"),
    KnownDifference(
        r"value\.pkNames(\[\*\])?", "the key's columns in the key's order / in the table's column order",
        "canal 1.1.4", FIXED,
        "`MQMessageUtils` walks a row's columns and takes those marked as key: the key's own order is not written. "
        "Every canal profile now writes it so, and the canonical `pk_position` is the order `pkNames` gives "
        "(docs/formats/canal-json.md)"),
    KnownDifference(
        r"value\.mysqlType\..*", "drawn spellings (`NATIONAL VARCHAR(255)`, `VARBINARY(4096)`) / the server's "
        "`desc` (`longtext`, `longblob`, a key's `varchar(250)`)", "canal 1.1.4", FIXED,
        "canal reads the table's definition from the server; `Profile.server_types` writes what MariaDB prints for "
        "the tier's columns. Drawn profiles keep the other spellings MySQL accepts"),
    KnownDifference(
        r"value\.sqlType\..*", "text and blob `12` / `-3`, a SET `-7` whatever its value / `2005` (CLOB), `2004` "
        "(BLOB), and for a NULL in the message's last row `-4` (text, blob) or `-2` (SET)", "canal 1.1.4", FIXED,
        "`MQMessageUtils` fills one map from every row, so the last row's codes stand, and a NULL's code is "
        "`RowsLogBuffer.mysqlToJavaType`'s, which `LogEventConvert` does not turn into CLOB or BLOB. "
        "`CanalEncoder._sql_types`; the normalizer types columns by `mysqlType`"),
    KnownDifference(
        r"value\.(data|old)\[\*\]\..*", "a DECIMAL at its scale / without its last, shorter group of fraction "
        "digits when that group is zero (`decimal(10,2)` 5.00 is `5.0`; `decimal(65,30)` 0 has 27 zeros)",
        "canal 1.1.4 (the same code in canal's later source)", FIXED,
        "`LogBuffer.getDecimal0` writes full groups of nine digits always and the shorter group only when not zero. "
        "`binlog_decimal_text`, for every canal profile; the normalizer gives the value at the column's scale, exact"),
    KnownDifference(
        r"value\.(data|old)\[\*\]\..*", "TIME 100:00:00 / `00:00:00.000000` (a duration of 100 hours to 100:59:59 "
        "loses its hundred)", "canal 1.1.4", AVOIDED,
        "canal's: `RowsLogBuffer` (TIME2) prints an hour count as itself only `if (d > 100)`, and exactly 100 through "
        "its two-digit path; canal's later source has `d >= 100`. The row holds 100 hours; a consumer of 1.1.4 cannot "
        "tell. The tier's histories draw 99 hours instead (harness/producers/histories.py)"),
    KnownDifference(
        r"value\.gtid", "`gtid` / no such field", "canal 1.1.4", FIXED, "`gtid` came with canal 1.1.7 (`Profile.gtid`)"),
    KnownDifference(
        r"value\.(id|es|ts|sql)", "the batch id, clocks, the statement's text", "all", ACCEPTED,
        "the run's, not the history's: compared by presence and JSON type only (masked)"),
)


def accepted(difference: Difference, known_differences: tuple[KnownDifference, ...] = KNOWN) -> bool:
    """A difference the table accepts with a reason; anything else (a fixed one seen again, or a new one) fails."""
    return any(known.resolution == ACCEPTED and known.matches(difference) for known in known_differences)


def explained(difference: Difference, known_differences: tuple[KnownDifference, ...] = KNOWN) -> KnownDifference | None:
    return next((known for known in known_differences if known.matches(difference)), None)


def _rows(known_differences: tuple[KnownDifference, ...], producer: str) -> str:
    rows = [f"| where | generator / {producer} | seen on | resolution | why |", "|---|---|---|---|---|"]
    for known in known_differences:
        cells = (f"`{known.where}`", known.what, known.versions, known.resolution, known.reason)
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


def markdown_table() -> str:
    """Debezium's table, then canal's (`producers --canal`)."""
    return (_rows(KNOWN, "connector") + "\n\ncanal's own server (`producers --canal`: canal 1.1.4 on MariaDB 10.11, "
            "Kafka 3.9):\n\n" + _rows(CANAL_KNOWN, "canal"))


@dataclass
class ProducerCheck:
    """One history through a producer that is no Debezium connector on Connect (canal's server, Flink CDC): its
    counts, the three comparisons' findings, and the versions that wrote it. `known`: the differences the table lists
    for it (one it fixed, seen again, says so)."""

    producer: str
    records: int = 0
    events: int = 0
    oracle: list[str] = field(default_factory=list)
    state: list[str] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    quarantined: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    known: tuple[KnownDifference, ...] = ()

    @property
    def problems(self) -> list[str]:
        return ([f"oracle: {p}" for p in self.oracle] + [f"database: {p}" for p in self.state]
                + [f"generator fidelity: {d.id}: generator {d.generator or '-'}, {self.producer} {d.connector or '-'}"
                   + ("" if explained(d, self.known) is None else " (a fixed difference again)") for d in self.differences]
                + [f"quarantined: {q}" for q in self.quarantined])
