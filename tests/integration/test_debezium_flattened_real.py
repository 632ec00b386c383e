"""Issue 59, item 7, with the real parts: one history (a snapshot, an insert, updates, a delete, a key change, a
TRUNCATE) through PostgreSQL and Debezium's connector, once as the connector writes it and once through its
ExtractNewRecordState SMT in each delete handling mode (with `add.fields` and without), by JsonConverter and by the
Avro converter against the real schema registry. The flat records, read with the format option `flattened`, give the
envelope's events as generators/debezium_flattened.py says the SMT leaves them, and none is quarantined. make test-long."""
import uuid
from dataclasses import replace

import pytest

from cdc_conformance.generators.debezium_flattened import flattened_events
from cdc_conformance.harness.producers import debezium_postgres
from cdc_conformance.harness.producers.settings import DEFAULT, avro, flattened
from cdc_conformance.harness.roundtrip import RoundTrip

# real database servers and Connect workers: the group the real-producer tier runs in, one at a time, so that no test
# of it finds another's server among what a run left behind (test_real_producers._leftovers)
pytestmark = [pytest.mark.integration, pytest.mark.long, pytest.mark.xdist_group("real-producers")]

TABLE = "s.t"
COLUMNS = "id integer PRIMARY KEY, v text, d numeric(10,2), ts timestamptz"
SNAPSHOT = ["(1, 'a', 1.50, '2024-01-01T00:00:00.123456Z')"]
STREAMED = ["ALTER TABLE s.t REPLICA IDENTITY FULL",
            "INSERT INTO s.t VALUES (2, 'b', 2.25, NULL)", "UPDATE s.t SET v = 'z' WHERE id = 1",
            "DELETE FROM s.t WHERE id = 2", "UPDATE s.t SET id = 5 WHERE id = 1", "TRUNCATE s.t",
            "INSERT INTO s.t VALUES (7, NULL, NULL, NULL)"]
SETTINGS = [flattened(), flattened("rewrite", "op,table,db,source.ts_ms,ts_ms"), flattened("rewrite-with-tombstone"),
            flattened("delete-to-tombstone", "op"), flattened("drop", "op,lsn")]
# what two runs of one history cannot share
RUN_OWN = ("event_id", "origin", "format", "position", "commit_ts", "emit_ts", "tx_id")


def _said(events: list[dict]) -> list[dict]:
    return [{**{k: v for k, v in e.items() if k not in RUN_OWN},
             "source": e["source"] and {k: v for k, v in e["source"].items() if k != "server"}} for e in events]


def _read(spark, broker, schema_registry, records, format_id: str, options: dict) -> list[dict]:
    topic = f"flat-{uuid.uuid4().hex[:8]}"
    out = RoundTrip(spark, broker, schema_registry=schema_registry).run(
        [replace(r, topic=topic) for r in records], format_id, {topic: 1}, options=options)
    assert out.quarantine == []
    return out.events


@pytest.fixture(scope="module")
def envelope(spark, broker, schema_registry):
    records = debezium_postgres.capture(broker, TABLE, COLUMNS, SNAPSHOT, STREAMED, setting=DEFAULT)
    return _read(spark, broker, schema_registry, records, "debezium-json", {})


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_the_smts_records_give_the_envelopes_events_as_the_smt_leaves_them(spark, broker, schema_registry, envelope, setting):
    records = debezium_postgres.capture(broker, TABLE, COLUMNS, SNAPSHOT, STREAMED, setting=setting)
    events = _read(spark, broker, schema_registry, records, "debezium-json", setting.options)
    assert _said(events) == _said(flattened_events(envelope, setting.options["flattened"]))


@pytest.mark.parametrize("setting", SETTINGS[:2], ids=lambda s: s.name)
def test_through_the_avro_converter_too(spark, broker, schema_registry, envelope, setting):
    records = debezium_postgres.capture(broker, TABLE, COLUMNS, SNAPSHOT, STREAMED, setting=avro(schema_registry.url) + setting)
    events = _read(spark, broker, schema_registry, records, "debezium-avro", setting.options)
    assert _said(events) == _said(flattened_events(envelope, setting.options["flattened"]))


def test_without_the_option_a_flat_record_is_quarantined_never_read_as_an_envelope(spark, broker, schema_registry):
    records = debezium_postgres.capture(broker, TABLE, COLUMNS, SNAPSHOT, STREAMED[:3], setting=SETTINGS[1])
    topic = f"flat-{uuid.uuid4().hex[:8]}"
    out = RoundTrip(spark, broker).run([replace(r, topic=topic) for r in records], "debezium-json", {topic: 1})
    assert out.events == [] and {q["code"] for q in out.quarantine} == {"UNKNOWN_MESSAGE_SHAPE"}
