#!/usr/bin/env python3
"""The disagreement classes of docs/peers.md (harness/peer_classes.py), counted from a `cdc-conformance peers`
results.jsonl: per peer and format, how many units (cases, drawn examples) and problem lines each class holds, with a
case that shows it. A problem line no rule takes is listed as `unclassified` (a new class to triage).

    scripts/peer_classes.py reports/peers/results.jsonl            # a row per peer, format and class
    scripts/peer_classes.py --tables reports/peers/results.jsonl   # docs/peers.md's Results and Disagreements tables

`--tables` prints the page's two tables as they are pasted into it: the verdicts per format and normalizer (the
reference first), and a row per class with a column per peer (units / problem lines), so the page is regenerated from
a run, never edited by hand.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict

from cdc_conformance.harness.peer_classes import BY_ID, CLASSES, UNCLASSIFIED, classify

STATUSES = ("PASS", "FAIL", "LOST", "REFUSED", "NOT_EXPRESSED", "ERROR")
REFERENCE = "reference"


def tally(rows: list[dict]) -> tuple[dict, dict, dict]:
    """(peer, format, class) -> the units holding it, its problem lines, and a case that shows it."""
    units: dict[tuple, set] = defaultdict(set)
    lines: dict[tuple, int] = defaultdict(int)
    example: dict[tuple, str] = {}
    for row in rows:
        if row["status"] in ("PASS", "NOT_EXPRESSED"):
            continue  # its lines say why it is not expressed
        for problem in row["problems"]:
            key = (row["normalizer"], row["format"], classify(problem, f"{row['normalizer']} / {row['format']} / {row['case']}"))
            units[key].add(row["case"])
            lines[key] += 1
            if key not in example or (example[key].startswith("drawn/") and not row["case"].startswith("drawn/")):
                example[key] = row["case"]  # the first case that shows it, else the first drawn example
    return units, lines, example


def results_table(rows: list[dict]) -> str:
    counts: dict[tuple, dict] = defaultdict(lambda: dict.fromkeys(STATUSES, 0))
    for row in rows:
        counts[(row["format"], row["normalizer"])][row["status"]] += 1
    order = sorted(counts, key=lambda key: (key[0], not key[1].startswith(REFERENCE), key[1]))
    lines = ["| format / normalizer | units | pass | fail | lost | refused | not expressed | error |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for fmt, normalizer in order:
        c = counts[(fmt, normalizer)]
        lines.append(f"| {fmt} / {normalizer} | {sum(c.values())} | " + " | ".join(str(c[s]) for s in STATUSES) + " |")
    return "\n".join(lines)


def classes_table(rows: list[dict]) -> str:
    units, lines, example = tally(rows)
    peers = sorted({peer for peer, _, _ in units if not peer.startswith(REFERENCE)})
    found = [c.id for c in CLASSES if any(key[2] == c.id for key in units)]
    found += [UNCLASSIFIED] if any(key[2] == UNCLASSIFIED for key in units) else []
    out = ["| class | finding | kind | " + " | ".join(peers) + " | e.g. |", "|---|---|---|" + "---:|" * len(peers) + "---|"]
    for class_id in found:
        cells = []
        for peer in peers:
            held = [key for key in units if key[0] == peer and key[2] == class_id]
            cells.append(f"{len(set().union(*(units[k] for k in held)))} / {sum(lines[k] for k in held)}" if held else "")
        shown = sorted((example[k] for k in units if k[2] == class_id), key=lambda case: (case.startswith("drawn/"), case))
        title, kind = (BY_ID[class_id].title, BY_ID[class_id].kind) if class_id in BY_ID else ("not triaged", "-")
        out.append(f"| {class_id} | {title} | {kind} | " + " | ".join(cells) + f" | `{shown[0]}` |")
    return "\n".join(out)


def main(argv: list[str]) -> None:
    tables = argv[:1] == ["--tables"]
    path = argv[1] if tables else argv[0]
    rows = [json.loads(line) for line in open(path, encoding="utf-8")][1:]
    if tables:
        print(results_table(rows) + "\n\n" + classes_table(rows))
        return
    units, lines, example = tally(rows)
    print("| peer | format | class | units | problem lines | e.g. |\n|---|---|---|---:|---:|---|")
    for key in sorted(units):
        print(f"| {key[0]} | {key[1]} | {key[2]} | {len(units[key])} | {lines[key]} | `{example[key]}` |")


if __name__ == "__main__":
    main(sys.argv[1:])
