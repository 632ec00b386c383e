"""Certification end to end on the real broker and Spark: `certify debezium-json@3.2` writes a record; a golden
value changed under it makes `certify --check` fail and name the file; restoring it passes again."""
import json
import shutil

import pytest

from cdc_conformance.generators.records import with_coordinates
from cdc_conformance.harness import certify
from cdc_conformance.harness.cases import load_cases
from cdc_conformance.harness.generic import mutated_examples
from cdc_conformance.harness.golden import GOLDEN_DIR
from cdc_conformance.harness.known_failures import load_known_failures
from cdc_conformance.harness.property import draw_examples, session_seed
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.reports import run_facts
from cdc_conformance.harness.roundtrip import RoundTrip
from cdc_conformance.harness.runner import Runner
from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER, NormalizerUnderTest
from cdc_conformance.model import event_to_json

pytestmark = pytest.mark.integration
LABEL = "debezium-json@3.2"


def _seed_covering_the_checks(generator, examples: int) -> int:
    """The session's seed, or the first one after it under which each mutator applies to one of `examples`
    drawn examples and the drawn examples' oracle covers what the property requires (a TRUNCATE, a key change):
    at 20 examples about a third of seeds draw no schema'd integer column for the integer mutators, and some
    draw no TRUNCATE; this test is about the record, not about coverage (certify's 2,000 cover them)."""
    seed = session_seed()
    while set(generator.mutators) - mutated_examples(generator, examples, seed)[1] or not _oracle_covers(generator, examples, seed):
        seed += 1
    return seed


def _oracle_covers(generator, examples: int, seed: int) -> bool:
    drawn = draw_examples(generator.examples(), examples, seed)
    events = [event_to_json(event) for index, example in enumerate(drawn)
              for item in with_coordinates(generator.render(example, "t", index)) for event in item.events]
    return generator.coverage(events, []) == []


@pytest.mark.long
def test_certify_writes_a_record_and_check_names_a_changed_golden_file(roundtrip, tmp_path):
    registry, cases = Registry.load(), load_cases()
    golden_root = tmp_path / "golden"
    shutil.copytree(GOLDEN_DIR, golden_root)
    fv = next(v for v in registry.versions("debezium-json") if v.version == "3.2")
    seed = _seed_covering_the_checks(registry.generator("debezium-json").for_version("3.2"), 20)
    record, problems = certify.certify(roundtrip, registry, cases, fv, 20, seed, load_known_failures(), golden_root,
                                       run_facts({"normalizer": DEFAULT_NORMALIZER}))
    assert problems == []
    path, page = certify.write(record, tmp_path / "certifications")
    written = json.loads(path.read_text())
    assert written["label"] == LABEL and written["spark_version"] and written["kafka_version"] and written["suite_commit"]
    assert {c["check"]: (c["examples"], c["seed"], c["passed"]) for c in written["checks"]} == {
        name: (20, seed, True) for name in ("property", "mutators", "streaming")}
    assert {c["id"] for c in written["cases"]} == {c.id for c in certify.cases_of(registry, cases, fv)}
    assert all(c["status"] == "PASS" and c["golden_sha256"] for c in written["cases"])
    assert f"# Certification: {LABEL}" in page.read_text()

    changed = next(c for c in written["cases"] if c["id"] == "debezium-postgres-seed003-truncate-corrected")
    only_changed = [case for case in cases if case.id == changed["id"]]  # the other 34 cases ran just above

    def check():
        return certify.check(roundtrip, registry, only_changed, written, load_known_failures(), golden_root, least_examples=20)

    golden_file = golden_root / "debezium-json" / f"{changed['id']}.json"
    original = golden_file.read_text()
    golden_file.write_text(original.replace('"2019-05-28T08:58:24.961000Z"', '"2019-05-28T08:58:24.962000Z"'))
    problems = check()
    assert any(f"golden file {golden_file} changed since certification" in p for p in problems), problems
    assert any(f"case {changed['id']} is FAIL now" in p for p in problems), problems
    golden_file.write_text(original)  # restored: nothing stands against the record (the cases ran above)
    assert certify.standing_problems(registry, cases, [written], golden_root, DEFAULT_NORMALIZER, least_examples=20)[0] == []


def test_every_committed_certification_still_holds():
    """What `certify --check` does in CI, for every committed record at once: its claims, its version, and not one
    case or golden file changed since; the registry says `certified` for exactly these. That every case in their
    ranges still passes is the conformance suite's own assertion in the same run (every case, embedded broker,
    hostile session: conformance/test_cases.py), so the cases do not run twice; `certify.check` running them is
    tested above."""
    registry, records = Registry.load(), certify.load_records()
    assert records, "no committed certification record"
    for record in records:
        assert record["suite_commit"] and not record["suite_commit"].endswith("-dirty"), f"{record['label']}: uncommitted changes"
    certified = {fv.label for f in registry.formats for fv in registry.versions(f) if fv.status == "certified"}
    assert certified == {record["label"] for record in records}
    problems, in_range = certify.standing_problems(registry, load_cases(), records, GOLDEN_DIR, DEFAULT_NORMALIZER)
    assert problems == [] and all(in_range.values())


def test_a_normalizer_broken_only_in_streaming_fails_certify_on_streaming_alone(spark, broker):
    """Certify runs the normalizer's own streaming entry (it once ran the reference's, whatever was certified):
    every case, the property and the mutators pass, and only the streaming check fails."""
    registry, cases = Registry.load(), load_cases()
    under_test = NormalizerUnderTest.load("tests.one_mode_broken:stream_broken")
    fv = next(v for v in registry.versions("cloudcanal-debezium") if v.version == "1")
    record, problems = certify.certify(RoundTrip(spark, broker, under_test), registry, cases, fv, 10, 1, load_known_failures(),
                                       GOLDEN_DIR, run_facts({"normalizer": under_test.spec}))
    assert problems and all(p.startswith("streaming: streaming differs from batch") for p in problems), problems
    assert record["modes"] == ["batch", "streaming"]


def test_a_batch_only_normalizer_is_certified_for_batch_only():
    under_test = NormalizerUnderTest.load("tests.broken_normalizer:normalize_broken")
    assert under_test.modes == ["batch"] and NormalizerUnderTest.load().modes == ["batch", "streaming"]
    record = {"label": "x@1", "certified_on": "2026-11-25", "suite_commit": "c", "normalizer": under_test.spec,
              "normalizer_version": "1", "spark_version": "4", "kafka_version": "4", "python_version": "3",
              "modes": under_test.modes, "checks": [], "generator_profile": "p", "cases": []}
    assert "Modes certified: batch (the normalizer has no streaming entry)." in certify.markdown(record)


def test_a_normalizer_broken_only_in_batch_fails_run(roundtrip):
    case = next(c for c in load_cases() if c.id == "cloudcanal-debezium-delete-after-empty")
    broken = RoundTrip(roundtrip.spark, roundtrip.broker, NormalizerUnderTest.load("tests.one_mode_broken:batch_broken"))
    result = Runner(broken, Registry.load(), {}).run([case], [case])
    assert [r.status for r in result.results] == ["FAIL"]
    assert any("format" in line for line in result.results[0].problems), result.results[0].problems
