"""`cdc-conformance bench`: normalizer throughput against a plain parsing pass over the same Kafka data.

Both passes read the same topic of the embedded broker with Spark's Kafka source and are forced to
compute every output column through Spark's `noop` sink (a count could be answered from pruned
columns). The format's generator supplies the records and the plain pass (generators.plugin.Bench);
for CES, the plain pass only parses the three levels (JSON, or Avro + Avro + JSON for `ces-avro`).
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cdc_conformance.generators.plugin import Bench, FormatGenerator
from cdc_conformance.harness import profile
from cdc_conformance.harness.roundtrip import format_options
from cdc_conformance.harness.schema_registry import RegistryClient, registered
from cdc_conformance.harness.under_test import NormalizerUnderTest


@dataclass
class Measurement:
    name: str
    messages: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.messages / self.seconds if self.seconds else float("inf")


def measure(name: str, frame, messages: int) -> Measurement:
    started = time.monotonic()
    frame.write.format("noop").mode("overwrite").save()
    return Measurement(name, messages, time.monotonic() - started)


def measure_all(name: str, frames: list, messages: int) -> Measurement:
    """Every frame through the sink: a normalizer whose two outputs are not one set of rows runs twice."""
    return Measurement(name, messages, sum(measure(name, frame, messages).seconds for frame in frames))


def run(spark, broker, under_test: NormalizerUnderTest, generator: FormatGenerator, messages: int, repeat: int = 1,
        partitions: int = 2, schema_registry: RegistryClient | None = None, profile_dir: Path | None = None
        ) -> list[Measurement]:
    """`repeat` passes of each side after a warm-up; with `profile_dir`, one more of each under async-profiler
    (harness.profile), named `profile ...` and never the best of a side."""
    bench, raw, options = prepared(spark, broker, generator, messages, partitions, schema_registry)
    # one whole pass of each side before any is counted: a JVM's passes keep getting faster over its first few (the
    # JIT compiles a side's code as it runs), so each side gets the same start, and a ratio does not depend on which
    # side ran first (issue 61: debezium-avro's plain pass ran 136k msg/s in a bench and 156-239k in longer runs)
    measure("warm-up plain", bench.plain(raw()), messages)
    measure_all("warm-up normalizer", under_test.frames(raw(), generator.format_id, **options), messages)
    results = []
    for _ in range(repeat):
        results.append(measure(bench.plain_label, bench.plain(raw()), messages))
        results.append(measure_all(f"normalizer {generator.format_id}", under_test.frames(raw(), generator.format_id, **options),
                                   messages))
    if profile_dir is not None:
        profiler = profile.Profiler(spark)
        with profiler.recording(profile_dir / f"{generator.format_id}-plain"):
            results.append(measure("profile plain", bench.plain(raw()), messages))
        with profiler.recording(profile_dir / f"{generator.format_id}-normalizer"):
            results.append(measure_all("profile normalizer", under_test.frames(raw(), generator.format_id, **options), messages))
    return results


def prepared(spark, broker, generator: FormatGenerator, messages: int, partitions: int = 2,
             schema_registry: RegistryClient | None = None) -> tuple[Bench, Callable, dict]:
    """A new topic of the format's benchmark records, and its warm-up pass (JIT and Kafka consumer start-up): the
    format's Bench, a function making a batch DataFrame over the whole topic, and the format's options."""
    from cdc_conformance.harness.kafka_read import read_batch

    bench = generator.benchmark()
    topic = f"bench-{generator.format_id}-{uuid.uuid4().hex[:8]}"
    broker.create_topics({topic: partitions})
    broker.produce(registered(bench.records(topic, messages, partitions), schema_registry))
    ranges = {topic: {p: (0, end) for p, end in broker.end_offsets(topic).items()}}
    raw = lambda: read_batch(spark, broker.bootstrap_servers, ranges)  # noqa: E731
    measure("warm-up", bench.plain(raw().limit(1000)), 1000)
    return bench, raw, format_options(generator.format_id, schema_registry)


@dataclass
class FormatRow:
    """One format's warm figures: the best of its passes on each side, over the same Kafka data."""

    format_id: str
    messages: int
    plain_rate: float
    normalizer_rate: float
    growth: float | None = None  # normalizer time at 10x the messages / time at 1x (linear: about 10)
    profile: str | None = None   # with --profile: where the profiled passes' time went (Markdown)

    @property
    def ratio(self) -> float:
        return self.normalizer_rate / self.plain_rate

    def as_json(self) -> dict:
        return {"format": self.format_id, "messages": self.messages, "plain_msg_s": round(self.plain_rate),
                "normalizer_msg_s": round(self.normalizer_rate), "ratio": round(self.ratio, 3),
                "time_10x_over_1x": None if self.growth is None else round(self.growth, 2)}


