"""The normalizer's record readers on the JVM (normalizer/java): Java UDFs, registered in the caller's own session.

A decoder whose records are read on the JVM calls its reader through `read_records` (a group's reader through
`read_groups`): in a classic session a Catalyst expression (`shared.InternalReaders`, built by normalizer.catalyst)
that hands the reader the record's columns as Spark holds them and writes its output as Spark's `UnsafeRow`; through
Spark Connect, the reader registered under a `cdc_conformance_` name (`spark.udf.registerJavaFunction`: public API,
idempotent, nothing else of the session is touched) and called like any function. The reader is the same object with
the same `call` either way. A reader returns `RECORD_OUTPUT`: its events in the model's schema, or the quarantine
code and detail that replace them; `events.record_output` turns that into the decoder's output rows. The jar must be
on the session's classpath (docs/normalizer-contract.md).

Why the JVM: a Spark SQL decoder evaluates every per-column step inside `transform`/`filter` lambdas, which Spark
runs without code generation, value by value, and reads a JSON record several times to keep what its reader
loses (exact numbers, members named twice); one pass of Jackson that builds the events directly ran the
Debezium decoder several times faster, and its plan is a few nodes instead of thousands (docs/performance.md).
"""
from __future__ import annotations

import re
import warnings
from importlib.resources import files
from pathlib import Path

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, StringType, StructField, StructType

from cdc_conformance import jvm_classes
from cdc_conformance.model import EVENT_SCHEMA
from cdc_conformance.normalizer import catalyst, events, verdicts
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
RECORD_COLUMNS = ("key", "value", "headers", "topic", "partition", "offset")  # what a record reader reads, in order
# Whether a classic session calls the readers through a Catalyst expression (normalizer.catalyst) rather than as UDFs:
# always, but for the test that holds the two to the same output
INTERNAL_CALLS = True
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
    columns = kafka_columns(raw)
    return columns.select("*", read_records(columns, java_class, RECORD_OUTPUT, arguments).alias("record")).selectExpr(
        "*", f"{verdicts.from_code('record.code', 'record.detail')} AS verdict").selectExpr(
        *events.record_output("record.events", "verdict", format_id))


def read_records(columns: DataFrame, java_class: str, returns: StructType, arguments: tuple[str, ...] = ()) -> Column:
    """The column of each Kafka record (`columns`: `kafka_columns`) read by the record reader `java_class`, of type
    `returns`: a Catalyst expression that hands the reader Spark's internal values and takes back its internal row
    (`shared.InternalReaders`) in a classic session, the reader as a Java UDF through Spark Connect."""
    internal = _internal_call(columns, "read", returns, [
        catalyst.Text(f"{PACKAGE}.{java_class}"), catalyst.Text(returns.json()), *RECORD_COLUMNS,
        *map(catalyst.Text, arguments)])
    if internal is not None:
        return internal
    reader = register(columns.sparkSession, java_class, returns)
    return F.call_function(reader, *map(F.col, RECORD_COLUMNS), *map(F.lit, arguments))


def read_groups(frame: DataFrame, java_class: str, column: str) -> Column:
    """The column of `frame`'s `column` (a group: a struct, or an array of members) read by the group reader
    `java_class` (a UDF1), of type `RECORD_OUTPUT`; a Catalyst expression or a UDF as in `read_records`."""
    internal = _internal_call(frame, "group", RECORD_OUTPUT, [
        catalyst.Text(f"{PACKAGE}.{java_class}"), catalyst.Text(frame.schema[column].dataType.json()),
        catalyst.Text(RECORD_OUTPUT.json()), column])
    if internal is not None:
        return internal
    return F.call_function(register(frame.sparkSession, java_class), F.col(column))


def _internal_call(frame: DataFrame, method: str, returns: StructType, arguments: list) -> Column | None:
    """`shared.InternalReaders.<method>(arguments...)` as a Catalyst expression; None through Spark Connect, or where
    this Spark's internal classes do not build it (a Spark newer than the ones tested: its readers then run as UDFs,
    with one warning, rather than not at all)."""
    if not INTERNAL_CALLS or catalyst.is_connect(frame.sparkSession):
        return None
    try:
        return catalyst.static_call(frame, f"{PACKAGE}.shared.InternalReaders", method, returns, arguments)
    except catalyst.NOT_BUILT as unbuilt:
        warnings.warn(f"the normalizer's readers run as Java UDFs on this Spark ({frame.sparkSession.version}): "
                      f"{type(unbuilt).__name__}: {str(unbuilt)[:200]}", RuntimeWarning, stacklevel=2)
        return None
