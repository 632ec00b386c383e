"""What the Flink SQL job peers share: a real Flink SQL job per batch of topics, as a Flink user runs one over a CDC
topic. Each topic is a Kafka table (Flink's Kafka SQL connector, `format` the Flink format, the typed columns its user
declares: flink_tables.py), read from the broker itself by Flink's Kafka source over exactly the offsets the harness
produced, on Flink's local mini-cluster, in a JVM of its own (java/flinksql: FlinkSqlJob). Its changelog rows come
back with the record's partition and offset (the connector's metadata columns), and a -U followed by a +U of one
record is one update.

The job runs with `<format>.ignore-parse-errors` true: a job over a topic that carries records the format cannot read
(canal's DDL, a heartbeat) must, or it stops at the first one; the record is then skipped without a word (LOST in the
matrix). The default mode, where the job stops, is the UDF peers' (flink.py: the same format classes, one record at a
time, a refusal per record); a stopped job would refuse a whole topic here and say nothing more (docs/peers.md).

A batch is one job whose sources are the batch's tables, their changelogs in one stream; a batch whose job fails
anyway (not a record the format skips: the format catches those) is split in halves, down to the table whose own job
fails, and that table's records are refused with the job's error.
"""
from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from cdc_conformance import jvm_classes
from cdc_conformance.harness import jvm
from cdc_conformance.peers import changes, flink, flink_tables, isolated

# the Kafka connector's release for each Flink line (its version names the Flink it is built for); the newest served
# here. Flink 2.3 has none yet: 5.0.0-2.2's API is the one 2.3 runs (make peers runs it there)
KAFKA_CONNECTORS = {"1.20": "3.4.0-1.20", "2.0": "4.0.1-2.0", "2.1": "5.0.0-2.1", "2.2": "5.0.0-2.2", "2.3": "5.0.0-2.2"}
TABLES_A_JOB = 100  # a job of 100 Kafka sources took 7.5 s here; one a job, about 1 s each
MAIN_CLASS = "io.cdcconformance.peers.FlinkSqlJob"
# what Flink's own launch scripts open on Java 17 (its config.yaml, env.java.opts.all), for its serializers
_OPENS = [f"--add-opens=java.base/{package}=ALL-UNNAMED" for package in
          ("java.util", "java.lang", "java.lang.reflect", "java.io", "java.net", "java.nio", "sun.nio.ch", "java.time",
           "java.util.concurrent", "java.util.concurrent.atomic", "java.math", "java.text")]
EXPRESSES = flink.EXPRESSES


class FlinkSqlError(RuntimeError):
    """The job's JVM could not run (not a job that failed: that is a refusal)."""


def kafka_connector_version(version: str) -> str:
    line = ".".join(version.split(".")[:2])
    if line not in KAFKA_CONNECTORS:
        raise FlinkSqlError(f"no Kafka SQL connector is known for Flink {version} (flink_sql.KAFKA_CONNECTORS)")
    return KAFKA_CONNECTORS[line]


def artifacts(version: str | None = None) -> jvm.ArtifactSet:
    version = version or flink.flink_version()
    return jvm.ArtifactSet("flink-sql", jvm.JVM_DIR / "flink-sql" / "pom.xml", version,
                           {"flink.version": version, "kafka.connector.version": kafka_connector_version(version)})


def classpath(cache_dir: Path) -> list[Path]:
    """FlinkSqlJob compiled against the job's jars, and those jars: the job JVM's classpath."""
    version = flink.flink_version()
    jars = jvm.ensure(artifacts(version))
    job = jvm_classes.compiled_jar(f"cdc-conformance-flink-sql-peer-{version}", [isolated.JAVA / "flinksql"], cache_dir,
                                   classpath=jars)
    return [job, *jars]


def spark_jars(cache_dir: Path) -> list[str]:
    """The door's hook, used here to build the job's classpath before a run: the job runs in a JVM of its own, so
    nothing of it joins Spark's session."""
    classpath(cache_dir)
    return []


def label(flink_format: str) -> str:
    return f"Flink SQL job {flink_format} {flink.flink_version()} (ignore-parse-errors)"


