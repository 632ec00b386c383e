"""A Flink SQL job over each canal topic: a Kafka table with Flink's `canal-json` format and the typed columns its
user declares, errors ignored (flink_sql.py, docs/peers.md)."""
from __future__ import annotations

from cdc_conformance.peers import flink_sql
from cdc_conformance.peers.flink_sql import spark_jars  # noqa: F401  (the door: builds the job's classpath)


def normalize(raw, format_id: str, kafka_bootstrap_servers: str) -> flink_sql.changes.Output:
    return flink_sql.normalize(raw, format_id, "canal-json", kafka_bootstrap_servers)


def supported_formats() -> list[str]:
    return ["canal-json"]


def expresses() -> dict:
    return flink_sql.EXPRESSES


def label() -> str:
    return flink_sql.label("canal-json")
