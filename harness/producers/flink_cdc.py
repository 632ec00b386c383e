"""One drawn history through Flink CDC's MySQL source: MariaDB (a throwaway server, binary log in ROW format) ->
Flink CDC 3.1.1 in a local Flink mini-cluster (harness/maven/flink-cdc: FlinkCdcCapture, its records' JSON as
`JsonDebeziumDeserializationSchema` writes it, a line each) -> the broker, each line a record's value as a Flink Kafka
sink of those strings writes it (no key, no headers). Then the three comparisons of the other runs
(harness.producers.compare): the normalizer against the oracle, the database against the events, the generator's
Flink CDC profile against Flink CDC's records.

Flink CDC reads the table's snapshot itself (its splits from `BinlogOffset.ofEarliest()`), then the binary log; the
history's streamed transactions run once the snapshot's rows are out and its binlog dump is on the process list.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from cdc_conformance.generators import debezium, debezium_connect
from cdc_conformance.generators.history import History
from cdc_conformance.generators.records import KafkaRecord, with_coordinates
from cdc_conformance.harness import jvm
from cdc_conformance.harness.processes import log_tail, started, stop_group
from cdc_conformance.harness.producers import compare
from cdc_conformance.harness.producers.fidelity import ProducerCheck
from cdc_conformance.harness.producers.histories import mariadb_histories
from cdc_conformance.harness.producers.mariadb import PASSWORD, USER, MariaDbServer
from cdc_conformance.harness.producers.runs import PROGRESS_TABLE, run_names, wait_for_streaming
from cdc_conformance.harness.producers.statements import MARIADB
from cdc_conformance.harness.suite_files import package_dir

FORMAT = "debezium-json"
CAPTURE_SOURCE = package_dir("cdc_conformance.harness") / "maven" / "flink-cdc" / "FlinkCdcCapture.java"
# Flink CDC ships its own copies of some Debezium classes (MySqlConnection...): its jar goes first on the classpath
_OVERRIDES_FIRST = "flink-connector-mysql-cdc"


def classpath() -> str:
    """Flink CDC's jars (resolved once) and FlinkCdcCapture compiled against them, in the user's cache directory."""
    jars = jvm.ensure(jvm.flink_cdc_artifacts())
    classes = jvm.flink_cdc_artifacts().directory / "classes"
    ordered = sorted(jars, key=lambda jar: not jar.name.startswith(_OVERRIDES_FIRST))
    path = ":".join(str(jar) for jar in ordered)
    compiled = classes / "FlinkCdcCapture.class"
    if not compiled.exists() or compiled.stat().st_mtime < CAPTURE_SOURCE.stat().st_mtime:
        classes.mkdir(parents=True, exist_ok=True)
        made = subprocess.run([jvm.jvm_tool("javac"), "-nowarn", "-d", str(classes), "-cp", path, str(CAPTURE_SOURCE)],
                              capture_output=True, text=True)
        if made.returncode != 0:
            raise jvm.ArtifactError(f"javac FlinkCdcCapture failed:\n{made.stderr[-2000:]}")
    return f"{classes}:{path}"


class FlinkCdcCapture:
    """The capture job as a process of its own; its records appear in `output`, one JSON text a line."""

    def __init__(self, server: MariaDbServer, include_schema: bool):
        self.server, self.include_schema = server, include_schema
        self.workdir = Path(tempfile.mkdtemp(prefix="cdc-flink-"))
        self.output = self.workdir / "records.jsonl"
        self.log = self.workdir / "flink.log"
        self._process: subprocess.Popen | None = None

    def start(self, databases: str, tables: str) -> FlinkCdcCapture:
        """`databases` and `tables` (`db.table`): regular expressions, as Flink CDC's builder takes them."""
        args = ["127.0.0.1", str(self.server.port), USER, PASSWORD, databases, tables, str(self.output),
                str(self.include_schema).lower()]
        with open(self.log, "w") as log:
            self._process = started(subprocess.Popen([jvm.java_executable(), "-cp", classpath(), "FlinkCdcCapture", *args],
                                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd="/"))
        return self

    def lines(self) -> list[str]:
        return self.output.read_text(encoding="utf-8").splitlines() if self.output.exists() else []

    def failure(self) -> str | None:
        if self._process is not None and self._process.poll() is not None:
            return f"the Flink job ended ({self._process.returncode}):\n{self.log_tail()}"
        return None

    def log_tail(self, lines: int = 30) -> str:
        return log_tail(self.log, lines, "(no Flink log)")

    def stop(self) -> None:
        process, self._process = self._process, None
        stop_group(process)
        shutil.rmtree(self.workdir, ignore_errors=True)


@dataclass
class FlinkCdcRun:
    history: History
    topic: str
    records: list[KafkaRecord]     # Flink CDC's records of the history's table, as a Kafka sink writes them
    final_rows: list[dict]
    include_schema: bool
    versions: dict[str, str] = field(default_factory=dict)


def _table_of(line: str) -> str | None:
    return (debezium_connect.payload_of(json.loads(line)).get("source") or {}).get("table")


