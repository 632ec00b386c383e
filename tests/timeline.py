"""The order tests are handed to xdist's workers in: longest first, so no long test starts last while the other
worker idles (measured at 83afd0d: the last test, the soak slice, ran 50 s after the other worker had finished).

`tests/durations.tsv` holds each slow test's seconds as measured (`CDC_TEST_TIMELINE=FILE make test`, then
`python -m tests.timeline FILE > tests/durations.tsv`); a test it does not name counts as fast. A unit test
fails when it names a test that no longer exists, so the hints cannot rot unseen. The order is a hint to the
scheduler only: every test runs whatever its place (and one run in a new order found a test that leaked state).
"""
from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest

DURATIONS = Path(__file__).with_name("durations.tsv")
COLLECTED = pytest.StashKey[set]()  # the session's test ids, before `-m` (conftest.py)
SLOW = 2.0  # seconds: the file names tests at least this slow
# Tests that need the broker image wait for it while scripts/docker-engine.sh builds it in the background on a
# fresh machine (about 90 s): they start once this much measured work has been handed out before them.
IMAGE_LEAD = 240.0


def durations(path: Path = DURATIONS) -> dict[str, float]:
    if not path.exists():
        return {}
    rows = (line.split("\t", 1) for line in path.read_text().splitlines() if line and not line.startswith("#"))
    return {nodeid: float(seconds) for seconds, nodeid in rows}


def needs_image(nodeid: str) -> bool:
    return "testcontainers" in nodeid


def ordered(items: list, group_of, known: dict[str, float]) -> list:
    """`items` longest first (a group by its members' sum, its members together), those that need the broker
    image after IMAGE_LEAD seconds of other work; ties keep the collection order."""
    cost: dict = collections.Counter()
    for item in items:
        cost[group_of(item) or item.nodeid] += known.get(item.nodeid, 0.0)
    unit = {item.nodeid: group_of(item) or item.nodeid for item in items}
    by_cost = sorted(items, key=lambda item: -cost[unit[item.nodeid]])
    early = [item for item in by_cost if not needs_image(item.nodeid)]
    waiting = [item for item in by_cost if needs_image(item.nodeid)]
    result, handed_out = [], 0.0
    for item in early:
        if waiting and handed_out >= IMAGE_LEAD:
            result += waiting
            waiting = []
        result.append(item)
        handed_out += known.get(item.nodeid, 0.0)
    return result + waiting


def from_timeline(lines: list[str]) -> list[str]:
    """The durations file's lines from a CDC_TEST_TIMELINE file (worker, start, end, id per line)."""
    seconds = {}
    for line in lines:
        _, start, end, nodeid = line.rstrip("\n").split("\t")
        seconds[nodeid] = float(end) - float(start)
    slow = sorted(((s, n) for n, s in seconds.items() if s >= SLOW), key=lambda row: (-row[0], row[1]))
    return [f"{s:.1f}\t{n}" for s, n in slow]


if __name__ == "__main__":
    print("# seconds per test, as measured (tests/timeline.py says how to remake this file)")
    print("\n".join(from_timeline(Path(sys.argv[1]).read_text().splitlines())))
