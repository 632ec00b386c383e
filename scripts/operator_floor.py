#!/usr/bin/env python3
"""What Spark's stateful operator costs on its own, beside the floor (issue 61): each stateful format's streaming path
with its grouping replaced by `flatMapGroupsWithState` running a function that does nothing of the normalizer's
(scripts/java/operator: each group's members passed on as they came), in one session and run with the floor and the
shipped path.

    scripts/operator_floor.py --format ces-avro --messages 100000 --max-offsets-per-trigger 100000 --repeat 2

Variants, each a query from the earliest offset to the topic's end, as `bench --streaming` times them:
- **floor**: the shipped `floor_stream` (the records read, keyed, shuffled by group; no operator).
- **operator, no state**: the same keyed records through the operator (the same encoders, output mode and event-time
  timeouts as `shared.GroupAssembly`); the function keeps nothing.
- **operator, a long of state**: the function also keeps one long per group and a timer, and drops it when it fires.
- **operator, members as bytes**: no state; each member carried through the operator as its `UnsafeRow`'s bytes
  (Catalyst expressions before and after it).
- **normalizer**: the shipped path (`GroupAssembly`: the release rule, fingerprints, the copy window).

`operator, no state / floor` bounds what any release rule reaches through the shipped operator with today's members
(issue 61's goal for a stateful format is 0.9x of its floor); `members as bytes / floor` bounds a design that would
carry them as bytes.
A developer's tool, not the suite's: it reaches into the normalizer's grouping, which the harness never does.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import uuid
from pathlib import Path
from types import SimpleNamespace

from cdc_conformance import jvm_classes
from cdc_conformance.harness import bench, jvm
from cdc_conformance.harness.cli import terminable
from cdc_conformance.normalizer import assembly, plugin

OPERATOR_JAVA = Path(__file__).parent / "java" / "operator"  # beside this script: a developer's tool, not installed


def stateful_formats() -> list[str]:
    """The decoded formats whose stream keeps groups in state."""
    from cdc_conformance.harness.registry import Registry

    registry = Registry.load()
    return [format_id for format_id in registry.decoded_formats() if registry.generator(format_id).groups_across_records]


def operator_jar() -> str:
    return str(jvm_classes.compiled_jar("cdc-conformance-operator", OPERATOR_JAVA, jvm.cache_dir()))


def operator_only(keep: bool) -> assembly.StreamGrouping:
    """A grouping: the normalizer's keyed records through `BareOperator` (`keep`: a long of state and a timer a group)."""
    def grouping(records, spec: assembly.Grouping, timeout_seconds: float, copy_window_seconds: float):
        from pyspark.sql import DataFrame

        keyed = assembly._with_event_time(records, spec, spec._member())
        jvm_view = records.sparkSession._jvm
        passed = jvm_view.io.cdcconformance.bench.BareOperator.groupStream(keyed._jdf, keep)
        return DataFrame(passed, records.sparkSession).selectExpr("stream", "group_key", "members")
    return grouping


def operator_on_bytes(records, spec: assembly.Grouping, timeout_seconds: float, copy_window_seconds: float):
    """A grouping: the operator with no state, each member carried through it as its UnsafeRow's bytes."""
    from pyspark.sql import DataFrame
    from pyspark.sql.types import ArrayType, BinaryType, StructType

    from cdc_conformance.normalizer.catalyst import Text, static_call

    keyed = assembly._with_event_time(records, spec, spec._member())
    member = keyed.schema["member"].dataType
    assert isinstance(member, StructType)
    as_bytes = keyed.select("stream", "group_key", static_call(keyed, BARE, "bytes", BinaryType(), ["member", Text(member.json())])
                            .alias("member"), "event_ms", "cdc_never_late")
    passed = DataFrame(records.sparkSession._jvm.io.cdcconformance.bench.BareOperator.groupStream(as_bytes._jdf, False),
                       records.sparkSession)
    return passed.select("stream", "group_key", static_call(passed, BARE, "rows", ArrayType(member, False),
                                                            ["members", Text(str(len(member.fields)))]).alias("members"))


