"""Diffs of canonical output with deepdiff, rendered for people: path, expected, actual, coordinates."""
from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepdiff import DeepDiff


def deep_diff(expected, actual, **options) -> DeepDiff:
    """DeepDiff as every comparison here needs it: full values, and members whose names start with `__`
    compared too (DeepDiff skips them by default as "private": a column named `__x`, or Debezium's
    `__debezium.newkey` header, would never differ). deepdiff is imported here, on first use: it imports pandas where
    installed (2 s), which every command and the pytest plugin paid before they compared anything."""
    from deepdiff import DeepDiff

    if identical(expected, actual):  # the common case, 100 times faster: DeepDiff walks and copies every node
        return DeepDiff({}, {})
    return DeepDiff(expected, actual, verbose_level=2, ignore_private_variables=False, **options)


def identical(a, b) -> bool:
    """Equal with the types equal at every level: `1 == 1.0 == True` and `[1] == (1,)` in Python, each a difference
    to DeepDiff (and a NaN differs from itself), so nothing DeepDiff would report passes as identical."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(identical(value, b[key]) for key, value in a.items())
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(identical(x, y) for x, y in zip(a, b))
    return a == b


def readable_path(path: str) -> str:
    """deepdiff's root['events'][0]['after'] -> events[0].after"""
    return re.sub(r"\['([^']*)'\]", r".\1", str(path).replace("root", "", 1)).lstrip(".") or "(root)"


def _order(events: list[dict]) -> list[dict]:
    return sorted(events, key=lambda e: (e["origin"][0]["topic"], e["origin"][0]["partition"],
                                         e["origin"][0]["offset"], e.get("event_id") or ""))


def _coordinates(event: dict) -> str:
    return ", ".join(f"{o['topic']}[{o['partition']}]@{o['offset']}" for o in event["origin"])


def diff_events(expected: list[dict], actual: list[dict]) -> list[str]:
    """Human-readable differences; empty when equal. Events are matched by event_id."""
    problems = []
    expected_by_id = {e["event_id"]: e for e in _order(expected)}
    actual_by_id = {e["event_id"]: e for e in _order(actual)}
    for event_id in expected_by_id.keys() - actual_by_id.keys():
        problems.append(f"missing event {event_id} ({_coordinates(expected_by_id[event_id])}):\n"
                        f"  expected {json.dumps(expected_by_id[event_id], sort_keys=True)}")
    for event_id in actual_by_id.keys() - expected_by_id.keys():
        problems.append(f"unexpected event {event_id} ({_coordinates(actual_by_id[event_id])}):\n"
                        f"  actual {json.dumps(actual_by_id[event_id], sort_keys=True)}")
    for event_id in sorted(expected_by_id.keys() & actual_by_id.keys()):
        diff = deep_diff(expected_by_id[event_id], actual_by_id[event_id])
        if diff:
            lines = [f"event {event_id} ({_coordinates(expected_by_id[event_id])}) differs:"]
            lines += [f"  {change}" for change in describe(diff)]
            problems.append("\n".join(lines))
    return problems


def describe(diff: DeepDiff) -> list[str]:
    """One line per difference: `path: expected X, got Y`."""
    lines = []
    for kind, changes in diff.to_dict().items():
        for path, change in (changes.items() if isinstance(changes, dict) else ((c, None) for c in changes)):
            path = readable_path(path)
            if isinstance(change, dict) and "old_value" in change:
                lines.append(f"{path}: expected {json.dumps(change['old_value'])}, got {json.dumps(change['new_value'])}")
            elif kind.endswith("_added"):
                lines.append(f"{path}: unexpected {json.dumps(change, default=str)}")
            elif kind.endswith("_removed"):
                lines.append(f"{path}: missing (expected {json.dumps(change, default=str)})")
            else:
                lines.append(f"{path}: {kind} {json.dumps(change, default=str)}")
    return lines