def format_row(spark, broker, under_test: NormalizerUnderTest, generator: FormatGenerator, messages: int, repeat: int,
               growth: bool = False, schema_registry: RegistryClient | None = None,
               profile_dir: Path | None = None) -> FormatRow:
    """Best of `repeat` passes each (after the warm-up): the first pass of a JVM runs interpreted code."""
    results = run(spark, broker, under_test, generator, messages, repeat, schema_registry=schema_registry,
                  profile_dir=profile_dir)
    row = FormatRow(generator.format_id, messages, _best(results, "plain"), _best(results, "normalizer"))
    if profile_dir is not None:
        plain, normalizer = (profile.breakdown(profile_dir / f"{generator.format_id}-{side}.collapsed")
                             for side in ("plain", "normalizer"))
        row.profile = profile.summary(generator.format_id, plain, normalizer, _best(results, "profile plain"),
                                      _best(results, "profile normalizer"))
    if growth:
        larger = _best(run(spark, broker, under_test, generator, messages * 10, repeat, schema_registry=schema_registry),
                       "normalizer")
        row.growth = (messages * 10 / larger) / (messages / row.normalizer_rate)
    return row


def _best(results: list[Measurement] | list[StreamPass], prefix: str) -> float:
    return max(r.rate for r in results if r.name.startswith(prefix))


