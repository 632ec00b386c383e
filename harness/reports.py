"""Report writers: results.jsonl (the source of truth), JUnit XML, a Markdown summary, the HTML matrix."""
from __future__ import annotations

import html
import json
import os
import platform
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from cdc_conformance.harness import suite_files
from cdc_conformance.harness.runner import FAILING_STATUSES, SuiteResult

STATUSES = ("PASS", "FAIL", "XFAIL", "XPASS", "ERROR", "SKIP", "LOST", "REFUSED", "NOT_EXPRESSED")  # the last two: a peer's
# verdicts (harness/expressed.py)


def suite_label(facts: dict) -> str:
    """The suite a run names: its distribution version and the commit it was built from."""
    return f"cdc-conformance {facts.get('suite_version', 'unknown')} (commit {facts.get('suite_commit')})"


def suite_identity(facts: dict) -> tuple:
    """What must match for two reports to be runs of one suite (merge) or comparable across runs (gate)."""
    return facts.get("suite_version"), facts.get("suite_commit")


def _connectors() -> str | None:
    """The Spark connectors' release a local session runs (a Connect server's are the server's own: not known here)."""
    from cdc_conformance.harness import jvm
    from cdc_conformance.harness.spark import remote_url

    remote = remote_url()
    return f"the Connect server's ({remote})" if remote else jvm.connector_version(jvm.spark_connector_jars())


def run_facts(extra: dict | None = None) -> dict:
    """The header line of results.jsonl: what ran, on what. The normalizer and its version are the caller's (it has
    the normalizer under test: harness/under_test.py); none of the reference's is read here."""
    import os

    import pyspark

    from cdc_conformance.harness import jvm

    hypothesis = {"profile": os.environ.get("CDC_HYPOTHESIS_PROFILE", "default"),
                  "seed": os.environ.get("CDC_HYPOTHESIS_SEED")}  # null: each property run draws and prints its own
    return {"type": "run", "started": datetime.now(UTC).isoformat(timespec="seconds"), "hypothesis": hypothesis,
            "suite_version": suite_files.suite_version(), "suite_commit": suite_files.suite_commit(),
            "normalizer_version": None,
            "spark_version": pyspark.__version__, "spark_connectors": _connectors(),
            "kafka_version": jvm.kafka_version(),
            "python_version": platform.python_version(), "platform": sys.platform, **(extra or {})}


def rows(result: SuiteResult) -> list[dict]:
    """One row per case x format@version x mode."""
    out = []
    for r in result.results:
        versions: list = r.format_versions or [None]  # a case of no registered version: one row, its format's
        for fv in versions:
            out.append({
                "type": "case", "case": r.case.id, "format": r.case.format,
                "version": fv.version if fv else None, "format_version": fv.label if fv else r.case.format,
                "mode": r.mode, "status": r.status, "features": r.case.features,
                "events": len((r.output or {}).get("events", [])), "quarantined": r.quarantined,
                "seconds": round(r.seconds, 3), "problems": r.problems, "replay": r.replay,
                "known_failure": r.known_failure_reason, "case_file": r.case.relative_path,
            })
    return out


def _row_order(row: dict) -> tuple:
    return row["format"], row["case"], row["version"] or "", row["mode"], str(row.get("normalizer"))


