"""The real-producer tier in make test: one history through PostgreSQL 15 and Debezium's PostgreSQL connector (3.3.2),
one through MariaDB 10.11 and Debezium's MariaDB connector (3.3.0), each on Kafka Connect standalone into the test
broker, checked three ways (docs/producers.md). Drawn histories run in `make producers` and `certify --producer real`
(20 per record); make test keeps the crafted one, whose every part is a trap the real connectors showed (it holds
the gate's time: about 10 s a database on one worker). canal's own server (1.1.4, on a Kafka 3.9 broker of its own)
runs a crafted history of its traps in make test-long, drawn ones in `producers --canal`."""
import datetime as dt
import glob
import struct
import subprocess
from decimal import Decimal

import pytest

from cdc_conformance.generators.history import Change, ColumnSpec, History, Table, Transaction
from cdc_conformance.generators.values import MONEY_TYPE, SCALE_ABOVE_PRECISION_TYPE, LogicalType
from cdc_conformance.harness.producers import checks
from cdc_conformance.harness.producers.mariadb import MariaDbServer
from cdc_conformance.harness.producers.postgres import PostgresCluster, ProducerUnavailable
from cdc_conformance.harness.producers.settings import DEFAULT, SETTINGS
from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER, NormalizerUnderTest
from conftest import show

# one worker runs both: each test checks that its run left no server, worker or directory behind, which another
# database's run on the other worker would look like
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("real-producers")]


@pytest.fixture(scope="module")
def postgres_available():
    try:
        PostgresCluster().stop()  # finds the server's binaries and the user to run them as, starts nothing
    except ProducerUnavailable as error:
        pytest.skip(f"the real producers cannot run here: {error}")


@pytest.fixture(scope="module")
def mariadb_available():
    try:
        MariaDbServer()  # finds the server's binaries, starts nothing
    except ProducerUnavailable as error:
        pytest.skip(f"the real producers cannot run here: {error}")


def _leftovers() -> list[str]:
    found = sum((glob.glob(f"/tmp/cdc-{part}-*") for part in ("postgres", "mariadb", "connect", "canal", "flink")), [])
    processes = subprocess.run(["pgrep", "-af", "ConnectStandalone|CanalLauncher|FlinkCdcCapture|cdc-postgres-|cdc-mariadb-"],
                               capture_output=True, text=True).stdout
    return found + [line for line in processes.splitlines() if "pgrep" not in line]


MYSQL_KINDS = ((LogicalType("ENUM", labels=("small", "it's", "a b", "\u00e9t\u00e9")), ""),  # '': the invalid-value member
               (LogicalType("SET", labels=tuple(f"m{i}" for i in range(64))), "m0,m63"),  # 64 members: a full bitmask
               (LogicalType("YEAR"), 1901), (LogicalType("YEAR"), 2155),  # the first and the last year
               (LogicalType("JSON"), '{"a": [1, "\u00e9\\t\U0001f600"], "b": null}'),  # kept as written
               (LogicalType("UINT32"), 2 ** 32 - 1), (LogicalType("UINT64"), 2 ** 63 - 1),  # unsigned: as int64
               (LogicalType("BITS", 64), 2 ** 64 - 1),  # MySQL's widest BIT, every bit set
               (LogicalType("GEOMETRY"), (4326, struct.pack("<BIdd", 1, 1, -0.0, 1.7976931348623157e308))))  # a POINT
