"""The format registry (conformance/registry.yaml): the single source of truth for which formats exist.

Each format names its decoder module (normalizer/), its generator module (generators/) and its doc page,
and lists its versions with a status and the features each can express. The pipeline's decoders, the
CLI's format choices, test parametrization, the matrix and the README's format table all come from it;
the linter checks that the modules it names declare the same format id.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from cdc_conformance.harness.suite_files import CONFORMANCE_DIR, SUITE_ROOT

REPO_ROOT = SUITE_ROOT  # doc pages and certification records are relative to it (present in the checkout)
REGISTRY_FILE = CONFORMANCE_DIR / "registry.yaml"
FEATURES_FILE = CONFORMANCE_DIR / "features.yaml"
# certified: supported, and a certification record matches the suite; supported: decoded, cases pass;
# experimental: decoder in progress; planned: no decoder yet, its cases are expected failures.
STATUSES = ("certified", "supported", "experimental", "planned")
DECODED = ("certified", "supported", "experimental")


def load_features(path: Path = FEATURES_FILE) -> dict[str, str]:
    """feature -> its one-line meaning (conformance/features.yaml)."""
    return {str(name): meaning for name, meaning in (yaml.safe_load(path.read_text()) or {}).get("features", {}).items()}


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
    path: Path = REGISTRY_FILE

    @classmethod
    def load(cls, path: Path = REGISTRY_FILE) -> Registry:
        return cls(yaml.safe_load(path.read_text())["formats"], path)

    def versions(self, format_id: str) -> list[FormatVersion]:
        entry = self.formats.get(format_id, {})
        return [FormatVersion(format_id, str(version), spec.get("status", ""), tuple(spec.get("features", [])))
                for version, spec in sorted(entry.get("versions", {}).items(), key=lambda kv: Version(str(kv[0])))]

    def version(self, format_id: str, version: str) -> FormatVersion | None:
        """The registry's version `version` of `format_id`, or None."""
        return next((fv for fv in self.versions(format_id) if fv.version == version), None)

    def resolve(self, format_id: str, versions: str) -> list[FormatVersion]:
        """The registry versions of `format_id` inside the specifier set (`*` = all)."""
        if versions.strip() == "*":
            return self.versions(format_id)
        specifier = SpecifierSet(versions)
        return [fv for fv in self.versions(format_id) if Version(fv.version) in specifier]

    def decoded(self, format_id: str) -> bool:
        """Whether any version of the format has a decoder (is not merely planned)."""
        return any(fv.status in DECODED for fv in self.versions(format_id))

    def decoded_formats(self) -> list[str]:
        return [f for f in sorted(self.formats) if self.decoded(f)]

    def options(self, format_id: str) -> dict[str, str]:
        """The options a normalizer may be given to read the format (option -> its meaning), passed to its entries as
        keyword arguments (docs/normalizer-contract.md, "Format options"): `schema_registry` for debezium-avro,
        `flattened` for Debezium's records through the ExtractNewRecordState SMT. An option is a text (required) or a
        mapping with `about` and `optional: true` (given only by the cases and runs that need it)."""
        return {str(name): str(meaning["about"] if isinstance(meaning, dict) else meaning)
                for name, meaning in self._options(format_id).items()}

    def required_options(self, format_id: str) -> tuple[str, ...]:
        return tuple(str(name) for name, meaning in self._options(format_id).items()
                     if not (isinstance(meaning, dict) and meaning.get("optional")))

    def _options(self, format_id: str) -> dict:
        return self.formats.get(format_id, {}).get("options") or {}

    def own_topic_kinds(self, format_id: str) -> frozenset[str]:
        """The event kinds the format's producer writes to topics of their own, apart from the tables' (registry.yaml
        `own_topics`): a consumer of a table never reads them."""
        return frozenset(self.formats.get(format_id, {}).get("own_topics") or ())

    def features(self, format_id: str) -> set[str]:
        return {feature for fv in self.versions(format_id) for feature in fv.features}

    def module(self, format_id: str, role: str):
        """The decoder or generator module the registry names (`role`: decoder | generator), or None."""
        name = self.formats.get(format_id, {}).get(role)
        return import_module(name) if name else None

    def generator(self, format_id: str):
        """The format's `FormatGenerator` (generators.plugin)."""
        module = self.module(format_id, "generator")
        return getattr(module, "GENERATOR", None) if module else None

    def mark_certified(self, fv: FormatVersion, record_file: str) -> None:
        """Say `certified` for a version in the registry file, keeping its comments and layout (a version's
        `status:` is the first line after its `"<version>":` key inside its format's block)."""
        lines = self.path.read_text(encoding="utf-8").splitlines(keepends=True)
        in_format = False
        for index, line in enumerate(lines):
            if not line.startswith(" "):
                continue
            if line.startswith("  ") and not line.startswith("   "):
                in_format = line.strip() == f"{fv.format}:"
            elif in_format and line.strip() == f'"{fv.version}":':
                status = lines[index + 1]
                if "status:" not in status:
                    raise ValueError(f"{self.path}: no status line under {fv.label}")
                lines[index + 1] = status[:status.index("status:")] + f"status: certified  # {record_file}\n"
                self.path.write_text("".join(lines), encoding="utf-8")
                self.formats = Registry.load(self.path).formats
                return
        raise ValueError(f"{self.path}: no version {fv.label}")

    def markdown_table(self) -> str:
        """The README's format table."""
        lines = ["| format | versions | status | doc |", "|---|---|---|---|"]
        for format_id in sorted(self.formats):
            entry = self.formats[format_id]
            versions = self.versions(format_id)
            statuses = sorted({fv.status for fv in versions}, key=STATUSES.index)
            lines.append(f"| `{format_id}` | {', '.join(fv.version for fv in versions)} | {', '.join(statuses)} "
                         f"| [{entry.get('title', format_id)}]({entry.get('doc', '')}) |")
        return "\n".join(lines)
