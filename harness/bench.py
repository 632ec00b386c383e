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


def run(spark, broker, generator: FormatGenerator, messages: int, repeat: int = 1, partitions: int = 2) -> list[Measurement]:
    from normalizer.kafka_source import read_batch
    from normalizer.pipeline import normalize_combined

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
        results.append(measure(f"normalizer {generator.format_id}", normalize_combined(raw(), generator.format_id),
                               messages))
    return results


def table(results: list[Measurement]) -> str:
    plain = [r for r in results if r.name.startswith("plain")]
    baseline = max(r.rate for r in plain) if plain else None
    lines = [f"{'pass':<30}{'messages':>10}{'seconds':>10}{'messages/s':>14}{'ratio':>8}"]
    for r in results:
        ratio = f"{r.rate / baseline:.2f}" if baseline else "-"
        lines.append(f"{r.name:<30}{r.messages:>10}{r.seconds:>10.2f}{r.rate:>14,.0f}{ratio:>8}")
    return "\n".join(lines)