BARE = "io.cdcconformance.bench.BareOperator"
VARIANTS = {"floor": assembly.floor_stream, "operator, no state": operator_only(False),
            "operator, a long of state": operator_only(True), "operator, members as bytes": operator_on_bytes,
            "normalizer": assembly.group_stream}


def measure_format(spark, broker, format_id: str, messages: int, per_trigger: int, repeat: int, workdir: str,
                   check: bool = False) -> dict:
    from cdc_conformance.harness.kafka_read import read_stream
    from cdc_conformance.harness.registry import Registry

    setup = Registry.load().generator(format_id).benchmark()
    topic = f"operator-{format_id}-{uuid.uuid4().hex[:8]}"
    broker.create_topics({topic: 2})
    broker.produce(setup.records(topic, messages, 2))
    end_offsets = {topic: broker.end_offsets(topic)}
    decoder = plugin.find(format_id)

    def raw():
        return read_stream(spark, broker.bootstrap_servers, [topic], per_trigger)

    if check:  # the operator passes on the groups the normalizer releases: the same output, in one batch
        from cdc_conformance.harness.kafka_read import read_batch

        ranges = {topic: {partition: (0, end) for partition, end in end_offsets[topic].items()}}
        outputs = {name: sorted(map(repr, decoder.stream(read_batch(spark, broker.bootstrap_servers, ranges),
                                                           group_stream=VARIANTS[name]).collect()))
                   for name in VARIANTS if name != "floor"}
        differ = [name for name, output in outputs.items() if output != outputs["normalizer"]]
        if differ or not outputs["normalizer"]:
            raise SystemExit(f"{format_id}: {' and '.join(differ) or 'nothing'} differs from the normalizer's output")
    sides = {"plain": lambda: setup.plain(raw())}
    sides.update({name: (lambda grouping=grouping: decoder.stream(raw(), group_stream=grouping)) for name, grouping in VARIANTS.items()})
    for name, frame in sides.items():  # a warm-up query of each
        bench.stream_pass(f"warm-up {name}", frame(), messages, end_offsets, workdir)
    best: dict[str, float] = {}
    for _ in range(repeat):
        for name, frame in sides.items():
            rate = bench.stream_pass(name, frame(), messages, end_offsets, workdir).rate
            best[name] = max(best.get(name, 0.0), rate)
        print(f"  {format_id}: " + ", ".join(f"{name} {rate:,.0f}" for name, rate in best.items()), file=sys.stderr, flush=True)
    return {"format": format_id, **best}


def table(rows: list[dict], per_trigger: int) -> str:
    names = ["plain", *VARIANTS]
    lines = [f"| format ({per_trigger:,} a trigger) | " + " | ".join(f"{name} msg/s" for name in names)
             + " | " + " | ".join(f"{name} / floor" for name in names[2:]) + " |", "|---|" + "---:|" * (2 * len(names) - 2)]
    for row in rows:
        lines.append(f"| {row['format']} | " + " | ".join(f"{row[name]:,.0f}" for name in names) + " | "
                     + " | ".join(f"{row[name] / row['floor']:.2f}" for name in names[2:]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.spark import spark_session
    from cdc_conformance.harness.under_test import NormalizerUnderTest

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", dest="formats", action="append", choices=stateful_formats(),
                        help="a stateful format (repeatable; default: every one)")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--max-offsets-per-trigger", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--check", action="store_true",
                        help="first hold the operator's output equal to the normalizer's over the topic in one batch")
    args = parser.parse_args(argv)
    spark = spark_session(under_test=[NormalizerUnderTest.load(), SimpleNamespace(jars=(operator_jar(),))])
    rows = []
    with EmbeddedKafka(heap="1g") as broker, tempfile.TemporaryDirectory() as workdir:
        for format_id in args.formats or stateful_formats():
            rows.append(measure_format(spark, broker, format_id, args.messages, args.max_offsets_per_trigger, args.repeat,
                                       workdir, args.check))
    print(table(rows, args.max_offsets_per_trigger))
    return 0


if __name__ == "__main__":
    sys.exit(terminable(main))  # SIGTERM stops the broker it started, as the CLI's commands do
