"""Certification of one format version: every case whose range includes it, and the generic property,
mutator and streaming checks at a certification example count, recorded with what was run, on what, and
hashes of the case and golden files involved. `check` re-verifies a record: a golden or case file that
changed under it, a case that no longer passes, or a case added or removed in its range fails, by name.

Records live in reports/certifications/<format>@<version>.json (with a rendered .md beside it) and are
committed; the registry may say `certified` only for a version that has one (lint).
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from cdc_conformance.harness import golden, suite_files
from cdc_conformance.harness.cases import Case
from cdc_conformance.harness.generic import check_mutators, check_property, check_streaming
from cdc_conformance.harness.progress import Progress, quiet
from cdc_conformance.harness.registry import FormatVersion, Registry
from cdc_conformance.harness.roundtrip import RoundTrip
from cdc_conformance.harness.runner import PASS, Runner
from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER

CERTIFICATIONS_DIR = suite_files.CERTIFICATIONS_DIR
DEFAULT_EXAMPLES = 2000
# a real producer's history takes seconds (a cluster, a Connect worker): its check counts histories
REAL_PRODUCER_CHECK, DEFAULT_HISTORIES = "real-producer", 20


def record_path(label: str, directory: Path = CERTIFICATIONS_DIR, normalizer: str = DEFAULT_NORMALIZER) -> Path:
    """A record is keyed by what it certifies: the format version and, for any normalizer but the reference,
    the normalizer (`<label>+<module>.<function>.json`), so one never overwrites another's."""
    return directory / (f"{label}.json" if normalizer == DEFAULT_NORMALIZER else f"{label}+{normalizer.replace(':', '.')}.json")


def cases_of(registry: Registry, cases: list[Case], fv: FormatVersion) -> list[Case]:
    return [c for c in cases if c.format == fv.format and fv in registry.resolve(c.format, c.versions)]


def _sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _shown(path: Path) -> str:
    return suite_files.shown(path)


def fingerprint(cases: list[Case], golden_root: Path) -> dict[str, dict]:
    """Per case: its file and golden file with their hashes (what a certification stands on)."""
    out = {}
    for case in sorted(cases, key=lambda c: c.id):
        golden_file = golden.golden_path(case.format, case.id, golden_root)
        out[case.id] = {"case_file": case.relative_path, "case_sha256": _sha256(case.path),
                        "golden_file": _shown(golden_file), "golden_sha256": _sha256(golden_file)}
    return out


def _run_cases(roundtrip: RoundTrip, registry: Registry, cases: list[Case], all_cases: list[Case],
               known_failures: dict[str, str], golden_root: Path) -> dict[str, tuple[str, list[str]]]:
    result = Runner(roundtrip, registry, known_failures, golden_root=golden_root).run(cases, all_cases)
    return {r.case.id: (r.status, r.problems) for r in result.results}


def certify(roundtrip: RoundTrip, registry: Registry, all_cases: list[Case], fv: FormatVersion, examples: int, seed: int,
            known_failures: dict[str, str], golden_root: Path, facts: dict,
            progress: Progress | None = None, real_producer=None, histories: int = DEFAULT_HISTORIES) -> tuple[dict, list[str]]:
    """(record, problems): the record is worth writing only when problems is empty. `real_producer(histories,
    seed)`, when given, runs that many drawn histories through the real producer and returns its failures."""
    progress = progress or quiet()
    cases = cases_of(registry, all_cases, fv)
    with progress.phase(f"{fv.label}: {len(cases)} cases"):
        statuses = _run_cases(roundtrip, registry, cases, all_cases, known_failures, golden_root)
    problems = [f"case {case_id}: {status}" + (f": {details[0]}" if details else "")
                for case_id, (status, details) in sorted(statuses.items()) if status != PASS]
    generator = registry.generator(fv.format).for_version(fv.version)
    checks = []
    runs = [("property", examples, lambda: check_property(roundtrip, generator, examples, seed).failures),
            ("mutators", examples, lambda: check_mutators(roundtrip, generator, examples, seed).failures)]
    if "streaming" in roundtrip.normalizer.modes:
        runs.append(("streaming", examples, lambda: _streaming(roundtrip, generator, examples, seed)))
    if real_producer is not None:
        runs.append((REAL_PRODUCER_CHECK, histories, lambda: real_producer(histories, seed)))
    for name, count, run in runs:
        with progress.phase(f"{fv.label}: {name}, {count} {'histories' if name == REAL_PRODUCER_CHECK else 'examples'}"):
            failures = run()
        checks.append({"check": name, "examples": count, "seed": seed, "passed": not failures,
                       "failures": [f.splitlines()[0] for f in failures[:3]]})
        problems += [f"{name}: {failure.splitlines()[0]}" for failure in failures[:3]]
    prints = fingerprint(cases, golden_root)
    record = {
        "format": fv.format, "version": fv.version, "label": fv.label,
        "certified_on": datetime.now(UTC).date().isoformat(),
        # the suite's release (what teams pin) and its commit
        **{key: facts.get(key) for key in ("suite_version", "suite_commit", "spark_version", "kafka_version", "python_version")},
        # the normalizer certified, and its own distribution's version (not the suite's)
        "normalizer": roundtrip.normalizer.spec, "normalizer_version": roundtrip.normalizer.version,
        "generator_profile": _profile_text(registry.generator(fv.format), fv.version),
        # what the certification covers: a normalizer without a streaming entry is certified for batch only
        "modes": roundtrip.normalizer.modes,
        # what the messages came from: None, the generators only; else the real producer they ran against
        "producer": facts.get("producer"),
        "cases": [{"id": case_id, "status": statuses[case_id][0], **prints[case_id]} for case_id in sorted(prints)],
        "checks": checks,
    }
    return record, problems


