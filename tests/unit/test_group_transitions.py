"""The group state machine in Python (what a Spark Connect session runs, normalizer/group_machine.py) holds the same
transitions as the JVM's (GroupTransitionsTest): one table, normalizer/java/src/test/resources/group-transitions.json.
Copy window, timeout, late copy, conflict, event-time order and the range's end, without Spark."""
import json
from pathlib import Path

import pytest

from cdc_conformance.normalizer import ces, dataworks
from cdc_conformance.normalizer.group_machine import Arrival, GroupMachine, Stored

TABLE = json.loads((Path(__file__).parents[2] / "normalizer/java/src/test/resources/group-transitions.json").read_text())
GROUPINGS = {grouping.release_rule: grouping for grouping in (ces.SEGMENTS, dataworks.PAIRS)}


def machine(name: str) -> GroupMachine:
    spec = TABLE["machines"][name]
    return GroupMachine(GROUPINGS[spec["rule"]].ready, tuple(tuple(f) for f in spec["fingerprints"]), "COPY", "CONFLICT",
                        spec["timeout_ms"], spec["window_ms"])


def described(state: Stored | None, machine: GroupMachine) -> dict | None:
    if state is None:
        return None
    kind = {"open": [m["label"] for m in state.members]} if state.open else {"released": True}
    return {**kind, "timer": machine.timer(state)}


@pytest.mark.parametrize("case", TABLE["cases"], ids=[c["why"][:80] for c in TABLE["cases"]])
def test_the_python_twin_steps_as_the_table_says(case):
    steps_through = machine(case["machine"])
    state = None
    for number, step in enumerate(case["steps"], 1):
        if step.get("time_out"):
            result = steps_through.time_out(state)
        else:
            arrivals = [Arrival(a["member"], a["at"]) for a in step["arrive"]]
            result = steps_through.arrive(state, arrivals, step.get("rejected", False))
        assert [[[m["label"] for m in members], late] for members, late in result.released] == step["released"], number
        state = result.next
        assert described(state, steps_through) == step["state"], number


def test_the_table_runs_every_format_and_both_groupings_fingerprints():
    assert {TABLE["machines"][c["machine"]]["rule"] for c in TABLE["cases"]} == set(GROUPINGS)
    for spec in TABLE["machines"].values():
        assert tuple(tuple(f) for f in spec["fingerprints"]) == GROUPINGS[spec["rule"]].fingerprints
