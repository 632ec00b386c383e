"""Peers in the harness (harness/peers.py, harness/expressed.py): the naive Spark parse over a few canal cases, judged
on what it expresses, beside the reference over the same records, in seconds. The Flink peers and the `peers` command
run in make test-long (tests/integration/test_peers_long.py)."""
import pytest

from cdc_conformance.harness.cases import load_cases
from cdc_conformance.harness.peers import case_units, drawn_units, run_format
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER, NormalizerUnderTest

pytestmark = pytest.mark.integration

NAIVE = "cdc_conformance.peers.naive_spark:normalize"
# case -> the naive parse's verdict and a line of its problems (docs/peers.md, "Disagreements")
CASES = {
    "canal-json-multi-row-insert": ("PASS", None),
    "canal-json-flink-update": ("FAIL", "wrong value before.description: missing"),  # `old` alone is not the before image
    "canal-json-old-names-a-member-twice": ("FAIL", "extra row: ROW/UPDATE where the reference quarantines (DECODE/DUPLICATE_KEY)"),
    "canal-json-ddl-nulls": ("NOT_EXPRESSED", None),  # a DDL message: the reference's DDL event, nothing from the parse
    "canal-json-enum-set-as-binlog-numbers": ("FAIL", 'wrong value after.e (ENUM): expected "green", got "2"'),
}


def test_the_naive_parse_is_judged_on_what_it_expresses_beside_the_reference(spark, broker):
    cases = [case for case in load_cases() if case.id in CASES]
    units, missing = case_units(cases)
    units += drawn_units(Registry.load().generator("canal-json"), 5, 1)
    assert missing == [] and len(units) == len(CASES) + 5
    reference, naive = NormalizerUnderTest.load(DEFAULT_NORMALIZER), NormalizerUnderTest.load(NAIVE)
    rows = run_format(spark, broker, "canal-json", units, [reference, naive], {})
    verdicts = {(row["normalizer"], row["case"]): row for row in rows}
    assert {row["status"] for row in rows if row["normalizer"] == reference.name} == {"PASS"}
    for case_id, (status, problem) in CASES.items():
        row = verdicts[(naive.name, case_id)]
        assert row["status"] == status, (case_id, row["problems"])
        assert problem is None or any(problem in line for line in row["problems"]), (case_id, row["problems"])
    assert naive.name == "naive Spark from_json" and naive.expression.values == "text"
    replays = {row["case"]: row["replay"] for row in rows if row["normalizer"] == naive.name}
    assert replays["canal-json-flink-update"] == f"cdc-conformance peers --case canal-json-flink-update --peer {NAIVE}"
    assert replays["drawn/canal-json/1/0"] == f"cdc-conformance peers --format canal-json --seed 1 --examples 5 --peer {NAIVE}"


NAIVE_AVRO = "cdc_conformance.peers.naive_avro:normalize"


def test_the_naive_from_avro_reads_one_schema_and_goes_wrong_when_it_changes(spark, broker, schema_registry):
    """Issue 59's peer: the subject's latest schema, fetched once, reads a topic of one schema; a record written with an
    older one is read against the wrong fields, and the matrix says so."""
    cases = [case for case in load_cases() if case.format == "debezium-avro"]
    units, missing = case_units(cases)
    assert missing == []
    reference, naive = NormalizerUnderTest.load(DEFAULT_NORMALIZER), NormalizerUnderTest.load(NAIVE_AVRO)
    rows = run_format(spark, broker, "debezium-avro", units, [reference, naive], {}, schema_registry)
    verdicts = {(row["normalizer"], row["case"]): row["status"] for row in rows}
    assert {status for (name, _), status in verdicts.items() if name == reference.name} == {"PASS"}
    assert verdicts[(naive.name, "debezium-avro-postgres-insert")] == "PASS"
    # the older records read against the latest schema: permissive from_avro gives NULL, their rows dropped without a word
    assert verdicts[(naive.name, "debezium-avro-schema-changed-mid-topic")] == "LOST"


# debezium-json cases whose quarantine lives in the Kafka key or headers alone: a key change whose partner header is no
# key, a before image without the key's columns (the key names them), a key with a lone surrogate
KEY_ONLY = ("debezium-key-change-partner-unknown", "debezium-key-lone-surrogate")


def test_a_problem_that_lives_only_in_the_key_is_no_failure_of_a_peer_that_reads_the_value():
    """Issue 60 (F5): the naive parse reads the value alone (`reads: ["value"]`), so it is judged against the
    reference's reading of the value alone: the records the reference quarantines for their key or headers are
    compared as rows, never as an "extra row where the reference quarantines"."""
    naive = NormalizerUnderTest.load(NAIVE)
    assert naive.expression.unread == ("key", "headers") and "the record's key" in naive.expression.not_expressed()
    assert NormalizerUnderTest.load(DEFAULT_NORMALIZER).expression.unread == ()


def test_the_naive_parse_is_judged_on_the_value_it_reads(spark, broker):
    cases = [case for case in load_cases() if case.id in KEY_ONLY]
    assert len(cases) == len(KEY_ONLY)
    units, _ = case_units(cases)
    reference, naive = NormalizerUnderTest.load(DEFAULT_NORMALIZER), NormalizerUnderTest.load(NAIVE)
    rows = run_format(spark, broker, "debezium-json", units, [reference, naive], {})
    for row in rows:
        if row["normalizer"] == reference.name:
            assert row["status"] == "PASS", row
        else:
            assert not any("where the reference quarantines" in line for line in row["problems"]), row