def summary(rows: list[FormatRow]) -> str:
    lines = [f"{'format':<22}{'messages':>10}{'plain msg/s':>14}{'normalizer msg/s':>18}{'ratio':>8}{'t(10x)/t(1x)':>14}"]
    for r in rows:
        growth = "-" if r.growth is None else f"{r.growth:.1f}"
        lines.append(f"{r.format_id:<22}{r.messages:>10,}{r.plain_rate:>14,.0f}{r.normalizer_rate:>18,.0f}{r.ratio:>8.2f}{growth:>14}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# Streaming (issue 50): the same records through a Structured Streaming query of each side
# ---------------------------------------------------------------------------------------------------

@dataclass
class StreamPass:
    """One streaming query over the whole topic: its time, and its state operators' rows and memory at the end."""

    name: str
    messages: int
    seconds: float
    state_rows: int = 0
    state_bytes: int = 0

    @property
    def rate(self) -> float:
        return self.messages / self.seconds if self.seconds else float("inf")


def stream_pass(name: str, frame, messages: int, end_offsets: dict, workdir: str) -> StreamPass:
    """`frame` (a streaming DataFrame) through the `noop` sink with the default trigger (the next micro-batch as soon as
    one ends, as production queries run), from start until every offset below `end_offsets` is committed."""
    from cdc_conformance.harness.streaming import run_until_caught_up

    started = time.time()
    query = _started_without_idle_batches(frame.writeStream.format("noop").outputMode("append")
                                          .option("checkpointLocation", f"{workdir}/{uuid.uuid4().hex[:8]}"), frame)
    try:
        run_until_caught_up(query, end_offsets, timeout=3600.0, settle_batches=0, poll=0.05)
        seconds = _caught_up_at(query.recentProgress, end_offsets, fallback=time.time()) - started
        operators = (query.lastProgress or {}).get("stateOperators", [])
        return StreamPass(name, messages, seconds, sum(o.get("numRowsTotal", 0) for o in operators),
                          sum(o.get("memoryUsedBytes", 0) for o in operators))
    finally:
        _stop_between_batches(query)


def _caught_up_at(progress: list[dict], end_offsets: dict, fallback: float) -> float:
    """When the micro-batch that reached `end_offsets` ended, as the query reports it (its trigger's start plus its
    `triggerExecution`): the poll that noticed it came up to a poll interval later, a fifth of a 100,000-record pass
    at 0.2 s, and that error would add the same seconds to both sides (pulling every ratio towards 1)."""
    from datetime import datetime

    from cdc_conformance.harness.streaming import reached

    for report in progress:  # oldest first: the first report past the end is the batch that reached it
        if reached(report, end_offsets) and "triggerExecution" in report.get("durationMs", {}):
            begun = datetime.fromisoformat(report["timestamp"]).timestamp()
            return begun + report["durationMs"]["triggerExecution"] / 1000
    return fallback


def _started_without_idle_batches(writer, frame):
    """A query with event-time timeouts in state runs a batch without data after each batch that moved the watermark
    (to release what became due), and stopping one mid-commit logs the interrupted state store's errors. The
    benchmark's queries stop once caught up, so they run without those batches (a setting the query takes when it
    starts; the measured batches all hold data)."""
    session = frame.sparkSession
    key = "spark.sql.streaming.noDataMicroBatches.enabled"
    before = session.conf.get(key, "true")
    session.conf.set(key, "false")
    try:
        return writer.start()
    finally:
        session.conf.set(key, before)


def _stop_between_batches(query, wait: float = 10.0) -> None:
    """A query with timeouts in state may be running a batch without data; stopping one mid-commit logs Spark's
    errors for the interrupted state store, so stop between two."""
    deadline = time.monotonic() + wait
    while query.status.get("isTriggerActive") and time.monotonic() < deadline:
        time.sleep(0.02)
    query.stop()


@dataclass
class StreamRow:
    """One format's streaming figures: the best of each side's warm queries, the session's first (cold) query of the
    normalizer, and the state the normalizer's query held at its end."""

    format_id: str
    messages: int
    max_offsets_per_trigger: int
    plain_rate: float
    normalizer_rate: float
    cold_rate: float
    state_rows: int
    state_bytes: int
    growth: float | None = None          # time at 10x the messages / time at 1x (linear: about 10)
    state_rows_10x: int | None = None    # the state's rows at the end of the 10x query (flat: the same)
    floor_rate: float | None = None      # the stateful path without its state (normalize_stream_floor); None: stateless

    @property
    def floor_ratio(self) -> float | None:
        return None if self.floor_rate is None else self.normalizer_rate / self.floor_rate

    @property
    def ratio(self) -> float:
        return self.normalizer_rate / self.plain_rate

    def as_json(self) -> dict:
        return {"format": self.format_id, "messages": self.messages, "max_offsets_per_trigger": self.max_offsets_per_trigger,
                "plain_msg_s": round(self.plain_rate), "normalizer_msg_s": round(self.normalizer_rate),
                "ratio": round(self.ratio, 3),
                "cold_normalizer_msg_s": None if self.cold_rate != self.cold_rate else round(self.cold_rate),  # NaN: none run
                "state_rows": self.state_rows, "state_bytes": self.state_bytes,
                "time_10x_over_1x": None if self.growth is None else round(self.growth, 2),
                "state_rows_10x": self.state_rows_10x,
                "floor_msg_s": None if self.floor_rate is None else round(self.floor_rate),
                "ratio_to_floor": None if self.floor_ratio is None else round(self.floor_ratio, 3)}


def run_stream(spark, broker, under_test: NormalizerUnderTest, generator: FormatGenerator, messages: int,
               max_offsets_per_trigger: int, repeat: int, workdir: str, cold: bool = False, partitions: int = 2,
               schema_registry: RegistryClient | None = None) -> list[StreamPass]:
    """The format's benchmark records on a topic of their own, then a warm-up query of each side (the normalizer's
    reported when `cold`), and `repeat` rounds of queries (plain, normalizer, and the normalizer's floor for a format
    that keeps state), each a new query from the earliest offset."""
    from cdc_conformance.harness.kafka_read import read_stream

    bench = generator.benchmark()
    topic = f"bench-stream-{generator.format_id}-{uuid.uuid4().hex[:8]}"
    broker.create_topics({topic: partitions})
    broker.produce(registered(bench.records(topic, messages, partitions), schema_registry))
    options = format_options(generator.format_id, schema_registry)
    end_offsets = {topic: broker.end_offsets(topic)}
    raw = lambda: read_stream(spark, broker.bootstrap_servers, [topic], max_offsets_per_trigger)  # noqa: E731
    normalizer = f"normalizer {generator.format_id}"
    results = []
    # the first query of each side warms it up (the JIT compiles the normalizer's larger code later); with `cold` the
    # normalizer's is the session's first query, and reported
    first = stream_pass(f"cold {normalizer}", under_test.stream(raw(), generator.format_id, **options), messages, end_offsets, workdir)
    results += [first] if cold else []
    stream_pass("warm-up", bench.plain(raw()), messages, end_offsets, workdir)
    for _ in range(repeat):
        results.append(stream_pass(bench.plain_label, bench.plain(raw()), messages, end_offsets, workdir))
        results.append(stream_pass(normalizer, under_test.stream(raw(), generator.format_id, **options), messages, end_offsets, workdir))
        floor = under_test.stream_floor(raw(), generator.format_id, **options)
        if floor is not None:
            results.append(stream_pass(f"floor {generator.format_id}", floor, messages, end_offsets, workdir))
    return results


def stream_row(spark, broker, under_test: NormalizerUnderTest, generator: FormatGenerator, messages: int,
               max_offsets_per_trigger: int, repeat: int, workdir: str, cold: bool, growth: bool = False,
               schema_registry: RegistryClient | None = None) -> StreamRow:
    results = run_stream(spark, broker, under_test, generator, messages, max_offsets_per_trigger, repeat, workdir, cold,
                         schema_registry=schema_registry)
    warm = [r for r in results if r.name.startswith("normalizer")]
    last = warm[-1]
    first = next((r for r in results if r.name.startswith("cold")), None)
    row = StreamRow(generator.format_id, messages, max_offsets_per_trigger, _best(results, "plain"), _best(results, "normalizer"),
                    first.rate if first else float("nan"), last.state_rows, last.state_bytes)
    if any(r.name.startswith("floor") for r in results):
        row.floor_rate = _best(results, "floor")
    if growth:
        larger = run_stream(spark, broker, under_test, generator, messages * 10, max_offsets_per_trigger, 1, workdir,
                            schema_registry=schema_registry)
        big = [r for r in larger if r.name.startswith("normalizer")][-1]
        row.growth = big.seconds / (messages / row.normalizer_rate)
        row.state_rows_10x = big.state_rows
    return row


def stream_summary(rows: list[StreamRow]) -> str:
    lines = [f"{'format':<22}{'messages':>10}{'per trigger':>12}{'plain msg/s':>13}{'normalizer msg/s':>18}{'ratio':>7}"
             f"{'floor msg/s':>13}{'/floor':>8}{'cold msg/s':>12}{'state rows':>12}{'state MB':>10}{'t(10x)/t(1x)':>14}"
             f"{'rows(10x)':>11}"]
    for r in rows:
        growth = "-" if r.growth is None else f"{r.growth:.1f}"
        floor = ("-", "-") if r.floor_rate is None else (f"{r.floor_rate:,.0f}", f"{r.floor_ratio:.2f}")
        rows_10x = "-" if r.state_rows_10x is None else f"{r.state_rows_10x:,}"
        cold = "-" if r.cold_rate != r.cold_rate else f"{r.cold_rate:,.0f}"  # NaN: no cold query in this run
        lines.append(f"{r.format_id:<22}{r.messages:>10,}{r.max_offsets_per_trigger:>12,}{r.plain_rate:>13,.0f}"
                     f"{r.normalizer_rate:>18,.0f}{r.ratio:>7.2f}{floor[0]:>13}{floor[1]:>8}{cold:>12}{r.state_rows:>12,}"
                     f"{r.state_bytes / 1e6:>10.1f}"
                     f"{growth:>14}{rows_10x:>11}")
    return "\n".join(lines)