# BIT(n) in both: one bit past a byte with the first and the last set, and PostgreSQL's past 64 bits; PostgreSQL's
# bit varying with leading zeros (the connector keeps none), its time at 24:00:00, and the types of its own users hold,
# each in a spelling the server rewrites (NOT NULL: a REPLICA IDENTITY DEFAULT delete gives each its fallback)
POSTGRES_OWN = ((LogicalType("UUID"), "{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}"),
                (LogicalType("PG_JSON"), '{"b": 1,  "a": [true, null]}'),  # kept as written
                (LogicalType("PG_JSONB"), '{"bb": 1, "a": {"y": "\u00e9", "x": []}, "a": 2}'),  # reordered, last a kept
                (LogicalType("XML"), '<r a="1">x &amp; y</r>'), (LogicalType("INET"), "10.1.2.3/16"),
                (LogicalType("LTREE"), "top.mid_1.Leaf"), (LogicalType("INT_RANGE"), "(3,7]"),
                (LogicalType("TIME_TZ"), "23:30:00.5-05:30"), (LogicalType("NUMERIC"), Decimal("1500.00")),
                (LogicalType("INTERVAL"), (14, 3, 14_706_780_000)), (LogicalType("INT_ARRAY"), []),
                (LogicalType("TEXT_ARRAY"), ['q"uote', None, "back\\slash", "NULL"]),
                (LogicalType("HSTORE"), {"key1": "v", "a": None, "zz": "=>"}),
                (LogicalType("CIDR"), "10.1/16"), (LogicalType("TS_RANGE"), '["2010-01-01 14:30:00.500","infinity"]'),
                (LogicalType("PG_TIMESTAMP", 6), "infinity"), (LogicalType("PG_TIMESTAMP", 3), "-infinity"),
                (LogicalType("PG_TIMESTAMP_TZ"), "infinity"),
                (LogicalType("INT8_RANGE"), "[-9223372036854775807,9223372036854775806]"),  # upper moved to the max
                (LogicalType("NUM_RANGE"), "[-0.00,1.0]"), (LogicalType("DATE_RANGE"), "(,9999-12-31]"),  # 10000-01-01
                (LogicalType("TSTZ_RANGE"), '["2010-01-01 14:30:00.5+02:00",infinity)'),  # printed in UTC
                (MONEY_TYPE, Decimal("-9999999999999.99")),  # the most digits a snapshot's double keeps
                (SCALE_ABOVE_PRECISION_TYPE, Decimal("-0.00123")))  # numeric(3,5): its precision kept (issue 58)
BITS_KINDS = {"postgresql": ((LogicalType("BITS", 9), 0b100000001), (LogicalType("BITS", 65), 2 ** 64),
                             (LogicalType("VARBIT", 10), "00101"), (LogicalType("TIME_24", 6), dt.timedelta(hours=24)),
                             *POSTGRES_OWN),
              "mariadb": ((LogicalType("BITS", 9), 0b100000001),)}


def _key_change_history(database: str = "postgresql") -> History:
    """What the drawn histories reach only sometimes: a snapshot, a multi-row INSERT (one binlog event, rows 0 and 1),
    a key holding a tab that changes (Connect writes
    the partner header with the tab raw), a REPLICA IDENTITY DEFAULT delete over NOT NULL columns of every kind
    the connector fills with fallbacks, a TRUNCATE; for MariaDB, an ENUM holding its invalid-value member, a SET of
    64 members holding the first and the last, YEAR 1901 and 2155, a JSON document, the largest INT UNSIGNED, the
    largest BIGINT UNSIGNED an int64 holds, a BIT(64) of ones and a POINT of -0.0 and the largest double under SRID
    4326; BIT(n) columns in both, PostgreSQL's bit varying, 24:00, its timestamps' infinities and its own types
    (BITS_KINDS)."""
    kinds = [LogicalType("INT16"), LogicalType("BOOLEAN"), LogicalType("STRING"), LogicalType("DECIMAL", 10, 2),
             LogicalType("FLOAT64"), LogicalType("DATE"), LogicalType("TIME", 6), LogicalType("TIMESTAMP", 3),
             LogicalType("TIMESTAMP", 6), LogicalType("TIMESTAMP_TZ"), LogicalType("BYTES")]
    extra = BITS_KINDS[database] + (MYSQL_KINDS if database == "mariadb" else ())
    kinds += [kind for kind, _ in extra]
    table = Table("public", "accounts", (ColumnSpec("k_name", LogicalType("STRING"), False, 1),
                                         *(ColumnSpec(f"c_{i}", kind, False) for i, kind in enumerate(kinds)),
                                         ColumnSpec("c_note", LogicalType("STRING"), True)))
    values = [-7, True, "a\tb\n", Decimal("12.30"), -0.5, dt.date(1999, 12, 31), dt.time(23, 59, 59, 999999),
              dt.datetime(2020, 2, 29, 12, 0, 0, 123000), dt.datetime(2020, 2, 29, 12, 0, 0, 123456),
              dt.datetime(2021, 3, 4, 5, 6, 7, 890000, tzinfo=dt.UTC), b"\x00\xff" * 40, *(value for _, value in extra)]
    def row(name: str) -> dict:
        return {"k_name": name, **{f"c_{i}": value for i, value in enumerate(values)}, "c_note": "n"}
    at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    first, second, moved = row("one"), row("two\tkey"), row("three\u00e9")
    updated = {**first, "c_0": 8}
    return History(table, (
        Transaction((Change("READ", after=row("snap-1")), Change("READ", after=row("snap-2"))), at, 0, snapshot=True),
        Transaction((Change("INSERT", after=first), Change("INSERT", after=second)), at, 0, multi_row_inserts=True),
        Transaction((Change("UPDATE", before=first, after=updated, set_columns=frozenset({"c_0"})),), at, 0),
        Transaction((Change("UPDATE", before=second, after={**second, "k_name": moved["k_name"]},
                            set_columns=frozenset({"k_name"})),), at, 0),
        Transaction((Change("DELETE", before=updated),), at, 0),
        Transaction((Change("TRUNCATE"),), at, 0),
        Transaction((Change("INSERT", after=first),), at, 0)))


