#!/usr/bin/env python3
"""The ceiling of the reference normalizer's record readers (issues 59 and 61): what a batch pass of a record-reading
format would reach if reading a record cost nothing, beside the plain parse and the normalizer itself, in one run.

    scripts/reader_ceiling.py --format debezium-avro          # one format
    scripts/reader_ceiling.py --all --messages 100000         # every format read record by record (make ceiling)

Two ceilings, each the normalizer's own plan with the reader's UDF replaced (scripts/java/replay):
- **Row**: the UDF called through `ReplayedReader`, which reads each record once, keeps its output and replays it.
  What is left is everything but the reading: Spark's Kafka source, the UDF call (its arguments converted to Java
  values), Spark's conversion of the returned `Row` into its internal rows (CatalystTypeConverters), the output's
  projections and the sink. No reader returning a `Row` from a Java UDF can pass it.
- **internal row**: a Catalyst `StaticInvoke` of `ReplayedInternal.read`, which returns the kept output already as
  Spark's internal row: no conversion either way. No reader at all can pass it, whatever it returns.

A goal above a ceiling is out of reach of that kind of reader (docs/performance.md, "The readers' ceiling"). A
developer's tool, not the suite's: it reaches into the reference normalizer (the decoders' `decode_records`), which
the harness never does, and its internal-row plan uses Spark 4's classic API. Formats that group records (DataWorks,
CES) are read by stages and have no ceiling here.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

from cdc_conformance import jvm_classes
from cdc_conformance.harness import bench, jvm
from cdc_conformance.harness.cli import terminable
from cdc_conformance.normalizer import jvm_functions

REPLAY_JAVA = Path(__file__).parent / "java" / "replay"  # beside this script: a developer's tool, not installed


def replay_jar() -> str:
    return str(jvm_classes.compiled_jar("cdc-conformance-replay", REPLAY_JAVA, jvm.cache_dir()))


@contextmanager
def replaced_readers(decode) -> Iterator[list[str]]:
    """While frames are built, `decode(raw, reader, format_id, arguments)` in place of the normalizer's
    `decode_records` (`reader`: the reader's class); yields the readers replaced (none: the format reads no record by
    itself)."""
    original = jvm_functions.decode_records
    replaced: list[str] = []

    def replacement(raw, java_class, format_id, arguments=()):
        replaced.append(java_class)
        return decode(raw, f"{jvm_functions.PACKAGE}.{java_class}", format_id, arguments)
    # the decoders' own bindings (`from ... import decode_records`), never jvm_functions' own: a decoder imported while
    # it was replaced would keep the replacement (measure_format builds the normalizer's frames first, importing it)
    modules = [m for name, m in sys.modules.items() if name.startswith("cdc_conformance.normalizer.")
               and m is not jvm_functions and getattr(m, "decode_records", None) is original]
    for module in modules:
        module.decode_records = replacement
    try:
        yield replaced
    finally:
        for module in modules:
            module.decode_records = original


def replayed(raw, reader: str, format_id: str, arguments: tuple[str, ...]):
    """The reader's UDF called through `bench.Replayed<n>` (a Row, converted by Spark on every call): the UDF path, as
    Spark Connect runs the readers, whatever a classic session's normalizer calls them by."""
    internal = jvm_functions.INTERNAL_CALLS
    jvm_functions.INTERNAL_CALLS = False
    try:
        return jvm_functions.decode_records(raw, f"bench.Replayed{7 + len(arguments)}", format_id, (*arguments, reader))
    finally:
        jvm_functions.INTERNAL_CALLS = internal


