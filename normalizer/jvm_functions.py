"""The normalizer's record readers on the JVM (normalizer/java): Java UDFs, registered in the caller's own session.

A decoder whose records are read on the JVM registers its reader under a `cdc_conformance_` name at decode time
(`spark.udf.registerJavaFunction`: public API, idempotent, nothing else of the session is touched) and calls it
in SQL like any function. A reader returns `RECORD_OUTPUT`: its events in the model's schema, or the quarantine
code and detail that replace them; `output_columns` turns that into the decoder's output rows
(normalizer.events). The jar must be on the session's classpath (docs/normalizer-contract.md).

Why the JVM: a Spark SQL decoder evaluates every per-column step inside `transform`/`filter` lambdas, which Spark
runs without code generation, value by value, and reads a JSON record several times to keep what its reader
loses (exact numbers, members named twice); one pass of Jackson that builds the events directly ran the
Debezium decoder several times faster, and its plan is a few nodes instead of thousands (docs/performance.md).
"""
from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, StringType, StructField, StructType

from cdc_conformance import jvm_classes
from cdc_conformance.model import EVENT_SCHEMA
from cdc_conformance.normalizer import events, verdicts
from cdc_conformance.normalizer.kafka_source import kafka_columns

PACKAGE = "io.cdcconformance"
# The readers' resources (Avro schemas, the model's grammar), beside their package's classes: one home, read by the jar
# and by Python alike
JAVA_MAIN = Path(__file__).parent / "java" / "src" / "main"
JAVA_RESOURCES = JAVA_MAIN / "resources" / "io" / "cdcconformance"
JAR_NAME = "cdc-conformance-normalizer"
# the model's grammar is the suite's, copied beside the class that reads it (normalizer/java/pom.xml does the same)
GRAMMAR = files("cdc_conformance").joinpath("model-grammar.json")
GRAMMAR_IN_JAR = Path("io/cdcconformance/shared/model-grammar.json")
RECORD_OUTPUT = StructType([
    StructField("code", StringType(), True),      # NULL: the record's events stand
    StructField("detail", StringType(), True),
    StructField("events", ArrayType(EVENT_SCHEMA, False), False),
])


def jar(cache_dir: Path) -> Path:
    """The readers' jar (normalizer/java, a Maven module for the developers' JUnit tests and fuzzing; users' machines
    need no Maven: javac compiles src/main against the installed PySpark's jars), in `cache_dir`, built on first use;
    the Avro schemas go in as resources, where they lie."""
    resources = {path.relative_to(JAVA_MAIN / "resources"): path.read_bytes()
                 for path in sorted((JAVA_MAIN / "resources").rglob("*")) if path.is_file()}
    resources[GRAMMAR_IN_JAR] = GRAMMAR.read_bytes()
    return jvm_classes.compiled_jar(JAR_NAME, JAVA_MAIN / "java", cache_dir, resources)


def function_name(java_class: str) -> str:
    """`debezium.DebeziumRecords` -> `cdc_conformance_debezium_records`."""
    return "cdc_conformance_" + re.sub(r"(?<!^)(?=[A-Z])", "_", java_class.rpartition(".")[2]).lower()


def register(spark, java_class: str, returns: StructType = RECORD_OUTPUT) -> str:
    """Register `io.cdcconformance.<package>.<class>` (`java_class` names both: a record reader: a UDF6 over key, value, headers, topic, partition,
    offset returning `RECORD_OUTPUT`; or a stage of a format that groups records, returning `returns`) in the
    session; returns its SQL name."""
    name = function_name(java_class)
    spark.udf.registerJavaFunction(name, f"{PACKAGE}.{java_class}", returns)
    return name


def decode_records(raw: DataFrame, java_class: str, format_id: str, arguments: tuple[str, ...] = ()) -> DataFrame:
    """Kafka source rows -> output rows, each record read by `java_class` (`arguments`: text the reader takes after the
    record's six columns, as literals: a format's options, never anything from a message)."""
    reader = register(raw.sparkSession, java_class)
    columns = [F.col(name) for name in ("key", "value", "headers", "topic", "partition", "offset")]
    return kafka_columns(raw).select(
        "*", F.call_function(reader, *columns, *map(F.lit, arguments)).alias("record"),
    ).selectExpr("*", f"{verdicts.from_code('record.code', 'record.detail')} AS verdict").selectExpr(
        *events.record_output("record.events", "verdict", format_id))
