"""`cdc-conformance bench`: normalizer throughput against a plain parsing pass over the same Kafka data.

Both passes read the same topic of the embedded broker with Spark's Kafka source and are forced to
compute every output column through Spark's `noop` sink (a count could be answered from pruned
columns). The format's generator supplies the records and the plain pass (generators.plugin.Bench);
for CES, the plain pass only parses the three levels (JSON, or Avro + Avro + JSON for `ces-avro`).
"""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from generators.plugin import FormatGenerator
from harness.under_test import NormalizerUnderTest


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
        partitions: int = 2) -> list[Measurement]:
    from normalizer.kafka_source import read_batch

    bench = generator.bench
    topic = f"bench-{generator.format_id}-{uuid.uuid4().hex[:8]}"
    broker.create_topics({topic: partitions})
    broker.produce(bench.records(topic, messages, partitions))
    ranges = {topic: {p: (0, end) for p, end in broker.end_offsets(topic).items()}}
    raw = lambda: read_batch(spark, broker.bootstrap_servers, ranges)  # noqa: E731
    measure("warm-up", bench.plain(raw().limit(1000)), 1000)  # JIT and Kafka consumer start-up
    results = []
    for _ in range(repeat):
        results.append(measure(bench.plain_label, bench.plain(raw()), messages))
        results.append(measure_all(f"normalizer {generator.format_id}", under_test.frames(raw(), generator.format_id), messages))
    return results


@dataclass
class FormatRow:
    """One format's warm figures: the best of its passes on each side, over the same Kafka data."""

    format_id: str
    messages: int
    plain_rate: float
    normalizer_rate: float
    growth: float | None = None  # normalizer time at 10x the messages / time at 1x (linear: about 10)

    @property
    def ratio(self) -> float:
        return self.normalizer_rate / self.plain_rate

    def as_json(self) -> dict:
        return {"format": self.format_id, "messages": self.messages, "plain_msg_s": round(self.plain_rate),
                "normalizer_msg_s": round(self.normalizer_rate), "ratio": round(self.ratio, 3),
                "time_10x_over_1x": None if self.growth is None else round(self.growth, 2)}


def format_row(spark, broker, under_test: NormalizerUnderTest, generator: FormatGenerator, messages: int, repeat: int,
               growth: bool = False) -> FormatRow:
    """Best of `repeat` passes each (after the warm-up): the first pass of a JVM runs interpreted code."""
    results = run(spark, broker, under_test, generator, messages, repeat)
    row = FormatRow(generator.format_id, messages, _best(results, "plain"), _best(results, "normalizer"))
    if growth:
        larger = _best(run(spark, broker, under_test, generator, messages * 10, repeat), "normalizer")
        row.growth = (messages * 10 / larger) / (messages / row.normalizer_rate)
    return row


def _best(results: list[Measurement], prefix: str) -> float:
    return max(r.rate for r in results if r.name.startswith(prefix))


def summary(rows: list[FormatRow]) -> str:
    lines = [f"{'format':<22}{'messages':>10}{'plain msg/s':>14}{'normalizer msg/s':>18}{'ratio':>8}{'t(10x)/t(1x)':>14}"]
    for r in rows:
        growth = "-" if r.growth is None else f"{r.growth:.1f}"
        lines.append(f"{r.format_id:<22}{r.messages:>10,}{r.plain_rate:>14,.0f}{r.normalizer_rate:>18,.0f}{r.ratio:>8.2f}{growth:>14}")
    return "\n".join(lines)
