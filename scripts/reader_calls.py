#!/usr/bin/env python3
"""The reference normalizer's readers called two ways, in turns in one JVM (issue 61): as Java UDFs (Spark Connect's
door, and the fallback) and through the Catalyst expression a classic session uses (normalizer.catalyst), beside the
plain parse, over `bench`'s own records and passes.

    scripts/reader_calls.py --format dts-avro                      # batch
    scripts/reader_calls.py --all --streaming --per-trigger 100000  # streaming, every format

A pass of `bench` moves 10-30% between runs on this machine; in turns within one run the two calls see the same
machine. A developer's tool, not the suite's: it flips the reference normalizer's own switch
(`jvm_functions.INTERNAL_CALLS`), which the harness never touches.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import uuid
from collections.abc import Callable
from contextlib import contextmanager

from cdc_conformance.harness import bench
from cdc_conformance.harness.cli import terminable
from cdc_conformance.normalizer import jvm_functions

CALLS = {"UDF": False, "expression": True}


@contextmanager
def readers_called(internal: bool):
    """While frames are built: the readers through the expression (`internal`) or as UDFs."""
    jvm_functions.INTERNAL_CALLS = internal
    try:
        yield
    finally:
        jvm_functions.INTERNAL_CALLS = True


def measure_format(passes: Callable, plain: Callable, frames: Callable, repeat: int) -> dict[str, float]:
    """`repeat` rounds of plain, UDF, expression after a warm-up of each; the best msg/s of each side."""
    def run(side: str):
        if side == "plain":
            return passes("plain", plain())
        with readers_called(CALLS[side]):
            built = frames()
        return passes(side, built)
    for side in ("plain", *CALLS):
        run(side)
    best = dict.fromkeys(("plain", *CALLS), 0.0)
    for _ in range(repeat):
        rates = {side: run(side).rate for side in best}
        print("  " + ", ".join(f"{side} {rate:,.0f}" for side, rate in rates.items()), file=sys.stderr, flush=True)
        best = {side: max(best[side], rate) for side, rate in rates.items()}
    return best


def batch(spark, broker, registry, under_test, generator, messages: int, repeat: int) -> dict[str, float]:
    setup, raw, options = bench.prepared(spark, broker, generator, messages, schema_registry=registry)
    return measure_format(
        lambda side, frames: (bench.measure(side, frames, messages) if side == "plain"
                              else bench.measure_all(side, frames, messages)),
        lambda: setup.plain(raw()), lambda: under_test.frames(raw(), generator.format_id, **options), repeat)


def streaming(spark, broker, registry, under_test, generator, messages: int, repeat: int, per_trigger: int,
              workdir: str) -> dict[str, float]:
    from cdc_conformance.harness.kafka_read import read_stream
    from cdc_conformance.harness.roundtrip import format_options
    from cdc_conformance.harness.schema_registry import registered

    setup = generator.benchmark()
    topic = f"reader-calls-{generator.format_id}-{uuid.uuid4().hex[:8]}"
    broker.create_topics({topic: 2})
    broker.produce(registered(setup.records(topic, messages, 2), registry))
    options = format_options(generator.format_id, registry)
    end = {topic: broker.end_offsets(topic)}

    def raw():
        return read_stream(spark, broker.bootstrap_servers, [topic], per_trigger)
    return measure_format(lambda side, frame: bench.stream_pass(side, frame, messages, end, workdir),
                          lambda: setup.plain(raw()), lambda: under_test.stream(raw(), generator.format_id, **options),
                          repeat)


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
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--streaming", action="store_true", help="streaming passes (bench's), not batch")
    parser.add_argument("--per-trigger", type=int, default=100_000, help="with --streaming: maxOffsetsPerTrigger")
    args = parser.parse_args(argv)
    formats = Registry.load().decoded_formats() if args.all else args.formats
    if not formats or (args.all and args.formats):
        parser.error("give --all or --format")
    under_test = NormalizerUnderTest.load()
    spark = spark_session(under_test=[under_test])
    print("| format | plain | UDF | expression | UDF / plain | expression / plain | expression / UDF |\n"
          "|---|---:|---:|---:|---:|---:|---:|", flush=True)
    with EmbeddedKafka(heap="1g") as broker, LazySchemaRegistry() as registry, tempfile.TemporaryDirectory() as workdir:
        for format_id in formats:
            generator = Registry.load().generator(format_id)
            best = (streaming(spark, broker, registry, under_test, generator, args.messages, args.repeat,
                              args.per_trigger, workdir) if args.streaming
                    else batch(spark, broker, registry, under_test, generator, args.messages, args.repeat))
            plain, udf, expression = best["plain"], best["UDF"], best["expression"]
            print(f"| {format_id} | {plain:,.0f} | {udf:,.0f} | {expression:,.0f} | {udf / plain:.2f} | "
                  f"{expression / plain:.2f} | {expression / udf:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(terminable(main))  # SIGTERM stops the broker it started, as the CLI's commands do
