"""A normalizer that brings a jar of its own through the door (`spark_jars`): the reference, each record's value first
through a Java UDF whose class is in no jar but this one."""
from pathlib import Path

from pyspark.sql.types import BinaryType

from cdc_conformance import jvm_classes

SOURCES = Path(__file__).with_name("own_jar")


def spark_jars(cache_dir: Path) -> list[str]:
    """Its own jar, and the reference's, to which it hands over."""
    from cdc_conformance.normalizer import pipeline

    return [str(jvm_classes.compiled_jar("fixture-own-jar", SOURCES, cache_dir)), *pipeline.spark_jars(cache_dir)]


def normalize(raw, format_id):
    from cdc_conformance.normalizer.pipeline import normalize as reference

    raw.sparkSession.udf.registerJavaFunction("fixture_same", "fixture.Same", BinaryType())
    columns = ["fixture_same(value) AS value" if name == "value" else f"`{name}`" for name in raw.columns]
    return reference(raw.selectExpr(*columns), format_id)
