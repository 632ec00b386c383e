"""Normalizers broken in one mode only, for the one-door tests: a check must run the entry it says it runs.

Each mislabels every event's `format` in one mode and is the reference in the other; the streaming entry of
`module:function` is `module:function_stream` (harness.under_test).
"""
from pyspark.sql import functions as F

from cdc_conformance.normalizer import pipeline

MISLABEL = "not-the-format"


def stream_broken(raw, format_id):
    return pipeline.normalize(raw, format_id)


def stream_broken_stream(raw, format_id, **options):
    rows = pipeline.normalize_stream(raw, format_id, **options)
    return rows.withColumn("events", F.transform("events", lambda event: event.withField("format", F.lit(MISLABEL))))


def batch_broken(raw, format_id):
    result = pipeline.normalize(raw, format_id)
    return pipeline.Normalized(result.events.withColumn("format", F.lit(MISLABEL)), result.quarantine)


batch_broken_stream = pipeline.normalize_stream