@dataclass
class Report:
    """What every writer reads: the run's facts and its rows. Built from a run, or loaded from the
    results.jsonl of one (so shards' reports merge into one, and `gate` compares two)."""

    facts: dict
    rows: list[dict]
    suite_problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def __post_init__(self):
        self.rows = sorted(self.rows, key=_row_order)  # one order, however the cases were split

    @classmethod
    def of(cls, result: SuiteResult, facts: dict) -> Report:
        table = [{**row, "normalizer": facts.get("normalizer")} for row in rows(result)]
        return cls(facts, table, list(result.suite_problems), result.seconds)

    @classmethod
    def load(cls, path: Path) -> Report:
        expected = "a results.jsonl of cdc-conformance (or the reports folder holding one)"
        lines = []
        for number, line in enumerate(Path(path).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if line.strip():
                try:
                    lines.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise ValueError(f"{path}: line {number} is not JSON ({error.msg}): expected {expected}") from None
        if not lines or not isinstance(lines[0], dict) or lines[0].get("type") != "run":
            raise ValueError(f"{path}: not a results.jsonl of cdc-conformance (no run line first)")
        facts = {k: v for k, v in lines[0].items() if k not in ("suite_problems", "seconds")}
        return cls(facts, [row for row in lines[1:] if row.get("type") == "case"], lines[0].get("suite_problems") or [],
                   lines[0].get("seconds") or 0.0)

    def cases(self) -> list[dict]:
        """One row per case, mode and normalizer (the rows repeat a case for each format version it covers)."""
        seen, out = set(), []
        for row in self.rows:
            if (row["case"], row["mode"], row.get("normalizer")) not in seen:
                seen.add((row["case"], row["mode"], row.get("normalizer")))
                out.append(row)
        return out

    @property
    def failed(self) -> bool:
        return bool(self.suite_problems) or any(row["status"] in FAILING_STATUSES for row in self.rows)


def merge(reports: list[Report]) -> Report:
    """Shards' reports as one: their rows together, their problems and times added up."""
    facts = {**reports[0].facts, "shards": len(reports)}
    facts.pop("shard", None)
    normalizers = sorted({str(report.facts.get("normalizer")) for report in reports})
    if len(normalizers) > 1:
        facts["normalizer"] = ", ".join(normalizers)
    problems = list(dict.fromkeys(p for report in reports for p in report.suite_problems))
    return Report(facts, [row for report in reports for row in report.rows], problems,
                  sum(report.seconds for report in reports))


def write_all(report: Report, directory: Path) -> dict[str, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = {"results": directory / "results.jsonl", "junit": directory / "junit.xml",
             "summary": directory / "summary.md", "matrix": directory / "matrix.html"}
    with paths["results"].open("w", encoding="utf-8") as out:
        out.write(json.dumps({**report.facts, "suite_problems": report.suite_problems,
                              "seconds": round(report.seconds, 3)}) + "\n")
        for row in report.rows:
            out.write(json.dumps(row, sort_keys=True) + "\n")
    write_junit(report, paths["junit"])
    paths["summary"].write_text(markdown_summary(report), encoding="utf-8")
    paths["matrix"].write_text(html_matrix(report, _certifications(report, directory)), encoding="utf-8")
    return paths


def _certifications(report: Report, directory: Path) -> dict[str, tuple[dict, str]]:
    """format@version -> (its certification record, the record page relative to the matrix), for the records of
    the normalizer this report ran (the reference's records say nothing of another normalizer)."""
    from cdc_conformance.harness import certify

    records_dir = certify.CERTIFICATIONS_DIR
    normalizers = {row.get("normalizer") or str(report.facts.get("normalizer")) for row in report.rows}
    return {record["label"]: (record, os.path.relpath(certify.record_path(record["label"], records_dir, record["normalizer"]).with_suffix(".md"),
                                                      directory.resolve()))
            for record in certify.load_records(records_dir) if normalizers == {record["normalizer"]}}


def write_junit(report: Report, path: Path) -> None:
    suites = ET.Element("testsuites", name="cdc-conformance")
    by_format: dict[str, list] = defaultdict(list)
    for row in report.cases():
        by_format[row["format"]].append(row)
    for format_id, results in sorted(by_format.items()):
        counts = Counter(r["status"] for r in results)
        suite = ET.SubElement(suites, "testsuite", name=format_id, tests=str(len(results)),
                              failures=str(counts["FAIL"] + counts["XPASS"] + counts["LOST"] + counts["REFUSED"]), errors=str(counts["ERROR"]),
                              skipped=str(counts["XFAIL"] + counts["SKIP"]),
                              time=f"{sum(r['seconds'] for r in results):.3f}")
        for r in results:
            case = ET.SubElement(suite, "testcase", classname=f"{format_id}.{r['mode']}", name=r["case"],
                                 time=f"{r['seconds']:.3f}", file=r["case_file"])
            text = "\n".join(r["problems"] + [f"replay: {r['replay']}"])
            if r["status"] in ("FAIL", "XPASS", "LOST", "REFUSED"):
                ET.SubElement(case, "failure", message=(r["problems"] or [r["status"]])[0][:300]).text = text
            elif r["status"] == "ERROR":
                ET.SubElement(case, "error", message=(r["problems"] or ["error"])[0][:300]).text = text
            elif r["status"] in ("XFAIL", "SKIP"):
                ET.SubElement(case, "skipped", message=f"known failure: {r['known_failure']}")
    if report.suite_problems:
        suite = ET.SubElement(suites, "testsuite", name="suite", tests="1", failures="1")
        case = ET.SubElement(suite, "testcase", classname="suite", name="suite-integrity")
        ET.SubElement(case, "failure", message=report.suite_problems[0][:300]).text = "\n".join(report.suite_problems)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def expected_summary(cases, known_failures: dict[str, str], golden_root: Path | None = None) -> str:
    """The summary `make run` prints when every case meets its golden file (known failures as XFAIL), made
    from the case and golden files, without a run: the README shows it, and a test keeps the two equal."""
    from cdc_conformance.harness import golden

    root = golden_root or golden.GOLDEN_DIR
    rows = [{"type": "case", "case": case.id, "format": case.format, "mode": "batch", "version": None, "format_version": case.format,
             "status": "XFAIL" if case.id in known_failures else "PASS",
             "quarantined": len((golden.read(golden.golden_path(case.format, case.id, root)) or {}).get("quarantine", []))}
            for case in cases]
    return "\n".join(summary_table(Report({}, rows)).splitlines()[:-1])  # no time line: it is the run's


def summary_table(report: Report) -> str:
    """The table `make run` prints: per format, then the total. A report of several normalizers (peers, merged runs)
    has a row per format and normalizer, the run's own order (the reference first), and no total: a sum across
    normalizers means nothing; one with a peer's verdicts has their columns too."""
    normalizers = sorted({str(row.get("normalizer")) for row in report.rows})
    named = str(report.facts.get("normalizer")).split(", ")
    by_normalizer = len(normalizers) > 1
    counts: dict[tuple, Counter] = defaultdict(Counter)
    quarantined: Counter = Counter()
    for row in report.cases():
        line = (row["format"], str(row.get("normalizer"))) if by_normalizer else (row["format"],)
        counts[line][row["status"]] += 1
        quarantined[line] += row["quarantined"]
    columns = [("pass", "PASS"), ("fail", "FAIL"), ("xfail", "XFAIL"), ("xpass", "XPASS"), ("error", "ERROR")]
    if any(c["REFUSED"] or c["LOST"] or c["NOT_EXPRESSED"] for c in counts.values()):
        columns[2:2] = [("lost", "LOST"), ("refused", "REFUSED"), ("not expr.", "NOT_EXPRESSED")]
    width = max([22, *(len(" / ".join(line)) + 2 for line in counts)])
    header = f"{'format' + (' / normalizer' if by_normalizer else ''):<{width}}{'cases':>6}" + \
        "".join(f"{name:>{len(name) + 2}}" for name, _ in columns) + f"{'quarantined':>13}"
    lines = [header, "-" * len(header)]
    total: Counter = Counter()

    def line_of(label: str, c: Counter, held: int) -> str:
        return f"{label:<{width}}{sum(c.values()):>6}" + "".join(f"{c[status]:>{len(name) + 2}}" for name, status in columns) + \
            f"{held:>13}"

    for line in sorted(counts, key=lambda line: (line[0], *((named.index(line[1]) if line[1] in named else len(named), line[1])
                                                           if by_normalizer else ()))):
        total.update(counts[line])
        lines.append(line_of(" / ".join(line), counts[line], quarantined[line]))
    lines.append("-" * len(header))
    if not by_normalizer:
        lines.append(line_of("total", total, sum(quarantined.values())))
    lines.append(f"time: {report.seconds:.1f} s")
    return "\n".join(lines)


def markdown_summary(report: Report) -> str:
    facts = report.facts
    lines = ["# cdc-conformance results", "",
             f"Suite {suite_label(facts)}, normalizer {facts.get('normalizer_version')}, "
             f"Spark {facts.get('spark_version')}, Kafka {facts.get('kafka_version')}, "
             f"Python {facts.get('python_version')}.", "", "```", summary_table(report), "```", ""]
    failing = [r for r in report.cases() if r["status"] in FAILING_STATUSES]
    if report.suite_problems:
        lines += ["## Suite problems", ""] + [f"- {p}" for p in report.suite_problems] + [""]
    if failing:
        lines += ["## Failures", ""]
        for r in failing:
            lines += [f"### {r['case']} ({r['status']})", "", "```"] + r["problems"] + ["```", "", f"Replay: `{r['replay']}`", ""]
    xfail = [r for r in report.cases() if r["status"] == "XFAIL"]
    if xfail:
        lines += ["## Known failures", ""] + [f"- `{r['case']}`: {r['known_failure']}" for r in xfail] + [""]
    return "\n".join(lines)


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d232a}
h1{font-size:20px}table{border-collapse:collapse;margin:12px 0}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:center}
th.feature,td.feature{text-align:left}tr.format th{background:#eef2f6;text-align:left}
th.certified{background:#dafbe1}th.certified small{font-weight:400}
tr.differs td{font-weight:600}td a{color:inherit}ul{list-style:none;padding-left:8px}
.PASS{background:#d3f4dc}.FAIL,.ERROR,.XPASS{background:#ffd6d6}.XFAIL{background:#fff1c2}.none{color:#8c959f}
.REFUSED{background:#ffe2c2}.LOST{background:#ffc8a8}.NOT_EXPRESSED{background:#eef0f2;color:#57606a}
pre{background:#f6f8fa;padding:8px;white-space:pre-wrap;text-align:left}
"""


def _cell_status(statuses: Counter) -> str:
    for status in ("ERROR", "XPASS", "FAIL", "LOST", "REFUSED", "XFAIL", "PASS", "SKIP", "NOT_EXPRESSED"):
        if statuses[status]:
            return status
    return "none"


def _anchor(*parts: str) -> str:
    return "c-" + "-".join(re.sub(r"[^A-Za-z0-9]+", "-", part) for part in parts).strip("-")


# what each verdict means, for the matrix's legend (harness/expressed.py's table, harness/runner.py)
VERDICTS = {
    "PASS": "the expectation, on what the normalizer expresses",
    "FAIL": "a wrong value, a wrong op, a lost or extra row, said nothing of",
    "LOST": "a record's rows dropped without a word (a peer's ignore-parse-errors, a parse that maps no op)",
    "REFUSED": "an error where the reference emits events: the job stops there",
    "NOT_EXPRESSED": "what the reference emits is nothing the normalizer has a word for, or is the model's own choice",
    "XFAIL": "a known failure (conformance/known_failures.yaml), still failing",
    "XPASS": "a known failure that passes: remove it from the list",
    "ERROR": "the job failed",
}


def _class_anchor(name: str) -> str:
    """The legend line of a disagreement class (C1, C4/D3)."""
    return "class-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")


def _cell(rows: list[dict], anchor: str) -> str:
    """passed/total, coloured by the worst status, linking to the list of its cases, and the disagreement classes of
    its failing cases (a peer's: docs/peers.md), each linking to the legend's line."""
    counts = Counter(row["status"] for row in rows)
    classes = sorted({name for row in rows for name in row.get("classes") or {}}, key=_class_order)
    named = ("<br><small>" + " ".join(f"<a href='#{_class_anchor(name)}'>{html.escape(name)}</a>" for name in classes)
             + "</small>") if classes else ""
    return (f"<td class='{_cell_status(counts)}'><a href='#{anchor}' title='"
            + html.escape(" ".join(f"{s} {counts[s]}" for s in STATUSES if counts[s]))
            + f"'>{counts['PASS']}/{len(rows)}</a>{named}</td>")


def _class_order(name: str) -> int:
    from cdc_conformance.harness.peer_classes import CLASSES

    return next((i for i, c in enumerate(CLASSES) if c.id == name), len(CLASSES))


def _legend(table: list[dict]) -> list[str]:
    """The verdicts the report uses and, for a report with peers, the disagreement classes its problems fall in."""
    from cdc_conformance.harness.peer_classes import BY_ID, DOC, UNCLASSIFIED

    used = [s for s in VERDICTS if any(row["status"] == s for row in table)]
    out = ["<h2>Legend</h2><table class='legend'><tr><th>verdict</th><th class='feature'>meaning</th></tr>"]
    out += [f"<tr><td class='{s}'>{s}</td><td class='feature'>{html.escape(VERDICTS[s])}</td></tr>" for s in used]
    out.append("</table>")
    found = sorted({name for row in table for name in row.get("classes") or {}}, key=_class_order)
    if found:
        out += [f"<table class='legend'><tr><th>class</th><th class='feature'>finding</th><th>kind</th>"
                f"<th class='feature'>judged in {DOC}</th></tr>"]
        for name in found:
            known = BY_ID.get(name)
            title, kind, section = (known.title, known.kind, known.section) if known else \
                ("a problem no class takes: a new class to triage", UNCLASSIFIED, "")
            out.append(f"<tr id='{_class_anchor(name)}'><td>{html.escape(name)}</td><td class='feature'>{html.escape(title)}</td>"
                       f"<td>{kind}</td><td class='feature'>{html.escape(section)}</td></tr>")
        out.append("</table>")
    return out


def html_matrix(report: Report, certifications: dict[str, tuple[dict, str]] | None = None) -> str:
    """Rows: features shared across formats; columns: format@version; a cell: passed/total of the cases with
    that feature on that version, linking to them (each with its problems and replay command). A certified
    column's head says so (date, examples, seed, what the messages came from) and links to its record. When the
    report merges several normalizers, a second table compares them side by side (as Bowtie does)."""
    from cdc_conformance.harness.registry import load_features

    certifications, meanings = certifications or {}, load_features()
    table, facts = report.rows, report.facts
    named = str(facts.get("normalizer")).split(", ")  # the run's own order (peers: the reference first), then by name
    normalizers = sorted({row.get("normalizer") or str(facts.get("normalizer")) for row in table},
                         key=lambda n: (named.index(n) if n in named else len(named), n))
    columns = sorted({row["format_version"] for row in table})
    features = sorted({feature for row in table for feature in row["features"]})
    cells: dict[tuple, list[dict]] = defaultdict(list)
    for row in table:
        for feature in row["features"]:
            cells[(feature, row["format_version"], row.get("normalizer") or str(facts.get("normalizer")))].append(row)
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>cdc-conformance matrix</title>",
           f"<style>{_CSS}</style></head><body>", "<h1>cdc-conformance conformance matrix</h1>",
           f"<p>Suite {html.escape(suite_label(facts))}, Spark "
           f"{html.escape(str(facts.get('spark_version')))}, Kafka {html.escape(str(facts.get('kafka_version')))}; "
           f"normalizer{'s' if len(normalizers) > 1 else ''} {html.escape(', '.join(normalizers))}. A cell is passed/total "
           "for the cases with that feature on that format version.</p>",
           "<pre>" + html.escape(summary_table(report)) + "</pre>", *_legend(table)]
    details: dict[str, tuple[str, list[dict]]] = {}
    for normalizer in normalizers:
        if len(normalizers) > 1:
            out.append(f"<h2>{html.escape(normalizer)}</h2>")
            unsaid = (facts.get("expressions") or {}).get(normalizer)
            if unsaid:
                out.append("<p>Does not express (compared on the rest; a record where only these differ is NOT_EXPRESSED, "
                           f"never PASS): {html.escape(', '.join(unsaid))}.</p>")
        out += ["<table class='matrix'>", "<tr><th class='feature'>feature</th>"
                + "".join(_column_head(c, certifications.get(c)) for c in columns) + "</tr>"]
        for feature in features:
            out.append(f"<tr><td class='feature' title='{html.escape(meanings.get(feature, ''))}'>{html.escape(feature)}</td>")
            for column in columns:
                rows = cells.get((feature, column, normalizer))
                if not rows:
                    out.append("<td class='none'>&middot;</td>")
                    continue
                anchor = _anchor(feature, column, normalizer if len(normalizers) > 1 else "")
                details[anchor] = (f"{feature} on {column}" + (f" ({normalizer})" if len(normalizers) > 1 else ""), rows)
                out.append(_cell(rows, anchor))
            out.append("</tr>")
        out.append("</table>")
    if len(normalizers) > 1:
        out += _side_by_side(table, facts, normalizers)
    for anchor, (title, rows) in details.items():
        out.append(f"<h3 id='{anchor}'>{html.escape(title)}</h3><ul>")
        for row in rows:
            line = f"<li class='{row['status']}'><code>{html.escape(row['case'])}</code> {row['status']}"
            if row.get("classes"):
                line += " " + ", ".join(f"<a href='#{_class_anchor(name)}'>{html.escape(name)}</a> ({count})"
                                        for name, count in row["classes"].items())
            if row["status"] in FAILING_STATUSES:
                line += ("<pre>" + html.escape("\n".join(row["problems"])) + "</pre>"
                         + f"Replay: <code>{html.escape(row['replay'])}</code>")
            out.append(line + "</li>")
        out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out)


def _column_head(column: str, certification: tuple[dict, str] | None) -> str:
    if certification is None:
        return f"<th>{html.escape(column)}</th>"
    from cdc_conformance.harness.certify import examples_and_seeds, produced_by

    record, href = certification
    examples, seeds = examples_and_seeds(record)
    return (f"<th class='certified'>{html.escape(column)}<br><a href='{html.escape(href)}'>certified "
            f"{html.escape(record['certified_on'])}</a><br><small>{examples} examples, seed {html.escape(seeds)}; "
            f"{html.escape(produced_by(record))}</small></th>")


def _side_by_side(table: list[dict], facts: dict, normalizers: list[str]) -> list[str]:
    """One row per case and format version, one column per normalizer: where implementations disagree."""
    by_case: dict[tuple, dict[str, str]] = defaultdict(dict)
    for row in table:
        by_case[(row["format_version"], row["case"])][row.get("normalizer") or str(facts.get("normalizer"))] = row["status"]
    out = ["<h2>Implementations side by side</h2>", "<table class='side-by-side'><tr><th>format@version</th>"
           "<th class='feature'>case</th>" + "".join(f"<th>{html.escape(n)}</th>" for n in normalizers) + "</tr>"]
    for (column, case), statuses in sorted(by_case.items()):
        differs = len(set(statuses.values())) > 1
        out.append(f"<tr{' class=differs' if differs else ''}><td>{html.escape(column)}</td><td class='feature'>"
                   f"{html.escape(case)}</td>" + "".join(
                       f"<td class='{statuses.get(n, 'none')}'>{statuses.get(n, '&middot;')}</td>" for n in normalizers) + "</tr>")
    return out + ["</table>"]
