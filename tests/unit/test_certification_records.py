"""The committed certification pages are made from the records (re-made by `certify`; a hand edit fails here)."""
from cdc_conformance.harness import certify
from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER


def test_the_certifications_readme_is_the_table_of_the_records():
    readme = (certify.CERTIFICATIONS_DIR / "README.md").read_text(encoding="utf-8")
    assert readme == certify.index(certify.load_records()), "re-made by any `cdc-conformance certify` run"


def test_every_record_page_is_its_record_rendered():
    for record in certify.load_records():
        page = certify.record_path(record["label"], normalizer=record["normalizer"]).with_suffix(".md").read_text(encoding="utf-8")
        assert page == certify.markdown(record), record["label"]


def test_a_record_against_a_real_producer_is_told_apart_from_one_against_the_generators():
    record = {**certify.load_records()[0]}
    assert "generators only" in certify.markdown(record) and "generators only" in certify.index([record])
    record["producer"] = "debezium-connector-postgres 3.3.2.Final on PostgreSQL 15"
    for shown in (certify.markdown(record), certify.index([record])):
        assert "real producer: debezium-connector-postgres 3.3.2.Final" in shown and "generators only" not in shown


def test_marking_a_version_certified_changes_its_status_line_alone(tmp_path):
    import re
    import shutil

    from cdc_conformance.harness.registry import REGISTRY_FILE, Registry

    path = tmp_path / "registry.yaml"
    shutil.copy(REGISTRY_FILE, path)  # every version may be certified already: one is made supported again here
    path.write_text(re.sub(r"(?m)^( +)status: certified.*$", r"\1status: supported", path.read_text(), count=1))
    registry = Registry.load(path)
    target = next(fv for f in registry.decoded_formats() for fv in registry.versions(f) if fv.status == "supported")
    before = path.read_text().splitlines()
    registry.mark_certified(target, f"reports/certifications/{target.label}.json")
    after = path.read_text().splitlines()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after) and len(changed) == 1, changed
    assert changed[0][1].strip() == f"status: certified  # reports/certifications/{target.label}.json"
    assert {fv.label: fv.status for fv in Registry.load(path).versions(target.format)}[target.label] == "certified"


def test_a_record_stands_only_for_its_normalizer_at_the_certification_example_count():
    record = {**certify.load_records()[0]}
    assert certify.claim_problems(record, DEFAULT_NORMALIZER, certify.DEFAULT_EXAMPLES) == []
    assert "not the normalizer under test (mypkg.job:normalize)" in certify.claim_problems(
        record, "mypkg.job:normalize", certify.DEFAULT_EXAMPLES)[0]
    few = {**record, "checks": [{**c, "examples": 50} for c in record["checks"]]}
    assert "below the certification example count (2000)" in certify.claim_problems(few, DEFAULT_NORMALIZER, 2000)[0]


def test_a_users_record_is_keyed_by_its_normalizer_and_never_lands_on_the_suites(tmp_path):
    assert certify.record_path("debezium-json@3.2").name == "debezium-json@3.2.json"
    assert certify.record_path("debezium-json@3.2", tmp_path, "mypkg.job:normalize").name == "debezium-json@3.2+mypkg.job.normalize.json"


def test_a_real_producer_check_counts_histories_not_examples():
    record = {**certify.load_records()[0], "normalizer": DEFAULT_NORMALIZER}
    real = {"check": certify.REAL_PRODUCER_CHECK, "seed": 1, "passed": True, "failures": []}
    enough = {**record, "checks": [*record["checks"], {**real, "examples": certify.DEFAULT_HISTORIES}]}
    too_few = {**record, "checks": [*record["checks"], {**real, "examples": certify.DEFAULT_HISTORIES - 1}]}
    assert certify.claim_problems(enough, DEFAULT_NORMALIZER, certify.DEFAULT_EXAMPLES) == []
    assert certify.REAL_PRODUCER_CHECK in certify.claim_problems(too_few, DEFAULT_NORMALIZER, certify.DEFAULT_EXAMPLES)[0]
    assert certify.examples_and_seeds(enough)[0] == certify.examples_and_seeds(record)[0]
