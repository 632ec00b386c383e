"""Sharded runs merged give the report of one unsharded run (on the real broker and Spark)."""
import json
import subprocess
import sys

import pytest

from cdc_conformance.harness.cases import load_cases, shard_cases
from cdc_conformance.harness.known_failures import load_known_failures
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.reports import Report, merge, run_facts, write_all
from cdc_conformance.harness.runner import Runner

pytestmark = pytest.mark.integration
FORMAT = "cloudcanal-json"


def _without_timing(report: Report) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "seconds"} for row in report.rows]


def test_two_shards_merged_equal_one_unsharded_run(roundtrip, tmp_path):
    everything = load_cases()
    selected = [c for c in everything if c.format == FORMAT]
    runner = Runner(roundtrip, Registry.load(), load_known_failures())
    whole = Report.of(runner.run(selected, everything), run_facts())
    directories = []
    for index in (1, 2):
        shard = shard_cases(selected, index, 2)
        assert 0 < len(shard) < len(selected)
        directories.append(tmp_path / f"shard-{index}")
        write_all(Report.of(runner.run(shard, everything), run_facts({"shard": f"{index}/2"})), directories[-1])
    assert _without_timing(merge([Report.load(d / "results.jsonl") for d in directories])) == _without_timing(whole)
    merged = subprocess.run([sys.executable, "-m", "cdc_conformance.harness", "merge", *map(str, directories), "--reports", str(tmp_path / "all")],
                            capture_output=True, text=True)
    assert merged.returncode == (1 if whole.failed else 0), merged.stdout + merged.stderr
    rows = [json.loads(line) for line in (tmp_path / "all" / "results.jsonl").read_text().splitlines()]
    assert rows[0]["shards"] == 2 and len(rows) - 1 == len(whole.rows)
    assert (tmp_path / "all" / "junit.xml").read_text().count("<testcase ") == len(selected)
