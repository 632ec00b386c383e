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
_ENTRY_KEYS = {"case": True, "reason": True, "bug": False}  # key -> required


class KnownFailuresError(ValueError):
    """A known-failures file that is no list of entries as the suite reads them: one line naming the file, the entry
    and what was expected (the CLI exits 2 with it, the pytest plugin stops with it as a usage error)."""


def load_known_failures(path: Path = KNOWN_FAILURES_FILE) -> dict[str, str]:
    """case id -> why it fails today (with its bug's link when the entry has one); a file not made yet lists none."""
    if not path.is_file():
        return {}
    return {entry["case"]: entry["reason"] + (f" (bug: {entry['bug']})" if entry.get("bug") else "")
            for entry in _entries(path)}


def _entries(path: Path) -> list[dict]:
    """The file's entries, each checked: a mapping of `case` and `reason` (texts), and `bug` at most besides."""
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        where = getattr(error, "problem_mark", None)
        at = f" at line {where.line + 1}, column {where.column + 1}" if where is not None else ""
        raise KnownFailuresError(f"{path}: not YAML{at}: {getattr(error, 'problem', None) or error}") from None
    if document is None:
        return []
    if not isinstance(document, dict) or set(document) - {"known_failures"}:
        raise KnownFailuresError(f"{path}: expected a mapping with one key, known_failures (a list of entries)")
    entries = document.get("known_failures") or []
    if not isinstance(entries, list):
        raise KnownFailuresError(f"{path}: known_failures: expected a list of entries, got {type(entries).__name__}")
    for number, entry in enumerate(entries, 1):
        named = f"entry {number}" + (f" ({entry['case']})" if isinstance(entry, dict) and isinstance(entry.get("case"), str) else "")
        if not isinstance(entry, dict):
            raise KnownFailuresError(f"{path}: {named}: expected a mapping of case, reason and bug, got {entry!r}")
        missing = [key for key, required in _ENTRY_KEYS.items() if required and key not in entry]
        unknown = sorted(set(entry) - set(_ENTRY_KEYS))
        wrong = [key for key in _ENTRY_KEYS if key in entry and not (isinstance(entry[key], str) and entry[key].strip())]
        if missing or unknown or wrong:
            said = "; ".join([*(f"no {key}" for key in missing), *(f"unknown key {key}" for key in unknown),
                              *(f"{key} is not a text" for key in wrong)])
            raise KnownFailuresError(f"{path}: {named}: {said} (expected case and reason, texts, and bug at most)")
    return entries


def known_failures_for(cases_dir: Path | None, known_failures_file: Path | None) -> dict[str, str]:
    """The known failures a run uses: the file given; else the suite's own list for the suite's own cases, and none
    for a user's cases (the suite's entries name none of them). The CLI's `run` and the pytest plugin alike."""
    if known_failures_file is not None:
        return load_known_failures(known_failures_file)
    return load_known_failures() if cases_dir is None else {}


def orphans(known_failures: dict[str, str], case_ids: set[str]) -> list[str]:
    """The entries that name no case: the one statement of the orphan rule (lint's known-failure-orphan, the runner's
    suite problem)."""
    return [case_id for case_id in known_failures if case_id not in case_ids]


def add_known_failure(case_id: str, reason: str, bug: str | None, path: Path = KNOWN_FAILURES_FILE) -> None:
    _edit_known_failures(path, lambda entries: [*entries, {"case": case_id, "reason": reason, **({"bug": bug} if bug else {})}])


def remove_known_failure(case_id: str, path: Path = KNOWN_FAILURES_FILE) -> None:
    _edit_known_failures(path, lambda entries: [e for e in entries if e["case"] != case_id])


def _edit_known_failures(path: Path, change) -> None:
    """Rewrite the entries, keeping the file's leading comment."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
    entries = change(_entries(path) if text else [])
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