def normalize(raw: DataFrame, format_id: str, flink_format: str, kafka_bootstrap_servers: str) -> changes.Output:
    """The records of `raw` (which says which: topics, partitions, offsets) read by Flink's own Kafka source from the
    broker at `kafka_bootstrap_servers`, one Kafka table over each topic."""
    records = [(r.topic, r.partition, r.offset, r.value) for r in
               raw.select("topic", "partition", "offset", "value").collect()]
    tables = list(_tables(format_id, flink_format, records, _partition_ends(kafka_bootstrap_servers, {r[0] for r in records})))
    documents = _documents(tables, _run_jobs(kafka_bootstrap_servers, tables))
    spark = raw.sparkSession
    read = spark.createDataFrame([(*coordinates, doc) for coordinates, doc in documents.items()],
                                 "topic string, partition int, offset bigint, flink_sql string")
    return isolated.output(raw.join(F.broadcast(read), ["topic", "partition", "offset"], "left"), format_id, "flink_sql")


# the format's metadata columns that name a record's source table (Flink's docs for each format), in the order
# flink_tables.table_of names a table: a topic that carries several tables is read by one Kafka table per source table,
# each filtered on these, as a user of such a topic (Flink CDC's pipeline to one topic) declares them
_TABLE_METADATA = {"debezium-json": (None, "value.source.database", "value.source.schema", "value.source.table"),
                   "canal-json": ("value.database", "value.table")}


def _tables(format_id: str, flink_format: str, records: list[tuple], ends: dict[tuple[str, int], int]) -> Iterable[dict]:
    """The Kafka tables a user declares over the records' topics: one a topic, or one a source table where a topic
    carries several; the columns typed from the table's first record (flink_tables.py), the offsets to read (`ends`:
    each partition's end, so that a partition without any of the records is read from its end to its end), the
    format's options."""
    declared = flink_tables.declared_tables(format_id, records)
    by_topic: dict[str, list[tuple]] = {}
    for record in sorted(records, key=lambda r: (r[0], r[1], r[2])):
        by_topic.setdefault(record[0], []).append(record)
    for topic, held in by_topic.items():
        spans: dict[int, list[int]] = {}
        for _, partition, offset, _ in held:
            first, end = spans.get(partition, [offset, offset + 1])
            spans[partition] = [min(first, offset), max(end, offset + 1)]
        # Flink's Kafka source reads every partition of its topic, and wants an offset for each
        ranges = {**{partition: [end, end] for (named, partition), end in ends.items() if named == topic}, **spans}
        table = {"topic": topic, "format": flink_format, "ranges": [[p, *span] for p, span in sorted(ranges.items())]}
        by_table: dict[tuple, list[tuple]] = {}
        for record in held:
            parsed = flink_tables.parsed_value(record[3])
            by_table.setdefault(flink_tables.table_of(format_id, parsed), []).append((*record[:3], parsed))
        for name, own in by_table.items():
            row_type = next((declared[r[:3]] for r in own if r[:3] in declared), None)
            keys = _TABLE_METADATA[flink_format]
            parts = [*name, *[None] * len(keys)][:len(keys)]  # a record of no table: the names are NULL
            where = [[key, part] for key, part in zip(keys, parts) if key] if len(by_table) > 1 else []
            yield {**table, "options": _options(flink_format, own), "columns": _columns(row_type), "where": where,
                   "records": [r[:3] for r in own]}


def _partition_ends(bootstrap: str, topics: set[str]) -> dict[tuple[str, int], int]:
    """Each partition of the topics, and its end offset on the broker."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "cdc-conformance-flink-sql-peer"})
    try:
        ends = {}
        for topic in sorted(topics):
            for partition in consumer.list_topics(topic, timeout=30).topics[topic].partitions:
                ends[(topic, partition)] = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=30)[1]
        return ends
    finally:
        consumer.close()


def _columns(row_type: str | None) -> str:
    """A table's column list from its row type (`ROW<...>`); none for a topic whose records name no columns."""
    return row_type[len("ROW<"):-1] if row_type else ""


