"""Run by a virtualenv with the suite's wheel and one PySpark of the range (tests/user/test_spark_versions.py): the
stateful streaming assembly on that Spark, event-time timeouts and all (the operator reads a watermark column that no
Spark version may drop a row by, docs/performance.md). Prints one JSON line: the events' ops and the quarantine's
codes, with their offsets, and how the readers are called."""
import json
import re

from cdc_conformance.generators import dataworks
from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness.broker import EmbeddedKafka
from cdc_conformance.harness.kafka_read import read_stream
from cdc_conformance.harness.spark import spark_session
from cdc_conformance.harness.streaming import an_hour_ago_ms, run_until_caught_up
from cdc_conformance.normalizer.pipeline import normalize_stream, split


def half(op: str, image: dict) -> bytes:
    return dataworks.hostile_record(7, op=op, before=image if op == "UPDATE_BEFOR" else None,
                                    after=image if op == "UPDATE_AFTER" else None)


def main() -> None:
    spark = spark_session()
    t0 = an_hour_ago_ms()
    with EmbeddedKafka() as broker:
        topic = "stateful-stream"
        broker.create_topics({topic: 1})
        records = [half("UPDATE_BEFOR", {"id": 1, "v": "a"}), dataworks.hostile_record(2), half("UPDATE_AFTER", {"id": 1, "v": "b"}),
                   dataworks.hostile_record(8, op="UPDATE_BEFOR", before={"id": 8, "v": "x"}, after=None),
                   dataworks.hostile_record(3)]
        stamps = [0, 1_000, 2_000, 3_000, 30_000]  # the last record is read past the lone half's 10 s timeout
        broker.produce([KafkaRecord(topic, 0, None, value, (), t0 + ms) for value, ms in zip(records, stamps)])
        stream = normalize_stream(read_stream(spark, broker.bootstrap_servers, [topic], 1), "dataworks-json",
                                  pair_timeout_seconds=10)
        query = stream.writeStream.format("memory").queryName("stateful_stream").trigger(processingTime="200 milliseconds").start()
        try:
            run_until_caught_up(query, {topic: broker.end_offsets(topic)}, timeout=600.0, settle_batches=1)
            emitted, quarantined = (frame.collect() for frame in split(spark.table("stateful_stream")))
        finally:
            query.stop()
    plan = stream._jdf.queryExecution().toString()
    print(json.dumps({"events": sorted([e.op, e.origin[0].offset] for e in emitted),
                      "quarantine": sorted([q.code, q.origin[0].offset] for q in quarantined),
                      # the record and group readers called by Catalyst expressions on this Spark, none as a UDF (issue 61;
                      # Spark 3.5 prints `staticinvoke(class ...InternalReaders, ...)`, Spark 4 `static_invoke(...)`)
                      "readers": {"by_expression": "io.cdcconformance.shared.InternalReaders" in plan,
                                  "as_udfs": sorted(set(re.findall(r"cdc_conformance_\w+", plan)))}}))


if __name__ == "__main__":
    main()
