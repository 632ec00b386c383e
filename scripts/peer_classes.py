#!/usr/bin/env python3
"""The disagreement classes of docs/peers.md (harness/peer_classes.py), counted from a `cdc-conformance peers`
results.jsonl: per peer and format, how many units (cases, drawn examples) and problem lines each class holds, with a
case that shows it. A problem line no rule takes is listed as `unclassified` (a new class to triage).

    scripts/peer_classes.py reports/peers/results.jsonl
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict

from cdc_conformance.harness.peer_classes import classify


def main(path: str) -> None:
    rows = [json.loads(line) for line in open(path, encoding="utf-8")][1:]
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
    print("| peer | format | class | units | problem lines | e.g. |\n|---|---|---|---:|---:|---|")
    for key in sorted(units):
        print(f"| {key[0]} | {key[1]} | {key[2]} | {len(units[key])} | {lines[key]} | `{example[key]}` |")


if __name__ == "__main__":
    main(sys.argv[1])
