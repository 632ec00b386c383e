"""The golden flow, as syrupy does it: a full-selection update removes golden files that belong to no case
(unless kept), a run without update reports them, and the tally gives one summary line."""
import shutil

import pytest

from cdc_conformance.harness.cases import CASES_DIR, load_cases
from cdc_conformance.harness.golden import GOLDEN_DIR
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.runner import Runner

pytestmark = pytest.mark.integration
CASE = "debezium-sqlserver-seed001-create"


def test_full_update_removes_orphaned_golden_files_unless_kept(roundtrip, tmp_path):
    (tmp_path / "cases").mkdir()
    shutil.copy(CASES_DIR / "debezium-json" / f"{CASE}.yaml", tmp_path / "cases")
    (tmp_path / "golden" / "debezium-json").mkdir(parents=True)
    shutil.copy(GOLDEN_DIR / "debezium-json" / f"{CASE}.json", tmp_path / "golden" / "debezium-json")
    orphan = tmp_path / "golden" / "debezium-json" / "a-case-that-was-deleted.json"
    orphan.write_text("{}")
    cases = load_cases(tmp_path / "cases")

    def run(**options):
        return Runner(roundtrip, Registry.load(), {}, golden_root=tmp_path / "golden", **options).run(cases, cases)

    checked = run()
    assert any("a-case-that-was-deleted.json belongs to no case" in p for p in checked.suite_problems) and orphan.exists()
    kept = run(update_golden=True, keep_orphans=True)
    assert orphan.exists() and kept.golden.summary() == "golden files: 1 matched, 0 written, 0 removed"
    updated = run(update_golden=True)
    assert not orphan.exists() and updated.suite_problems == []
    assert updated.golden.summary() == "golden files: 1 matched, 0 written, 1 removed"
