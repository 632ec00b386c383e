"""DataWorks two-record updates in Structured Streaming: the halves of an update (on different partitions
when the key changed) pair across micro-batch boundaries and across a restart from the checkpoint, and a
half whose partner never comes is released as UNPAIRED_UPDATE_HALF after the pair timeout.
(Streaming = batch for drawn examples is a generic test.)"""
import itertools
import json
import os
import time
from dataclasses import replace

import pytest

from cdc_conformance.generators import dataworks
from cdc_conformance.generators.history import histories, tables
from cdc_conformance.generators.records import KafkaRecord, with_coordinates
from cdc_conformance.generators.values import KEY_TYPES
from cdc_conformance.harness.kafka_read import read_stream
from cdc_conformance.harness.property import draw_examples, session_seed
from cdc_conformance.harness.streaming import batch_rows, rendered, run_until_caught_up, stream_once
from cdc_conformance.normalizer.pipeline import normalize_stream, split

pytestmark = pytest.mark.integration
_runs = itertools.count()


def _updates(seed: int, topic: str, count: int = 2):
    """Generated histories in two-record mode over 3 partitions (keyed by primary key)."""
    strategy = histories(table_strategy=tables(key_types=KEY_TYPES, value_types=dataworks.VALUE_TYPES),
                         allow_truncate=False, allow_snapshot=False, max_changes=4)
    profile = dataworks.Profile(two_record_updates=True, partitions=3, topic=topic)
    items = []
    for index, history in enumerate(draw_examples(strategy, count, seed)):
        items += dataworks.encode(history, replace(profile, database=f"db{index}"), index)
    return with_coordinates(items)


def _streamed(spark, tmp_path):
    return rendered(spark.read.parquet(str(tmp_path / "out")).collect())


def _with_halves(seed: int, topic: str):
    """Drawn examples, the seed moved on until at least one update was drawn as two halves."""
    for attempt in range(20):
        items = _updates(seed + attempt, topic)
        if any(item.segment == 1 for item in items):
            return items
    raise AssertionError("no update drawn in 20 attempts")


def test_two_record_updates_stream_as_in_batch_one_record_per_micro_batch(spark, broker, tmp_path):
    topic = f"dataworks-stream-{os.getpid()}-{next(_runs)}"
    items = _with_halves(session_seed(), topic)
    broker.create_topics({topic: 3})
    broker.produce([item.record for item in items])
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 1)
    streamed = _streamed(spark, tmp_path)
    assert streamed == batch_rows(spark, broker, dataworks.FORMAT, [topic])
    assert not [row for kind, row in streamed if kind == "Q"]


@pytest.mark.long  # about a minute: make test-long (make test keeps ces-avro's restart)
def test_restart_from_checkpoint_between_the_halves_loses_and_duplicates_nothing(spark, broker, tmp_path):
    topic = f"dataworks-restart-{os.getpid()}-{next(_runs)}"
    items = _with_halves(session_seed(), topic)
    broker.create_topics({topic: 3})
    cut = next(i for i, item in enumerate(items) if item.segment == 1)  # the first UPDATE_AFTER half
    broker.produce([item.record for item in items[:cut]])
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 2)
    first_run = _streamed(spark, tmp_path)
    broker.produce([item.record for item in items[cut:]])
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 2)
    streamed = _streamed(spark, tmp_path)
    assert streamed == batch_rows(spark, broker, dataworks.FORMAT, [topic])
    assert not [row for kind, row in streamed if kind == "Q"]  # the waiting half was not given up
    assert len(first_run) < len(streamed)


def test_a_half_whose_partner_never_comes_is_unpaired_after_the_timeout(spark, broker, tmp_path):
    topic = f"dataworks-timeout-{os.getpid()}-{next(_runs)}"
    lone = dataworks.hostile_record(1, op="UPDATE_BEFOR", before={"id": 1, "v": "x"}, after=None)
    broker.create_topics({topic: 1})
    broker.produce([KafkaRecord(topic, 0, None, lone)])
    name = f"dataworks_timeout_{os.getpid()}"
    stream = normalize_stream(read_stream(spark, broker.bootstrap_servers, [topic]), dataworks.FORMAT,
                              pair_timeout_seconds=10)
    query = (split(stream).quarantine.writeStream.format("memory").queryName(name)
             .trigger(processingTime="500 milliseconds").start())
    try:
        run_until_caught_up(query, {topic: broker.end_offsets(topic)}, settle_batches=0)
        assert spark.table(name).count() == 0  # held in state while its partner may still come
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and spark.table(name).count() < 1:
            time.sleep(1)
    finally:
        query.stop()
    assert [(r.phase, r.code) for r in spark.table(name).collect()] == [("ASSEMBLE", "UNPAIRED_UPDATE_HALF")]