def replayed_internal(raw, reader: str, format_id: str, arguments: tuple[str, ...]):
    """The kept output as an internal row, through a Catalyst StaticInvoke of `bench.ReplayedInternal.read`: no
    conversion. Spark 4's classic API (`ExpressionUtils`): a bench's plan, never a decoder's."""
    from pyspark.sql.classic.column import Column

    from cdc_conformance.normalizer import events, verdicts
    from cdc_conformance.normalizer.kafka_source import kafka_columns

    jvm = raw.sparkSession._jvm
    expressions = jvm.org.apache.spark.sql.classic.ExpressionUtils
    literal = getattr(getattr(jvm.org.apache.spark.sql.catalyst.expressions, "Literal$"), "MODULE$")
    columns = kafka_columns(raw)
    arguments = [literal.apply(reader), literal.apply(jvm_functions.RECORD_OUTPUT.json()),
                 *(expressions.expression(columns._jdf.col(name)) for name in ("topic", "partition", "offset"))]
    static = jvm.org.apache.spark.util.Utils.classForName("io.cdcconformance.bench.ReplayedInternal", True, False)
    seq = jvm.scala.jdk.javaapi.CollectionConverters.asScala(jvm.java.util.ArrayList(arguments)).toList()
    invoke = jvm.org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke(
        static, jvm.org.apache.spark.sql.types.DataType.fromJson(jvm_functions.RECORD_OUTPUT.json()), "read", seq,
        jvm.scala.jdk.javaapi.CollectionConverters.asScala(jvm.java.util.ArrayList()).toList(), False, True, True,
        jvm.scala.Option.empty())
    record = Column(expressions.column(invoke))
    return columns.select("*", record.alias("record")).selectExpr(
        "*", f"{verdicts.from_code('record.code', 'record.detail')} AS verdict").selectExpr(
        *events.record_output("record.events", "verdict", format_id))


def measure_format(spark, broker, registry, under_test, generator, messages: int, repeat: int, check: bool = False) -> dict:
    setup, raw, options = bench.prepared(spark, broker, generator, messages, schema_registry=registry)
    bench.measure_all("normalizer: warm-up", under_test.frames(raw(), generator.format_id, **options), messages)
    sides = {"normalizer": lambda: under_test.frames(raw(), generator.format_id, **options)}
    for side, decode in (("ceiling", replayed), ("internal ceiling", replayed_internal)):
        with replaced_readers(decode) as replaced:
            frames = under_test.frames(raw(), generator.format_id, **options)
        if not replaced:
            return {"format": generator.format_id, "ceiling": None}
        bench.measure_all(f"{side}: each record read and kept", frames, messages)
        sides[side] = lambda frames=frames: frames
    if check:
        outputs = {side: [sorted(map(repr, frame.collect())) for frame in frames()] for side, frames in sides.items()}
        differ = [side for side, output in outputs.items() if output != outputs["normalizer"]]
        if differ:
            raise SystemExit(f"{generator.format_id}: the {' and '.join(differ)} output differs from the normalizer's")
    results = []
    for _ in range(repeat):
        results.append(bench.measure("plain", setup.plain(raw()), messages))
        results += [bench.measure_all(side, frames(), messages) for side, frames in sides.items()]
        print("  " + ", ".join(f"{r.name} {r.rate:,.0f}" for r in results[-4:]), file=sys.stderr, flush=True)
    best = {side: max(r.rate for r in results if r.name == side) for side in ("plain", *sides)}
    return {"format": generator.format_id, **best}


def table(rows: list[dict]) -> str:
    lines = ["| format | plain msg/s | normalizer | ceiling (Row) | ceiling (internal row) | normalizer / plain | "
             "ceiling (Row) / plain | ceiling (internal row) / plain |", "|---|" + "---:|" * 7]
    for row in rows:
        if row["ceiling"] is None:
            lines.append(f"| {row['format']} | - | - | - | - | - | - | no record reader |")
            continue
        rates = [row[side] for side in ("normalizer", "ceiling", "internal ceiling")]
        lines.append(f"| {row['format']} | {row['plain']:,.0f} | " + " | ".join(f"{rate:,.0f}" for rate in rates) + " | "
                     + " | ".join(f"{rate / row['plain']:.2f}" for rate in rates) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.registry import Registry
    from cdc_conformance.harness.schema_registry import LazySchemaRegistry
    from cdc_conformance.harness.spark import spark_session
    from cdc_conformance.harness.under_test import NormalizerUnderTest

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", dest="formats", action="append", default=[])
    parser.add_argument("--all", action="store_true", help="every decoded format")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--check", action="store_true",
                        help="first hold each ceiling's output equal to the normalizer's (the replay is the same work)")
    args = parser.parse_args(argv)
    formats = Registry.load().decoded_formats() if args.all else args.formats
    if not formats or (args.all and args.formats):
        parser.error("give --all or --format")
    under_test = NormalizerUnderTest.load()
    spark = spark_session(under_test=[under_test, SimpleNamespace(jars=(replay_jar(),))])
    rows = []
    with EmbeddedKafka(heap="1g") as broker, LazySchemaRegistry() as registry:
        for format_id in formats:
            rows.append(measure_format(spark, broker, registry, under_test, Registry.load().generator(format_id),
                                       args.messages, args.repeat, args.check))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(terminable(main))  # SIGTERM stops the broker it started, as the CLI's commands do
