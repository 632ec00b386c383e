"""Flink's `canal-json` format with `canal-json.ignore-parse-errors` true: what a Flink job over a canal topic that
carries DDL must run with (with the default, the job stops at the first ALTER: docs/peers.md, C2). Flink then skips
every record it cannot read without a word: the matrix shows it as LOST where the reference emits rows."""
from __future__ import annotations

from cdc_conformance.peers import flink, flink_canal
from cdc_conformance.peers.flink import spark_jars  # noqa: F401  (the door: the jar this peer's session needs)

supported_formats, expresses = flink_canal.supported_formats, flink_canal.expresses


def normalize(raw, format_id: str) -> flink.changes.Output:
    return flink.normalize(raw, format_id, "canal-json", ignore_parse_errors=True)


def label() -> str:
    return flink.label("canal-json", ignore_parse_errors=True)
