"""Kafka records as producers write them, and Kafka's default partitioner (so keys land where they would)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from cdc_conformance.model import CODE_PHASE, CanonicalEvent, Code, Origin


@dataclass(frozen=True)
class Registration:
    """A writer schema to register before producing: the registry numbers schemas as they come, so a generator cannot
    know the id, and the harness (harness/schema_registry.py, `registered`) writes it into bytes 1-4 of the part."""

    subject: str
    schema: str  # the Avro schema's JSON text


@dataclass(frozen=True)
class KafkaRecord:
    """One record to produce, exactly as a capture tool would have written it."""

    topic: str
    partition: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    timestamp_ms: int | None = None  # the record's Kafka timestamp (CreateTime); None: the producer's clock at sending
    # the key's and value's writer schemas a schema registry must hold ("key"/"value" -> Registration): their bytes
    # are in the registry's wire format with a placeholder id, which the harness replaces with the registry's own
    registrations: tuple[tuple[str, Registration], ...] = ()

    @property
    def written_value(self) -> bytes:
        """The value of a record that has one: every record but a tombstone."""
        if self.value is None:
            raise ValueError(f"a tombstone on {self.topic} has no value")
        return self.value


def murmur2(data: bytes) -> int:
    """Kafka's `Utils.murmur2` (seed 0x9747b28c), as a signed 32-bit int."""
    length, seed, m, r = len(data), 0x9747B28C, 0x5BD1E995, 24
    h = (seed ^ length) & 0xFFFFFFFF
    for i in range(0, length - length % 4, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    tail = length % 4
    base = length - tail
    if tail == 3:
        h ^= data[base + 2] << 16
    if tail >= 2:
        h ^= data[base + 1] << 8
    if tail >= 1:
        h ^= data[base]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def default_partition(key: bytes | None, partitions: int) -> int:
    """Kafka's partitioner for keyed records: toPositive(murmur2(key)) % partitions.

    Records without a key use the sticky partitioner in real producers; we pin them to partition 0
    so that generated runs are reproducible.
    """
    if key is None:
        return 0
    return (murmur2(key) & 0x7FFFFFFF) % partitions


def predict_offsets(records: list[KafkaRecord], start: dict[tuple[str, int], int] | None = None) -> list[int]:
    """Offsets the records will get when produced in this order; `start` holds the next offset of
    partitions that already have records (it is updated), fresh partitions start at 0."""
    next_offset = start if start is not None else {}
    offsets = []
    for record in records:
        slot = (record.topic, record.partition)
        offsets.append(next_offset.get(slot, 0))
        next_offset[slot] = offsets[-1] + 1
    return offsets


@dataclass
class Expected:
    """A record with what it must become: canonical events (coordinates filled later) or a quarantine."""

    record: KafkaRecord
    events: list[CanonicalEvent] = field(default_factory=list)
    quarantine: tuple[str, str] | None = None          # (phase, code)
    coordinates: tuple[str, int, int] | None = None    # set by with_coordinates
    # records that build one event together (CES segments): the same `logical` on each, the events on
    # one of them, and `segment` ordering them as the normalizer does (index, then coordinates)
    logical: str | None = None
    segment: int = 0
    # events that depend on the record's own offset (canal's position is the Kafka offset): built by
    # with_coordinates once the offset is known; a mutator that quarantines the record clears it
    events_at: Callable[[int], list[CanonicalEvent]] | None = None

    @property
    def placed_at(self) -> tuple[str, int, int]:
        """(topic, partition, offset) of a record with_coordinates has placed."""
        if self.coordinates is None:
            raise ValueError("a record not placed yet (with_coordinates) has no coordinates")
        return self.coordinates

    @classmethod
    def quarantined(cls, record: KafkaRecord, code: Code, **fields) -> Expected:
        """A record that must be quarantined with `code` (its phase from the model)."""
        return cls(record, [], (CODE_PHASE[code].value, code.value), **fields)

    def now_quarantined(self, code: Code, **changes) -> Expected:
        """This item, changed (`changes`: a new record, say), and to be quarantined with `code` instead."""
        return replace(self, events=[], events_at=None, quarantine=(CODE_PHASE[code].value, code.value), **changes)


def with_coordinates(expected: list[Expected], start: dict | None = None) -> list[Expected]:
    """The items again with their coordinates, event ids and origins, from the offsets the records will get
    (fresh topics unless `start`, which is updated as predict_offsets does); the given items are not changed."""
    offsets = predict_offsets([e.record for e in expected], start)
    placed = []
    for item, offset in zip(expected, offsets):
        events = item.events_at(offset) if item.events_at is not None and item.quarantine is None else item.events
        placed.append(replace(item, coordinates=(item.record.topic, item.record.partition, offset), events=list(events)))
    parts: dict[str, list[Expected]] = {}
    for item in placed:
        if item.logical is not None:
            parts.setdefault(item.logical, []).append(item)
    for index, item in enumerate(placed):
        if not item.events:
            continue
        members = parts.get(item.logical, [item]) if item.logical is not None else [item]
        origin = [Origin(*m.placed_at) for m in sorted(members, key=lambda m: (m.segment, *m.placed_at))]
        first = origin[0]
        placed[index] = replace(item, events=[replace(event, event_id=f"{first.topic}/{first.partition}/{first.offset}#{n}",
                                                      origin=origin) for n, event in enumerate(item.events)])
    return placed
