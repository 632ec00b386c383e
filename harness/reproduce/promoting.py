"""Promoting a capture to a case: approved behaviour takes its expectation and golden file from the
reference; a known failure takes the given expectation."""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

import yaml

from cdc_conformance.harness.reproduce.captures import ReproduceError, kafka_record
from cdc_conformance.harness.roundtrip import RoundTrip


def case_document(document: dict, case_id: str, title: str, features: list[str], versions: str, expect: dict,
                  notes: str = "") -> dict:
    """A case file from a capture and the expectation it must meet."""
    records = [{k: v for k, v in item.items() if k not in ("offset", "timestamp")} for item in document["records"]]
    provenance = document.get("provenance", {})
    source = "; ".join(f"{k}: {v}" for k, v in provenance.items() if k != "source")
    return {"id": case_id, "title": title, "format": document["format"], "versions": versions, "features": features,
            "provenance": {"source": f"{provenance.get('source', 'capture')} ({source})"},
            **({"notes": notes} if notes else {}), "records": records, "expect": expect}


def expectation_from(reference_output) -> dict:
    """The approved expectation: what the reference normalizer made of the records (the golden file holds all)."""
    index = {(c.topic, c.partition, c.offset): i for i, c in enumerate(reference_output.coordinates)}
    expect: dict = {}
    events = [_expected_event(e) for e in reference_output.events]
    if events:
        expect["events"] = events
    quarantine = [{"record": index[(o["topic"], o["partition"], o["offset"])], "phase": q["phase"], "code": q["code"]}
                  for q in reference_output.quarantine for o in q["origin"][:1]]
    if quarantine:
        expect["quarantine"] = quarantine
    return expect


def _expected_event(event: dict) -> dict:
    """The fields a reader checks first; the golden file holds the rest."""
    return {k: event[k] for k in ("kind", "op", "key", "before", "after") if event.get(k) is not None}


@dataclass(frozen=True)
class KnownFailure:
    """Behaviour not approved yet: the expectation the case must meet once the bug is fixed, why it fails today,
    and the bug's link. The case is listed in known_failures.yaml, so the run fails once it starts passing."""
    expect: dict
    reason: str
    bug: str | None = None


def promote(roundtrip: RoundTrip, document: dict, case_id: str, features: list[str], versions: str, title: str | None,
            cases_root: Path, golden_root: Path, known_failure: KnownFailure | None = None,
            known_failures_file: Path | None = None, failing: RoundTrip | None = None) -> Path:
    """Write the case file and lint it. Approved behaviour (no `known_failure`): the expectation and golden file come
    from the reference normalizer (`roundtrip`) and the case must pass. A known failure: the given expectation, an
    entry in known_failures.yaml, and the case must fail with the normalizer that has the bug (`failing`: a user's
    own; the reference by default). Any problem removes what was written and raises ReproduceError."""
    from cdc_conformance.harness.cases import CaseError, load_case, load_cases
    from cdc_conformance.harness.known_failures import KNOWN_FAILURES_FILE, add_known_failure, load_known_failures, remove_known_failure
    from cdc_conformance.harness.lint import lint
    from cdc_conformance.harness.registry import Registry
    from cdc_conformance.harness.runner import PASS, XFAIL, Runner

    known_failures_file = known_failures_file or KNOWN_FAILURES_FILE
    if known_failure is None:
        expect, notes = expectation_from(_reference_output(roundtrip, document)), ""
    else:
        expect, notes = known_failure.expect, f"Known failure: {known_failure.reason}" + (
            f" ({known_failure.bug})" if known_failure.bug else "")
    data = case_document(document, case_id, title or f"captured: {document.get('provenance', {}).get('source', 'capture')}",
                         features, versions, expect, notes)
    path = cases_root / document["format"] / f"{case_id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8")
    if known_failure is not None:
        add_known_failure(case_id, known_failure.reason, known_failure.bug, known_failures_file)
    registry, known = Registry.load(), load_known_failures(known_failures_file)
    try:
        case, all_cases = load_case(path), load_cases(cases_root)
        problems = [str(p) for p in lint(all_cases, registry, known) if case_id in str(p)]
    except CaseError as error:
        problems = [str(error)]
    if not problems:
        checked = failing if known_failure is not None and failing is not None else roundtrip
        runner = Runner(checked, registry, known, update_golden=known_failure is None, keep_orphans=True, golden_root=golden_root)
        result = runner.run([case], all_cases).results[0]
        if known_failure is None and result.status != PASS:
            problems = [f"it does not pass with the reference normalizer: {p}" for p in result.problems[:3]]
        elif known_failure is not None and result.status != XFAIL:
            problems = [f"it meets the given expectation already with {checked.normalizer.spec}: promote it as approved "
                        "behaviour (without --known-failure), or name the normalizer that has the bug (--normalizer)"]
    if problems:
        path.unlink()
        if known_failure is not None:
            remove_known_failure(case_id, known_failures_file)
        raise ReproduceError("the promoted case is not written:\n" + "\n".join(problems))
    return path


def _reference_output(roundtrip: RoundTrip, document: dict):
    """The records through the broker (on fresh topics) and the normalizer, with the capture's own topic names."""
    partitions: dict[str, int] = {}
    for item in document["records"]:
        partitions[item["topic"]] = max(partitions.get(item["topic"], 1), item.get("partition", 0) + 1)
    prefix = f"promote.{uuid.uuid4().hex[:8]}."
    output = roundtrip.run([kafka_record(item, prefix + item["topic"]) for item in document["records"]], document["format"],
                           {prefix + t: n for t, n in partitions.items()})
    for item in (*output.events, *output.quarantine):
        for origin in item["origin"]:
            origin["topic"] = origin["topic"][len(prefix):]
    output.coordinates = [type(c)(c.topic[len(prefix):], c.partition, c.offset) for c in output.coordinates]
    return output
