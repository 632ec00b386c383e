"""MariaDB's text of a table (generators.mariadb_ddl) and the Debezium schema snapshot written from it, against what
the real server and connector wrote (docs/producers.md, the `schema-changes` row)."""
import datetime as dt
from dataclasses import replace

from cdc_conformance.generators import debezium
from cdc_conformance.generators.history import Change, ColumnSpec, History, Table, Transaction
from cdc_conformance.generators.mariadb_ddl import column_type, show_create_table
from cdc_conformance.generators.values import LogicalType
from cdc_conformance.harness.cases import CASES_DIR, load_case
from cdc_conformance.harness.producers.compare import record_differences

# SHOW CREATE TABLE on MariaDB 10.11.19 of a table made by the real-producer tier's DDL (harness.producers.statements)
_SERVER_TEXT = """CREATE TABLE `t` (
  `k_s` varchar(250) NOT NULL,
  `k_i` int(11) NOT NULL,
  `c_tz` timestamp(6) NULL DEFAULT NULL,
  `c_j` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL CHECK (json_valid(`c_j`)),
  `n_j` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL CHECK (json_valid(`n_j`)),
  `c_e` enum('it''s','a b') DEFAULT NULL,
  `n_tz` timestamp(6) NOT NULL,
  `c_u` bigint(20) unsigned DEFAULT NULL,
  `c_y` year(4) DEFAULT NULL,
  PRIMARY KEY (`k_i`,`k_s`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin"""


def test_a_table_is_printed_as_the_server_prints_it():
    columns = (ColumnSpec("k_s", LogicalType("STRING"), False, 2), ColumnSpec("k_i", LogicalType("INT32"), False, 1),
               ColumnSpec("c_tz", LogicalType("TIMESTAMP_TZ"), True), ColumnSpec("c_j", LogicalType("JSON"), True),
               ColumnSpec("n_j", LogicalType("JSON"), False),
               ColumnSpec("c_e", LogicalType("ENUM", labels=("it's", "a b")), True),
               ColumnSpec("n_tz", LogicalType("TIMESTAMP_TZ"), False), ColumnSpec("c_u", LogicalType("UINT64"), True),
               ColumnSpec("c_y", LogicalType("YEAR"), True))
    assert show_create_table(Table("db", "t", columns)) == _SERVER_TEXT


def test_fractional_seconds_and_widths_as_the_server_prints_them():
    assert [column_type(LogicalType(kind, p)) for kind, p in
            [("TIME", 6), ("DURATION", 6), ("TIMESTAMP", 3), ("BITS", 9), ("INT16", None), ("UINT32", None)]] \
        == ["time(6)", "time(6)", "datetime(3)", "bit(9)", "smallint(6)", "int(10) unsigned"]
    assert column_type(LogicalType("STRING"), key=True) == "varchar(250)"


def test_the_schema_snapshot_is_the_real_connectors():
    """The generator's records for the case's table equal the real MariaDB 3.3.0 connector's, field by field (its clock
    and binlog position masked, as the real-producer tier compares them)."""
    case = load_case(CASES_DIR / "debezium-json" / "debezium-mariadb-schema-snapshot.yaml")
    table = Table("probe", "t", (ColumnSpec("k_id", LogicalType("INT32"), False, 1),
                                 ColumnSpec("c_v", LogicalType("STRING"), True)))
    profile = debezium.Profile(connector="mariadb", version="3.3.0.Final", prefix="p", schema_changes=True)
    generated = [item.record for item in debezium.encode(History(table, ()), profile)]
    real = case.kafka_records()
    # the real snapshot read a row after them: every record says `true`; with no row to read the last says `last`
    assert [r.topic for r in generated] == [r.topic for r in real]
    differences = [record_differences(mine, theirs) for mine, theirs in zip(generated, real)]
    assert [{d.where for d in found} for found in differences] == [set()] * 5 + [{"value.payload.source.snapshot"}]
    with_a_row = debezium.encode(History(table, (_snapshot_read(),)), profile)
    assert not any(record_differences(mine.record, theirs) for mine, theirs in zip(with_a_row, real))


def _snapshot_read():
    return Transaction((Change("READ", None, {"k_id": 1, "c_v": "a"}),), dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
                       emit_lag_us=0, snapshot=True)


def test_a_profile_without_the_setting_writes_no_schema_change():
    table = Table("probe", "t", (ColumnSpec("k_id", LogicalType("INT32"), False, 1),))
    profile = debezium.Profile(connector="mariadb", version="3.3.0.Final", prefix="p")
    assert not debezium.encode(History(table, ()), profile)
    assert not debezium.encode(History(table, ()), replace(profile, connector="postgresql", schema_changes=True))
