"""`gate` fails on regressions only; shards split a selection the same way every time; merge adds up."""
import json
import subprocess
import sys

from harness.cases import load_cases, shard_cases
from harness.gate import compare, table
from harness.reports import Report, merge

FACTS = {"type": "run", "suite_commit": "abc"}


def _row(case: str, status: str, version: str = "3.2") -> dict:
    return {"type": "case", "case": case, "format": "debezium-json", "version": version,
            "format_version": f"debezium-json@{version}", "mode": "batch", "status": status, "features": ["insert"],
            "events": 1, "quarantined": 0, "seconds": 0.1, "problems": [], "replay": f"cdc-conformance run --case {case}",
            "known_failure": None, "case_file": f"conformance/cases/debezium-json/{case}.yaml"}


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in [FACTS, *rows]) + "\n")
    return path


def test_a_passing_case_that_fails_is_a_regression_and_the_rest_is_reported_not_failed():
    baseline = Report(FACTS, [_row("a", "PASS"), _row("b", "FAIL"), _row("c", "PASS"), _row("d", "PASS")])
    current = Report(FACTS, [_row("a", "FAIL"), _row("b", "PASS"), _row("c", "PASS"), _row("e", "FAIL")])
    result = compare(baseline, current)
    assert [row["case"] for _, row in result.regressions] == ["a"]
    assert [row["case"] for _, row in result.fixes] == ["b"]
    assert [row["case"] for row in result.new] == ["e"] and [row["case"] for row in result.gone] == ["d"]
    assert not result.passed and "gate: FAILED: 1 regression(s), 1 fix(es), 1 new, 1 gone" in table(result)


def test_a_failing_row_of_a_certified_version_is_a_regression_even_when_new():
    result = compare(Report(FACTS, []), Report(FACTS, [_row("new-case", "ERROR")]), {"debezium-json@3.2"})
    assert [row["case"] for _, row in result.regressions] == ["new-case"]


def test_gate_command_fails_on_one_regression_and_passes_reporting_one_fix(tmp_path):
    baseline = _write(tmp_path / "baseline.jsonl", [_row("a", "PASS"), _row("b", "FAIL")])
    regressed = _write(tmp_path / "regressed.jsonl", [_row("a", "FAIL"), _row("b", "FAIL")])
    fixed = _write(tmp_path / "fixed.jsonl", [_row("a", "PASS"), _row("b", "PASS")])

    def gate(results):
        return subprocess.run([sys.executable, "-m", "harness", "gate", str(results), "--baseline", str(baseline)],
                              capture_output=True, text=True)

    failed, passed = gate(regressed), gate(fixed)
    assert failed.returncode == 1 and "REGRESSION  a " in failed.stdout
    assert passed.returncode == 0 and "fix         b " in passed.stdout and "gate: passed" in passed.stdout
    misuse = subprocess.run([sys.executable, "-m", "harness", "gate", str(tmp_path / "baseline.jsonl"),
                             "--baseline", str(_write(tmp_path / "junk.jsonl", []).with_name("junk.jsonl"))],
                            capture_output=True, text=True)
    (tmp_path / "junk.jsonl").write_text("not json lines\n")
    misuse = subprocess.run([sys.executable, "-m", "harness", "gate", str(baseline), "--baseline", str(tmp_path / "junk.jsonl")],
                            capture_output=True, text=True)
    assert misuse.returncode == 2 and len(misuse.stderr.strip().splitlines()) == 1


def test_shards_split_the_selection_without_overlap_or_gap_and_the_same_way_every_time():
    cases = load_cases()
    shards = [shard_cases(cases, i, 3) for i in (1, 2, 3)]
    ids = [c.id for shard in shards for c in shard]
    assert sorted(ids) == sorted(c.id for c in cases) and len(ids) == len(set(ids))
    assert [c.id for c in shard_cases(list(reversed(cases)), 2, 3)] == [c.id for c in shards[1]]
    assert all(shards)


def test_merged_reports_keep_every_row_in_one_order_and_add_up():
    one = Report({**FACTS, "shard": "1/2"}, [_row("b", "PASS")], ["p"], 1.5)
    two = Report({**FACTS, "shard": "2/2"}, [_row("a", "FAIL")], ["p"], 2.0)
    merged = merge([two, one])
    assert [r["case"] for r in merged.rows] == ["a", "b"] and merged.seconds == 3.5
    assert merged.suite_problems == ["p"] and merged.facts["shards"] == 2 and "shard" not in merged.facts
    assert merged.failed


def test_a_gate_with_nothing_changed_prints_its_verdict_without_an_empty_table():
    from harness.gate import GateResult

    assert table(GateResult()) == "gate: passed: 0 regression(s), 0 fix(es), 0 new, 0 gone"
