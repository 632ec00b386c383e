"""Known failures: cases expected to fail today, each with its reason (and its bug's link), in a YAML file: the suite's
conformance/known_failures.yaml, or a user's own (cdc-known-failures.yaml, `--known-failures`). Reading, choosing and
editing the file live here; its lint rules in harness/lint.py (known-failure-orphan, known-failure-planned); the runner
marks a listed case XFAIL, or XPASS once it passes, with the advice below.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from cdc_conformance.harness.cases import CONFORMANCE_DIR, Case

KNOWN_FAILURES_FILE = CONFORMANCE_DIR / "known_failures.yaml"


def load_known_failures(path: Path = KNOWN_FAILURES_FILE) -> dict[str, str]:
    """case id -> why it fails today (with its bug's link when the entry has one); a file not made yet lists none."""
    if not path.is_file():
        return {}
    entries = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("known_failures") or []
    return {entry["case"]: entry["reason"] + (f" (bug: {entry['bug']})" if entry.get("bug") else "") for entry in entries}


def known_failures_for(cases_dir: Path | None, known_failures_file: Path | None) -> dict[str, str]:
    """The known failures a run uses: the file given; else the suite's own list for the suite's own cases, and none
    for a user's cases (the suite's entries name none of them). The CLI's `run` and the pytest plugin alike."""
    if known_failures_file is not None:
        return load_known_failures(known_failures_file)
    return load_known_failures() if cases_dir is None else {}


def add_known_failure(case_id: str, reason: str, bug: str | None, path: Path = KNOWN_FAILURES_FILE) -> None:
    _edit_known_failures(path, lambda entries: [*entries, {"case": case_id, "reason": reason, **({"bug": bug} if bug else {})}])


def remove_known_failure(case_id: str, path: Path = KNOWN_FAILURES_FILE) -> None:
    _edit_known_failures(path, lambda entries: [e for e in entries if e["case"] != case_id])


def _edit_known_failures(path: Path, change) -> None:
    """Rewrite the entries, keeping the file's leading comment."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
    entries = change(((yaml.safe_load(text) if text else None) or {}).get("known_failures") or [])
    path.write_text(header + yaml.safe_dump({"known_failures": entries}, sort_keys=False, allow_unicode=True, width=1000),
                    encoding="utf-8")


def passing_advice(case: Case, reason: str, format_decoded: bool, known_failures_file: str | None, replay: str) -> str:
    """What to do once an expected failure passes: un-list it where it is listed (or give a planned format's version a
    decoded status), then approve its output with the command the run itself would replay."""
    approve = f"cdc-conformance run --case {case.id}{replay} --update-golden"
    listed_in = known_failures_file or "the suite's conformance/known_failures.yaml"
    where = (f"give format {case.format}'s version a decoded status in the registry (conformance/registry.yaml)"
             if not format_decoded else f"remove it from {listed_in}")
    return f"expected to fail ({reason}) but passes: {where}, then approve its golden file: {approve}"