def _profile_text(generator, version: str) -> str:
    if generator.version_profile is None:
        return f"{generator.format_id}: every profile its generator draws (its versions are drawn alike)"
    fixed = ", ".join(f"{k}={v}" for k, v in generator.version_profile(version).items())
    return f"{generator.format_id} {version}: the generator's profiles with {fixed}"


def _streaming(roundtrip: RoundTrip, generator, examples: int, seed: int) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="cdc-certify-") as workdir:
        return check_streaming(roundtrip.spark, roundtrip.broker, generator, Path(workdir), examples, seed,
                               under_test=roundtrip.normalizer, schema_registry=roundtrip.schema_registry)


def check(roundtrip: RoundTrip, registry: Registry, all_cases: list[Case], record: dict,
          known_failures: dict[str, str], golden_root: Path, least_examples: int = DEFAULT_EXAMPLES) -> list[str]:
    """What no longer holds of a record, each named; empty when the certification still stands."""
    return check_all(roundtrip, registry, all_cases, [record], known_failures, golden_root, least_examples)


def check_all(roundtrip: RoundTrip, registry: Registry, all_cases: list[Case], records: list[dict],
              known_failures: dict[str, str], golden_root: Path, least_examples: int = DEFAULT_EXAMPLES) -> list[str]:
    """`check` for several records, running each case once (a case in the range of three versions is in three
    records; its result does not depend on which record asks)."""
    problems, in_range = standing_problems(registry, all_cases, records, golden_root, roundtrip.normalizer.spec,
                                           least_examples)
    union = list({case.id: case for cases in in_range.values() for case in cases}.values())
    statuses = _run_cases(roundtrip, registry, union, all_cases, known_failures, golden_root) if union else {}
    for label, cases in in_range.items():
        problems += [f"{label}: case {case.id} is {statuses[case.id][0]} now"
                     + (f": {statuses[case.id][1][0]}" if statuses[case.id][1] else "")
                     for case in sorted(cases, key=lambda c: c.id) if statuses[case.id][0] != PASS]
    return problems


def standing_problems(registry: Registry, all_cases: list[Case], records: list[dict], golden_root: Path, normalizer: str,
                      least_examples: int = DEFAULT_EXAMPLES) -> tuple[list[str], dict[str, list[Case]]]:
    """What no longer holds of the records without running anything (their claims, their versions, the case and
    golden files they fingerprinted), and each record's cases in range: `check_all` then runs those cases."""
    problems: list[str] = []
    in_range: dict[str, list[Case]] = {}
    for record in records:
        label = record["label"]
        problems += claim_problems(record, normalizer, least_examples)
        fv = registry.version(record["format"], record["version"])
        if fv is None:
            problems.append(f"{label}: the registry no longer has this version")
            continue
        in_range[label] = cases_of(registry, all_cases, fv)
        problems += _changed_since(label, fingerprint(in_range[label], golden_root), {c["id"]: c for c in record["cases"]})
    return problems, in_range


def claim_problems(record: dict, normalizer: str, least_examples: int) -> list[str]:
    """A record stands only for the normalizer it names, at the certification example count."""
    problems = []
    if record.get("normalizer") != normalizer:
        problems.append(f"{record['label']}: certifies {record.get('normalizer')}, not the normalizer under test ({normalizer})")
    below = [c["check"] for c in record.get("checks", [])
             if c["examples"] < (DEFAULT_HISTORIES if c["check"] == REAL_PRODUCER_CHECK else least_examples)]
    if below or not record.get("checks"):
        problems.append(f"{record['label']}: {', '.join(below) or 'no check'} below the certification example count "
                        f"({least_examples}); a record made with fewer examples certifies nothing")
    return problems


def _changed_since(label: str, now: dict[str, dict], then: dict[str, dict]) -> list[str]:
    problems = [f"{label}: case {case_id} is new in its range since certification (re-certify)"
                for case_id in sorted(set(now) - set(then))]
    problems += [f"{label}: case {case_id} is gone since certification" for case_id in sorted(set(then) - set(now))]
    for case_id in sorted(set(now) & set(then)):
        for kind in ("case", "golden"):
            if now[case_id][f"{kind}_sha256"] != then[case_id][f"{kind}_sha256"]:
                problems.append(f"{label}: {kind} file {now[case_id][f'{kind}_file']} changed since certification")
    return problems


