"""The real-producer backend's own parts, without a database: SQL rendering, the fidelity comparison, the
documented fidelity table (docs/producers.md)."""
import datetime as dt

from generators.debezium import connect_header_text
from generators.history import Change, ColumnSpec, Table
from generators.records import KafkaRecord
from generators.values import ALL_TYPES, LogicalType
from harness.cli.producers import DOC, documented_table
from harness.producers import fidelity, statements
from harness.producers.compare import Difference, record_differences

TABLE = Table("public", "t", (ColumnSpec("k", LogicalType("INT32"), False, 1), ColumnSpec("v", LogicalType("STRING"), True),
                              ColumnSpec("w", LogicalType("DATE"), False)))


def test_the_documented_fidelity_table_is_current():
    assert documented_table(DOC.read_text()) == fidelity.markdown_table(), \
        "docs/producers.md: run `cdc-conformance producers --update-docs`"


def test_every_postgres_kind_has_a_column_type():
    rendered = {t.name: statements.column_type(t) for t in ALL_TYPES if statements.postgres_holds(t)}
    assert rendered["DECIMAL(38,10)"] == "numeric(38,10)" and rendered["TIMESTAMP(3)"] == "timestamp(3)"
    assert len(rendered) == len([t for t in ALL_TYPES if statements.postgres_holds(t)])
    assert "TIMESTAMP(9)" not in rendered and "TIME(9)" not in rendered  # PostgreSQL's times stop at microseconds


def test_an_update_sets_only_its_columns_and_finds_the_row_by_its_old_key():
    before, after = {"k": 1, "v": "a", "w": dt.date(2020, 1, 1)}, {"k": 2, "v": "b", "w": dt.date(2020, 1, 1)}
    statement = statements.change_statement(TABLE, Change("UPDATE", before, after, frozenset({"k", "v"})))
    assert statement.sql == 'UPDATE "public"."t" SET "k" = %s, "v" = %s WHERE "k" = %s'
    assert statement.parameters == (2, "b", 1)


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
