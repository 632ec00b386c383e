"""Batched property checks: Hypothesis draws the examples, one broker + Spark pass checks them all.

A Spark job per example costs seconds, and a Kafka topic-partition costs Spark a consumer and a task,
so 200 examples on their own topics take minutes. Instead the examples are multiplexed onto a few
shared topics (one per partition count), produced once, normalized in one Spark job, and each example
is compared with its oracle on the coordinates of its own records. A failure names the example, the
seed that draws it again (CDC_HYPOTHESIS_SEED) and the diff. There is no shrinking through Spark; the
examples stay small by construction.
"""
from __future__ import annotations

import functools
import importlib
import os
import pkgutil
import random
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed

from cdc_conformance.generators.records import Expected, with_coordinates
from cdc_conformance.harness.accounting import coordinate
from cdc_conformance.harness.diff import diff_events
from cdc_conformance.harness.roundtrip import RoundTrip, RunOutput
from cdc_conformance.model import event_to_json


def session_seed() -> int:
    """CDC_HYPOTHESIS_SEED reproduces a run; otherwise a fresh seed, printed with any failure."""
    chosen = os.environ.get("CDC_HYPOTHESIS_SEED")
    return int(chosen) if chosen else random.SystemRandom().randrange(2 ** 32)


SUITE_PACKAGES = ("cdc_conformance.generators", "cdc_conformance.normalizer", "cdc_conformance.harness", "cdc_conformance.peers")


@functools.cache  # once per process: every later call would walk the packages again for nothing
def load_suite_modules() -> None:
    """Import every module of the suite's own packages. Hypothesis mixes literals from the source of loaded
    local modules into what it draws, so the same seed draws other examples once one more module is loaded
    (a Spark run imports the decoders lazily). With all of them loaded first, a seed draws the same examples
    in every process of one entry point: the CLI, or pytest (whose conftest.py is one more local module)."""
    for package in SUITE_PACKAGES:
        path = importlib.import_module(package).__path__
        for module in pkgutil.walk_packages(path, f"{package}."):
            if not module.name.endswith("__main__"):
                importlib.import_module(module.name)


def draw_examples(strategy, count: int, seed: int) -> list[Any]:
    load_suite_modules()
    examples: list[Any] = []

    @hypothesis_seed(seed)
    @settings(max_examples=count, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy)
    def collect(example):
        examples.append(example)

    collect()
    return examples


@dataclass
class Example:
    """One drawn example after encoding: its records with what each must become."""

    label: str
    expected: list[Expected]
    partitions: dict[str, int] = field(default_factory=dict)  # topic -> partition count
    mutator: str | None = None  # the mutator applied to it, if any (harness.generic.mutated_examples)


@dataclass
class BatchResult:
    seed: int
    examples: list[Example]
    output: RunOutput
    failures: list[str]

    def report(self) -> str:
        head = (f"{len(self.failures)} of {len(self.examples)} examples failed "
                f"(reproduce with CDC_HYPOTHESIS_SEED={self.seed})")
        return "\n\n".join([head, *self.failures[:5]])


def ordering_problems(events: list[dict], within_partition: bool = False) -> list[str]:
    """Invariant 4 (docs/invariants.md) on the oracle: in commit order, the positions of one source strictly increase,
    so sorting by position reproduces commit order (the halves of a key change included). Snapshot reads
    (unordered by nature), a schema snapshot's statements (one position: where it started) and events without a
    position are left out."""
    last: dict[tuple, tuple] = {}
    problems = []
    for event in events:
        if event["position"] is None or event["snapshot"]:
            continue
        source = tuple((event["source"] or {}).get(part) for part in ("system", "server", "database"))
        if within_partition:  # positions that only order records of one partition (the Kafka offset)
            source += (event["origin"][0]["topic"], event["origin"][0]["partition"])
        position = tuple(event["position"].get(part) or "" for part in ("commit", "event", "seq"))
        if source in last and not last[source] < position:
            problems.append(f"position {position} of {event['kind']} {event['op']} does not come after {last[source]}")
        last[source] = position
    return problems


def failure_text(example: Example, problems: list[str], seed: int) -> str:
    """What differed first (one line, as `run` prints a case's diff), then the rest, the drawn example, and how
    to draw it again: a certification record keeps the first line, so it must say what went wrong."""
    number = example.label.split(" ", 1)[0]
    head, *details = [line.strip() for line in problems[0].splitlines()]
    first = " ".join([head, "; ".join(details)]).strip()  # "event ... differs: path: expected X, got Y; ..."
    first = first if len(first) <= 400 else first[:400] + " ..."
    return "\n".join([f"example {number}{f' mutated by {example.mutator}' if example.mutator else ''} (seed {seed}): {first}",
                      *(f"  {problem}" for problem in problems[1:]), f"  drawn: {example.label}",
                      f"  replay: the same seed draws the same examples (certify --seed {seed}; CDC_HYPOTHESIS_SEED={seed} for the tests)"])


def placed(examples: list[Example]) -> list[Example]:
    """The examples with coordinates, as their records will land when produced in this order (examples share
    topics, so offsets continue from one example to the next)."""
    next_offsets: dict[tuple[str, int], int] = {}
    return [replace(example, expected=with_coordinates(example.expected, next_offsets)) for example in examples]


def run_batch(roundtrip: RoundTrip, format_id: str, examples: list[Example], seed: int,
              ordered_within_partition: bool = False, options: dict[str, str] | None = None) -> BatchResult:
    """The examples through the broker and the normalizer in one job (`options`: the format options they are read
    with, one for all of them), each compared with its oracle."""
    examples = placed(examples)
    partitions = {topic: count for example in examples for topic, count in example.partitions.items()}
    records = [item.record for example in examples for item in example.expected]
    output = roundtrip.run(records, format_id, partitions, options)
    events_at: dict[tuple, list[dict]] = {}  # one record may yield several events (a key change)
    for event in output.events:
        events_at.setdefault(coordinate(event["origin"][0]), []).append(event)
    quarantine_at = {coordinate(q["origin"][0]): (q["phase"], q["code"]) for q in output.quarantine}
    failures = []
    for example in examples:
        expected_events = [event_to_json(ev) for item in example.expected for ev in item.events]
        own = {item.placed_at for item in example.expected}
        actual = [e for key in own for e in events_at.get(key, [])]
        problems = diff_events(expected_events, actual) + ordering_problems(expected_events, ordered_within_partition)
        for item in example.expected:
            got = quarantine_at.get(item.placed_at)
            if got != item.quarantine:
                problems.append(f"record {item.coordinates}: expected quarantine {item.quarantine}, got {got}")
        if problems:
            failures.append(failure_text(example, problems, seed))
    failures += output.accounting_problems()[:10]
    return BatchResult(seed, examples, output, failures)


def events_of(example: Example, output: RunOutput) -> list[dict]:
    """The events built from the example's records, in origin order."""
    own = {item.coordinates for item in example.expected}
    return [e for e in output.events if coordinate(e["origin"][0]) in own]
