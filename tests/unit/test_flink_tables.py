"""The Flink tables the peers declare (cdc_conformance/peers/flink_tables.py): types as Flink CDC maps the source's,
one DDL per topic's table from its first record, so that a column added later is not in it."""
import json

import pytest

from cdc_conformance.peers.flink_tables import connect_type, declared_tables, mysql_type


@pytest.mark.parametrize("text, flink", [
    ("int(11)", "INT"), ("int(10) unsigned", "BIGINT"), ("bigint(20) unsigned", "DECIMAL(20, 0)"),
    ("tinyint(1)", "BOOLEAN"), ("tinyint(4)", "TINYINT"), ("decimal(10,2)", "DECIMAL(10, 2)"), ("decimal(65,30)", "STRING"),
    ("datetime(3)", "TIMESTAMP(3)"), ("timestamp", "TIMESTAMP_LTZ(0)"), ("time(6)", "TIME(6)"), ("date", "DATE"),
    ("varchar(255)", "STRING"), ("enum('a','b(c)')", "STRING"), ("set('x','y')", "STRING"), ("longblob", "BYTES"),
    ("bit(1)", "BOOLEAN"), ("bit(9)", "BINARY(2)"), ("year(4)", "INT"), ("geometry", "STRING"), ("", "STRING"),
])
def test_mysql_types_as_flink_cdc_maps_them(text, flink):
    assert mysql_type(text) == flink


@pytest.mark.parametrize("field, flink", [
    ({"type": "int32", "name": "io.debezium.time.Date"}, "DATE"),
    ({"type": "int64", "name": "io.debezium.time.MicroTimestamp"}, "TIMESTAMP(6)"),
    ({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
      "parameters": {"scale": "2", "connect.decimal.precision": "10"}}, "DECIMAL(10, 2)"),
    ({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "40"}}, "STRING"),
    ({"type": "string", "name": "io.debezium.time.ZonedTimestamp"}, "TIMESTAMP_LTZ(6)"),
    ({"type": "int16"}, "SMALLINT"), ({"type": "struct", "name": "io.debezium.data.geometry.Point"}, "STRING"),
])
def test_connect_types_as_the_source_columns_they_stand_for(field, flink):
    assert connect_type(field) == flink


def _canal(offset: int, types: dict) -> tuple:
    value = {"data": [{name: "1" for name in types}], "database": "shop", "table": "t", "mysqlType": types, "type": "INSERT"}
    return ("canal.shop", 0, offset, json.dumps(value).encode())


def test_one_ddl_per_table_from_its_first_record():
    records = [_canal(1, {"id": "int(11)", "added": "varchar(5)"}), _canal(0, {"id": "int(11)"}),
               ("canal.shop", 0, 2, b"not json"), ("canal.shop", 0, 3, None)]
    declared = declared_tables("canal-json", records)
    assert declared == {("canal.shop", 0, 0): "ROW<`id` INT>", ("canal.shop", 0, 1): "ROW<`id` INT>"}


def test_a_column_name_is_quoted_whatever_it_holds():
    assert declared_tables("canal-json", [_canal(0, {"a`b c": "int(11)"})])[("canal.shop", 0, 0)] == "ROW<`a``b c` INT>"


def test_a_schemaless_table_has_every_column_its_records_name():
    delete = {"before": {"id": 1}, "after": None, "op": "d", "source": {"db": "d", "table": "t"}}
    insert = {"before": None, "after": {"id": 2, "v": "b"}, "op": "c", "source": {"db": "d", "table": "t"}}
    records = [("pg.t", 0, offset, json.dumps(value).encode()) for offset, value in enumerate([delete, insert])]
    assert set(declared_tables("debezium-json", records).values()) == {"ROW<`id` STRING, `v` STRING>"}
