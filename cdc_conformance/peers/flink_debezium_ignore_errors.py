"""Flink's `debezium-json` format with `debezium-json.ignore-parse-errors` true: what a Flink job over a topic that
carries records the format cannot read runs with, so that it does not stop at the first one. Flink then skips such a
record without a word: the matrix shows it as LOST where the reference emits rows (docs/peers.md)."""
from __future__ import annotations

from cdc_conformance.peers import flink, flink_debezium
from cdc_conformance.peers.flink import spark_jars  # noqa: F401  (the door: the jar this peer's session needs)

supported_formats, expresses = flink_debezium.supported_formats, flink_debezium.expresses


def normalize(raw, format_id: str) -> flink.changes.Output:
    return flink.normalize(raw, format_id, "debezium-json", ignore_parse_errors=True)


def label() -> str:
    return flink.label("debezium-json", ignore_parse_errors=True)
