"""Entry points: Kafka source DataFrame in, canonical events and quarantine records out.

The harness calls `normalize` (or any function with its signature, named as `module:function`); the
contract is docs/normalizer-contract.md. Formats are plug-ins (normalizer.plugin): nothing here names one.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from pyspark.sql import DataFrame, SparkSession

from cdc_conformance.normalizer import plugin
from cdc_conformance.normalizer.plugin import UnsupportedFormat  # noqa: F401  (part of this module's interface)


class Normalized(NamedTuple):
    events: DataFrame
    quarantine: DataFrame


def label() -> str:
    """Its name beside other normalizers in a report (`cdc-conformance peers`)."""
    return "reference (cdc_conformance.normalizer)"


def supported_formats() -> list[str]:
    return list(plugin.decoders())


def spark_jars(cache_dir: Path) -> list[str]:
    """What a session needs on its classpath besides Spark's own connectors: the readers' jar, built into `cache_dir`
    on first use (docs/normalizer-contract.md)."""
    from cdc_conformance.normalizer import jvm_functions

    return [str(jvm_functions.jar(cache_dir))]


def _require_utc(spark: SparkSession) -> None:
    zone = spark.conf.get("spark.sql.session.timeZone")
    if zone not in ("UTC", "Etc/UTC", "Z", "+00:00"):
        raise RuntimeError(f"the normalizer renders timestamps in the session time zone, which must be UTC "
                           f"(spark.sql.session.timeZone is {zone!r})")


def normalize_combined(raw: DataFrame, format_id: str, **options) -> DataFrame:
    """Output rows (normalizer.events): per record or group, an array of events and one of quarantine records. The
    contract's combined entry (docs/normalizer-contract.md): a harness collects these once instead of the two frames.
    `options`: the format's (`schema_registry` for debezium-avro), none for the others."""
    decoder = plugin.find(format_id)
    _require_utc(raw.sparkSession)
    return decoder.batch(raw, **options)


def split(combined: DataFrame) -> Normalized:
    """Output rows -> the events and the quarantine records, each in the model's schema.

    Not `inline(events)`: over a bare column, Spark's InferFiltersFromGenerate adds `size(events) > 0`
    and pushes it down through every projection, inlining the whole event-building expression into the
    filter (a 10 MB plan and a minute of code generation for ten records). The rule infers only from a
    bare column; `concat(events, array())` is the same array, is not one, and is not simplified into one
    (`nvl` would be, for a non-nullable column). tests/integration/test_plans.py keeps plans small.
    """
    return Normalized(events=combined.selectExpr("inline(concat(events, array()))"),
                      quarantine=combined.selectExpr("inline(concat(quarantine, array()))"))


def normalize(raw: DataFrame, format_id: str, **options) -> Normalized:
    return split(normalize_combined(raw, format_id, **options))


def normalize_stream(raw: DataFrame, format_id: str, **options) -> DataFrame:
    """The same output rows over a streaming Kafka source DataFrame.

    Stateless decoders run unchanged; stateful ones (CES segments) keep open groups in state and take
    their options (`segment_timeout_seconds` or `pair_timeout_seconds`, `copy_window_seconds`); a format's own options
    (`schema_registry`) as in batch.
    """
    decoder = plugin.find(format_id)
    _require_utc(raw.sparkSession)
    return decoder.stream(raw, **options)


def normalize_stream_floor(raw: DataFrame, format_id: str, **options) -> DataFrame | None:
    """For `bench --streaming` only: a stateful format's streaming path with its state taken out (its records read,
    shuffled by group, each record a group of its own: `assembly.floor_stream`), the floor under any grouping; None for
    a format that keeps no state. Its output is no normalizer's."""
    decoder = plugin.find(format_id)
    _require_utc(raw.sparkSession)
    return decoder.floor(raw, **options)
