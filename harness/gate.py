"""Release gating: a run's results.jsonl against the same normalizer's baseline (its last release's results).

A row is a case x format@version x mode x normalizer. A regression is a row that passed in the baseline and now
fails, errors, passes unexpectedly or is newly listed as a known failure. A failure the baseline already had is not
a regression (a bug already in the last release must not block every release after it until fixed), and the
registry's status says nothing here: it was earned by the reference normalizer, not by the one gated. Rows of the
baseline missing from the run ("gone": a shard gated against a whole run, a case dropped) fail the gate unless
allowed, and so does a suite problem the baseline did not have. Fixes and new cases are reported, never failed on:
a gate that failed on progress would be switched off.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cdc_conformance.harness.reports import Report
from cdc_conformance.harness.runner import FAILING_STATUSES, PASS, XFAIL


class GateMisuse(ValueError):
    """The two reports cannot be compared (another normalizer's baseline, a report with no rows)."""


def _key(row: dict) -> tuple:
    return row["case"], row["format_version"], row["mode"], row.get("normalizer")


def _normalizers(report: Report) -> set[str]:
    return {str(row.get("normalizer")) for row in report.rows}


@dataclass
class GateResult:
    regressions: list[tuple[dict, dict]] = field(default_factory=list)
    fixes: list[tuple[dict, dict]] = field(default_factory=list)
    new: list[dict] = field(default_factory=list)
    gone: list[dict] = field(default_factory=list)
    suite_problems: list[str] = field(default_factory=list)
    allow_gone: bool = False

    @property
    def passed(self) -> bool:
        return not self.regressions and not self.suite_problems and (self.allow_gone or not self.gone)


def compare(baseline: Report, current: Report, allow_gone: bool = False) -> GateResult:
    if not current.rows:
        raise GateMisuse("the results hold no case row: nothing to gate")
    if not baseline.rows:
        raise GateMisuse("the baseline holds no case row: nothing to compare with")
    if _normalizers(baseline) != _normalizers(current):
        raise GateMisuse(f"the baseline ran {', '.join(sorted(_normalizers(baseline)))}, the results "
                         f"{', '.join(sorted(_normalizers(current)))}: gate a normalizer against its own baseline")
    before = {_key(row): row for row in baseline.rows}
    after = {_key(row): row for row in current.rows}
    result = GateResult(allow_gone=allow_gone)
    for key, row in after.items():
        old = before.get(key)
        if old is None:
            result.new.append(row)
        elif old["status"] == PASS and (row["status"] in FAILING_STATUSES or row["status"] == XFAIL):
            result.regressions.append((old, row))
        elif row["status"] == PASS and old["status"] != PASS:
            result.fixes.append((old, row))
    result.gone = [row for key, row in before.items() if key not in after]
    result.suite_problems = [p for p in current.suite_problems if p not in set(baseline.suite_problems)]
    return result


def table(result: GateResult) -> str:
    changed = bool(result.regressions or result.fixes or result.new or result.gone)
    lines = [f"{'change':<12}{'case':<58}{'format@version':<26}{'before':<8}{'now':<8}", "-" * 112] if changed else []
    for old, row in result.regressions:
        lines.append(f"{'REGRESSION':<12}{row['case']:<58}{row['format_version']:<26}{old['status']:<8}{row['status']:<8}")
    for old, row in result.fixes:
        lines.append(f"{'fix':<12}{row['case']:<58}{row['format_version']:<26}{old['status']:<8}{row['status']:<8}")
    for row in result.new:
        lines.append(f"{'new':<12}{row['case']:<58}{row['format_version']:<26}{'-':<8}{row['status']:<8}")
    gone = "gone" if result.allow_gone else "GONE"
    for row in result.gone:
        lines.append(f"{gone:<12}{row['case']:<58}{row['format_version']:<26}{row['status']:<8}{'-':<8}")
    lines += [f"SUITE PROBLEM {problem}" for problem in result.suite_problems]
    why = []
    if result.gone and not result.allow_gone:
        why.append("rows of the baseline missing from the results (a shard against a whole run? --allow-gone)")
    if result.suite_problems:
        why.append("new suite problems")
    lines.append(f"gate: {'passed' if result.passed else 'FAILED'}: {len(result.regressions)} regression(s), "
                 f"{len(result.fixes)} fix(es), {len(result.new)} new, {len(result.gone)} gone"
                 + (f" ({'; '.join(why)})" if why else ""))
    return "\n".join(lines)
