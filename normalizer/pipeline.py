"""Entry points: Kafka source DataFrame in, canonical events and quarantine records out.

The harness calls `normalize` (or any function with its signature, named as `module:function`).
"""
from __future__ import annotations

from importlib import import_module
from typing import NamedTuple

from pyspark.sql import DataFrame, SparkSession

# format id -> decoder module (each has `decode(raw) -> DataFrame[event, quarantine]`)
DECODERS = {
    "debezium-json": "normalizer.debezium",
    "ces-json": "normalizer.ces",
    "ces-avro": "normalizer.ces_avro",
}


class UnsupportedFormat(ValueError):
    """The normalizer has no decoder for this format id."""


class Normalized(NamedTuple):
    events: DataFrame
    quarantine: DataFrame


def supported_formats() -> list[str]:
    return sorted(DECODERS)


def _require_utc(spark: SparkSession) -> None:
    zone = spark.conf.get("spark.sql.session.timeZone")
    if zone not in ("UTC", "Etc/UTC", "Z", "+00:00"):
        raise RuntimeError(f"the normalizer renders timestamps in the session time zone, which must be UTC "
                           f"(spark.sql.session.timeZone is {zone!r})")


def normalize_combined(raw: DataFrame, format_id: str) -> DataFrame:
    """One row per Kafka record (or per assembled event): columns `event` and `quarantine`, one set."""
    if format_id not in DECODERS:
        raise UnsupportedFormat(f"format {format_id!r} is not implemented (supported: {', '.join(supported_formats())})")
    _require_utc(raw.sparkSession)
    return import_module(DECODERS[format_id]).decode(raw)


def normalize(raw: DataFrame, format_id: str) -> Normalized:
    combined = normalize_combined(raw, format_id)
    return Normalized(
        events=combined.where("event IS NOT NULL").select("event.*"),
        quarantine=combined.where("quarantine IS NOT NULL").select("quarantine.*"),
    )


# Formats whose streaming decoder differs from the batch one (state across micro-batches).
STREAM_DECODERS = {
    "ces-json": "normalizer.ces_streaming:decode_stream",
    "ces-avro": "normalizer.ces_avro:decode_stream",
}


def normalize_stream(raw: DataFrame, format_id: str, **options) -> DataFrame:
    """The same contract as `normalize_combined` over a streaming Kafka source DataFrame.

    Stateless decoders run unchanged; CES keeps open segment groups in state (`segment_timeout_seconds`).
    """
    if format_id not in DECODERS:
        raise UnsupportedFormat(f"format {format_id!r} is not implemented (supported: {', '.join(supported_formats())})")
    _require_utc(raw.sparkSession)
    if format_id in STREAM_DECODERS:
        module, _, function = STREAM_DECODERS[format_id].partition(":")
        return getattr(import_module(module), function)(raw, **options)
    return import_module(DECODERS[format_id]).decode(raw)