def _options(flink_format: str, own: list[tuple]) -> dict[str, str]:
    """The format's options as its users set them: errors ignored; Debezium's timestamps as its ISO 8601 text, and
    `schema-include` where the producer wrote Connect's schema-and-payload envelope (the table's first JSON record,
    `own`'s last member its parsed value, says)."""
    options = {f"{flink_format}.ignore-parse-errors": "true"}
    if flink_format == "debezium-json":
        first = next((parsed for *_, parsed in own if isinstance(parsed, dict)), {})
        options["debezium-json.timestamp-format.standard"] = "ISO-8601"
        options["debezium-json.schema-include"] = str(isinstance(first.get("payload"), dict)).lower()
    return options


def _run_jobs(bootstrap: str, tables: list[dict]) -> list[dict]:
    """Each table's answer (`rows`, `error`), in order: the tables a batch a job; a batch whose job fails split in
    halves, down to the table whose own job fails."""
    answers: list[dict] = [{"rows": [], "error": None} for _ in tables]
    requests = [{**{k: v for k, v in table.items() if k != "records"}, "id": index} for index, table in enumerate(tables)]
    with _JobRunner() as runner:
        pending = [requests[i:i + TABLES_A_JOB] for i in range(0, len(requests), TABLES_A_JOB)]
        while pending:
            batch = pending.pop()
            answer = runner.run(bootstrap, batch)
            if answer["error"] is None:
                for row in answer["rows"]:
                    answers[row["table"]]["rows"].append(row)
            elif len(batch) == 1:
                answers[batch[0]["id"]] = answer
            else:
                pending += [batch[:len(batch) // 2], batch[len(batch) // 2:]]
    return answers


class _JobRunner:
    """The job's JVM: requests on its standard input, one answer a line on its standard output."""

    def __enter__(self):
        cache = jvm.cache_dir()
        path = os.pathsep.join(map(str, classpath(cache)))
        self.process = subprocess.Popen([jvm.java_executable(), "-Xmx2g", *_OPENS, "-cp", path, MAIN_CLASS],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, encoding="utf-8")
        return self

    def run(self, bootstrap: str, tables: list[dict]) -> dict:
        self.process.stdin.write(json.dumps({"bootstrap": bootstrap, "tables": tables}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            said = self.process.stderr.read()[-2000:]
            raise FlinkSqlError(f"the Flink SQL job's JVM ended (exit {self.process.wait()}): {said}")
        return json.loads(line)

    def __exit__(self, *exc):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.process.stderr.close()
        self.process.stdout.close()


def _documents(tables: list[dict], answers: list[dict]) -> dict[tuple, str]:
    """Each record's `{"changes": [...], "error": ...}`: its rows as changes, or its table's job's failure."""
    documents = {}
    for table, answer in zip(tables, answers):
        rows_of: dict[tuple, list[dict]] = {}
        for row in answer["rows"]:
            rows_of.setdefault((row["partition"], row["offset"]), []).append(row)
        for topic, partition, offset in table["records"]:
            changes_ = [] if answer["error"] else as_changes(rows_of.get((partition, offset), []))
            documents[(topic, partition, offset)] = json.dumps(
                {"changes": changes_, "error": answer["error"][:2000] if answer["error"] else None})
    return documents


def as_changes(rows: list[dict]) -> list[dict]:
    """A record's changelog rows as changes: +I an insert, -D a delete, a -U followed by a +U one update (a lone
    -U or +U an update with one image)."""
    out, index = [], 0
    while index < len(rows):
        kind, values = rows[index]["kind"], rows[index]["values"]
        if kind == "+I":
            out.append({"op": "INSERT", "before": None, "after": values})
        elif kind == "-D":
            out.append({"op": "DELETE", "before": values, "after": None})
        elif kind == "-U" and index + 1 < len(rows) and rows[index + 1]["kind"] == "+U":
            out.append({"op": "UPDATE", "before": values, "after": rows[index + 1]["values"]})
            index += 1
        else:
            out.append({"op": "UPDATE", "before": values if kind == "-U" else None, "after": values if kind == "+U" else None})
        index += 1
    return out
