"""The streaming release rules in Python (what a Spark Connect session runs, normalizer.assembly) hold the same cases as
the JVM's (ReleaseRulesTest): one table, normalizer/java/src/test/resources/release-rules.json. The batch assembly's
verdicts are the rule's definition (docs/formats/ces.md, dataworks-json.md)."""
import json
from pathlib import Path

import pytest

from cdc_conformance.normalizer import ces, dataworks

TABLE = Path(__file__).parents[2] / "normalizer/java/src/test/resources/release-rules.json"
RULES = {grouping.release_rule: grouping.ready for grouping in (ces.SEGMENTS, dataworks.PAIRS)}
CASES = json.loads(TABLE.read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['rule']}: {c['why']}" for c in CASES])
def test_the_python_twin_releases_as_the_table_says(case):
    assert RULES[case["rule"]](case["members"]) is case["ready"]


def test_the_table_holds_every_rule():
    assert {case["rule"] for case in CASES} == set(RULES)
