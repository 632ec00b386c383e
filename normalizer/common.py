"""Pieces every decoder shares: the Kafka columns it starts from and the event/quarantine split."""
from __future__ import annotations

from pyspark.sql import DataFrame

ORIGIN = "array(named_struct('topic', topic, 'partition', partition, 'offset', offset)) AS origin"


def kafka_columns(raw: DataFrame) -> DataFrame:
    """The Kafka source's columns plus text views of key and value (headers stay binary)."""
    headers = "headers" if "headers" in raw.columns else "CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers"
    return raw.selectExpr(
        "topic", "partition", "offset", "key", "value", headers,
        "CAST(key AS STRING) AS key_text", "CAST(value AS STRING) AS value_text", ORIGIN,
    )


def build_output(decoded: DataFrame, format_id: str) -> DataFrame:
    """Keep `event` when no quarantine rule matched, else a quarantine record with the raw record."""
    return decoded.selectExpr(
        "IF(q_code IS NULL, event, NULL) AS event",
        f"""IF(q_code IS NULL, NULL, named_struct(
              'origin', origin, 'format', '{format_id}', 'phase', q_phase, 'code', q_code, 'detail', q_detail,
              'raw_key', key, 'raw_value', value, 'raw_headers', headers)) AS quarantine""",
    )
