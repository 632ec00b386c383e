"""The Flink (formats and SQL jobs), Paimon, Kafka Connect and DTS SDK peers over the cases docs/peers.md pins, one per
disagreement class it triages: the verdict and a line of its problems each. A class that changes (a Flink release that
fixes its canal `old` lookup, a Paimon release that reads DataWorks' `UPDATE_BEFOR`, say) fails here, and docs/peers.md
is updated with it. make test-long; the whole run is `make peers`."""
import pytest

from cdc_conformance.harness.cases import load_cases
from cdc_conformance.harness.peers import case_units, run_format
from cdc_conformance.harness.under_test import NormalizerUnderTest

pytestmark = [pytest.mark.integration, pytest.mark.long]

CANAL = "cdc_conformance.peers.flink_canal:normalize"
DEBEZIUM = "cdc_conformance.peers.flink_debezium:normalize"
# the same formats with `ignore-parse-errors` true: what a refusal becomes where the job is kept running
CANAL_IGNORING = "cdc_conformance.peers.flink_canal_ignore_errors:normalize"
DEBEZIUM_IGNORING = "cdc_conformance.peers.flink_debezium_ignore_errors:normalize"
PAIMON_CANAL = "cdc_conformance.peers.paimon_canal:normalize"
PAIMON_DEBEZIUM = "cdc_conformance.peers.paimon_debezium:normalize"
PAIMON_ALIYUN = "cdc_conformance.peers.paimon_aliyun:normalize"
CONNECT = "cdc_conformance.peers.connect_json:normalize"
DTS_SDK = "cdc_conformance.peers.dts_sdk:normalize"
# a real Flink SQL job over each topic, errors ignored: Flink's Kafka source, the planner, the job
SQL_CANAL = "cdc_conformance.peers.flink_sql_canal:normalize"
SQL_DEBEZIUM = "cdc_conformance.peers.flink_sql_debezium:normalize"
# (format, case) -> (peer, verdict, a line of its problems); the classes of docs/peers.md, "Disagreements"
PINNED = {
    # C7: canal writes a BLOB as its bytes' ISO-8859-1 text; the typed table's BYTES column reads base64
    ("canal-json", "canal-json-multi-row-insert"): (CANAL, "REFUSED", "in base64 content"),
    ("canal-json", "canal-json-flink-update"): (CANAL, "PASS", None),  # Flink's own test message
    # C1: `old` looked up in every row's image (JsonNode.findValue), not the row's own
    ("canal-json", "canal-json-old-per-row"): (CANAL, "FAIL", 'wrong value before.b (STRING): expected "b1", got null'),
    ("canal-json", "canal-json-key-change-in-batch"): (CANAL, "FAIL", 'wrong value before.id (INT32): expected "1", got null'),
    # C2: every DDL type but CREATE fails the job
    ("canal-json", "canal-json-seed004-ddl-uncommented"): (CANAL, "REFUSED", 'Unknown "type" value "ALTER"'),
    # C3: ENUM and SET as canal writes them from the binlog: the index and the bitmask
    ("canal-json", "canal-json-enum-set-as-binlog-numbers"): (CANAL, "FAIL", 'wrong value after.e (ENUM): expected "green", got "2"'),
    # C4 on canal: JSON numbers, which canal never writes (its case's notes): no peer finding (issue 60, F7); its
    # records whose every problem is one are not judged (U1), and the rest pass
    ("canal-json", "canal-json-values-as-json-numbers"): (CANAL, "PASS", None),
    # C8: MySQL's TIME is a duration, Flink's a clock: refused, and NULL without a word when errors are ignored
    ("canal-json", "canal-json-time-duration"): (CANAL, "REFUSED", "DateTimeParseException: Text '-00:00:01'"),
    ("canal-json", "canal-json-time-duration", "ignoring"): (CANAL_IGNORING, "FAIL", 'expected "838:59:59.000000", got null'),
    # C5: a member named twice: the last one wins, silently
    ("canal-json", "canal-json-old-names-a-member-twice"): (CANAL, "FAIL", "where the reference quarantines (DECODE/DUPLICATE_KEY)"),
    # C6: zero dates passed through as text: the model's own choice (NULL), no peer failure (issue 60, F8)
    ("canal-json", "canal-json-zero-dates"): (CANAL, "NOT_EXPRESSED", None),
    # C2 with ignore-parse-errors: the ALTER skipped, the job running on; a table has no word for DDL, so nothing is lost
    ("canal-json", "canal-json-seed004-ddl-uncommented", "ignoring"): (CANAL_IGNORING, "NOT_EXPRESSED", None),
    # a record that is not JSON (canal's DDL example with its comments): Flink's error, which the reference's quarantine
    # matches; with errors ignored, skipped without a word, as the SQL job shows (the UDF peer once refused it itself)
    ("canal-json", "canal-json-seed004-ddl"): (CANAL, "PASS", None),
    ("canal-json", "canal-json-seed004-ddl", "ignoring"): (CANAL_IGNORING, "NOT_EXPRESSED", None),
    ("canal-json", "canal-json-seed004-ddl", "sql"): (SQL_CANAL, "NOT_EXPRESSED", None),
    # C1 in the real job: the Kafka table's changelog has the same NULL key
    ("canal-json", "canal-json-old-per-row", "sql"): (SQL_CANAL, "FAIL", 'wrong value before.b (STRING): expected "b1", got null'),
    ("cloudcanal-debezium", "cloudcanal-debezium-op-c-insert"): (DEBEZIUM, "PASS", None),
    # D1: CloudCanal's op "i"
    ("cloudcanal-debezium", "cloudcanal-debezium-seed004-dml-insert"): (DEBEZIUM, "REFUSED", 'Unknown "op" value "i"'),
    # D1 with ignore-parse-errors: the insert skipped without a word
    ("cloudcanal-debezium", "cloudcanal-debezium-seed004-dml-insert", "ignoring"): (DEBEZIUM_IGNORING, "LOST", "lost without a word"),
    ("cloudcanal-debezium", "cloudcanal-debezium-seed004-dml-insert", "sql"): (SQL_DEBEZIUM, "LOST", "lost without a word"),
    # D2: Connect's encodings (days for a DATE, a Decimal's bytes in base64, ...) in the table's typed columns: refused
    ("debezium-json", "debezium-flink-cdc-snapshot-all-mysql-types"):
        (DEBEZIUM, "REFUSED", "DateTimeParseException: Text '19439' could not be parsed"),
    # D3: a schemaless decimal beyond a double's digits
    ("debezium-json", "debezium-schemaless-decimals-read-alike"):
        (DEBEZIUM, "FAIL", 'expected "9999999999999999999999999999.9999999999", got "1.0E28"'),
    # D4: an update without its before image (PostgreSQL's REPLICA IDENTITY DEFAULT) fails the job
    ("debezium-json", "debezium-postgres-transaction-id-holds-an-lsn"): (DEBEZIUM, "REFUSED", 'The "before" field of UPDATE message is null'),
    # D4 with ignore-parse-errors: the update skipped without a word
    ("debezium-json", "debezium-postgres-transaction-id-holds-an-lsn", "ignoring"):
        (DEBEZIUM_IGNORING, "LOST", "lost without a word"),
    ("debezium-json", "debezium-postgres-transaction-id-holds-an-lsn", "sql"): (SQL_DEBEZIUM, "LOST", "lost without a word"),
    # D5: a record without `op` lives on a topic of its own (a schema change on `<prefix>`, transaction metadata on
    # `<prefix>.transaction`), which a Flink table is never pointed at: not expressed (issue 60, F3)
    ("debezium-json", "debezium-mysql-truncate-is-a-schema-change"): (DEBEZIUM, "NOT_EXPRESSED", None),
    # D6: a truncate on the table's topic: Flink's error names the record, its cause the op (issue 60, F4: the matrix
    # once kept the cause alone)
    ("debezium-json", "debezium-postgres-seed003-truncate-corrected"):
        (DEBEZIUM, "REFUSED", "IOException: Corrupt Debezium JSON message '{"),
    # Paimon's aliyun-json over DataWorks' records. PA1: a table without a primary key (`"primaryKey": null`)
    ("dataworks-json", "dataworks-json-seed002-insert", "paimon"): (PAIMON_ALIYUN, "REFUSED", '"pkNode" is null'),
    # PA2: DataWorks' BYTES type name is no MySQL type
    ("dataworks-json", "dataworks-json-bytes-60", "paimon"): (PAIMON_ALIYUN, "REFUSED", "Don't support MySQL type 'BYTES'"),
    # PA3: `UPDATE_BEFOR`, as DataWorks spells it
    ("dataworks-json", "dataworks-json-halves-separated", "paimon"):
        (PAIMON_ALIYUN, "REFUSED", "Unknown record operation: UPDATE_BEFOR)"),
    # PA4: DDL fails the job
    ("dataworks-json", "dataworks-json-ddl-alter", "paimon"): (PAIMON_ALIYUN, "REFUSED", "Unknown record operation: ALTER"),
    # PA5: a one-record update's before image dropped
    ("dataworks-json", "dataworks-json-key-change-one-record", "paimon"):
        (PAIMON_ALIYUN, "FAIL", 'wrong value before: expected {"id": "1", "v": "a"}, got null'),
    # Paimon's canal-json: an update (Paimon's DELETE and INSERT, compared as one UPDATE), and C1 does not occur
    ("canal-json", "canal-json-flink-update", "paimon"): (PAIMON_CANAL, "PASS", None),
    ("canal-json", "canal-json-old-per-row", "paimon"): (PAIMON_CANAL, "PASS", None),
    # PC1: MySQL's type synonyms as canal writes them
    ("canal-json", "canal-json-mysql-type-synonyms", "paimon"): (PAIMON_CANAL, "REFUSED", "Don't support MySQL type"),
    # PC2: a statement without rows
    ("canal-json", "canal-json-mariadb-annotation-query", "paimon"): (PAIMON_CANAL, "REFUSED", "missing 'data' field"),
    # Paimon's debezium-json. PD3: a MySQL TIME past a day wrapped into one
    ("debezium-json", "debezium-mariadb-time-duration", "paimon"):
        (PAIMON_DEBEZIUM, "FAIL", 'expected "25:01:01.000001", got "01:01:01.000001"'),
    # PD4: an update without its before image
    ("debezium-json", "debezium-postgres-toast-placeholder-bytea-and-arrays", "paimon"):
        (PAIMON_DEBEZIUM, "REFUSED", "missing 'before' field when 'op' is 'u'"),
    # Kafka Connect's JsonConverter reading Debezium back. KC1: a non-finite double it wrote as a string, read as 0.0
    ("debezium-json", "debezium-postgres-float8-special-values", "connect"):
        (CONNECT, "FAIL", 'wrong value after.lo (FLOAT64): expected "-Infinity", got "0.0"'),
    # Connect's own Decimal decoded from its schema, 65 digits whole
    ("debezium-json", "debezium-mysql-decimal-65-30", "connect"): (CONNECT, "PASS", None),
    # C4/D3: without schemas, a JSON number that is no integer is read as a double
    ("debezium-json", "debezium-schemaless-numeric-decimal", "connect"): (CONNECT, "FAIL", 'got "-1.50227003511558976E17"'),
    # KC3: a case's shorthand schema, refused by the converter's schema grammar: no producer writes it, not counted
    ("debezium-json", "debezium-bytes-60", "connect"): (CONNECT, "NOT_EXPRESSED", None),
    # DTS's own subscription SDK. DS1: `EmptyObject` `NULL` is no value class it knows
    ("dts-avro", "dts-avro-empty-object", "sdk"): (DTS_SDK, "REFUSED", "Not support avro class type:"),
    # DS2: `INIT` (full-load) rows are its UNKNOWN operation, which no listener takes as a row
    ("dts-avro", "dts-avro-init-snapshot", "sdk"): (DTS_SDK, "LOST", "lost without a word"),
    # DS3: a TimestampWithTimeZone's text without its offset
    ("dts-avro", "dts-avro-geometry-and-zone", "sdk"): (DTS_SDK, "FAIL", 'expected "2025-03-14T00:00:00.000250Z", got "2025-03-14 08:00:00.00025"'),
    # its MINIMAL row image's NONE left out, as the reference leaves it out; the item-count bomb refused (its deserializer
    # wraps Avro 1.8's OutOfMemoryError)
    ("dts-avro", "dts-avro-minimal-row-image", "sdk"): (DTS_SDK, "PASS", None),
    ("dts-avro", "dts-avro-item-count-bomb", "sdk"): (DTS_SDK, "PASS", None),
}


@pytest.mark.parametrize("format_id", sorted({format_id for format_id, *_ in PINNED}))
def test_the_jvm_peers_disagree_where_docs_peers_says(spark, broker, format_id):
    pinned = {(case_id, verdict[0]): verdict for (fmt, case_id, *_), verdict in PINNED.items() if fmt == format_id}
    units, missing = case_units([case for case in load_cases() if case.id in {case_id for case_id, _ in pinned}])
    assert missing == [] and len(units) == len({case_id for case_id, _ in pinned})
    peers = [NormalizerUnderTest.load(spec) for spec in dict.fromkeys(spec for _, spec in pinned)]
    rows = {(row["case"], row["normalizer"]): row for row in run_format(spark, broker, format_id, units, peers, {})}
    names = {peer.spec: peer.name for peer in peers}
    for (case_id, spec), (_, status, problem) in pinned.items():
        row = rows[(case_id, names[spec])]
        assert row["status"] == status, (case_id, spec, row["problems"])
        assert problem is None or any(problem in line for line in row["problems"]), (case_id, row["problems"])
