"""Case files (conformance/cases/**/*.yaml): loading, schema validation, registry resolution, lint."""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from jsonschema import Draft202012Validator
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from generators.records import KafkaRecord

REPO_ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE_DIR = REPO_ROOT / "conformance"
CASES_DIR = CONFORMANCE_DIR / "cases"
REGISTRY_FILE = CONFORMANCE_DIR / "registry.yaml"
SCHEMA_FILE = CONFORMANCE_DIR / "case.schema.json"


class CaseError(ValueError):
    """A case file that is invalid; the message names the file."""


@dataclass(frozen=True)
class FormatVersion:
    format: str
    version: str
    status: str
    features: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.format}@{self.version}"


@dataclass
class Registry:
    formats: dict[str, dict]

    @classmethod
    def load(cls, path: Path = REGISTRY_FILE) -> "Registry":
        return cls(yaml.safe_load(path.read_text())["formats"])

    def versions(self, format_id: str) -> list[FormatVersion]:
        entry = self.formats.get(format_id, {})
        return [FormatVersion(format_id, version, spec["status"], tuple(spec.get("features", [])))
                for version, spec in sorted(entry.get("versions", {}).items(), key=lambda kv: Version(kv[0]))]

    def resolve(self, format_id: str, versions: str) -> list[FormatVersion]:
        """The registry versions of `format_id` inside the specifier set (`*` = all)."""
        if versions.strip() == "*":
            return self.versions(format_id)
        specifier = SpecifierSet(versions)
        return [fv for fv in self.versions(format_id) if Version(fv.version) in specifier]


@dataclass
class Case:
    id: str
    title: str
    format: str
    versions: str
    features: list[str]
    records: list[dict]
    expect: dict
    path: Path
    provenance: dict = field(default_factory=dict)
    notes: str = ""

    def kafka_records(self, topic_of=lambda topic: topic) -> list[KafkaRecord]:
        return [KafkaRecord(topic_of(r["topic"]), r.get("partition", 0), _bytes(r, "key"), _bytes(r, "value"),
                            tuple((h["key"], _bytes(h, "value")) for h in r.get("headers", [])))
                for r in self.records]

    def partitions(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.records:
            counts[r["topic"]] = max(counts.get(r["topic"], 1), r.get("partition", 0) + 1)
        return counts

    @property
    def relative_path(self) -> str:
        return str(self.path.relative_to(REPO_ROOT)) if self.path.is_relative_to(REPO_ROOT) else str(self.path)


def _bytes(item: dict, name: str) -> bytes | None:
    if f"{name}_base64" in item:
        return base64.b64decode(item[f"{name}_base64"], validate=True)
    text = item.get(name)
    return None if text is None else text.encode("utf-8")


def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))


def load_case(path: Path, validator: Draft202012Validator | None = None) -> Case:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise CaseError(f"{path}: not YAML: {error}") from error
    errors = sorted((validator or _validator()).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top)"
        raise CaseError(f"{path}: {where}: {first.message}")
    return Case(path=path, **{k: data.get(k) for k in (
        "id", "title", "format", "versions", "features", "records", "expect")},
        provenance=data.get("provenance", {}), notes=data.get("notes", ""))


def load_cases(directory: Path = CASES_DIR) -> list[Case]:
    validator = _validator()
    return [load_case(path, validator) for path in sorted(directory.rglob("*.yaml"))]


def lint(cases: list[Case], registry: Registry) -> list[str]:
    """Problems that make a suite untrustworthy; empty means clean."""
    problems = []
    seen: dict[str, Path] = {}
    inputs: dict[str, str] = {}
    for case in cases:
        if case.id in seen:
            problems.append(f"{case.relative_path}: duplicate case id {case.id!r} (also {seen[case.id]})")
        seen[case.id] = case.path
        if case.path.stem != case.id:
            problems.append(f"{case.relative_path}: file name must be the case id ({case.id}.yaml)")
        if case.format not in registry.formats:
            problems.append(f"{case.relative_path}: unknown format {case.format!r}")
            continue
        try:
            resolved = registry.resolve(case.format, case.versions)
        except InvalidSpecifier:
            problems.append(f"{case.relative_path}: invalid version range {case.versions!r}")
            continue
        if not resolved:
            problems.append(f"{case.relative_path}: version range {case.versions!r} matches no registry version")
        for index, item in enumerate(case.expect.get("quarantine", [])):
            if item["record"] >= len(case.records):
                problems.append(f"{case.relative_path}: expect.quarantine[{index}] names record {item['record']}, "
                                f"the case has {len(case.records)}")
        fingerprint = json.dumps([case.format, case.records], sort_keys=True)
        if fingerprint in inputs:
            problems.append(f"{case.relative_path}: same input as case {inputs[fingerprint]!r}")
        inputs[fingerprint] = case.id
    return problems
