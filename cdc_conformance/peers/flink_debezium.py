"""Flink's `debezium-json` format (flink-json's DebeziumJsonDeserializationSchema) as a normalizer under test: each
record as a Flink SQL table over the topic reads it with the format's defaults, `debezium-json.schema-include` on
when the record is Connect's schema-and-payload envelope (docs/peers.md)."""
from __future__ import annotations

from cdc_conformance.peers import flink
from cdc_conformance.peers.flink import spark_jars  # noqa: F401  (the door: the jar this peer's session needs)


def normalize(raw, format_id: str) -> flink.changes.Output:
    return flink.normalize(raw, format_id, "debezium-json")


def supported_formats() -> list[str]:
    return ["debezium-json", "cloudcanal-debezium"]


def expresses() -> dict:
    return flink.EXPRESSES


def label() -> str:
    return flink.label("debezium-json")
