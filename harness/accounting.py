"""Invariant 2 (nothing lost, nothing invented), checked in one place for cases, properties and soaks.

Every record read is either in the origin of at least one canonical event and in no quarantine record,
or in exactly one quarantine record and in no event.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

Coordinate = tuple[str, int, int]  # topic, partition, offset


def coordinate(origin: dict) -> Coordinate:
    return origin["topic"], origin["partition"], origin["offset"]


def origin_order(item: dict) -> tuple:
    """Events and quarantine records sorted by where they start (then by event id): one order everywhere."""
    return (*coordinate(item["origin"][0]), item.get("event_id") or "")


def problems(read: Iterable[Coordinate], events: list[dict], quarantine: list[dict]) -> list[str]:
    in_events = {coordinate(o) for event in events for o in event["origin"]}
    quarantined = Counter(coordinate(o) for record in quarantine for o in record["origin"])
    found = []
    for where in read:
        emitted, held = where in in_events, quarantined.get(where, 0)
        if emitted and held:
            found.append(f"record {where} is in an event and in {held} quarantine record(s)")
        elif not emitted and held != 1:
            found.append(f"record {where} is in no event and in {held} quarantine records (nothing may be lost)")
    return found
