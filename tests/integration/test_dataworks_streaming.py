"""DataWorks two-record updates in Structured Streaming: the halves of an update (on different partitions
when the key changed) pair across micro-batch boundaries, across a restart from the checkpoint and across a stop
longer than the pair timeout, and a half whose partner never comes is released as UNPAIRED_UPDATE_HALF once records
newer than the timeout are read. Time is the records' (their Kafka timestamps, set here): no test waits for the clock.
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
from cdc_conformance.harness.streaming import an_hour_ago_ms, batch_rows, rendered, run_until_caught_up, stream_once
from cdc_conformance.normalizer.pipeline import normalize_stream, split

pytestmark = pytest.mark.integration
_runs = itertools.count()
T0 = an_hour_ago_ms()


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
    """Drawn histories' halves; the query stops after a BEFORE half and stays stopped longer than the pair timeout,
    its partner in Kafka behind a backlog: the halves pair, as in batch (issue 58)."""
    topic = f"dataworks-restart-{os.getpid()}-{next(_runs)}"
    items = [replace(item, record=replace(item.record, timestamp_ms=T0 + index)) for index, item in
             enumerate(_with_halves(session_seed(), topic))]  # the producer's clock: within 2 s of each other
    broker.create_topics({topic: 3})
    cut = next(i for i, item in enumerate(items) if item.segment == 1)  # the first UPDATE_AFTER half
    broker.produce([item.record for item in items[:cut]])
    options = {"pair_timeout_seconds": 2}
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 2, **options)
    first_run = _streamed(spark, tmp_path)
    broker.produce([item.record for item in items[cut:]])
    time.sleep(3)  # stopped longer than the timeout
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 2, **options)
    streamed = _streamed(spark, tmp_path)
    assert streamed == batch_rows(spark, broker, dataworks.FORMAT, [topic])
    assert not [row for kind, row in streamed if kind == "Q"]  # the waiting half was not given up
    assert len(first_run) < len(streamed)




def _at(topic: str, value: bytes, ms: int, partition: int = 0) -> KafkaRecord:
    return KafkaRecord(topic, partition, None, value, (), timestamp_ms=T0 + ms)


def test_a_half_whose_partner_never_comes_is_unpaired_once_newer_records_are_read(spark, broker, tmp_path):
    """The lone half waits while the records read are within the pair timeout of it, whatever the wall clock does;
    a record read past the timeout releases it as UNPAIRED_UPDATE_HALF (the watermark moves only with records read)."""
    topic = f"dataworks-timeout-{os.getpid()}-{next(_runs)}"
    lone = dataworks.hostile_record(1, op="UPDATE_BEFOR", before={"id": 1, "v": "x"}, after=None)
    broker.create_topics({topic: 1})
    broker.produce([_at(topic, lone, 0), _at(topic, dataworks.hostile_record(2), 10_000)])
    options = {"pair_timeout_seconds": 10}
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 1, **options)
    assert [kind for kind, _ in _streamed(spark, tmp_path)] == ["E"], "the half waits: a record at the timeout is no later"
    broker.produce([_at(topic, dataworks.hostile_record(3), 10_001)])
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 1, **options)
    codes = [(row["code"], row["origin"][0]["offset"]) for kind, row in _streamed(spark, tmp_path) if kind == "Q"]
    assert codes == [("UNPAIRED_UPDATE_HALF", 0)]


def test_a_stop_longer_than_the_timeout_keeps_the_waiting_half(spark, broker, tmp_path):
    """Issue 58 (1): the query stops while a half waits, stays stopped longer than the pair timeout, and its partner
    sits in Kafka behind several micro-batches of backlog. The timeout counts the records' time, not the downtime: the
    halves pair, as in batch."""
    topic = f"dataworks-downtime-{os.getpid()}-{next(_runs)}"
    before, after = _half("UPDATE_BEFOR", {"id": 1, "v": "a"}, "1001"), _half("UPDATE_AFTER", {"id": 1, "v": "b"}, "1001")
    broker.create_topics({topic: 1})
    broker.produce([_at(topic, before, 0)])
    options = {"pair_timeout_seconds": 2}
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 1, **options)
    backlog = [_at(topic, dataworks.hostile_record(n), n) for n in range(10, 20)]  # three micro-batches of 4 with it
    broker.produce(backlog + [_at(topic, after, 40)])
    time.sleep(3)  # stopped longer than the timeout
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 4, **options)
    streamed = _streamed(spark, tmp_path)
    assert streamed == batch_rows(spark, broker, dataworks.FORMAT, [topic])
    assert not [row for kind, row in streamed if kind == "Q"]


@pytest.mark.long
@pytest.mark.parametrize("spacing_ms, paired", [(200, True), (1_000, False)], ids=["skew-within-timeout", "skew-past-timeout"])
def test_a_fast_partition_carries_the_watermark_only_as_far_as_its_records_times(spark, broker, tmp_path, spacing_ms,
                                                                                  paired):
    """Spark's watermark is one for the query: the newest event time read on any partition. Here the BEFORE half is
    the first record of partition 0, followed by 40 newer records; its AFTER half sits on partition 1 behind 40 older
    ones, and Spark's rate limit reads both partitions in step (10 records a micro-batch). Partition 0's records reach
    T + 8 s (spacing 200 ms) or T + 40 s (1 s) before the partner is read. Within the 10 s timeout the halves pair;
    past it the half is due before its partner is read: released UNPAIRED_UPDATE_HALF, the partner a conflict with it
    (docs/performance.md, "When a group is due": nothing lost, no wrong event, and the remedy a longer timeout)."""
    topic = f"dataworks-skew-{os.getpid()}-{next(_runs)}"
    before, after = _half("UPDATE_BEFOR", {"id": 1, "v": "a"}, "1001"), _half("UPDATE_AFTER", {"id": 1, "v": "b"}, "1001")
    broker.create_topics({topic: 2})
    fast = [_at(topic, before, 0)] + [_at(topic, dataworks.hostile_record(n), n * spacing_ms) for n in range(10, 50)]
    slow = [_at(topic, dataworks.hostile_record(n), n - 100, 1) for n in range(60, 100)] + [_at(topic, after, 1, 1)]
    broker.produce(fast + slow)
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 10,
                pair_timeout_seconds=10)
    codes = sorted((row["code"], row["origin"][0]["partition"]) for kind, row in _streamed(spark, tmp_path) if kind == "Q")
    assert codes == ([] if paired else [("UNPAIRED_UPDATE_HALF", 0), ("UNPAIRED_UPDATE_HALF", 1)])
    events = [row for kind, row in _streamed(spark, tmp_path) if kind == "E"]
    assert len(events) == 80 + paired  # every insert, and the update where it paired


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
    """Through Spark Connect the state machine runs in Python (the JVM cannot be called): the same pairing,
    copies, conflicts and event-time timeout, here on a classic session told it is a Connect one."""
    from cdc_conformance.normalizer import assembly

    monkeypatch.setattr(assembly, "is_connect", lambda spark: True)
    test_a_half_for_an_emitted_update_is_a_copy_only_when_it_is_one(spark, broker, tmp_path / "late")
    test_a_half_whose_partner_never_comes_is_unpaired_once_newer_records_are_read(spark, broker, tmp_path / "timeout")


def test_a_copy_after_the_copy_window_is_read_again_and_the_state_empties(spark, broker, tmp_path):
    """After the copy window a released change is forgotten (docs/performance.md: what the state holds): a copy
    within the window is DUPLICATE_AFTER_EMIT; once records past the window are read the state holds nothing, and a
    later copy of a one-record update is read as a new change, like a stateless format's redelivered record. The
    window is event time: the copy's own timestamp decides, not when it was read."""
    topic = f"dataworks-window-{os.getpid()}-{next(_runs)}"
    whole = dataworks.hostile_record(1, op="UPDATE_AFTER", before={"id": 1, "v": "a"}, after={"id": 1, "v": "b"})
    broker.create_topics({topic: 1})
    broker.produce([_at(topic, whole, 0)])
    name = f"dataworks_window_{os.getpid()}"
    combined = normalize_stream(read_stream(spark, broker.bootstrap_servers, [topic]), dataworks.FORMAT,
                                copy_window_seconds=8)
    query = combined.writeStream.format("memory").queryName(name).trigger(processingTime="200 milliseconds").start()

    def state_rows():
        return query.lastProgress["stateOperators"][0]["numRowsTotal"]

    def read(*records):
        broker.produce(list(records))
        run_until_caught_up(query, {topic: broker.end_offsets(topic)}, settle_batches=1)

    try:
        run_until_caught_up(query, {topic: broker.end_offsets(topic)}, settle_batches=1)
        assert state_rows() == 1  # its fingerprint, for the window
        time.sleep(2)
        read(_at(topic, whole, 8_000))  # a copy within the window (its end included), however late it is read
        assert state_rows() == 1
        read(_at(topic, b"not json", 8_001))  # a record past the window (one rejected on its own is never held)
        assert state_rows() == 0  # the no-data batch after it forgot the change
        read(_at(topic, whole, 8_002))
        emitted, quarantined = split(spark.table(name))
        emitted, quarantined = emitted.collect(), quarantined.collect()
    finally:
        query.stop()
    assert [(e.op, e.origin[0].offset) for e in emitted] == [("UPDATE", 0), ("UPDATE", 3)]
    assert [(q.code, q.origin[0].offset) for q in quarantined] == [("DUPLICATE_AFTER_EMIT", 1), ("MALFORMED_JSON", 2)]