def _checked(spark, broker, request, history, identity, database="postgresql", version=checks.DEFAULT_DEBEZIUM_VERSION,
             setting=DEFAULT):
    before = set(_leftovers())
    result = checks.check(spark, broker, NormalizerUnderTest.load(DEFAULT_NORMALIZER), history, identity, version, database,
                          setting)
    show(request, f"real producer, Debezium {result.versions['debezium']} on {database} {result.versions[database]}, "
                  f"{identity}: {result.records} records, {result.events} events")
    assert result.problems == [], result.problems
    assert set(_leftovers()) - before == set(), "a process or directory of the run was left behind"
    return result


def test_a_crafted_history_through_the_real_connector(postgres_available, spark, broker, request):
    result = _checked(spark, broker, request, _key_change_history(), "DEFAULT")
    # 2 reads, 2 inserts, 1 update, key change (delete, tombstone, create), delete + tombstone, truncate, insert
    assert (result.records, result.events) == (12, 12)


@pytest.mark.long  # make test keeps PostgreSQL's crafted history; MariaDB's runs in make test-long (the 12-minute gate)
def test_a_crafted_history_through_the_real_mariadb_connector(mariadb_available, spark, broker, request):
    from cdc_conformance.harness.jvm import DEFAULT_MARIADB_DEBEZIUM_VERSION

    # with the schema snapshot's records (include.schema.changes: the table's topic is the defaults'), each compared
    # with the generator's: the crafted table holds every MariaDB type the generator prints
    result = _checked(spark, broker, request, _key_change_history("mariadb"), "FULL", "mariadb",
                      DEFAULT_MARIADB_DEBEZIUM_VERSION, SETTINGS["schema-changes"])
    assert (result.records, result.events) == (12, 12)
    # SET; a DROP TABLE for the history's and the progress table; for each database DROP, CREATE, USE, CREATE TABLE
    assert result.side_events == {"DDL": 11}


@pytest.fixture(scope="module")
def canal_broker():
    """canal 1.1.4's Kafka client is older than the test broker accepts: a Kafka 3.9 broker of its own."""
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.jvm import CANAL_KAFKA_VERSION

    kafka = EmbeddedKafka(kafka_version=CANAL_KAFKA_VERSION).start()
    yield kafka
    kafka.stop()


def _canal_history() -> History:
    """What canal's server showed on its first runs: a key whose order is not the columns' (pkNames lists the
    columns'), decimals whose last short group of fraction digits is zero (`5.0`, 27 zeros), durations to the ends,
    a text and a blob column NULL in a message's last row (sqlType -4), a SET of 64 members, a multi-row INSERT, an
    UPDATE that changes nothing (no message), a key change, a delete and a TRUNCATE."""
    kinds = [LogicalType("DECIMAL", 10, 2), LogicalType("DECIMAL", 65, 30), LogicalType("DURATION", 6),
             LogicalType("TIME", 6), LogicalType("TIMESTAMP", 3), LogicalType("FLOAT64"), LogicalType("BYTES"),
             LogicalType("STRING"), LogicalType("ENUM", labels=("small", "it's", "a b")),
             LogicalType("SET", labels=tuple(f"m{i}" for i in range(64)))]
    table = Table("shop", "orders", (ColumnSpec("k_name", LogicalType("STRING"), False, 2),
                                     ColumnSpec("k_id", LogicalType("INT32"), False, 1),
                                     *(ColumnSpec(f"c_{i}", kind, True) for i, kind in enumerate(kinds))))
    values = [Decimal("5.00"), Decimal(0), dt.timedelta(hours=-838, minutes=-59, seconds=-59), dt.time(23, 59, 59, 999999),
              dt.datetime(2020, 2, 29, 12, 0, 0, 123000), -0.5, b"\x00\xff" * 40, "a\tb\u00e9\U0001f600", "", "m0,m63"]

    def row(name: str, key: int, nulls: bool = False) -> dict:
        return {"k_name": name, "k_id": key, **{f"c_{i}": None if nulls and kinds[i].kind in ("BYTES", "STRING") else value
                                                for i, value in enumerate(values)}}
    at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    first, second = row("one", 1), row("two\tkey", 2, nulls=True)
    moved = {**second, "k_id": 3}
    return History(table, (
        Transaction((Change("INSERT", after=first), Change("INSERT", after=second)), at, 0, multi_row_inserts=True),
        Transaction((Change("UPDATE", before=first, after=first, set_columns=frozenset({"c_0"})),), at, 0),
        Transaction((Change("UPDATE", before=second, after=moved, set_columns=frozenset({"k_id"})),), at, 0),
        Transaction((Change("DELETE", before=first),), at, 0),
        Transaction((Change("TRUNCATE"),), at, 0),
        Transaction((Change("INSERT", after={**first, "c_2": dt.timedelta(hours=838, minutes=59, seconds=59)}),), at, 0)))


