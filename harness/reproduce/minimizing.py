"""Minimizing a failing capture: the records the difference touches, then delta debugging over records,
then members inside JSON values; every round's candidates run side by side in one Spark job."""
from __future__ import annotations

import json

from cdc_conformance.harness.progress import Progress, quiet
from cdc_conformance.harness.reproduce.captures import ReproduceError, json_value, with_value
from cdc_conformance.harness.reproduce.signature import Reproducer


def minimize(reproducer: Reproducer, records: list[dict], max_rounds: int = 12,
             progress: Progress | None = None) -> tuple[list[dict], frozenset[str]]:
    """The smallest records that still fail with the same signature (a subset of records, then of members)."""
    progress = progress or quiet()
    with progress.phase(f"minimizing {len(records)} records: the failure of them all"):
        return _minimize(reproducer, records, max_rounds, progress)


def _minimize(reproducer: Reproducer, records: list[dict], max_rounds: int, progress: Progress) -> tuple[list[dict], frozenset[str]]:
    outcome = reproducer.outcomes([records])[0]
    target = outcome.signature
    if not target:
        raise ReproduceError("the capture does not fail: the normalizer under test agrees with the reference")
    touched = [records[i] for i in outcome.touched]
    if touched and len(touched) < len(records) and reproducer.signature(touched) == target:
        records = touched  # usually all that matters: the records whose own output differs
    progress.note(f"delta debugging from {len(records)} records")
    records = _ddmin(reproducer, records, target, progress)
    for round_number in range(1, max_rounds + 1):
        progress.note(f"{len(records)} record(s) left; removing members, round {round_number}")
        records, shrunk = _shrink_members(reproducer, records, target)
        if not shrunk:
            break
    return records, target


def _ddmin(reproducer: Reproducer, records: list[dict], target: frozenset[str], progress: Progress) -> list[dict]:
    """Zeller's delta debugging; each granularity's subsets and complements are tried in one job."""
    granularity = 2
    while len(records) >= 2:
        progress.note(f"{len(records)} records, trying {granularity} parts and their complements")
        size = max(1, len(records) // granularity)
        chunks = [records[i:i + size] for i in range(0, len(records), size)]
        complements = [[r for j, chunk in enumerate(chunks) if j != i for r in chunk] for i in range(len(chunks))]
        candidates = chunks + [c for c in complements if c]
        signatures = reproducer.signatures(candidates)
        passing = [c for c, s in zip(candidates, signatures) if s == target]
        if passing:
            best = min(passing, key=len)
            granularity = 2 if best in chunks else max(granularity - 1, 2)
            records = best
        elif granularity >= len(records):
            break
        else:
            granularity = min(len(records), granularity * 2)
    return records


def _shrink_members(reproducer: Reproducer, records: list[dict], target: frozenset[str]) -> tuple[list[dict], bool]:
    """One round: every single member removal side by side; then all that kept the failure at once, or else
    the largest of them. Returns (records, whether anything was removed)."""
    removals = [(index, path) for index, item in enumerate(records) if (value := json_value(item)) is not None
                for path in _paths(value)]
    if not removals:
        return records, False
    variants = [_apply(records, [removal]) for removal in removals]
    kept = [r for r, s in zip(removals, reproducer.signatures(variants)) if s == target]
    if not kept:
        return records, False
    together = _apply(records, kept)
    if len(kept) > 1 and reproducer.signature(together) == target:
        return together, True
    return min((_apply(records, [r]) for r in kept), key=lambda v: len(json.dumps(v))), True


def _paths(value, prefix: tuple = (), depth: int = 0):
    """Paths of the members and list elements of a JSON value, to depth 3 (schemas, rows, row images)."""
    if depth > 3:
        return
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield (*prefix, key)
        yield from _paths(inner, (*prefix, key), depth + 1)


def _apply(records: list[dict], removals: list[tuple[int, tuple]]) -> list[dict]:
    """`records` without the members at `removals`; a path under another removed path is already gone, and list
    elements go last-first so earlier indices stay right."""
    out = list(records)
    for index in sorted({i for i, _ in removals}):
        paths = sorted({p for i, p in removals if i == index}, key=lambda p: (len(p), p), reverse=True)
        paths = [p for p in paths if not any(q != p and p[:len(q)] == q for q in paths)]
        value = json.loads(out[index]["value"])
        for path in sorted(paths, key=lambda p: [(-k if isinstance(k, int) else 0) for k in p]):
            parent = value
            for key in path[:-1]:
                parent = parent[key]
            del parent[path[-1]]
        out[index] = with_value(out[index], value)
    return out
