"""How the harness reads Kafka: Spark's own Kafka source, batch over explicit offset ranges or streaming from the
earliest offsets, with headers. The harness's own code: a normalizer under test gets the DataFrame this returns (the
contract's door, harness/under_test.py) and reads nothing itself."""
from __future__ import annotations

import json

from pyspark.sql import DataFrame, SparkSession

OffsetRanges = dict[str, dict[int, tuple[int, int]]]  # topic -> partition -> [start, end)

# Spark plans every read (a batch, or a micro-batch) up to offsets the broker already has, so a fetch never
# needs to wait for more data; Kafka's default fetch.max.wait.ms (500 ms) was spent once per topic-partition
# task anyway (measured: 24 topic-partitions of 5 records read in 7.1 s, and in 1.3 s with 0). Options given
# by the caller still win.
_READ_OPTIONS = {"kafka.fetch.max.wait.ms": "0"}


def read_batch(spark: SparkSession, bootstrap_servers: str, ranges: OffsetRanges,
               extra_options: dict[str, str] | None = None) -> DataFrame:
    """Exactly the records in `ranges`, with headers; the end offsets are exclusive like Kafka's."""
    starting = {topic: {str(p): start for p, (start, _) in parts.items()} for topic, parts in ranges.items()}
    ending = {topic: {str(p): end for p, (_, end) in parts.items()} for topic, parts in ranges.items()}
    reader = (spark.read.format("kafka")
              .option("kafka.bootstrap.servers", bootstrap_servers)
              .option("assign", json.dumps({topic: sorted(parts) for topic, parts in ranges.items()}))
              .option("startingOffsets", json.dumps(starting))
              .option("endingOffsets", json.dumps(ending))
              .option("includeHeaders", "true")
              .option("failOnDataLoss", "true"))
    for key, value in {**_READ_OPTIONS, **(extra_options or {})}.items():
        reader = reader.option(key, value)
    return reader.load()


def read_stream(spark: SparkSession, bootstrap_servers: str, topics: list[str],
                max_offsets_per_trigger: int | None = None, extra_options: dict[str, str] | None = None) -> DataFrame:
    """A streaming read of `topics` from the earliest offsets (the checkpoint takes over after the first run)."""
    reader = (spark.readStream.format("kafka")
              .option("kafka.bootstrap.servers", bootstrap_servers)
              .option("subscribe", ",".join(topics))
              .option("startingOffsets", "earliest")
              .option("includeHeaders", "true")
              .option("failOnDataLoss", "true"))
    if max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", str(max_offsets_per_trigger))
    for key, value in {**_READ_OPTIONS, **(extra_options or {})}.items():
        reader = reader.option(key, value)
    return reader.load()
