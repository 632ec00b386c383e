"""The Kafka columns every decoder starts from (the harness reads Kafka with its own code: harness/kafka_read.py)."""
from __future__ import annotations

from pyspark.sql import DataFrame

# Spark's Kafka source declares every column nullable, but topic, partition and offset are always set;
# saying so here lets the output schema carry the model's NOT NULL on `origin` (the fallbacks never apply).
_KAFKA_COORDINATES = ("coalesce(topic, '') AS topic", "coalesce(partition, -1) AS partition",
                      "coalesce(offset, -1L) AS offset")
ORIGIN = "array(named_struct('topic', topic, 'partition', partition, 'offset', offset)) AS origin"
NO_HEADERS = "CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>)"


def kafka_columns(raw: DataFrame) -> DataFrame:
    """The Kafka source's columns plus text views of key and value (headers stay binary); the timestamp is the event
    time of the streaming assembly (normalizer/assembly.py)."""
    headers = "headers" if "headers" in raw.columns else f"{NO_HEADERS} AS headers"
    timestamp = "timestamp" if "timestamp" in raw.columns else "CAST(NULL AS TIMESTAMP) AS timestamp"
    return raw.selectExpr(*_KAFKA_COORDINATES, "key", "value", headers, timestamp).selectExpr(
        "*", "CAST(key AS STRING) AS key_text", "CAST(value AS STRING) AS value_text", ORIGIN)
