"""One drawn history through canal's own server: MariaDB (a throwaway server, binary log in ROW format) -> canal
1.1.4 (harness.producers.canal_server) -> a Kafka 3.9 broker, and the three comparisons the Debezium tier makes
(harness.producers.compare): the normalizer against the oracle, the database against the events, the canal
generator against canal's records.

canal reads the binary log from where it stands when canal starts; it has no snapshot, so every transaction of the
history is run after canal streams (a snapshot's rows are inserts to canal).
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, replace

from cdc_conformance.generators import canal
from cdc_conformance.generators.history import History
from cdc_conformance.generators.values import canonical_text
from cdc_conformance.harness.jvm import CANAL_VERSION
from cdc_conformance.harness.producers import compare
from cdc_conformance.harness.producers.canal_server import CanalServer
from cdc_conformance.harness.producers.fidelity import CANAL_KNOWN, ProducerCheck, accepted
from cdc_conformance.harness.producers.histories import mariadb_canal_histories
from cdc_conformance.harness.producers.mariadb import PASSWORD, USER, MariaDbServer
from cdc_conformance.harness.producers.runs import PROGRESS_TABLE, read_topic, run_names, wait_for_streaming
from cdc_conformance.harness.producers.statements import MARIADB

FORMAT = "canal-json"


@dataclass
class CanalRun:
    history: History
    topic: str
    records: list                 # canal's records of the history's table, in offset order (the progress row's dropped)
    final_rows: list[dict]
    versions: dict[str, str]


def streamed(history: History) -> History:
    """The history as canal sees it: every transaction from the binary log, a snapshot's reads as inserts."""
    transactions = tuple(replace(tx, snapshot=False, changes=tuple(
        replace(change, kind="INSERT") if change.kind == "READ" else change for change in tx.changes))
        for tx in history.transactions)
    return replace(history, transactions=transactions)


def _is_progress(record) -> bool:
    """The progress row's insert or MariaDB's annotation of it (a QUERY with the statement's text)."""
    message = json.loads(record.value)
    return message.get("table") == PROGRESS_TABLE[1] or (message.get("sql") or "").startswith(
        f"INSERT INTO {'.'.join(PROGRESS_TABLE)}")


def _wait_for_progress(broker, topic: str, server: CanalServer, timeout: float = 60.0) -> list:
    """canal's records before the progress row's (its annotation, then its insert): they come in binlog order, and the
    progress row is the last thing the history's run writes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        records = read_topic(broker.bootstrap_servers, topic)
        progress = next((index for index, record in enumerate(records) if _is_progress(record)), None)
        if progress is not None:
            return records[:progress]
        if (failure := server.failure()) is not None:
            raise RuntimeError(f"canal failed: {failure}")
        time.sleep(0.2)
    raise RuntimeError(f"the progress record did not arrive within {timeout}s:\n{server.log_tail()}")


def run(broker, history: History) -> CanalRun:
    history = streamed(history)
    run_id, _, _ = run_names(history)
    topic = f"canal{run_id}"
    broker.create_topics({topic: 1})
    table = history.table
    with MariaDbServer() as server:
        server.create_tables(table)
        tables = f"{re.escape(table.schema)}\\.{re.escape(table.name)},{PROGRESS_TABLE[0]}\\.{PROGRESS_TABLE[1]}"
        with CanalServer(broker.bootstrap_servers, server.port, USER, PASSWORD, tables, topic) as canal_server:
            wait_for_streaming(server.streams_binlog, canal_server, "canal's binlog dump")
            server.run_transactions(MARIADB.transactions(history, snapshot=False))
            server.mark_progress()
            records = _wait_for_progress(broker, topic, canal_server)
        return CanalRun(history, topic, records, server.rows(table),
                        {"canal": CANAL_VERSION, "mariadb": server.version})


def profile(run: CanalRun) -> canal.Profile:
    """How canal 1.1.4 on MariaDB writes, as the canal generator's profile (docs/producers.md)."""
    return canal.SERVER_1_1_4_ON_MARIADB(topic=run.topic, database=run.history.table.schema)


def generated(run: CanalRun) -> list:
    """The generator's records and expected events (their positions are the records' offsets in the run's topic)."""
    from cdc_conformance.generators.records import with_coordinates

    return with_coordinates(canal.encode(run.history, profile(run)))


# values that belong to the run: the batch id, clocks, and the statement text MariaDB annotates rows with (the SQL
# the harness ran, which the generator does not know)
_RUN_VALUES = re.compile(r"^value\.(id|es|ts|sql)$")


def fidelity(run: CanalRun, generated_items: list) -> list[compare.Difference]:
    return compare.fidelity_of(run.records, generated_items, _RUN_VALUES)


def state_problems(run: CanalRun, events: list[dict]) -> list[str]:
    table = run.history.table
    database = {}
    key_columns = [c for c in table.columns if c.pk_position]  # pkNames: the table's column order
    for row in run.final_rows:
        texts = {c.name: canonical_text(c.logical, row[c.name]) for c in table.columns}
        database[tuple(texts[c.name] for c in key_columns)] = texts
    return compare.state_differences(database, compare.folded(events))


def check(spark, broker, under_test, history: History) -> ProducerCheck:
    from cdc_conformance.harness.kafka_read import read_batch

    run_ = run(broker, history)
    ranges = {run_.topic: {0: (0, len(run_.records))}}  # the progress row's records follow the history's
    events, quarantine = under_test.batch(read_batch(spark, broker.bootstrap_servers, ranges), FORMAT)
    generated_items = generated(run_)
    return ProducerCheck("canal", len(run_.records), len(events), compare.oracle_problems(generated_items, events),
                         state_problems(run_, events),
                         [d for d in fidelity(run_, generated_items) if not accepted(d, CANAL_KNOWN)],
                         [f"{q['origin'][0]['offset']}: {q['code']} {q['detail']}" for q in quarantine], run_.versions, CANAL_KNOWN)


def drawn_checks(spark, broker, under_test, histories: int, seed: int, done=lambda: None) -> list[ProducerCheck]:
    from cdc_conformance.harness.property import draw_examples

    results = []
    for index in range(histories):
        history = draw_examples(mariadb_canal_histories(index), 10, seed + index)[-1]
        results.append(check(spark, broker, under_test, history))
        done()
    return results
