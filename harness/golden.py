"""Golden files: the approved complete output of every curated case, rendered deterministically.

golden/<format>/<case-id>.json holds {"events": [...], "quarantine": [...]} with sorted keys and one
field per line, so that a review of `git diff golden/` is the approval. A mismatch writes the obtained
output beside it as <case-id>.obtained.json (gitignored).
"""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

from cdc_conformance.harness import suite_files
from cdc_conformance.harness.cases import Case
from cdc_conformance.harness.diff import deep_diff, describe
from cdc_conformance.harness.suite_files import GOLDEN_DIR


def golden_path(format_id: str, case_id: str, root: Path = GOLDEN_DIR) -> Path:
    return root / format_id / f"{case_id}.json"


def obtained_path(path: Path) -> Path:
    return path.with_name(path.stem + ".obtained.json")


def render(output: dict) -> str:
    return json.dumps(output, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def readable_bytes(value) -> dict | None:
    """Raw record bytes for people: text when it is UTF-8, base64 otherwise (both exact)."""
    if value is None:
        return None
    raw = base64.b64decode(value) if isinstance(value, str) else bytes(value)
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(raw).decode()}


def read(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def all_golden_files(root: Path = GOLDEN_DIR) -> list[Path]:
    return sorted(p for p in root.rglob("*.json") if not p.name.endswith(".obtained.json"))


@dataclass
class Tally:
    """What a run did with golden files: one summary line, as syrupy prints."""

    matched: int = 0
    written: int = 0
    removed: int = 0

    def summary(self) -> str:
        return f"golden files: {self.matched} matched, {self.written} written, {self.removed} removed"


# ---------------------------------------------------------------------------------------------------
# Approval: a case's output against its golden file
# ---------------------------------------------------------------------------------------------------

def check(case: Case, output: dict, update: bool, root: Path = GOLDEN_DIR,
          tally: Tally | None = None, obtained_root: Path | None = None, replay: str | None = None) -> list[str]:
    """Compare with the golden file; a mismatch writes the obtained output beside it, or under `obtained_root`
    (a user's directory, when the golden files are the installed suite's own)."""
    tally = tally if tally is not None else Tally()
    path = golden_path(case.format, case.id, root)
    obtained = obtained_path(golden_path(case.format, case.id, obtained_root) if obtained_root else path)
    rendered = render(output)
    approved = read(path)
    if approved == json.loads(rendered):
        obtained.unlink(missing_ok=True)
        tally.matched += 1
        return []
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered, encoding="utf-8")
        obtained.unlink(missing_ok=True)
        tally.written += 1
        return []
    obtained.parent.mkdir(parents=True, exist_ok=True)
    obtained.write_text(rendered, encoding="utf-8")
    if approved is None:
        return [f"no golden file {_shown(path)}; obtained output written to {_shown(obtained)} "
                f"(approve with: {approve_command(case, root, replay)})"]
    lines = describe(deep_diff(approved, json.loads(rendered)))
    return [f"differs from {_shown(path)} (obtained: {_shown(obtained)}):",
            *[f"  {line}" for line in lines]]


def approve_command(case: Case, root: Path, replay: str | None = None) -> str:
    """The command that approves a case's output: the run's own replay command, into the user's golden files when
    the run's are the suite's own and read-only here."""
    command = f"{replay or f'cdc-conformance run --case {case.id}'} --update-golden"
    if suite_files.read_only(root):
        command += f" --golden-dir {suite_files.USER_GOLDEN}"
    return command


def _shown(path: Path) -> str:
    return suite_files.shown(path)


def orphans(cases: list[Case], root: Path = GOLDEN_DIR) -> list[Path]:
    """Golden files of no case (syrupy's orphans: a run over every case removes them, unless told to keep them)."""
    expected = {golden_path(c.format, c.id, root) for c in cases}
    return [p for p in all_golden_files(root) if p not in expected]