def run(broker, history: History, include_schema: bool = True) -> FlinkCdcRun:
    run_id, _, _ = run_names(history)
    topic = f"flinkcdc{run_id}"
    table = history.table
    snapshot_rows = sum(len(tx.changes) for tx in history.transactions if tx.snapshot)
    with MariaDbServer() as server:
        server.create_tables(table)
        server.run_transactions(MARIADB.transactions(history, snapshot=True))
        capture = FlinkCdcCapture(server, include_schema)
        try:
            # the history's table and the progress table, in two databases: Flink CDC takes regular expressions
            capture.start(f"{re.escape(table.schema)}|{PROGRESS_TABLE[0]}",
                          f"{re.escape(table.schema)}\\.{re.escape(table.name)}|{PROGRESS_TABLE[0]}\\.{PROGRESS_TABLE[1]}")
            wait_for_streaming(lambda: len(capture.lines()) >= snapshot_rows and server.streams_binlog(), capture,
                               "the snapshot and the binlog dump", timeout=120.0)
            time.sleep(2)  # past the last split's high watermark: a change inside it would be merged into the snapshot
            server.run_transactions(MARIADB.transactions(history, snapshot=False))
            server.mark_progress()
            wait_for_streaming(lambda: any(_table_of(line) == PROGRESS_TABLE[1] for line in capture.lines()), capture,
                               "the progress row", timeout=120.0)
            lines = [line for line in capture.lines() if _table_of(line) == table.name]
        finally:
            capture.stop()
        records = [KafkaRecord(topic, 0, None, line.encode("utf-8"), ()) for line in lines]
        run_ = FlinkCdcRun(history, topic, records, server.rows(table), include_schema,
                           {"flink-cdc": jvm.FLINK_CDC_VERSION, "mariadb": server.version})
    run_ = in_generated_order(run_, generated(run_))
    broker.create_topics({topic: 1})
    broker.produce(run_.records)  # as a Flink Kafka sink of the strings writes them: the value alone
    return run_


def profile(run_: FlinkCdcRun) -> debezium.Profile:
    """Flink CDC 3.1.1 as the generator's Flink CDC profile: Debezium 1.9.8's MySQL connector, its server name."""
    drawn = debezium.Profile(pipeline="flink-cdc", schemas_enable=run_.include_schema, topic_override=run_.topic)
    return replace(debezium._as_pipeline_writes(drawn), version="1.9.8.Final")


def generated(run_: FlinkCdcRun) -> list:
    return with_coordinates(debezium.encode(run_.history, profile(run_)))


def _after_key(payload: dict, names: list[str]) -> str:
    return json.dumps([(payload.get("after") or {}).get(name) for name in names])


def in_generated_order(run_: FlinkCdcRun, items: list) -> FlinkCdcRun:
    """The run with its snapshot's records in the generator's order (the key's), matched by key: Flink CDC emits a
    snapshot split's rows from a HashMap (SnapshotSplitReader), in no order a consumer or generator can know."""
    names = [c.name for c in run_.history.table.key_columns]
    payloads = [debezium_connect.payload_of(json.loads(r.written_value)) for r in run_.records]
    snapshot = [r for r, payload in zip(run_.records, payloads) if payload.get("op") == "r"]
    by_key = {_after_key(payload, names): r for r, payload in zip(run_.records, payloads) if payload.get("op") == "r"}
    wanted = [_after_key(debezium_connect.payload_of(json.loads(i.record.written_value)), names) for i in items[:len(snapshot)]]
    ordered = [by_key.pop(key) for key in wanted if key in by_key]
    ordered += list(by_key.values())  # what the generator did not draw: left for the comparisons to report
    rest = run_.records[len(snapshot):]
    return replace(run_, records=ordered + rest)


# values that belong to the run: clocks and binlog coordinates
_RUN_VALUES = re.compile(r"^value\.(payload\.)?(ts_ms|source\.(ts_ms|pos|file|thread|server_id))$")


def state_problems(run_: FlinkCdcRun, events: list[dict]) -> list[str]:
    """The database's rows against the events folded by the table's key (the records carry no Kafka key)."""
    table, run_profile = run_.history.table, profile(run_)
    written = debezium.DebeziumEncoder(run_profile, debezium.written_table(table, run_profile))
    names = [c.name for c in table.key_columns]
    database = {}
    for row in run_.final_rows:
        texts = written.canonical_image(debezium.written_row(table, run_profile, row))
        database[tuple(texts[name] for name in names)] = texts
    replayed: dict[tuple, dict] = {}
    for event in events:
        if event["kind"] == "ROW":
            image = event["before"] if event["op"] == "DELETE" else event["after"]
            key = tuple(image[name] for name in names)
            if event["op"] == "DELETE":
                replayed.pop(key, None)
            else:
                replayed[key] = event["after"]
    return compare.state_differences(database, replayed)


def check(spark, broker, under_test, history: History, include_schema: bool = True) -> ProducerCheck:
    from cdc_conformance.harness.kafka_read import read_batch

    run_ = run(broker, history, include_schema)
    ranges = {run_.topic: {0: (0, len(run_.records))}}
    events, quarantine = under_test.batch(read_batch(spark, broker.bootstrap_servers, ranges), FORMAT)
    items = generated(run_)
    return ProducerCheck("Flink CDC", len(run_.records), len(events), compare.oracle_problems(items, events),
                         state_problems(run_, events), compare.fidelity_of(run_.records, items, _RUN_VALUES),
                         [f"{q['origin'][0]['offset']}: {q['code']} {q['detail']}" for q in quarantine], run_.versions)


def flink_cdc_histories():
    """MariaDB's drawn histories without key changes, whose halves Flink CDC's records cannot pair (no Kafka key, no
    headers: docs/formats/debezium-json.md, known gaps), and without TRUNCATE, a schema change to Debezium 1.9's
    MySQL connector, which Flink CDC's emitter drops."""
    return mariadb_histories(allow_truncate=False, allow_key_change=False)


def drawn_checks(spark, broker, under_test, histories: int, seed: int, done=lambda: None) -> list[ProducerCheck]:
    from cdc_conformance.harness.property import draw_examples

    results = []
    for index in range(histories):
        history = draw_examples(flink_cdc_histories(), 10, seed + index)[-1]
        results.append(check(spark, broker, under_test, history, include_schema=index % 2 == 0))
        done()
    return results
