"""The linter: every rule rejects its fixture (tests/unit/lint_fixtures/<rule>.yaml, a minimal violation
over a valid base), every rule has a fixture, and the tree passes. Case files are also schema-checked."""
import copy
from pathlib import Path

import pytest
import yaml

from cdc_conformance.harness.cases import CASES_DIR, CaseError, load_case, load_cases
from cdc_conformance.harness.lint import RULES, lint
from cdc_conformance.harness.registry import REGISTRY_FILE, Registry, load_features

FIXTURES = Path(__file__).with_name("lint_fixtures")
SAMPLE = CASES_DIR / "debezium-json" / "debezium-sqlserver-seed001-create.yaml"
BASE_CASE = {"id": "base", "title": "a lint fixture's case", "format": "debezium-json", "versions": "*",
             "features": ["insert"], "records": [{"topic": "t", "value": "{}"}],
             "expect": {"quarantine": [{"record": 0, "phase": "VALIDATE", "code": "UNKNOWN_MESSAGE_SHAPE"}]}}


def _write(directory: Path, data: dict, name: str | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name or data['id']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _lint_fixture(fixture: dict, tmp_path: Path):
    formats = copy.deepcopy(yaml.safe_load(REGISTRY_FILE.read_text())["formats"])
    formats.update(fixture.get("registry", {}))
    for format_id, changes in fixture.get("patch_formats", {}).items():  # a real entry with keys set (null: removed)
        formats[format_id] = {k: v for k, v in {**formats[format_id], **changes}.items() if v is not None}
    for name in fixture.get("remove_formats", []):
        formats.pop(name)
    registry = Registry(formats, tmp_path / "registry.yaml")
    for item in fixture.get("cases", [{"id": "valid-case"}]):
        item = dict(item)
        where, name = tmp_path / "cases" / item.pop("dir", ""), item.pop("file", None)
        _write(where, {**BASE_CASE, **item}, name)
    features = {**load_features(), **fixture.get("features", {})}
    for name in fixture.get("remove_features", []):
        features.pop(name)
    return lint(load_cases(tmp_path / "cases"), registry, fixture.get("known_failures", {}), features=features)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_rule_rejects_its_fixture_and_nothing_else(rule, tmp_path):
    path = FIXTURES / f"{rule}.yaml"
    assert path.exists(), f"rule {rule} has no fixture {path.name}"
    problems = _lint_fixture(yaml.safe_load(path.read_text()) or {}, tmp_path)
    assert {p.rule for p in problems} == {rule}, [str(p) for p in problems]


def test_fixtures_name_only_rules_that_exist():
    assert {p.stem for p in FIXTURES.glob("*.yaml")} == set(RULES)


def test_a_valid_base_lints_clean(tmp_path):
    assert _lint_fixture({}, tmp_path) == []


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


def test_version_ranges_resolve_against_the_registry():
    registry = Registry.load()
    assert [fv.version for fv in registry.resolve("debezium-json", ">=1.0,<2.0")] == ["1.9"]
    assert [fv.version for fv in registry.resolve("debezium-json", "*")] == ["1.9", "2.7", "3.2"]
    assert [fv.label for fv in registry.resolve("debezium-json", ">=2.6")] == ["debezium-json@2.7", "debezium-json@3.2"]
