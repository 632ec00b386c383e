"""The real-producer backend's own parts, without a database: SQL rendering, the fidelity comparison, the
documented fidelity table (docs/producers.md)."""
import datetime as dt

from cdc_conformance.generators.debezium import connect_header_text
from cdc_conformance.generators.history import Change, ColumnSpec, Table
from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.generators.values import ALL_TYPES, LogicalType
from cdc_conformance.harness.cli.producers import DOC, documented_table
from cdc_conformance.harness.producers import fidelity
from cdc_conformance.harness.producers.compare import Difference, record_differences
from cdc_conformance.harness.producers.statements import MARIADB, POSTGRES

TABLE = Table("public", "t", (ColumnSpec("k", LogicalType("INT32"), False, 1), ColumnSpec("v", LogicalType("STRING"), True),
                              ColumnSpec("w", LogicalType("DATE"), False)))


def test_the_documented_fidelity_table_is_current():
    assert documented_table(DOC.read_text()) == fidelity.markdown_table(), \
        "docs/producers.md: run `cdc-conformance producers --update-docs`"


def test_every_postgres_kind_has_a_column_type():
    rendered = {t.name: POSTGRES.column_type(t) for t in ALL_TYPES if POSTGRES.holds(t)}
    assert rendered["DECIMAL(38,10)"] == "numeric(38,10)" and rendered["TIMESTAMP(3)"] == "timestamp(3)"
    assert "TIMESTAMP(9)" not in rendered and "TIME(9)" not in rendered  # PostgreSQL's times stop at microseconds
    assert len(rendered) == len(ALL_TYPES) - 2


def test_every_mariadb_kind_has_a_column_type_and_a_text_key_is_a_varchar():
    rendered = {t.name: MARIADB.column_type(t) for t in ALL_TYPES if MARIADB.holds(t)}
    assert rendered["BOOLEAN"] == "bit(1)"  # BOOLEAN is TINYINT(1), which the connector writes as int16
    assert rendered["TIMESTAMP(6)"] == "datetime(6)" and rendered["TIMESTAMP_TZ"] == "timestamp(6) NULL"
    assert rendered["DECIMAL(65,30)"] == "decimal(65,30)" and len(rendered) == len(ALL_TYPES) - 2
    assert MARIADB.column_type(LogicalType("STRING"), key=True) == "varchar(250)"
    assert not MARIADB.holds(LogicalType("DECIMAL", 66, 0)) and not MARIADB.holds(LogicalType("DECIMAL", 40, 31))
    assert MARIADB.column_type(LogicalType("ENUM", labels=("it's", "a b"))) == "enum('it''s','a b')"
    assert (MARIADB.column_type(LogicalType("YEAR")), MARIADB.column_type(LogicalType("JSON"))) == ("year", "json")
    assert MARIADB.column_type(LogicalType("UINT64")) == "bigint unsigned" and LogicalType("UINT32").name == "INT64"
    assert not POSTGRES.holds(LogicalType("YEAR")) and not POSTGRES.holds(LogicalType("SET", labels=("x",)))


def test_an_update_sets_only_its_columns_and_finds_the_row_by_its_old_key():
    before, after = {"k": 1, "v": "a", "w": dt.date(2020, 1, 1)}, {"k": 2, "v": "b", "w": dt.date(2020, 1, 1)}
    statement = POSTGRES.change_statement(TABLE, Change("UPDATE", before, after, frozenset({"k", "v"})))
    assert statement.sql == 'UPDATE "public"."t" SET "k" = %s, "v" = %s WHERE "k" = %s'
    assert statement.parameters == (2, "b", 1)
    assert MARIADB.change_statement(TABLE, Change("DELETE", before)).sql == "DELETE FROM `public`.`t` WHERE `k` = %s"


