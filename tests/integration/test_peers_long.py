"""The Flink peers over the cases docs/peers.md pins, one per disagreement class it triages: the verdict and a line of
its problems each. A class that changes (a Flink release that fixes its canal `old` lookup, say) fails here, and
docs/peers.md is updated with it. make test-long; the whole run is `make peers`."""
import pytest

from cdc_conformance.harness.cases import load_cases
from cdc_conformance.harness.peers import case_units, run_format
from cdc_conformance.harness.under_test import NormalizerUnderTest

pytestmark = [pytest.mark.integration, pytest.mark.long]

CANAL = "cdc_conformance.peers.flink_canal:normalize"
DEBEZIUM = "cdc_conformance.peers.flink_debezium:normalize"
# (format, case) -> (peer, verdict, a line of its problems); the classes of docs/peers.md, "Disagreements"
PINNED = {
    ("canal-json", "canal-json-multi-row-insert"): (CANAL, "PASS", None),
    ("canal-json", "canal-json-flink-update"): (CANAL, "PASS", None),  # Flink's own test message
    # C1: `old` looked up in every row's image (JsonNode.findValue), not the row's own
    ("canal-json", "canal-json-old-per-row"): (CANAL, "FAIL", 'wrong value before.b (STRING): expected "b1", got null'),
    ("canal-json", "canal-json-key-change-in-batch"): (CANAL, "FAIL", 'wrong value before.id (INT32): expected "1", got null'),
    # C2: every DDL type but CREATE fails the job
    ("canal-json", "canal-json-seed004-ddl-uncommented"): (CANAL, "REFUSED", 'Unknown "type" value "ALTER"'),
    # C3: ENUM and SET as canal writes them from the binlog: the index and the bitmask
    ("canal-json", "canal-json-enum-set-as-binlog-numbers"): (CANAL, "FAIL", 'wrong value after.e (ENUM): expected "green", got "2"'),
    # C4: JSON numbers read as doubles (no DECIMAL column in the DDL)
    ("canal-json", "canal-json-values-as-json-numbers"): (CANAL, "FAIL", 'expected "0.1000000000000000055511151231257827", got "0.1"'),
    # C5: a member named twice: the last one wins, silently
    ("canal-json", "canal-json-old-names-a-member-twice"): (CANAL, "FAIL", "where the reference quarantines (DECODE/DUPLICATE_KEY)"),
    # C6: zero dates passed through as text
    ("canal-json", "canal-json-zero-dates"): (CANAL, "FAIL", 'wrong value after.d (DATE): expected null, got "0000-00-00"'),
    ("cloudcanal-debezium", "cloudcanal-debezium-op-c-insert"): (DEBEZIUM, "PASS", None),
    # D1: CloudCanal's op "i"
    ("cloudcanal-debezium", "cloudcanal-debezium-seed004-dml-insert"): (DEBEZIUM, "REFUSED", 'Unknown "op" value "i"'),
    # D2: Connect's encodings are the values Flink gives: days for a DATE, a Decimal's bytes in base64, ...
    ("debezium-json", "debezium-flink-cdc-snapshot-all-mysql-types"):
        (DEBEZIUM, "FAIL", 'wrong value after._date (DATE): expected "2023-03-23", got "19439"'),
    # D3: a schemaless decimal beyond a double's digits
    ("debezium-json", "debezium-schemaless-decimals-read-alike"):
        (DEBEZIUM, "FAIL", 'expected "9999999999999999999999999999.9999999999", got "1.0E28"'),
    # D4: an update without its before image (PostgreSQL's REPLICA IDENTITY DEFAULT) fails the job
    ("debezium-json", "debezium-postgres-transaction-id-holds-an-lsn"): (DEBEZIUM, "REFUSED", 'The "before" field of UPDATE message is null'),
    # D5: a record without `op` (a schema change, transaction metadata, a heartbeat): Flink's error names the record,
    # its cause a NullPointerException (issue 60, F4: the matrix once kept the cause alone)
    ("debezium-json", "debezium-mysql-truncate-is-a-schema-change"):
        (DEBEZIUM, "REFUSED", "IOException: Corrupt Debezium JSON message '{"),
}


@pytest.mark.parametrize("format_id", sorted({format_id for format_id, _ in PINNED}))
def test_the_flink_peers_disagree_where_docs_peers_says(spark, broker, format_id):
    pinned = {case_id: verdict for (fmt, case_id), verdict in PINNED.items() if fmt == format_id}
    units, missing = case_units([case for case in load_cases() if case.id in pinned])
    assert missing == [] and len(units) == len(pinned)
    peer = NormalizerUnderTest.load(next(iter(pinned.values()))[0])
    rows = {row["case"]: row for row in run_format(spark, broker, format_id, units, [peer], {})}
    for case_id, (_, status, problem) in pinned.items():
        row = rows[case_id]
        assert row["status"] == status, (case_id, row["problems"])
        assert problem is None or any(problem in line for line in row["problems"]), (case_id, row["problems"])
