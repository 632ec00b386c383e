"""Apache Paimon's `aliyun-json` (AliyunRecordParser), the one reader of DataWorks records besides the reference, as a
normalizer under test: each record as Paimon's Kafka synchronization action reads it, with its defaults
(docs/peers.md)."""
from __future__ import annotations

from cdc_conformance.peers import paimon
from cdc_conformance.peers.paimon import EXPRESSES, spark_jars  # noqa: F401  (the door: what it reads, the jar it needs)

normalize = paimon.normalize


def supported_formats() -> list[str]:
    return ["dataworks-json"]


def expresses() -> dict:
    return EXPRESSES


def label() -> str:
    return paimon.label("aliyun-json")
