"""The HTML conformance matrix in a real headless Chromium: it renders, shows the counts, and a failing
cell links to its diff and replay command. The screenshot lands in reports/ (gitignored)."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cdc_conformance.harness.cases import load_cases
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.reports import Report, merge, run_facts, write_all
from cdc_conformance.harness.runner import Runner, SuiteResult

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "Debian's chromium is needed for this test: `make browser` installs it"
    return path


def _suite() -> SuiteResult:
    """Real cases with real known-failure reasons; one case is made to fail so a cell must link."""
    debezium = [c for c in load_cases() if c.format == "debezium-json"]
    others = [c for c in load_cases() if c.format != "debezium-json"]
    runner = Runner(roundtrip=None, registry=Registry.load(), known_failures={})  # type: ignore[arg-type]
    results = []
    for index, case in enumerate(debezium[:4] + others[:2]):
        problems = ["events[0].after.email: expected \"a@b\", got \"c@d\""] if index == 0 else []
        results.append(runner._result(case, problems, {"events": [], "quarantine": []}, 0.1))
    return SuiteResult(results, [], 1.0)


def test_matrix_renders_in_headless_chromium(tmp_path):
    suite = _suite()
    paths = write_all(Report.of(suite, run_facts({"normalizer": "cdc_conformance.normalizer.pipeline:normalize"})), tmp_path)
    failing = suite.results[0].case.id
    profile = tmp_path / "profile"
    dom = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom",
                          paths["matrix"].as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "cdc-conformance conformance matrix" in dom.stdout
    assert "debezium-json@2.7" in dom.stdout and "PASS 5" not in dom.stdout  # counts are per feature cell
    assert f"cdc-conformance run --case {failing}" in dom.stdout
    assert "<a href=\"#c-" in dom.stdout and "<h3 id=\"c-" in dom.stdout  # cells link to their cases
    assert "Implementations side by side" not in dom.stdout
    # certified columns say so and link to their record's page (debezium-json@3.2 has a committed record)
    certified = re.search(r"debezium-json@3\.2<br><a href=\"([^\"]+)\">certified \d{4}-\d\d-\d\d</a>", dom.stdout)
    assert certified and (tmp_path / certified.group(1)).resolve().is_file(), dom.stdout[:3000]
    assert "generators only" in dom.stdout
    screenshot = REPO / "reports" / "matrix.png"
    screenshot.parent.mkdir(exist_ok=True)
    shot = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1200,900",
                           f"--screenshot={screenshot}", paths["matrix"].as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 10_000


def test_merged_reports_of_two_normalizers_compare_side_by_side(tmp_path):
    suite = _suite()
    reference = Report.of(suite, {**run_facts(), "normalizer": "cdc_conformance.normalizer.pipeline:normalize"})
    other = Report.of(suite, {**run_facts(), "normalizer": "mypkg.job:normalize"})
    other.rows = [{**row, "status": "FAIL", "problems": ["differs"]} if row["case"] == other.rows[-1]["case"] else row
                  for row in other.rows]
    paths = write_all(merge([reference, other]), tmp_path)
    dom = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                          paths["matrix"].as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "Implementations side by side" in dom.stdout
    assert "<th>mypkg.job:normalize</th>" in dom.stdout and "<th>cdc_conformance.normalizer.pipeline:normalize</th>" in dom.stdout
    assert dom.stdout.count('class="differs"') >= 1
