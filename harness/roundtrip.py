"""One round trip through the real parts: produce records to the broker, read them back with Spark's Kafka
source, run the normalizer under test, check its output against the contract, and collect it.

The normalizer under test is reached only through `harness.under_test.NormalizerUnderTest`, here and in the
streaming checks.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness import accounting
from cdc_conformance.harness.broker import Broker, BrokerError, Coordinates
from cdc_conformance.harness.kafka_read import read_batch
from cdc_conformance.harness.schema_registry import RegistryClient, SchemaRegistryError, registered
from cdc_conformance.harness.under_test import NormalizerUnderTest


@dataclass
class RunOutput:
    events: list[dict]
    quarantine: list[dict]
    coordinates: list[Coordinates]   # of every record produced, in produce order

    def accounting_problems(self) -> list[str]:
        return accounting.problems([(c.topic, c.partition, c.offset) for c in self.coordinates],
                                   self.events, self.quarantine)


@dataclass
class RoundTrip:
    spark: Any  # a classic or a Spark Connect session
    broker: Broker
    normalizer: NormalizerUnderTest = None  # type: ignore[assignment]  # a bare batch function is taken as one
    # the records read are coalesced into at most this many Spark partitions (None: one per Kafka partition, as
    # Spark's source gives them). Every case has topics of its own, so a suite run reads dozens of Kafka
    # partitions of a few records each, and a task per partition cost more than the decode itself (a
    # Debezium batch of 49 records in 36 tasks: 3.2 s warm; in 2: 0.9 s). The normalizer must not depend on
    # partitioning: several Kafka partitions in one task is a layout users' jobs have too.
    read_partitions: int | None = 2
    # the schema registry of the formats whose records name writer schemas by id (debezium-avro): their schemas are
    # registered there as the records are produced, and its URL is the normalizer's `schema_registry` option
    schema_registry: RegistryClient | None = None

    def __post_init__(self):
        self.normalizer = NormalizerUnderTest.load() if self.normalizer is None else NormalizerUnderTest.of(self.normalizer)

    def run(self, records: list[KafkaRecord], format_id: str, partitions: dict[str, int],
            options: dict[str, str] | None = None) -> RunOutput:
        """Create the topics, produce the records in order, normalize exactly those offsets (`options`: the format
        options the records are read with, a case's or a producer setting's)."""
        ranges, coordinates = self.produce(records, partitions)
        return self.normalize_ranges(ranges, format_id, coordinates, options)

    def options(self, format_id: str, given: dict[str, str] | None = None) -> dict[str, str]:
        """The format options the normalizer gets for `format_id` (registry.yaml's `options`): `given`, and the URL of
        this round trip's schema registry where the format needs one (asked only then: the suite's own starts on
        first use)."""
        return format_options(format_id, self.schema_registry, given)

    def produce(self, records: list[KafkaRecord], partitions: dict[str, int]) -> tuple[dict, list[Coordinates]]:
        """Create the topics and produce the records in order: the offset ranges they hold, and their coordinates
        (for `normalize_ranges`, by this round trip's normalizer or another's over the same records)."""
        self.broker.create_topics(partitions)
        coordinates = self.broker.produce(registered(records, self.schema_registry))
        ranges: dict[str, dict[int, tuple[int, int]]] = {topic: {p: (0, 0) for p in range(count)}
                                                         for topic, count in partitions.items()}
        for c in coordinates:
            start, end = ranges[c.topic][c.partition]
            ranges[c.topic][c.partition] = (start, max(end, c.offset + 1))
        return ranges, coordinates

    def normalize_ranges(self, ranges, format_id: str, coordinates: list[Coordinates],
                         options: dict[str, str] | None = None) -> RunOutput:
        raw = read_batch(self.spark, self.broker.bootstrap_servers, ranges)
        raw = (raw.coalesce(self.read_partitions) if self.read_partitions else raw).cache()
        try:
            given = self.options(format_id, options)
            if self.normalizer.reads_broker:  # a peer with a Kafka source of its own reads the same offsets itself
                given["kafka_bootstrap_servers"] = self.broker.bootstrap_servers
            events, quarantine = self.normalizer.batch(raw, format_id, **given)
            read = raw.count()
        finally:
            raw.unpersist()
        if read != len(coordinates):
            raise BrokerError(f"Spark read {read} records, {len(coordinates)} were produced")
        return RunOutput(events, quarantine, coordinates)


@functools.cache
def _declared_options(format_id: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The format's options, and those of them it needs in every run."""
    from cdc_conformance.harness.registry import Registry

    registry = Registry.load()
    return tuple(registry.options(format_id)), registry.required_options(format_id)


def format_options(format_id: str, schema_registry: RegistryClient | None,
                   given: dict[str, str] | None = None) -> dict[str, str]:
    """The option values a run gives a normalizer for `format_id`: `given` (a case's, a producer setting's), then the
    schema registry's URL where the format declares the option (asked for only then). An option the format does not
    declare, or a required one the run lacks, is an error naming it (never a normalizer called without it)."""
    declared, required = _declared_options(format_id)
    options = dict(given or {})
    unknown = sorted(set(options) - set(declared))
    if unknown:
        raise ValueError(f"{format_id} has no option {unknown[0]} (registry.yaml `options`)")
    if "schema_registry" in declared and "schema_registry" not in options and schema_registry is not None:
        options["schema_registry"] = schema_registry.url
    for name in required:
        if name not in options:
            raise SchemaRegistryError(f"{format_id} needs a {name.replace('_', ' ')} and this run has none")
    return options
