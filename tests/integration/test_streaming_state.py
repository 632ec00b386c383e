"""A stateful format streamed for a million records: the state holds the groups that have a member within the
timeout plus the copy window (event time) of the watermark, never every group read (docs/performance.md, "What the
state holds"), and every record read is an event or a quarantine record."""
import itertools
import json
import os
from dataclasses import replace
from datetime import datetime

import numpy as np
import pytest

from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness.kafka_read import read_batch, read_stream
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.streaming import an_hour_ago_ms, run_until_caught_up
from cdc_conformance.normalizer.pipeline import normalize_stream, split

pytestmark = [pytest.mark.integration, pytest.mark.long]

RECORDS = 1_000_000
PER_TRIGGER = 100_000
COPY_WINDOW_SECONDS = 3.0
PAIR_TIMEOUT_SECONDS = 3.0
RATE = 25  # records a millisecond: a million span 40 s of event time, many times the timeout plus the window


def _ms(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def state_bound(progress: dict, stamps: dict[int, np.ndarray], reach_ms: float) -> int:
    """What the documented bound allows at the end of a micro-batch: every record it and the batches before it read
    whose event time lies within `reach_ms` (the group timeout plus the copy window) of the watermark the batch ran
    under, and every record of the batch itself (a group is held only for such a member)."""
    source = progress["sources"][0]
    ends, starts = (json.loads(o) if isinstance(o, str) and o != "None" else (o if isinstance(o, dict) else {})
                    for o in (source["endOffset"], source["startOffset"]))  # the first batch starts at "None"
    ends, starts = next(iter(ends.values())), next(iter(starts.values()), {})
    watermark = _ms(progress["eventTime"]["watermark"])
    recent = sum(int(np.count_nonzero(stamps[int(p)][:end] >= watermark - reach_ms)) for p, end in ends.items())
    return recent + sum(end - int(starts.get(p, 0)) for p, end in ends.items())


def test_a_million_dataworks_records_keep_the_state_within_its_bound_and_lose_nothing(spark, broker, tmp_path):
    generator = Registry.load().generator("dataworks-json")
    topic = f"state-bound-{os.getpid()}"
    broker.create_topics({topic: 2})
    # Stamped as a producer writing RATE records a millisecond would: the halves of an update a millisecond apart at
    # most. Stamped by the clock instead, the 9 updates split by the chunks below were as far apart as the time this
    # process took to draw the next chunk, past the 3 s timeout on a loaded machine: unpaired, rightly, whenever read.
    start = an_hour_ago_ms()
    records = (replace(record, timestamp_ms=start + n // RATE)
               for n, record in enumerate(generator.bench.records(topic, RECORDS, 2)))
    while chunk := list(itertools.islice(records, 100_000)):  # a million records at once would hold ~1 GB here
        broker.produce(chunk)
    read = read_batch(spark, broker.bootstrap_servers, {topic: {p: (0, end) for p, end in broker.end_offsets(topic).items()}})
    stamps = {p: np.array([row.ms for row in read.where(f"partition = {p}").orderBy("offset").selectExpr("unix_millis(timestamp) AS ms").collect()])
              for p in range(2)}
    counted = {"events": 0, "records": 0, "quarantined": 0}

    def count(batch, _batch_id):
        row = batch.selectExpr(
            "coalesce(sum(size(events)), 0) AS events",
            "coalesce(sum(aggregate(events, 0L, (n, e) -> n + size(e.origin)) + size(quarantine)), 0) AS records",
            "coalesce(sum(size(quarantine)), 0) AS quarantined").first()
        for name in counted:
            counted[name] += row[name]

    stream = normalize_stream(read_stream(spark, broker.bootstrap_servers, [topic], PER_TRIGGER), "dataworks-json",
                              pair_timeout_seconds=PAIR_TIMEOUT_SECONDS, copy_window_seconds=COPY_WINDOW_SECONDS)
    query = stream.writeStream.foreachBatch(count).option("checkpointLocation", str(tmp_path / "checkpoint")).start()
    try:
        run_until_caught_up(query, {topic: broker.end_offsets(topic)}, timeout=1800.0, settle_batches=0)
        progress = [p for p in query.recentProgress if p["numInputRows"]]
    finally:
        query.stop()
    held = [p["stateOperators"][0]["numRowsTotal"] for p in progress]
    reach = (PAIR_TIMEOUT_SECONDS + COPY_WINDOW_SECONDS) * 1000
    bounds = [state_bound(p, stamps, reach) for p in progress]
    print("state rows per micro-batch:", held, "bounds:", bounds)
    assert all(rows <= bound for rows, bound in zip(held, bounds)), (held, bounds)
    assert held[-1] < RECORDS / 2, held  # the groups of the first half are gone
    # every record is one event's (a pair of halves one UPDATE) or quarantined: none is
    assert counted == {"events": counted["events"], "records": RECORDS, "quarantined": 0}
    assert counted["events"] < RECORDS


# the stateful formats with their timeouts and copy window short, so that the test can wait them out
SHORT_WINDOWS = {"dataworks-json": {"pair_timeout_seconds": 3.0, "copy_window_seconds": 3.0},
                 "ces-json": {"segment_timeout_seconds": 3.0, "copy_window_seconds": 3.0},
                 "ces-avro": {"segment_timeout_seconds": 3.0, "copy_window_seconds": 3.0}}


@pytest.mark.parametrize("format_id", sorted(SHORT_WINDOWS))
def test_after_late_records_the_state_empties_and_every_record_is_accounted_for(spark, broker, format_id):
    """The late-records property's examples (drawn groups, then the copies, conflicts and reused ids that arrive for
    them: the generator's `late_of`) through a running query: once a record past the timeouts and the copy window is
    read, its state holds nothing, whatever arrived late (a late record once left its group in state with no timeout),
    and every record read is in one event's origin or one quarantine record."""
    from cdc_conformance.harness.generic import _emitted_groups, _with_late_records

    generator = Registry.load().generator(format_id)
    seed, examples = _with_late_records(generator, 12, 20261128)
    late = [record for members in _emitted_groups(examples) for record, _ in generator.late_of(members)]
    assert late, f"seed {seed} drew no late record"
    partitions = {topic: n for example in examples for topic, n in example.partitions.items()}
    broker.create_topics(partitions)
    an_hour_ago = an_hour_ago_ms()  # event times: the records', not the clock's
    broker.produce([replace(record, timestamp_ms=an_hour_ago)
                    for record in [item.record for example in examples for item in example.expected] + late])
    # read after them, stamped now: the watermark passes every timeout and window (a record rejected on its own: no state)
    broker.produce([KafkaRecord(sorted(partitions)[0], 0, None, b"\x00 not a record")])
    name = f"late_state_{format_id.replace('-', '_')}_{os.getpid()}"
    stream = normalize_stream(read_stream(spark, broker.bootstrap_servers, list(partitions), 50), format_id,
                              **SHORT_WINDOWS[format_id])
    query = stream.writeStream.format("memory").queryName(name).trigger(processingTime="500 milliseconds").start()
    try:
        ends = {topic: broker.end_offsets(topic) for topic in partitions}
        run_until_caught_up(query, ends, settle_batches=1)  # the batch after the last: the watermark's own
        held = query.lastProgress["stateOperators"][0]["numRowsTotal"]
        emitted, quarantined = (frame.collect() for frame in split(spark.table(name)))
    finally:
        query.stop()
    assert held == 0, f"seed {seed}: {held} state rows after the windows passed"
    read = sorted((topic, p, o) for topic, offsets in ends.items() for p, end in offsets.items() for o in range(end))
    in_events = {(o.topic, o.partition, o.offset) for event in emitted for o in event.origin}
    held_back = sorted((o.topic, o.partition, o.offset) for record in quarantined for o in record.origin)
    assert not in_events & set(held_back) and len(held_back) == len(set(held_back)), f"seed {seed}: a record twice"
    assert sorted(in_events | set(held_back)) == read, f"seed {seed}: records lost"
