"""The Flink SQL job peers' Python side (cdc_conformance/peers/flink_sql.py): the Kafka tables a user declares over
the records' topics, and a record's changelog rows as changes. The job itself runs in make test-long
(tests/integration/test_peers_long.py) and in `make peers`."""
import json

from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER, NormalizerUnderTest
from cdc_conformance.peers import flink_sql


def _debezium(table: str, after: dict, payload: bool = False) -> bytes:
    event = {"op": "c", "before": None, "after": after, "source": {"db": "shop", "schema": None, "table": table}}
    return json.dumps({"schema": None, "payload": event} if payload else event).encode()


def test_a_record_s_update_rows_pair_into_one_update_and_a_lone_half_keeps_its_image():
    rows = [{"kind": "-U", "values": {"id": "1"}}, {"kind": "+U", "values": {"id": "2"}},
            {"kind": "+I", "values": {"id": "3"}}, {"kind": "-D", "values": {"id": "4"}}, {"kind": "+U", "values": {"id": "5"}}]
    assert flink_sql.as_changes(rows) == [
        {"op": "UPDATE", "before": {"id": "1"}, "after": {"id": "2"}},
        {"op": "INSERT", "before": None, "after": {"id": "3"}},
        {"op": "DELETE", "before": {"id": "4"}, "after": None},
        {"op": "UPDATE", "before": None, "after": {"id": "5"}}]


def test_a_topic_of_one_table_is_one_kafka_table_read_over_every_partition():
    records = [("t", 1, 5, _debezium("orders", {"id": 1})), ("t", 1, 6, _debezium("orders", {"id": 2}))]
    [table] = flink_sql._tables("debezium-json", "debezium-json", records, {("t", 0): 3, ("t", 1): 7})
    # partition 0 holds none of the records: read from its end to its end, as Flink's source wants an offset for each
    assert table["ranges"] == [[0, 3, 3], [1, 5, 7]]
    assert table["where"] == [] and table["records"] == [("t", 1, 5), ("t", 1, 6)]
    assert table["columns"] == "`id` STRING"
    assert table["options"] == {"debezium-json.ignore-parse-errors": "true", "debezium-json.timestamp-format.standard": "ISO-8601",
                                "debezium-json.schema-include": "false"}


def test_a_topic_of_several_tables_is_a_kafka_table_per_source_table_filtered_on_its_metadata():
    records = [("t", 0, 0, _debezium("orders", {"id": 1})), ("t", 0, 1, _debezium("users", {"name": "a"}, payload=True)),
               ("t", 0, 2, b"not json")]
    tables = list(flink_sql._tables("debezium-json", "debezium-json", records, {("t", 0): 3}))
    assert [(t["where"], t["records"], t["options"]["debezium-json.schema-include"]) for t in tables] == [
        ([["value.source.database", "shop"], ["value.source.schema", None], ["value.source.table", "orders"]], [("t", 0, 0)], "false"),
        ([["value.source.database", "shop"], ["value.source.schema", None], ["value.source.table", "users"]], [("t", 0, 1)], "true"),
        ([["value.source.database", None], ["value.source.schema", None], ["value.source.table", None]], [("t", 0, 2)], "false")]
    canal = json.dumps({"database": "d", "table": "x", "type": "INSERT", "data": [{"a": "1"}], "mysqlType": {"a": "int"}})
    other = canal.replace('"x"', '"y"')
    tables = list(flink_sql._tables("canal-json", "canal-json", [("c", 0, 0, canal.encode()), ("c", 0, 1, other.encode())], {}))
    assert [t["where"] for t in tables] == [[["value.database", "d"], ["value.table", "x"]], [["value.database", "d"], ["value.table", "y"]]]
    assert tables[0]["columns"] == "`a` INT" and tables[0]["options"] == {"canal-json.ignore-parse-errors": "true"}


def test_only_a_normalizer_that_takes_the_broker_s_address_is_given_it():
    assert NormalizerUnderTest.load("cdc_conformance.peers.flink_sql_canal:normalize").reads_broker
    assert not NormalizerUnderTest.load(DEFAULT_NORMALIZER).reads_broker
    assert not NormalizerUnderTest.load("cdc_conformance.peers.flink_canal:normalize").reads_broker
