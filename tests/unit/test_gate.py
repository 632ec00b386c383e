"""`gate` fails on regressions of the same normalizer (and on rows gone, unless allowed), never on a failure its
baseline already had; shards split a selection the same way every time; merge adds up."""
import json

from cdc_conformance.harness.cases import load_cases, shard_cases
from cdc_conformance.harness.gate import compare, table
from cdc_conformance.harness.reports import Report, merge

FACTS = {"type": "run", "suite_commit": "abc"}


def _row(case: str, status: str, version: str = "3.2", normalizer: str = "mypkg.job:normalize") -> dict:
    return {"type": "case", "normalizer": normalizer, "case": case, "format": "debezium-json", "version": version,
            "format_version": f"debezium-json@{version}", "mode": "batch", "status": status, "features": ["insert"],
            "events": 1, "quarantined": 0, "seconds": 0.1, "problems": [], "replay": f"cdc-conformance run --case {case}",
            "known_failure": None, "case_file": f"conformance/cases/debezium-json/{case}.yaml"}


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in [FACTS, *rows]) + "\n")
    return path


def test_a_passing_case_that_fails_is_a_regression_and_the_rest_is_reported():
    baseline = Report(FACTS, [_row("a", "PASS"), _row("b", "FAIL"), _row("c", "PASS"), _row("d", "PASS")])
    current = Report(FACTS, [_row("a", "FAIL"), _row("b", "PASS"), _row("c", "PASS"), _row("e", "FAIL")])
    result = compare(baseline, current, allow_gone=True)
    assert [row["case"] for _, row in result.regressions] == ["a"]
    assert [row["case"] for _, row in result.fixes] == ["b"]
    assert [row["case"] for row in result.new] == ["e"] and [row["case"] for row in result.gone] == ["d"]
    assert not result.passed and "gate: FAILED: 1 regression(s), 1 fix(es), 1 new, 1 gone" in table(result)


def test_a_failure_the_baseline_already_had_is_no_regression_whatever_the_registry_says():
    """The registry's `certified` was earned by the reference normalizer: a user's bug already in their last
    release must not fail every later gate (158 FAIL->FAIL "regressions" before)."""
    rows = [_row("a", "FAIL"), _row("b", "ERROR"), _row("c", "PASS")]
    result = compare(Report(FACTS, rows), Report(FACTS, rows))
    assert result.passed and not result.regressions, table(result)


def test_a_passing_case_newly_listed_as_a_known_failure_is_a_regression():
    result = compare(Report(FACTS, [_row("a", "PASS")]), Report(FACTS, [_row("a", "XFAIL")]))
    assert [row["case"] for _, row in result.regressions] == ["a"] and not result.passed


def test_rows_gone_from_the_baseline_fail_the_gate_unless_allowed():
    """One shard gated against a whole run passed with 125 rows "gone" before."""
    baseline, shard = Report(FACTS, [_row("a", "PASS"), _row("b", "PASS")]), Report(FACTS, [_row("a", "PASS")])
    assert not compare(baseline, shard).passed and "GONE" in table(compare(baseline, shard))
    assert compare(baseline, shard, allow_gone=True).passed


def test_a_new_suite_problem_fails_the_gate():
    current = Report(FACTS, [_row("a", "PASS")], ["golden file golden/x.json belongs to no case"])
    assert not compare(Report(FACTS, [_row("a", "PASS")]), current).passed


def test_another_normalizers_baseline_or_an_empty_report_cannot_be_gated():
    import pytest

    from cdc_conformance.harness.gate import GateMisuse

    with pytest.raises(GateMisuse, match="gate a normalizer against its own baseline"):
        compare(Report(FACTS, [_row("a", "PASS", normalizer="cdc_conformance.normalizer.pipeline:normalize")]), Report(FACTS, [_row("a", "FAIL")]))
    with pytest.raises(GateMisuse, match="no case row"):
        compare(Report(FACTS, [_row("a", "PASS")]), Report(FACTS, []))


def test_gate_command_fails_on_one_regression_and_passes_reporting_one_fix(cli_here, tmp_path):
    baseline = _write(tmp_path / "baseline.jsonl", [_row("a", "PASS"), _row("b", "FAIL")])
    regressed = _write(tmp_path / "regressed.jsonl", [_row("a", "FAIL"), _row("b", "FAIL")])
    fixed = _write(tmp_path / "fixed.jsonl", [_row("a", "PASS"), _row("b", "PASS")])
    code, out, _ = cli_here("gate", regressed, "--baseline", baseline)
    assert code == 1 and "REGRESSION  a " in out
    code, out, _ = cli_here("gate", fixed, "--baseline", baseline)
    assert code == 0 and "fix         b " in out and "gate: passed" in out
    other = _write(tmp_path / "other.jsonl", [_row("a", "PASS", normalizer="cdc_conformance.normalizer.pipeline:normalize")])
    code, _, err = cli_here("gate", regressed, "--baseline", other)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    (tmp_path / "junk.jsonl").write_text("not json lines\n")
    code, _, err = cli_here("gate", baseline, "--baseline", tmp_path / "junk.jsonl")
    assert code == 2 and len(err.strip().splitlines()) == 1, err


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
    from cdc_conformance.harness.gate import GateResult

    assert table(GateResult()) == "gate: passed: 0 regression(s), 0 fix(es), 0 new, 0 gone"
