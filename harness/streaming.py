"""Driving Structured Streaming queries in tests and runs.

`run_until_caught_up` waits for the committed progress to reach the topics' end offsets (and, where asked, the
micro-batches after it: a stateful query runs one without data after a batch that moved its watermark, which
releases the groups that became due). It serves every normalizer under test, whatever triggers its queries need.
"""
from __future__ import annotations

import json
import time

from cdc_conformance.harness.under_test import NormalizerUnderTest


def an_hour_ago_ms() -> int:
    """A Kafka timestamp for records whose event time a test sets: in the past, since the streaming assembly takes no
    event time later than its micro-batch (normalizer/assembly.py), and within the broker's retention (a week), which
    deletes records stamped older."""
    return int(time.time() * 1000) - 3_600_000


def reached(progress: dict | None, end_offsets: dict[str, dict[int, int]]) -> bool:
    if not progress:
        return False
    for source in progress.get("sources", []):
        offsets = source.get("endOffset")
        offsets = json.loads(offsets) if isinstance(offsets, str) else offsets
        if not offsets:
            return False
        for topic, partitions in end_offsets.items():
            for partition, end in partitions.items():
                if int(offsets.get(topic, {}).get(str(partition), -1)) < end:
                    return False
    return True


def _idle(progress: dict) -> bool:
    """An idle trigger's report: no batch ran (a query that still had work, a timeout or a watermark to move, would
    have run a no-data batch instead)."""
    return "addBatch" not in progress.get("durationMs", {})


def run_until_caught_up(query, end_offsets: dict[str, dict[int, int]], timeout: float = 300.0,
                        settle_batches: int = 1, poll: float = 0.2) -> None:
    """Block until the query has committed every offset below `end_offsets` (+ `settle_batches` more batches, or
    an idle report after them: nothing more will run)."""
    deadline = time.monotonic() + timeout
    caught_up_at = None
    while time.monotonic() < deadline:
        if query.exception() is not None:
            raise query.exception()
        progress = query.lastProgress
        if reached(progress, end_offsets):
            # idle reports come every 200 ms (harness.spark): the first report seen past the end may be one
            if settle_batches and _idle(progress):
                return
            caught_up_at = caught_up_at if caught_up_at is not None else progress["batchId"]
            if progress["batchId"] >= caught_up_at + settle_batches:
                return
        time.sleep(poll)
    raise TimeoutError(f"streaming query did not reach {end_offsets} within {timeout}s: {query.lastProgress}")


def rendered(rows) -> list:
    """Output rows (arrays of events and quarantine records) as sorted canonical JSON, for comparison."""
    from cdc_conformance.model import event_to_json, quarantine_to_json

    out = []
    for row in rows:
        out += [("E", event_to_json(event)) for event in row.events or []]
        out += [("Q", quarantine_to_json(record)) for record in row.quarantine or []]
    return sorted(out, key=str)


def end_offsets(broker, topics: list[str]) -> dict[str, dict[int, int]]:
    return {topic: broker.end_offsets(topic) for topic in topics}


def batch_rows(spark, broker, format_id: str, topics: list[str], under_test: NormalizerUnderTest | None = None,
               **options) -> list:
    """The batch normalizer over everything in `topics`, rendered like `rendered` renders output rows (`options`: the
    format's, harness.roundtrip.format_options)."""
    from cdc_conformance.harness.kafka_read import read_batch

    under_test = under_test or NormalizerUnderTest.load()
    ranges = {topic: {p: (0, end) for p, end in ends.items()} for topic, ends in end_offsets(broker, topics).items()}
    events, quarantine = under_test.batch(read_batch(spark, broker.bootstrap_servers, ranges), format_id, **options)
    return sorted([("E", e) for e in events] + [("Q", q) for q in quarantine], key=str)


def stream_once(spark, broker, format_id: str, topics: list[str], sink, checkpoint, max_offsets_per_trigger: int | None,
                under_test: NormalizerUnderTest | None = None, **options) -> None:
    """Run the streaming entry of the normalizer under test (the reference by default) into parquet until it
    has processed everything available, then stop it (its checkpoint stays, so a second call resumes). Not
    `availableNow` (see the module doc)."""
    from cdc_conformance.harness.kafka_read import read_stream

    under_test = under_test or NormalizerUnderTest.load()
    query = (under_test.stream(read_stream(spark, broker.bootstrap_servers, topics, max_offsets_per_trigger),
                               format_id, **options)
             .writeStream.format("parquet").option("path", str(sink)).option("checkpointLocation", str(checkpoint))
             .trigger(processingTime="200 milliseconds").start())
    try:
        run_until_caught_up(query, end_offsets(broker, topics))
    finally:
        query.stop()
    if query.exception() is not None:
        raise query.exception()


def stream_until_caught_up(spark, broker, format_id: str, topics: list[str], workdir, max_offsets_per_trigger: int,
                           under_test: NormalizerUnderTest | None = None, **options) -> list:
    """One streaming run over `topics` from the start, rendered like `batch_rows`."""
    stream_once(spark, broker, format_id, topics, workdir / "out", workdir / "checkpoint", max_offsets_per_trigger,
                under_test, **options)
    return rendered(spark.read.parquet(str(workdir / "out")).collect())


def main(argv: list[str] | None = None) -> None:
    """`python -m cdc_conformance.harness.streaming`: one streaming run in a driver of its own (the fault tests kill it)."""
    import argparse

    from cdc_conformance.harness.broker import ExternalKafka
    from cdc_conformance.harness.spark import spark_session

    parser = argparse.ArgumentParser(prog="python -m cdc_conformance.harness.streaming")
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--format", required=True)
    parser.add_argument("--topic", action="append", required=True)
    parser.add_argument("--sink", required=True)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--max-offsets-per-trigger", type=int, default=None)
    parser.add_argument("--normalizer", default=None, help="module:function (its streaming entry runs); default the reference")
    args = parser.parse_args(argv)
    broker = ExternalKafka(bootstrap_servers=args.bootstrap_servers).start()
    under_test = NormalizerUnderTest.load(args.normalizer) if args.normalizer else None
    stream_once(spark_session(under_test=under_test), broker, args.format, args.topic, args.sink, args.checkpoint,
                args.max_offsets_per_trigger, under_test)


if __name__ == "__main__":
    main()
