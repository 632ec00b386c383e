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
