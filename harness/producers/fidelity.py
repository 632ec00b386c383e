"""Every way the project's Debezium generator was found to differ from the real connector, with what was done
about it: fixed in the generator (a difference seen again is a regression), or accepted with its reason. The
table in docs/producers.md is rendered from here (`cdc-conformance producers --table`, checked by a test)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from harness.producers.compare import Difference

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
        "real-producer histories give such labels U+FFFD (harness/producers/histories.py); canal reads the binlog's "
        "own definitions and keeps them"),
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
        r"value\.payload\.(ts_(ms|us|ns)|source\.(ts_(ms|us|ns)|txId|lsn|sequence|xmin|pos|gtid))"
        r"|headers\.__debezium\.context\.(connectorLogicalName|runId)", "clock readings, log positions, transaction ids, "
        "the logical name, the run's id", "all", ACCEPTED,
        "the database's and the run's, not the history's: compared by presence and JSON type only (masked)"),
)


def accepted(difference: Difference) -> bool:
    """A difference the table accepts with a reason; anything else (a fixed one seen again, or a new one) fails."""
    return any(known.resolution == ACCEPTED and known.matches(difference) for known in KNOWN)


def explained(difference: Difference) -> KnownDifference | None:
    return next((known for known in KNOWN if known.matches(difference)), None)


def markdown_table() -> str:
    rows = ["| where | generator / connector | seen on | resolution | why |", "|---|---|---|---|---|"]
    for known in KNOWN:
        cells = (f"`{known.where}`", known.what, known.versions, known.resolution, known.reason)
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)
