"""Run records through the broker and the normalizer under test, and collect canonical output.

This is the one place where the harness touches the system under test: `Normalizer.run` produces
records, reads them back with Spark's Kafka source and calls the normalizer function.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Callable

from generators.records import KafkaRecord
from harness.broker import BrokerError, Coordinates
from normalizer.kafka_source import read_batch
from normalizer.model import event_to_json, quarantine_to_json

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

    def unaccounted(self) -> list[Coordinates]:
        """Records read that are in no event's origin and no quarantine record (must be empty)."""
        seen = {(o["topic"], o["partition"], o["offset"]) for item in self.events + self.quarantine
                for o in item["origin"]}
        return [c for c in self.coordinates if (c.topic, c.partition, c.offset) not in seen]

    def quarantined_twice(self) -> list[tuple]:
        counts: dict[tuple, int] = {}
        for record in self.quarantine:
            for o in record["origin"]:
                key = (o["topic"], o["partition"], o["offset"])
                counts[key] = counts.get(key, 0) + 1
        return [key for key, count in counts.items() if count > 1]


def _origin_sort_key(item: dict):
    first = item["origin"][0]
    return first["topic"], first["partition"], first["offset"], item.get("event_id") or ""


@dataclass
class Normalizer:
    spark: object
    broker: object
    function: Callable = None  # type: ignore[assignment]

    def __post_init__(self):
        if self.function is None:
            self.function = load_normalizer()

    def run(self, records: list[KafkaRecord], format_id: str, partitions: dict[str, int]) -> RunOutput:
        """Create the topics, produce the records in order, normalize exactly those offsets."""
        self.broker.create_topics(partitions)
        coordinates = self.broker.produce(records)
        ranges: dict[str, dict[int, tuple[int, int]]] = {}
        for topic, count in partitions.items():
            ranges[topic] = {p: (0, 0) for p in range(count)}
        for c in coordinates:
            start, end = ranges[c.topic][c.partition]
            ranges[c.topic][c.partition] = (start, max(end, c.offset + 1))
        return self.normalize_ranges(ranges, format_id, coordinates)

    def normalize_ranges(self, ranges, format_id: str, coordinates: list[Coordinates]) -> RunOutput:
        raw = read_batch(self.spark, self.broker.bootstrap_servers, ranges).cache()
        try:
            result = self.function(raw, format_id)
            events = sorted((event_to_json(row) for row in result.events.collect()), key=_origin_sort_key)
            quarantine = sorted((quarantine_to_json(row) for row in result.quarantine.collect()), key=_origin_sort_key)
            read = raw.count()
        finally:
            raw.unpersist()
        if read != len(coordinates):
            raise BrokerError(f"Spark read {read} records, {len(coordinates)} were produced")
        return RunOutput(events, quarantine, coordinates)
