"""Whether a capture fails, and how: its signature (the event fields and quarantine codes that differ
between the normalizer under test and the reference)."""
from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from deepdiff import DeepDiff

from cdc_conformance.harness.diff import readable_path
from cdc_conformance.harness.reproduce.captures import kafka_record
from cdc_conformance.harness.roundtrip import RoundTrip


@dataclass
class Outcome:
    """How one variant fails (empty: it does not), and which of its records the difference touches."""

    signature: frozenset[str]
    touched: list[int]


@dataclass
class Reproducer:
    """The normalizer under test next to the reference one, on the same broker and Spark."""

    under_test: RoundTrip
    reference: RoundTrip
    format_id: str

    def outcomes(self, variants: list[list[dict]]) -> list[Outcome]:
        """Each variant (a list of capture records) on topics of its own; one produce and one Spark job per normalizer."""
        run = uuid.uuid4().hex[:8]
        records: list = []
        partitions: dict = {}
        owner: dict = {}
        for index, items in enumerate(variants):
            prefix = f"repro.{run}.{index}."
            for item in items:
                topic = prefix + item["topic"]
                partitions[topic] = max(partitions.get(topic, 1), item.get("partition", 0) + 1)
                owner[topic] = index
                records.append(kafka_record(item, topic))
        broker = self.under_test.broker
        broker.create_topics(partitions)
        coordinates = broker.produce(records)
        position: dict[tuple, int] = {}  # coordinate -> index of the record in its variant (produce order)
        seen: dict[int, int] = {}
        for c in coordinates:
            variant = owner[c.topic]
            position[(c.topic, c.partition, c.offset)] = seen.get(variant, 0)
            seen[variant] = seen.get(variant, 0) + 1
        ranges: dict = {t: {p: (0, 0) for p in range(n)} for t, n in partitions.items()}
        for c in coordinates:
            ranges[c.topic][c.partition] = (0, max(ranges[c.topic][c.partition][1], c.offset + 1))
        reference = self.reference.normalize_ranges(ranges, self.format_id, coordinates)
        try:
            tested = self.under_test.normalize_ranges(ranges, self.format_id, coordinates)
        except Exception as error:  # the normalizer under test stopping is a failure like any other
            return [Outcome(frozenset({f"normalizer failed: {type(error).__name__}"}), []) for _ in variants]
        found: list[set[str]] = [set() for _ in variants]
        touched: list[list[int]] = [[] for _ in variants]
        for where, items in _differences(reference, tested):
            found[owner[where[0]]].update(items)
            touched[owner[where[0]]].append(position[where])
        for problem in tested.accounting_problems():
            topic = re.search(r"\('([^']+)'", problem)
            if topic and topic.group(1) in owner:
                found[owner[topic.group(1)]].add("accounting: a record lost or counted twice")
        return [Outcome(frozenset(f), sorted(t)) for f, t in zip(found, touched)]

    def signatures(self, variants: list[list[dict]]) -> list[frozenset[str]]:
        return [outcome.signature for outcome in self.outcomes(variants)]

    def signature(self, records: list[dict]) -> frozenset[str]:
        return self.signatures([records])[0]


def _by_coordinate(items: list[dict], render: Callable) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for item in items:
        origin = item["origin"][0]
        out.setdefault((origin["topic"], origin["partition"], origin["offset"]), []).append(render(item))
    return out


def _differences(reference, tested):
    """(topic, items) per record whose outputs differ: event field paths without list positions, and codes."""
    ref_events, test_events = _by_coordinate(reference.events, dict), _by_coordinate(tested.events, dict)
    ref_codes = {k: sorted(q["code"] for q in v) for k, v in _by_coordinate(reference.quarantine, dict).items()}
    test_codes = {k: sorted(q["code"] for q in v) for k, v in _by_coordinate(tested.quarantine, dict).items()}
    for where in sorted(set(ref_events) | set(test_events) | set(ref_codes) | set(test_codes)):
        items = set()
        want, got = ref_events.get(where, []), test_events.get(where, [])
        if len(want) != len(got):
            items.add(f"events: {len(want)} expected per record, {len(got)} emitted")
        for a, b in zip(want, got):
            for paths in DeepDiff(a, b, ignore_private_variables=False).affected_paths:
                items.add("event field " + re.sub(r"\[\d+\]", "[]", readable_path(paths)))
        if ref_codes.get(where) != test_codes.get(where):
            items.add(f"quarantine: {ref_codes.get(where) or 'none'} expected, {test_codes.get(where) or 'none'} given")
        if items:
            yield where, items