def test_mariadb_takes_an_instant_as_its_utc_time_of_day():
    instant = dt.datetime(2021, 3, 4, 6, 6, 7, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    table = Table("s", "t", (ColumnSpec("k", LogicalType("INT32"), False, 1), ColumnSpec("z", LogicalType("TIMESTAMP_TZ"), True)))
    statement = MARIADB.change_statement(table, Change("INSERT", after={"k": 1, "z": instant}))
    assert statement.parameters == (1, dt.datetime(2021, 3, 4, 5, 6, 7))


def test_the_mariadb_profile_logs_what_the_binlog_holds():
    """A snapshot in key order, and no record for an UPDATE that leaves its row as it was (0.0 -> -0.0 is a change)."""
    from cdc_conformance.generators import debezium
    from cdc_conformance.generators.history import History, Transaction

    table = Table("shop", "t", (ColumnSpec("k", LogicalType("INT32"), False, 1), ColumnSpec("f", LogicalType("FLOAT64"), True)))
    at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    row = {"k": 1, "f": 0.0}
    history = History(table, (
        Transaction((Change("READ", after={"k": 9, "f": 1.0}), Change("READ", after={"k": 2, "f": 1.0})), at, 0, snapshot=True),
        Transaction((Change("INSERT", after=row), Change("UPDATE", row, dict(row), frozenset({"f"})),
                     Change("UPDATE", row, {"k": 1, "f": -0.0}, frozenset({"f"}))), at, 0)))
    items = debezium.encode(history, debezium.Profile(connector="mariadb", version="3.3.0.Final", prefix="p"))
    events = [event for item in items for event in item.events]
    assert [(e.op, e.key[0][1]) for e in events] == [("INSERT", "2"), ("INSERT", "9"), ("INSERT", "1"), ("UPDATE", "1")]
    assert events[0].source == {"system": "mariadb", "server": "p", "database": "shop", "schema": None, "table": "t"}
    assert items[0].record.topic == "p.shop.t"


def test_connect_header_text_escapes_only_backslashes_and_quotes():
    assert connect_header_text({"k": 'a\\b"c\td', "n": 5}) == b'{"k":"a\\\\b\\"c\td","n":5}'


def _record(value: dict | None, headers=()) -> KafkaRecord:
    import json

    return KafkaRecord("t", 0, b'{"k":1}', None if value is None else json.dumps(value).encode(), tuple(headers))


def test_fidelity_masks_the_run_and_names_the_field_that_differs():
    mine = {"schema": {"fields": [{"field": "a", "type": "int32"}, {"field": "b", "type": "string"}]},
            "payload": {"ts_ms": 1, "source": {"lsn": 10}, "op": "c"}}
    theirs = {"schema": {"fields": [{"field": "b", "type": "string"}, {"field": "a", "type": "int64"}]},
              "payload": {"ts_ms": 2, "source": {"lsn": 99}, "op": "c"}}
    found = record_differences(_record(mine), _record(theirs, [("__debezium.newkey", b"{}")]))
    assert {d.id for d in found} == {"value.schema.fields.a.type (value)", "value.schema.fields.(order)[*] (value)",
                                     "headers.__debezium.newkey (only the connector)"}


def test_a_fixed_difference_seen_again_is_not_accepted():
    regression = Difference("value.payload.source.snapshot", "value", '"true"', '"first"')
    run_value = Difference("value.payload.source.lsn", "type", "1", '"x"')
    assert fidelity.explained(regression).resolution == fidelity.FIXED and not fidelity.accepted(regression)
    assert fidelity.accepted(run_value)


def test_certifying_a_line_runs_each_database_whose_connector_has_a_release_of_it():
    """`certify --producer real`: MariaDB's connector has releases of its own (2.7.0's snapshot fails on a NOT NULL
    LONGBLOB; before 2.7 the MySQL connector read MariaDB, and 1.9's does here), and a line it cannot run says why in
    the record."""
    from cdc_conformance.harness.producers.checks import certification_releases

    assert certification_releases("3.2", "3.2.0.Final") == ({"postgresql": "3.2.0.Final", "mariadb": "3.2.0.Final"}, {})
    releases, not_run = certification_releases("2.7", "2.7.3.Final")
    assert releases == {"postgresql": "2.7.3.Final"} and "LONGBLOB" in not_run["mariadb"]
    assert certification_releases("1.9", "1.9.7.Final") == ({"postgresql": "1.9.7.Final", "mariadb": "1.9.7.Final"}, {})
    assert "no MariaDB connector release of line 2.0" in certification_releases("2.0", "2.0.1.Final")[1]["mariadb"]


def test_a_few_real_producer_histories_hold_every_type_of_their_database():
    """Drawn freely, 100 MariaDB histories held no YEAR, JSON or unsigned column: each history holds the next
    TYPES_PER_HISTORY of its database's types for sure, so any ceil(types / TYPES_PER_HISTORY) in a row hold them all."""
    import math

    from cdc_conformance.harness.producers.checks import DATABASES, TYPES_PER_HISTORY, required_types

    for database in DATABASES:
        types = DATABASES[database].types()
        histories = math.ceil(len(types) / TYPES_PER_HISTORY)
        held = {t for index in range(3, 3 + histories) for t in required_types(database, index)}
        assert held == set(types), database


def test_avro_fidelity_reads_both_datums_masks_the_run_and_names_a_differing_field():
    """compare.avro_fidelity on the generator's own Avro rendering (a registry that answers the ids it registered):
    the same record gives nothing, a changed column is named, a changed clock is the run's (masked)."""
    import json
    from dataclasses import replace
    from types import SimpleNamespace

    from cdc_conformance.generators import debezium_avro
    from cdc_conformance.generators.bench import purchase
    from cdc_conformance.generators.debezium import SHARED_PROFILE, encode
    from cdc_conformance.generators.records import Expected
    from cdc_conformance.harness.producers.compare import avro_fidelity

    (item,) = [i for i in encode(purchase(1), SHARED_PROFILE) if i.record.value is not None]
    schemas: dict[int, str] = {}

    def connector(record) -> KafkaRecord:  # as the converter wrote it: real ids in the registry
        written = debezium_avro.as_avro(record, "topic", 1)
        parts = {}
        for part, registration in written.registrations:
            schemas[len(schemas) + 1] = registration.schema
            parts[part] = getattr(written, part)[:1] + len(schemas).to_bytes(4, "big") + getattr(written, part)[5:]
        return replace(written, registrations=(), **parts)

    registry = SimpleNamespace(schema=schemas.__getitem__)

    def changed(path: tuple, value) -> Expected:
        document = json.loads(item.record.value)
        target = document["payload"]
        for name in path[:-1]:
            target = target[name]
        target[path[-1]] = value
        return replace(item, record=replace(item.record, value=json.dumps(document).encode()))

    def differences(theirs: Expected) -> list[str]:
        run = SimpleNamespace(records=[connector(theirs.record)])
        return [d.where for d in avro_fidelity(run, [item], registry)]

    assert differences(item) == []
    assert differences(changed(("after", "customer_name"), "someone else")) == ["value.after.customer_name"]
    assert differences(changed(("source", "ts_ms"), 1)) == []