def _half(op: str, image: dict, sequence_id: str) -> bytes:
    images = {"before": {"dataColumn": image}, "after": None} if op == "UPDATE_BEFOR" else {"before": None, "after": {"dataColumn": image}}
    return json.dumps({"schema": {"dataColumn": [{"name": "id", "type": "LONG"}, {"name": "v", "type": "STRING"}], "primaryKey": ["id"],
                                  "source": {"dbType": "MySQL", "dbName": "shop", "tableName": "orders"}},
                       "payload": {**images, "sequenceId": sequence_id, "op": op, "ddl": None,
                                   "timestamp": {"eventTime": 1620459000000, "systemTime": 1620459000123, "checkpointTime": 1620459000000}},
                       "version": "0.0.1"}).encode()


def test_a_half_for_an_emitted_update_is_a_copy_only_when_it_is_one(spark, broker, tmp_path):
    """Pins streaming's divergence from batch (docs/formats/dataworks-json.md): the update once emitted stays
    emitted, so a later half that conflicts with the pair gets UNPAIRED_UPDATE_HALF (batch quarantines all
    three records), and only a true copy is DUPLICATE_AFTER_EMIT."""
    topic = f"dataworks-late-{os.getpid()}-{next(_runs)}"
    before, after = _half("UPDATE_BEFOR", {"id": 1, "v": "a"}, "1001"), _half("UPDATE_AFTER", {"id": 1, "v": "b"}, "1001")
    values = [before, after, _half("UPDATE_AFTER", {"id": 1, "v": "c"}, "1001"), before]
    broker.create_topics({topic: 1})
    broker.produce([KafkaRecord(topic, 0, None, value, ()) for value in values])
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 1)
    streamed = _streamed(spark, tmp_path)
    assert [e["after"] for kind, e in streamed if kind == "E"] == [{"id": "1", "v": "b"}]
    assert {q["origin"][0]["offset"]: q["code"] for kind, q in streamed if kind == "Q"} == {
        2: "UNPAIRED_UPDATE_HALF", 3: "DUPLICATE_AFTER_EMIT"}
    batch = batch_rows(spark, broker, dataworks.FORMAT, [topic])
    assert [kind for kind, _ in batch] == ["Q"] * 4, "batch quarantines the whole group: the divergence pinned above"


@pytest.mark.long  # the Python twin, run by Connect sessions only: make test-long
def test_the_connect_path_keeps_the_same_rules_in_python(spark, broker, tmp_path, monkeypatch):
    """Through Spark Connect the state function runs in Python (the JVM cannot be called): the same pairing,
    copies and conflicts, here on a classic session told it is a Connect one."""
    from cdc_conformance.normalizer import assembly

    monkeypatch.setattr(assembly, "is_connect", lambda spark: True)
    test_a_half_for_an_emitted_update_is_a_copy_only_when_it_is_one(spark, broker, tmp_path)


def test_a_copy_after_the_copy_window_is_read_again_and_the_state_empties(spark, broker, tmp_path):
    """After the copy window a released change is forgotten (docs/performance.md: what the state holds): a copy
    within the window is DUPLICATE_AFTER_EMIT and leaves the window's end as it was (a late record once left its
    group without a timeout, in state for ever); once the window has passed the state holds nothing, and a later
    copy of a one-record update is read as a new change, like a stateless format's redelivered record."""
    topic = f"dataworks-window-{os.getpid()}-{next(_runs)}"
    whole = dataworks.hostile_record(1, op="UPDATE_AFTER", before={"id": 1, "v": "a"}, after={"id": 1, "v": "b"})
    broker.create_topics({topic: 1})
    broker.produce([KafkaRecord(topic, 0, None, whole)])
    name = f"dataworks_window_{os.getpid()}"
    window_seconds = 8  # the copy below must be read within it, on a slow day too
    combined = normalize_stream(read_stream(spark, broker.bootstrap_servers, [topic]), dataworks.FORMAT,
                                copy_window_seconds=window_seconds)
    query = combined.writeStream.format("memory").queryName(name).trigger(processingTime="500 milliseconds").start()

    def state_rows():
        return query.lastProgress["stateOperators"][0]["numRowsTotal"]

    try:
        run_until_caught_up(query, {topic: broker.end_offsets(topic)}, settle_batches=0)
        released = time.monotonic()
        assert state_rows() == 1  # its fingerprint, for the window
        broker.produce([KafkaRecord(topic, 0, None, whole)])  # a copy within the window
        run_until_caught_up(query, {topic: broker.end_offsets(topic)}, settle_batches=0)
        assert time.monotonic() - released < window_seconds, "the copy came after the window: the machine is too slow for this test"
        deadline = time.monotonic() + window_seconds + 30  # the window ends; a batch without data removes what timed out
        while state_rows() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert state_rows() == 0
        broker.produce([KafkaRecord(topic, 0, None, whole)])
        run_until_caught_up(query, {topic: broker.end_offsets(topic)}, settle_batches=1)
        emitted, quarantined = split(spark.table(name))
        emitted, quarantined = emitted.collect(), quarantined.collect()
    finally:
        query.stop()
    assert [(e.op, e.origin[0].offset) for e in emitted] == [("UPDATE", 0), ("UPDATE", 2)]
    assert [(q.code, q.origin[0].offset) for q in quarantined] == [("DUPLICATE_AFTER_EMIT", 1)]