def load_records(directory: Path = CERTIFICATIONS_DIR) -> list[dict]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(directory.glob("*.json"))]


def write(record: dict, directory: Path = CERTIFICATIONS_DIR) -> tuple[Path, Path]:
    """The record, its page, and the directory's README (the table of every record there) made again."""
    directory.mkdir(parents=True, exist_ok=True)
    path = record_path(record["label"], directory, record["normalizer"])
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    page = path.with_suffix(".md")
    page.write_text(markdown(record), encoding="utf-8")
    (directory / "README.md").write_text(index(load_records(directory), directory), encoding="utf-8")
    return path, page


def modes(record: dict) -> list[str]:
    """The modes a record certifies (records made before modes were recorded certified both)."""
    return record.get("modes", ["batch", "streaming"])


def examples_and_seeds(record: dict) -> tuple[int, str]:
    """The fewest examples any check of a record ran, and its checks' seeds: what the record stands on."""
    generated = [c["examples"] for c in record["checks"] if c["check"] != REAL_PRODUCER_CHECK]
    return min(generated, default=0), ", ".join(sorted({str(c["seed"]) for c in record["checks"]}))


def produced_by(record: dict) -> str:
    """How a record's messages were made, as every place that shows a record says it."""
    real = [c["examples"] for c in record.get("checks", []) if c["check"] == REAL_PRODUCER_CHECK]
    if record.get("producer"):
        return f"generators and a real producer: {record['producer']}" + (f", {real[0]} histories" if real else "")
    return "generators only"


def index(records: list[dict], directory: Path = CERTIFICATIONS_DIR) -> str:
    """The directory's README.md: one row per record, made from the records (a test keeps the suite's equal)."""
    normalizers = sorted({record["normalizer"] for record in records})
    commands = [f"`cdc-conformance certify --check --normalizer {normalizer} --certifications-dir {directory}`"
                for normalizer in normalizers] or [f"`cdc-conformance certify --check --normalizer MODULE:FUNCTION "
                                                   f"--certifications-dir {directory}`"]
    check = ("`cdc-conformance certify --check` (run by the suite's `make test`) re-verifies every record."
             if directory.resolve() == CERTIFICATIONS_DIR.resolve() else
             f"{' and '.join(commands)} re-verif{'ies' if len(commands) == 1 else 'y'} every record: run it in CI.")
    lines = ["# Certifications", "",
             f"Made by `cdc-conformance certify` from the records in this directory; do not edit by hand. {check}", "",
             "| format version | certified on | examples per check | seed | messages from | normalizer | modes | cases |",
             "|---|---|---|---|---|---|---|---|"]
    for record in sorted(records, key=lambda r: r["label"]):
        examples, seeds = examples_and_seeds(record)
        page = record_path(record["label"], Path("."), record["normalizer"]).with_suffix(".md").name
        lines.append(f"| [{record['label']}]({page}) | {record['certified_on']} | {examples} | {seeds} | "
                     f"{produced_by(record)} | `{record['normalizer']}` | {', '.join(modes(record))} | "
                     f"{len(record['cases'])} |")
    return "\n".join(lines) + "\n"


def markdown(record: dict) -> str:
    lines = [f"# Certification: {record['label']}", "",
             f"Certified on {record['certified_on']} by cdc-conformance {record.get('suite_version') or 'of an unrecorded version'} "
             f"(commit `{record['suite_commit']}`) with normalizer "
             f"`{record['normalizer']}` {record['normalizer_version']}, Spark {record['spark_version']}, "
             f"Kafka {record['kafka_version']}, Python {record['python_version']}.", "",
             f"Messages from: {produced_by(record)}.", "",
             f"Modes certified: {', '.join(modes(record))}"
             + ("" if "streaming" in modes(record) else " (the normalizer has no streaming entry)") + ".", "",
             "| check | examples | seed | result |", "|---|---|---|---|"]
    lines += [f"| {c['check']} | {c['examples']} | {c['seed']} | {'passed' if c['passed'] else 'failed'} |"
              for c in record["checks"]]
    lines += ["", f"Generator profile: {record['generator_profile']}.", "",
              "| case | status | golden file (sha256) |", "|---|---|---|"]
    lines += [f"| `{c['id']}` | {c['status']} | `{c['golden_file']}` (`{(c['golden_sha256'] or 'none')[:12]}`) |"
              for c in record["cases"]]
    lines += ["", "`cdc-conformance certify --check` re-verifies this record; it fails when a case or golden file "
              "above changes, a case stops passing, or a case joins or leaves the version's range.", ""]
    return "\n".join(lines)
