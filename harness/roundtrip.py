"""One round trip through the real parts: produce records to the broker, read them back with Spark's Kafka
source, run the normalizer under test, check its output against the contract, and collect it.

This is the one place where the harness touches the system under test.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module

from generators.records import KafkaRecord
from harness import accounting, contract
from harness.broker import BrokerError, Coordinates
from normalizer.kafka_source import read_batch
from normalizer.model import event_to_json, quarantine_to_json
from normalizer.pipeline import combined_of

DEFAULT_NORMALIZER = "normalizer.pipeline:normalize"


def load_normalizer(spec: str = DEFAULT_NORMALIZER) -> Callable:
    """`module:function` -> the function; any normalizer with the same contract can be certified."""
    module_name, _, function_name = spec.partition(":")
    if not module_name or not function_name:
        raise ValueError(f"normalizer must be given as module:function, not {spec!r}")
    return getattr(import_module(module_name), function_name)


@dataclass
class RunOutput:
    events: list[dict]
    quarantine: list[dict]
    coordinates: list[Coordinates]   # of every record produced, in produce order

    def accounting_problems(self) -> list[str]:
        return accounting.problems([(c.topic, c.partition, c.offset) for c in self.coordinates],
                                   self.events, self.quarantine)


def _collect(result) -> tuple[list[dict], list[dict]]:
    """Both outputs in origin order. Where the reference normalizer split them from one set of output rows,
    those rows are collected once (one job instead of two that each run the whole decode; the split itself
    is checked against them in tests/integration/test_plans.py); any other normalizer's frames one by one."""
    combined = combined_of(result)
    if combined is not None:
        rows = combined.collect()
        events, quarantine = [e for r in rows for e in r.events], [q for r in rows for q in r.quarantine]
    else:
        events, quarantine = result.events.collect(), result.quarantine.collect()
    return (sorted(map(event_to_json, events), key=accounting.origin_order),
            sorted(map(quarantine_to_json, quarantine), key=accounting.origin_order))


@dataclass
class RoundTrip:
    spark: object
    broker: object
    normalizer: Callable = None  # type: ignore[assignment]
    # the records read are coalesced into at most this many Spark partitions (None: one per Kafka partition, as
    # Spark's source gives them). Every case has topics of its own, so a suite run reads dozens of Kafka
    # partitions of a few records each, and a task per partition cost more than the decode itself (a
    # Debezium batch of 49 records in 36 tasks: 3.2 s warm; in 2: 0.9 s). The normalizer must not depend on
    # partitioning: several Kafka partitions in one task is a layout users' jobs have too.
    read_partitions: int | None = 2

    def __post_init__(self):
        if self.normalizer is None:
            self.normalizer = load_normalizer()

    def run(self, records: list[KafkaRecord], format_id: str, partitions: dict[str, int]) -> RunOutput:
        """Create the topics, produce the records in order, normalize exactly those offsets."""
        self.broker.create_topics(partitions)
        coordinates = self.broker.produce(records)
        ranges: dict[str, dict[int, tuple[int, int]]] = {topic: {p: (0, 0) for p in range(count)}
                                                         for topic, count in partitions.items()}
        for c in coordinates:
            start, end = ranges[c.topic][c.partition]
            ranges[c.topic][c.partition] = (start, max(end, c.offset + 1))
        return self.normalize_ranges(ranges, format_id, coordinates)

    def normalize_ranges(self, ranges, format_id: str, coordinates: list[Coordinates]) -> RunOutput:
        raw = read_batch(self.spark, self.broker.bootstrap_servers, ranges)
        raw = (raw.coalesce(self.read_partitions) if self.read_partitions else raw).cache()
        try:
            result = self.normalizer(raw, format_id)
            contract.check(result)
            events, quarantine = _collect(result)
            read = raw.count()
        finally:
            raw.unpersist()
        if read != len(coordinates):
            raise BrokerError(f"Spark read {read} records, {len(coordinates)} were produced")
        return RunOutput(events, quarantine, coordinates)
