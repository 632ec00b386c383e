#!/usr/bin/env python3
"""The disagreement classes of docs/peers.md, counted from a `cdc-conformance peers` results.jsonl: per peer and format,
how many units (cases, drawn examples) and problem lines each class holds, with a case that shows it. A problem line no
rule takes is listed as `unclassified` (a new class to triage).

    scripts/peer_classes.py reports/peers/results.jsonl
"""
from __future__ import annotations

import json
import re
import sys
from collections import defaultdict

# (class, rule over one problem line), first match wins; docs/peers.md gives each class its verdict and sources
RULES = [
    ("C1 canal `old` found in another row", r"wrong value before\.[^ ]+ \([^:]*\): expected \"[^\"]*\", got null"),
    ("C2 canal DDL other than CREATE fails", r"refused \(IOException: Unknown \"type\" value"),
    ("C3 ENUM/SET as binlog numbers", r"\((ENUM|STRING)\): expected \"[^\"]*\", got \"\d+\"$"),
    ("C6 zero date as text", r"\((DATE|TIMESTAMP[^:]*)\): expected null, got \"[0-9: -]+\""),
    ("N1 canal `old` alone as the before image", r"wrong value before\.[^:]+: missing"),
    ("D1 CloudCanal op i / unknown op", r"refused \(IOException: Unknown \"op\" value \"i\""),
    ("D4 update without before fails", r"The \"before\" field of UPDATE message is null"),
    ("D5 record without op: NullPointerException", r"refused \(NullPointerException"),
    ("D6 truncate / message op fails", r"refused \(IOException: Unknown \"op\" value \"[tm]\""),
    ("D7 unavailable-value placeholder as a value", r"unexpected \"(X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==|"
                                                    r"\[95,95,100,101,98|\[\\\"__debezium_unavailable_value)"),
    ("C4/D3 JSON number read as a double", r"\((DECIMAL|INT)[^:]*\): expected \"-?\d+(\.\d+)?\", got \"-?[\d.]+E-?\d+\"|"
                                           r"wrong value [^ ]+: expected \"-?\d+\.\d+\", got \"-?[\d.]+(E-?\d+)?\"|"
                                           r"\(DECIMAL\(38,34\)\): expected \"0\.1000000000000000055511151231257827\"|got \"\\?\"?Infinity"),
    ("D2 Connect encoding passed through", r"\((DATE|TIME|TIMESTAMP|BITS|VARBIT|DECIMAL|INTERVAL)[^:]*\): expected \"[^\"]*\", "
                                           r"got \"(-?\d+|[A-Za-z0-9+/]*=*|\{\\\"scale\\\".*)\"$"),
    ("H hostile record accepted", r"extra row: ROW/\w+ where the reference quarantines"),
    ("K lost row (op the parse does not map)", r"lost row: expected [^,]+, got nothing"),
]


def classify(line: str) -> str:
    return next((name for name, rule in RULES if re.search(rule, line)), "unclassified")


def main(path: str) -> None:
    rows = [json.loads(line) for line in open(path, encoding="utf-8")][1:]
    units: dict[tuple, set] = defaultdict(set)
    lines: dict[tuple, int] = defaultdict(int)
    example: dict[tuple, str] = {}
    for row in rows:
        for problem in row["problems"]:
            key = (row["normalizer"], row["format"], classify(problem))
            units[key].add(row["case"])
            lines[key] += 1
            if key not in example or (example[key].startswith("drawn/") and not row["case"].startswith("drawn/")):
                example[key] = row["case"]  # the first case that shows it, else the first drawn example
    print("| peer | format | class | units | problem lines | e.g. |\n|---|---|---|---:|---:|---|")
    for key in sorted(units):
        print(f"| {key[0]} | {key[1]} | {key[2]} | {len(units[key])} | {lines[key]} | `{example[key]}` |")


if __name__ == "__main__":
    main(sys.argv[1])
