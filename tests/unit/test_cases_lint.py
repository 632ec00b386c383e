"""The case linter rejects invalid and duplicate cases; the registry resolves version ranges."""
import shutil
from pathlib import Path

import pytest
import yaml

from harness.cases import CASES_DIR, CaseError, Registry, lint, load_case, load_cases

REGISTRY = Registry.load()
SAMPLE = CASES_DIR / "debezium-json" / "debezium-sqlserver-seed001-create.yaml"


def _write(directory: Path, data: dict, name: str | None = None) -> Path:
    path = directory / f"{name or data['id']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_schema_violation_names_file_and_field(tmp_path):
    data = yaml.safe_load(SAMPLE.read_text())
    data["expect"] = {"quarantine": [{"record": 0, "phase": "PARSE", "code": "X"}]}
    with pytest.raises(CaseError, match=r"expect/quarantine/0/phase"):
        load_case(_write(tmp_path, data))


def test_case_without_expectation_is_rejected(tmp_path):
    data = yaml.safe_load(SAMPLE.read_text())
    data["expect"] = {}
    with pytest.raises(CaseError):
        load_case(_write(tmp_path, data))


def test_duplicate_id_and_duplicate_input_are_reported(tmp_path):
    shutil.copy(SAMPLE, tmp_path / SAMPLE.name)
    copy = tmp_path / "sub"
    copy.mkdir()
    shutil.copy(SAMPLE, copy / SAMPLE.name)
    problems = lint(load_cases(tmp_path), REGISTRY)
    assert any("duplicate case id" in p for p in problems)
    assert any("same input as case" in p for p in problems)


def test_unknown_format_range_and_record_index_are_reported(tmp_path):
    data = yaml.safe_load(SAMPLE.read_text())
    data.update(id="x-unknown", format="nope")
    other = dict(data, id="x-range", format="debezium-json", versions=">=9.0",
                 records=[dict(data["records"][0], partition=1)])
    third = dict(data, id="x-index", format="debezium-json", records=[dict(data["records"][0], partition=2)],
                 expect={"quarantine": [{"record": 3, "phase": "DECODE", "code": "MALFORMED_JSON"}]})
    for item in (data, other, third):
        _write(tmp_path, item)
    problems = "\n".join(lint(load_cases(tmp_path), REGISTRY))
    assert "unknown format 'nope'" in problems
    assert "matches no registry version" in problems
    assert "names record 3" in problems


def test_file_name_must_be_the_case_id(tmp_path):
    data = yaml.safe_load(SAMPLE.read_text())
    _write(tmp_path, data, name="other-name")
    assert any("file name must be the case id" in p for p in lint(load_cases(tmp_path), REGISTRY))


def test_version_ranges_resolve_against_the_registry():
    assert [fv.version for fv in REGISTRY.resolve("debezium-json", ">=1.0,<2.0")] == ["1.9"]
    assert [fv.version for fv in REGISTRY.resolve("debezium-json", "*")] == ["1.9", "2.7", "3.2"]
    assert [fv.label for fv in REGISTRY.resolve("debezium-json", ">=2.6")] == ["debezium-json@2.7", "debezium-json@3.2"]
