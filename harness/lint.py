"""The suite's linter: every registry is checked, the way test262's linter rejects an unregistered feature.

Each rule has an id and a fixture that violates it (tests/unit/lint_fixtures/<rule>.yaml); the tree
must pass all of them. `lint()` returns Problems; `cdc-conformance lint` prints them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier

from cdc_conformance.harness import known_failures as known_failures_module
from cdc_conformance.harness import suite_files
from cdc_conformance.harness.cases import Case
from cdc_conformance.harness.registry import DECODED, STATUSES, Registry, load_features
from cdc_conformance.harness.suite_files import SUITE_ROOT as REPO_ROOT
from cdc_conformance.harness.under_test import NormalizerUnderTest
from cdc_conformance.model import CODE_PHASE, Code, Kind

RULES = {
    "case-duplicate-id": "two case files declare the same id",
    "case-file-name": "a case file is not named after its id",
    "case-unknown-format": "a case names a format the registry does not have",
    "case-bad-range": "a case's version range is not a PEP 440 specifier set",
    "case-range-empty": "a case's version range matches no registry version",
    "case-record-index": "an expected quarantine names a record the case does not have",
    "case-duplicate-input": "two cases of one format have the same records",
    "case-unknown-feature": "a case tags a feature that none of its versions has in the registry",
    "case-unknown-code": "a case expects a quarantine code that is not a model code",
    "case-wrong-phase": "a case expects a code under another phase than the model gives it",
    "feature-undeclared": "a registry version names a feature that conformance/features.yaml does not declare",
    "feature-unused": "conformance/features.yaml declares a feature that no registry version has",
    "feature-no-meaning": "a declared feature has no one-line meaning",
    "registry-bad-status": "a registry version has a status outside certified/supported/experimental/planned",
    "registry-missing-doc": "a registry doc page does not exist",
    "registry-bad-own-topic": "a format's `own_topics` names a kind of event the model does not have",
    "registry-no-decoder": "a decoded format has no decoder module declaring its id",
    "registry-no-generator": "a decoded format has no generator module declaring its id",
    "registry-unregistered-decoder": "the normalizer has a decoder for a format the registry does not list",
    "registry-certified-without-record": "a version says certified but reports/certifications has no record of it",
    "known-failure-orphan": "a known failure names no case",
    "known-failure-planned": "a known failure names a case of a planned format (already an expected failure)",
}


@dataclass(frozen=True)
class Problem:
    rule: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message} [{self.rule}]"


def lint(cases: list[Case], registry: Registry, known_failures: dict[str, str] | None = None,
         root: Path = REPO_ROOT, features: dict[str, str] | None = None, known_failures_file: str = "known_failures.yaml") -> list[Problem]:
    """Problems that make the suite untrustworthy; empty means clean. `features`: the declared features
    [default: conformance/features.yaml]."""
    return [*lint_registry(registry, root), *lint_features(load_features() if features is None else features, registry),
            *lint_cases(cases, registry), *lint_known_failures(known_failures or {}, cases, registry, known_failures_file)]


def lint_features(features: dict[str, str], registry: Registry) -> list[Problem]:
    """Every feature a version names is declared with its meaning, and every declared one is used (cases can
    only name features of their versions: case-unknown-feature)."""
    where = "features.yaml"
    named = {feature: fv.label for f in registry.formats for fv in registry.versions(f) for feature in fv.features}
    problems = [Problem("feature-undeclared", f"{registry.path.name}: {label}", f"feature {feature!r} is not declared in {where}")
                for feature, label in sorted(named.items()) if feature not in features]
    problems += [Problem("feature-unused", where, f"feature {feature!r} is not a feature of any registry version")
                 for feature in sorted(features) if feature not in named]
    problems += [Problem("feature-no-meaning", where, f"feature {feature!r} needs a one-line meaning")
                 for feature, meaning in sorted(features.items())
                 if not isinstance(meaning, str) or not meaning.strip() or "\n" in meaning.strip()]
    return problems


def lint_cases(cases: list[Case], registry: Registry) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[str, Case] = {}
    inputs: dict[str, str] = {}
    for case in cases:
        def report(rule: str, message: str) -> None:
            problems.append(Problem(rule, case.relative_path, message))

        if case.id in seen:
            report("case-duplicate-id", f"duplicate case id {case.id!r} (also {seen[case.id].relative_path})")
        seen[case.id] = case
        if case.path.stem != case.id:
            report("case-file-name", f"file name must be the case id ({case.id}.yaml)")
        fingerprint = json.dumps([case.format, case.records], sort_keys=True)
        if fingerprint in inputs:
            report("case-duplicate-input", f"same input as case {inputs[fingerprint]!r}")
        inputs[fingerprint] = case.id
        for index, item in enumerate(case.expect.get("quarantine", [])):
            if item["record"] >= len(case.records):
                report("case-record-index", f"expect.quarantine[{index}] names record {item['record']}, "
                                            f"the case has {len(case.records)}")
            if item["code"] not in Code.__members__:
                report("case-unknown-code", f"expect.quarantine[{index}]: {item['code']} is not a model code")
            elif CODE_PHASE[Code(item["code"])].value != item["phase"]:
                report("case-wrong-phase", f"expect.quarantine[{index}]: {item['code']} is a "
                                           f"{CODE_PHASE[Code(item['code'])].value} code, not {item['phase']}")
        if case.format not in registry.formats:
            report("case-unknown-format", f"unknown format {case.format!r}")
            continue
        try:
            resolved = registry.resolve(case.format, case.versions)
        except InvalidSpecifier:
            report("case-bad-range", f"invalid version range {case.versions!r}")
            continue
        if not resolved:
            report("case-range-empty", f"version range {case.versions!r} matches no registry version")
            continue
        available = {feature for fv in resolved for feature in fv.features}
        unknown = [f for f in case.features if f not in available]
        if unknown:
            report("case-unknown-feature", f"features {unknown} are not features of "
                                           f"{', '.join(fv.label for fv in resolved)} in the registry")
    return problems


def lint_registry(registry: Registry, root: Path = REPO_ROOT) -> list[Problem]:
    problems: list[Problem] = []
    where = registry.path.name
    for format_id, entry in sorted(registry.formats.items()):
        def report(rule: str, message: str) -> None:
            problems.append(Problem(rule, f"{where}: {format_id}", message))

        for kind in sorted(set(entry.get("own_topics") or ()) - {k.value for k in Kind}):
            report("registry-bad-own-topic", f"own_topics: {kind!r} is not a kind of the model's events")
        for fv in registry.versions(format_id):
            if fv.status not in STATUSES:
                report("registry-bad-status", f"version {fv.version}: status {fv.status!r} (one of {', '.join(STATUSES)})")
        if _has_checkout_files(root):  # the wheel carries neither (it is built from a linted checkout)
            for fv in registry.versions(format_id):
                if fv.status == "certified" and not _has_record(root, fv.label):
                    report("registry-certified-without-record", f"version {fv.version} says certified, but there is no "
                           f"reports/certifications/{fv.label}.json (run: cdc-conformance certify {fv.label})")
            doc = entry.get("doc")
            if not doc or not (root / doc).is_file():
                report("registry-missing-doc", f"doc page {doc!r} does not exist")
        if not any(fv.status in DECODED for fv in registry.versions(format_id)):
            continue
        for role, attribute in (("decoder", "DECODER"), ("generator", "GENERATOR")):
            declared = _declared_id(registry, format_id, role, attribute)
            if declared != format_id:
                report(f"registry-no-{role}", f"{role} module {entry.get(role)!r} does not declare {format_id!r} "
                                              f"({declared or 'nothing'})")
    reference = NormalizerUnderTest.load()  # through the door, as any normalizer: the formats it says it reads
    for format_id in reference.supported_formats() if reference.supported_formats else []:
        if format_id not in registry.formats:
            problems.append(Problem("registry-unregistered-decoder", where,
                                    f"the normalizer decodes {format_id!r}, which the registry does not list"))
    return problems


def _has_checkout_files(root: Path) -> bool:
    return root != REPO_ROOT or suite_files.is_checkout()


def _has_record(root: Path, label: str) -> bool:
    path = root / "reports" / "certifications" / f"{label}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("label") == label
    except (OSError, ValueError):
        return False


def _declared_id(registry: Registry, format_id: str, role: str, attribute: str) -> str | None:
    try:
        module = registry.module(format_id, role)
    except ImportError as error:
        return f"import failed: {error}"
    declaration = getattr(module, attribute, None) if module else None
    return getattr(declaration, "format_id", None)


def lint_known_failures(known_failures: dict[str, str], cases: list[Case], registry: Registry,
                        where: str = "known_failures.yaml") -> list[Problem]:
    by_id = {case.id: case for case in cases}
    problems = [Problem("known-failure-orphan", where, f"{case_id!r} names no case")
                for case_id in known_failures_module.orphans(known_failures, set(by_id))]
    for case_id in known_failures:
        case = by_id.get(case_id)
        if case is not None and case.format in registry.formats and not registry.decoded(case.format):
            problems.append(Problem("known-failure-planned", where,
                                    f"{case_id!r} is a case of the planned format {case.format}: "
                                    "it is an expected failure without an entry"))
    return problems