@pytest.mark.long
def test_a_crafted_history_through_canals_own_server(mariadb_available, spark, canal_broker, request):
    from cdc_conformance.harness.producers import canal_mariadb

    before = set(_leftovers())
    result = canal_mariadb.check(spark, canal_broker, NormalizerUnderTest.load(DEFAULT_NORMALIZER), _canal_history())
    show(request, f"canal {result.versions['canal']} on MariaDB {result.versions['mariadb']}: {result.records} records, "
                  f"{result.events} events")
    assert result.problems == [], result.problems
    # an annotation and a message for each of 4 statements (the 2-row insert, the key change, the delete, the insert;
    # the unchanged update logs nothing), then the TRUNCATE; events: 4 DDL, 6 rows (the key change's 2), the TRUNCATE
    assert (result.records, result.events) == (9, 11)
    assert set(_leftovers()) - before == set(), "a process or directory of the run was left behind"


# What the PostgreSQL connector itself loses (docs/producers.md, "What the connectors themselves lose"): each row's
# value in its snapshot and streamed, as 3.3.2 writes them. A release that stops losing one fails this test, and the
# table's row goes (with the generator's imitation of the loss, if any)
LOSSES_COLUMNS = ("id int PRIMARY KEY, m money, d date, ts timestamp(3), d_inf date, a2 int[][], t2 text[][]")
LOSSES_ROWS = ["(1, 9007199254740993.00, '0044-03-15 BC', '1582-10-04 12:00', 'infinity', '{{1,2},{3,4}}', '{{a,b}}')",
               "(2, 0.01, '2024-02-29', '1582-10-15 00:00', '-infinity', '{}', '{}')"]


