"""Issue 59's acceptance, with the real parts: one history through PostgreSQL and Debezium's connector (and one through
MariaDB and its connector) twice, once
with Kafka Connect's JsonConverter and once with the Avro converter against the real schema registry, an ALTER TABLE
in the middle; debezium-avro's events are debezium-json's (but for what two runs cannot share: positions, times,
transaction ids and the server name), and the Avro topic's value schema changed mid-topic. The generator's Avro
rendering of the JSON run's records registers the schemas the converter registered. make test-long."""
import json
import struct
from dataclasses import replace

import pytest

from cdc_conformance.generators import debezium_avro
from cdc_conformance.harness.producers import debezium_mariadb, debezium_postgres
from cdc_conformance.harness.producers.settings import avro
from cdc_conformance.harness.roundtrip import RoundTrip

# real database servers and Connect workers: the group the real-producer tier runs in, one at a time, so that no test
# of it finds another's server among what a run left behind (test_real_producers._leftovers)
pytestmark = [pytest.mark.integration, pytest.mark.long, pytest.mark.xdist_group("real-producers")]

TABLE = "s.t"
COLUMNS = "id integer PRIMARY KEY, v text, d numeric(10,2), n numeric(3,5), ts timestamptz, b bytea, f real, a int[]"
SNAPSHOT = ["(1, 'a', 1.50, 0.00123, '2024-01-01T00:00:00Z', '\\x0102', 1.5, '{1,2}')"]
STREAMED = ["INSERT INTO s.t VALUES (2, 'b', 2.25, 0.00456, '2024-01-02T00:00:00Z', '\\xff', 0.1, '{}')",
            "ALTER TABLE s.t ADD COLUMN w bigint",
            "INSERT INTO s.t VALUES (3, 'c', 3.00, NULL, '2024-01-03T00:00:00.123456Z', NULL, 'NaN', NULL, 7)",
            "UPDATE s.t SET v = 'z', w = -9223372036854775808 WHERE id = 1",
            "DELETE FROM s.t WHERE id = 2"]
# what two runs of one history cannot share
RUN_OWN = ("event_id", "origin", "format", "position", "commit_ts", "emit_ts", "tx_id")


def _said(events: list[dict]) -> list[dict]:
    kept = []
    for event in events:
        said = {k: v for k, v in event.items() if k not in RUN_OWN}
        said["source"] = {k: v for k, v in (event["source"] or {}).items() if k != "server"}
        said["pk_change"] = event["pk_change"] and event["pk_change"]["role"]
        kept.append(said)
    return kept


@pytest.fixture(scope="module")
def runs(broker, schema_registry):
    as_avro = debezium_postgres.capture(broker, TABLE, COLUMNS, SNAPSHOT, STREAMED, setting=avro(schema_registry.url))
    as_json = debezium_postgres.capture(broker, TABLE, COLUMNS, SNAPSHOT, STREAMED)
    return as_json, as_avro


def test_the_avro_converter_writes_the_wire_format_and_a_new_schema_after_the_alter(runs):
    _, as_avro = runs
    values = [r.value for r in as_avro if r.value is not None]
    assert values and all(v[0] == 0 for v in values)
    ids = [struct.unpack(">I", v[1:5])[0] for v in values]
    assert len(set(ids)) == 2 and ids == sorted(ids), ids  # one schema, then another from the ALTER on


def test_debezium_avro_gives_debezium_jsons_events_for_the_same_history(spark, broker, schema_registry, runs):
    _assert_alike(spark, broker, schema_registry, *runs)


def _assert_alike(spark, broker, schema_registry, as_json: list, as_avro: list) -> None:
    """The two runs' records, read as debezium-json and debezium-avro, give the same events (but what two runs cannot
    share) and none is quarantined."""
    roundtrip = RoundTrip(spark, broker, schema_registry=schema_registry)
    json_out = roundtrip.run(_copied(as_json, "json"), "debezium-json", {f"json-{as_json[0].topic}": 1})
    avro_out = roundtrip.run(_copied(as_avro, "avro"), "debezium-avro", {f"avro-{as_avro[0].topic}": 1})
    assert json_out.quarantine == [] and avro_out.quarantine == []
    assert len(avro_out.events) == len(json_out.events) == len(as_json)
    for avro_event, json_event in zip(_said(avro_out.events), _said(json_out.events)):
        differing = {k: repr((avro_event[k], json_event[k])) for k in avro_event if avro_event[k] != json_event.get(k)}
        assert not differing, differing


def _copied(records, prefix: str) -> list:
    """The records as the connector wrote them, on a topic of their own (the connector's topic holds them already)."""
    return [replace(r, topic=f"{prefix}-{r.topic}") for r in records]


def test_the_generator_registers_what_the_converter_registered(schema_registry, runs):
    """debezium_avro.wire of each JsonConverter record (the other run's prefix put in) gives the schema the Avro
    converter registered for the same record, field for field."""
    as_json, as_avro = runs
    for json_record, avro_record in zip(as_json, as_avro):
        for part in ("key", "value"):
            written, real = getattr(json_record, part), getattr(avro_record, part)
            if written is None or real is None:
                assert written is real is None
                continue
            renamed = written.decode().replace(json_record.topic.split(".")[0], avro_record.topic.split(".")[0]).encode()
            _, registration = debezium_avro.wire(renamed, f"{avro_record.topic}-{part}", "topic")
            registered = schema_registry.schema(struct.unpack(">I", real[1:5])[0])
            assert json.loads(registration.schema) == json.loads(registered), part


MARIADB_COLUMNS = ("id int PRIMARY KEY, v varchar(20), d decimal(10,2), n decimal(65,30), ts timestamp(6) NULL, "
                   "b varbinary(10), f float, e enum('x','y'), u bigint unsigned")
MARIADB_SNAPSHOT = ["(1, 'a', 1.50, 0.000000000000000000000000000001, '2024-01-01 00:00:00', x'0102', 1.5, 'x', 18446744073709551615)"]
MARIADB_STREAMED = ["INSERT INTO m.t VALUES (2, 'b', 2.25, -1, '2024-01-02 00:00:00.123456', x'ff', 0.1, 'y', 0)",
                    "ALTER TABLE m.t ADD COLUMN w bigint",
                    "INSERT INTO m.t VALUES (3, NULL, 3.00, NULL, NULL, NULL, NULL, NULL, NULL, -9223372036854775808)",
                    "UPDATE m.t SET v = 'z', w = 7 WHERE id = 1",
                    "DELETE FROM m.t WHERE id = 2"]


def test_mariadbs_connector_too(spark, broker, schema_registry):
    """Issue 59 item 4: MariaDB's connector with the Avro converter, an ALTER TABLE in the middle, gives debezium-json's
    events for the same history, and the value's schema id changes at the ALTER."""
    as_avro = debezium_mariadb.capture(broker, "m.t", MARIADB_COLUMNS, MARIADB_SNAPSHOT, MARIADB_STREAMED,
                                       setting=avro(schema_registry.url))
    as_json = debezium_mariadb.capture(broker, "m.t", MARIADB_COLUMNS, MARIADB_SNAPSHOT, MARIADB_STREAMED)
    ids = [struct.unpack(">I", r.value[1:5])[0] for r in as_avro if r.value is not None]
    assert len(set(ids)) == 2 and ids == sorted(ids), ids
    _assert_alike(spark, broker, schema_registry, as_json, as_avro)
