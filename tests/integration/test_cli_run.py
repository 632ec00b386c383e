"""`cdc-conformance run` end to end (in this process, with its Spark: conftest.cli_here): a broken expectation
fails with a diff and a replay command; a changed golden value fails with a readable diff and --update-golden
restores exactly it. A real process of its own runs in test_faults (unreachable broker) and test_pytest_plugin."""
import json
import shutil

import pytest
import yaml

from cdc_conformance.harness.cases import CASES_DIR
from cdc_conformance.harness.golden import GOLDEN_DIR

pytestmark = pytest.mark.integration
CREATE = "debezium-sqlserver-seed001-create"
TRUNCATE = "debezium-postgres-seed003-truncate-corrected"


def test_broken_expectation_and_stale_golden_fail_then_update_restores(tmp_path, broker, cli_here):
    cases, golden = tmp_path / "cases", tmp_path / "golden"
    shutil.copytree(CASES_DIR, cases)
    shutil.copytree(GOLDEN_DIR, golden)
    case_file = cases / "debezium-json" / f"{CREATE}.yaml"
    data = yaml.safe_load(case_file.read_text())
    data["expect"]["events"][0]["after"]["email"] = "someone.else@example.org"
    case_file.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    golden_file = golden / "debezium-json" / f"{TRUNCATE}.json"
    original = golden_file.read_text()
    golden_file.write_text(original.replace('"emit_ts": "2019-05-28T08:58:24.961000Z"',
                                            '"emit_ts": "2019-05-28T08:58:24.962000Z"'))
    assert golden_file.read_text() != original
    common = ["--cases-dir", cases, "--golden-dir", golden, "--reports", tmp_path / "reports",
              "--broker", "external", "--bootstrap-servers", broker.bootstrap_servers]

    code, out, err = cli_here("run", "--case", CREATE, "--case", TRUNCATE, *common)
    assert code == 1, out + err
    assert 'events[0].after: expected {"email": "someone.else@example.org"' in out
    assert f"replay: cdc-conformance run --case {CREATE}" in out
    assert 'events[0].emit_ts: expected "2019-05-28T08:58:24.962000Z", got "2019-05-28T08:58:24.961000Z"' in out
    assert (golden / "debezium-json" / f"{TRUNCATE}.obtained.json").exists()
    rows = [json.loads(line) for line in (tmp_path / "reports" / "results.jsonl").read_text().splitlines()]
    assert rows[0]["type"] == "run" and {r["status"] for r in rows[1:]} == {"FAIL"}

    code, out, err = cli_here("run", "--case", TRUNCATE, "--update-golden", *common)
    assert code == 0, out + err
    assert golden_file.read_text() == original
    assert not (golden / "debezium-json" / f"{TRUNCATE}.obtained.json").exists()


def test_known_failure_that_passes_and_unknown_entry_fail_the_run(tmp_path, cli_here):
    """The default backend: the run starts an embedded broker of its own (and stops it)."""
    known = tmp_path / "known.yaml"
    known.write_text(yaml.safe_dump({"known_failures": [
        {"case": CREATE, "reason": "pretend it is broken"},
        {"case": "no-such-case", "reason": "stale entry"}]}))
    code, out, err = cli_here("run", "--case", CREATE, "--known-failures", known, "--reports", tmp_path / "r")
    assert code == 1, out + err
    assert f"XPASS {CREATE}" in out, out + err
    assert "known failure 'no-such-case' names no case" in out
