"""Release gating: a run's results.jsonl against a baseline's, failing on regressions only.

A regression is a case (x format@version x mode) that passed in the baseline and now fails, errors or
passes unexpectedly, or any failing row of a format version the registry says is certified. Fixes, new
cases and cases that are gone are reported, never failed on: a gate that failed on progress would be
switched off.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.reports import Report
from harness.runner import FAILING_STATUSES, PASS


def _key(row: dict) -> tuple:
    return row["case"], row["format_version"], row["mode"]


@dataclass
class GateResult:
    regressions: list[tuple[dict | None, dict]] = field(default_factory=list)
    fixes: list[tuple[dict, dict]] = field(default_factory=list)
    new: list[dict] = field(default_factory=list)
    gone: list[dict] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.regressions


def compare(baseline: Report, current: Report, certified: set[str] = frozenset()) -> GateResult:
    """`certified`: format@version labels whose failures are regressions even without a baseline row."""
    before = {_key(row): row for row in baseline.rows}
    after = {_key(row): row for row in current.rows}
    result = GateResult()
    for key, row in after.items():
        old = before.get(key)
        failing = row["status"] in FAILING_STATUSES
        if failing and ((old is not None and old["status"] == PASS) or row["format_version"] in certified):
            result.regressions.append((old, row))
        elif old is None:
            result.new.append(row)
        elif row["status"] == PASS and old["status"] != PASS:
            result.fixes.append((old, row))
    result.gone = [row for key, row in before.items() if key not in after]
    return result


def table(result: GateResult) -> str:
    changed = bool(result.regressions or result.fixes or result.new or result.gone)
    lines = [f"{'change':<12}{'case':<58}{'format@version':<26}{'before':<8}{'now':<8}", "-" * 112] if changed else []
    for old, row in result.regressions:
        lines.append(f"{'REGRESSION':<12}{row['case']:<58}{row['format_version']:<26}{(old or {}).get('status', '-'):<8}{row['status']:<8}")
    for old, row in result.fixes:
        lines.append(f"{'fix':<12}{row['case']:<58}{row['format_version']:<26}{old['status']:<8}{row['status']:<8}")
    for row in result.new:
        lines.append(f"{'new':<12}{row['case']:<58}{row['format_version']:<26}{'-':<8}{row['status']:<8}")
    for row in result.gone:
        lines.append(f"{'gone':<12}{row['case']:<58}{row['format_version']:<26}{row['status']:<8}{'-':<8}")
    lines.append(f"gate: {'FAILED' if result.regressions else 'passed'}: {len(result.regressions)} regression(s), "
                 f"{len(result.fixes)} fix(es), {len(result.new)} new, {len(result.gone)} gone")
    return "\n".join(lines)