@pytest.mark.long  # about 40 s (a cluster and a worker of their own): make test-long
def test_the_postgresql_connectors_own_losses_are_as_the_losses_table_says(postgres_available, broker):
    import base64
    import json

    from cdc_conformance.harness.producers import debezium_postgres

    before = set(_leftovers())
    records = debezium_postgres.capture(broker, "losses.t", LOSSES_COLUMNS, LOSSES_ROWS,
                                        ["INSERT INTO losses.t SELECT id + 10, m, d, ts, d_inf, a2, t2 FROM losses.t"])
    assert set(_leftovers()) - before == set(), "a process or directory of the run was left behind"
    rows = {(payload["op"], payload["after"]["id"]): payload["after"] for payload in
            (json.loads(record.value)["payload"] for record in records if record.value is not None)}
    snapshot, streamed = rows[("r", 1)], rows[("c", 11)]

    def cents(text: str) -> int:
        return int.from_bytes(base64.b64decode(text), "big", signed=True)

    def days(date: dt.date) -> int:
        return (date - dt.date(1970, 1, 1)).days

    # money: read through a double in the snapshot (2^53 + 1 cents past it is lost), exact when streamed
    assert (cents(snapshot["m"]), cents(streamed["m"])) == (900719925474099200, 900719925474099300)
    # 44 BC: the snapshot's date loses the era (44 AD); streamed it is the proleptic Gregorian year -43
    assert (snapshot["d"], streamed["d"]) == (days(dt.date(44, 3, 15)), days(dt.date(357, 3, 15)) - 146_097)
    # a timestamp before the Gregorian calendar (1582-10-15): the snapshot reads it as a Julian date, 10 days on
    stamp = dt.datetime(1582, 10, 4, 12)
    assert (snapshot["ts"], streamed["ts"]) == ((stamp - dt.datetime(1970, 1, 1)) // dt.timedelta(milliseconds=1) + 864_000_000,
                                                (stamp - dt.datetime(1970, 1, 1)) // dt.timedelta(milliseconds=1))
    # date infinity: no sentinel the model could name, and not the same one in a snapshot and streamed
    assert streamed["d_inf"] == -2_147_472_692 and rows[("c", 12)]["d_inf"] == -2_147_472_691
    assert snapshot["d_inf"] != streamed["d_inf"]
    # two-dimensional arrays: an int[][]'s sub-arrays as nulls, a text[][]'s as a Java array's identity text
    assert snapshot["a2"] == streamed["a2"] == [None, None]
    assert len(snapshot["t2"]) == 1 and snapshot["t2"][0].startswith("[Ljava.lang.String;@")


@pytest.mark.long  # about 30 s: make test-long
def test_a_snapshots_money_under_decimal_string_is_the_doubles_java_text(postgres_available, broker):
    """decimal.handling.mode=string: streamed money is its exact digits, a snapshot's the double's Double.toString
    (docs/producers.md, losses: why the generator draws no money under this setting)."""
    import json

    from cdc_conformance.harness.producers import debezium_postgres

    records = debezium_postgres.capture(broker, "losses.t", "id int PRIMARY KEY, m money",
                                        ["(1, -92233720368547758.08)", "(2, 12.30)"],
                                        ["INSERT INTO losses.t SELECT id + 10, m FROM losses.t"],
                                        setting=SETTINGS["decimal-string"])
    money = {(payload["op"], payload["after"]["id"]): payload["after"]["m"] for payload in
             (json.loads(record.value)["payload"] for record in records if record.value is not None)}
    assert money == {("r", 1): "-9.223372036854776E16", ("r", 2): "12.3",
                     ("c", 11): "-92233720368547758.08", ("c", 12): "12.30"}


@pytest.mark.long  # about 40 s: make test-long
def test_numeric_special_values_are_null_and_a_negative_scale_is_2046_with_the_exact_value(postgres_available, broker):
    """decimal.handling.mode=precise: NaN and +-Infinity are written as null (the task goes on); numeric(5,-2) as a
    Decimal of scale 2046 holding the exact value, which the normalizer gives as DECIMAL(?,2046) (docs/producers.md,
    losses; case debezium-postgres-numeric-special-values-and-negative-scale)."""
    import base64
    import json

    from cdc_conformance.harness.producers import debezium_postgres

    records = debezium_postgres.capture(broker, "losses.t", "id int PRIMARY KEY, n numeric(10,2), s numeric(5,-2)",
                                        ["(1, 'NaN', 12300)"], ["INSERT INTO losses.t SELECT id + 10, n, s FROM losses.t"])
    written = [json.loads(record.value) for record in records if record.value is not None]
    assert [document["payload"]["after"]["n"] for document in written] == [None, None]
    scales = {field["field"]: field.get("parameters", {}).get("scale") for document in written
              for image in document["schema"]["fields"] if image["field"] == "after" for field in image["fields"]}
    assert scales["s"] == "2046"
    # the unscaled bytes at scale 2046 are the exact value, snapshot and streamed
    unscaled = [int.from_bytes(base64.b64decode(document["payload"]["after"]["s"]), "big", signed=True) for document in written]
    assert unscaled == [12300 * 10 ** 2046] * 2


@pytest.mark.long  # about 40 s: Flink CDC's jars resolved once, a local Flink per history
def test_drawn_histories_through_flink_cdcs_mysql_source(mariadb_available, spark, broker, request):
    """Flink CDC 3.1.1's MySQL source on MariaDB, in a local Flink: snapshot rows without binlog coordinates, then the
    binlog; the normalizer against the oracle, the database against the events, the generator's Flink CDC profile
    against Flink CDC's records, with the schema and without (docs/producers.md, Flink CDC)."""
    from cdc_conformance.harness.producers import flink_cdc

    before = set(_leftovers())
    results = flink_cdc.drawn_checks(spark, broker, NormalizerUnderTest.load(DEFAULT_NORMALIZER), 2, 4049)
    show(request, f"Flink CDC {results[0].versions['flink-cdc']} on MariaDB {results[0].versions['mariadb']}: "
                  f"{sum(r.records for r in results)} records")
    assert [r.problems for r in results] == [[], []]
    assert all(r.records > 0 for r in results)
    assert set(_leftovers()) - before == set(), "a process or directory of the run was left behind"
