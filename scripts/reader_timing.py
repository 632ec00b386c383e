#!/usr/bin/env python3
"""The reference normalizer's readers alone (issue 61): each format's benchmark records read by its record
reader on one thread of a JVM of its own, without Spark, in nanoseconds per record (scripts/java/timing), and its
outputs turned into Spark's internal rows, by Spark's conversion of a UDF's result and by the `UnsafeRow` writer a
Catalyst expression's call uses (`InternalRows`).

    scripts/reader_timing.py                                   # every format read record by record (make readers)
    scripts/reader_timing.py --format dts-avro --against OLD.jar   # this tree's readers beside another build's

A pass of `bench` moves 10-30% from one run to the next on this machine, more than most changes to a reader; the
reader alone moves a few percent. With `--against`, each reader is timed in turns with the other jar's (a build of
another commit: its `.cache/jvm/cdc-conformance-normalizer-*/cdc-conformance-normalizer.jar`). A format that groups
records is timed by its record stage, then by its group reader over the groups a batch decode of the same records
hands it (ns per group: most of the benchmark's groups are one record). debezium-avro's records are registered in a
schema registry started for the run, whose address the reader is given as in a query. A developer's tool, not the
suite's: it reaches into the reference normalizer's readers, which the harness never does.
"""
from __future__ import annotations

import argparse
import struct
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from pyspark.sql import Column, DataFrame

from cdc_conformance import jvm_classes
from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness import jvm
from cdc_conformance.harness.cli import terminable
from cdc_conformance.harness.profile import breakdown, heaviest_frames
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.roundtrip import format_options
from cdc_conformance.harness.schema_registry import LazySchemaRegistry, RegistryClient, registered
from cdc_conformance.harness.spark import spark_session
from cdc_conformance.normalizer import jvm_functions

TIMING_JAVA = Path(__file__).parent / "java" / "timing"  # beside this script: a developer's tool, not installed
# the reader a decoder names takes its format's options after the record; the one without them reads the same way
PLAIN_READERS = {"debezium-json": "debezium.DebeziumRecords"}


def record_reader(registry: Registry, format_id: str) -> str | None:
    decoder = registry.module(format_id, "decoder")
    reader = PLAIN_READERS.get(format_id) or getattr(decoder, "READER", None)
    return None if reader is None else f"{jvm_functions.PACKAGE}.{reader}"


def reader_options(registry: Registry, format_id: str, schema_registry: RegistryClient) -> list[str]:
    """The option values the reader is called with after the record: its decoder's declared options, then its optional
    ones, as the decoder passes them ("" for one not given); a plain reader takes none."""
    declared = registry.module(format_id, "decoder").DECODER
    names = () if format_id in PLAIN_READERS else (*declared.options, *declared.optional)
    given = format_options(format_id, schema_registry) if names else {}
    return [given.get(name, "") for name in names]


def write_records(registry: Registry, format_id: str, messages: int, path: Path,
                  schema_registry: RegistryClient) -> list[KafkaRecord]:
    """The format's benchmark records (what `bench` produces, their schemas registered where they name one), each key
    and value length-prefixed; returns them."""
    records = list(registered(registry.generator(format_id).benchmark().records("bench", messages, 2), schema_registry))
    with path.open("wb") as out:
        for record in records:
            for part in (record.key, record.value):
                out.write(struct.pack(">i", -1) if part is None else struct.pack(">i", len(part)) + part)
    return records


def write_groups(registry: Registry, format_id: str, records: list[KafkaRecord], path: Path) -> str:
    """The groups a format's group reader is called with in a batch decode of `records` (Spark's rows, collected from
    the decoder's own plan and Java-serialized into `path` by the driver), for `ReaderTiming groups`; returns the group
    reader's class. The decoder's call of `jvm_functions.read_groups` is caught on its way, the one place every
    grouped format reads its groups: the plan is the one `bench` runs, cut before the reader."""
    spark = spark_session(app_name="reader-timing")
    raw = spark.createDataFrame([(r.key, r.value, r.topic, r.partition, offset) for offset, r in enumerate(records)],
                                "key binary, value binary, topic string, partition int, offset bigint")
    caught: list[tuple[str, DataFrame]] = []
    reading = jvm_functions.read_groups

    def catching(frame: DataFrame, java_class: str, column: str) -> Column:
        caught.append((java_class, frame.select(column)))
        return reading(frame, java_class, column)

    jvm_functions.read_groups = catching
    try:
        registry.module(format_id, "decoder").DECODER.batch(raw)  # builds the plan; runs nothing
    finally:
        jvm_functions.read_groups = reading
    (java_class, groups), = caught
    jvm: Any = spark._jvm  # py4j's view of the JVM: untyped
    out = jvm.java.io.ObjectOutputStream(jvm.java.io.FileOutputStream(str(path)))
    out.writeObject(jvm.java.util.ArrayList(groups._jdf.collectAsList()))
    out.close()
    return f"{jvm_functions.PACKAGE}.{java_class}"


def output_type(registry: Registry, format_id: str) -> str:
    """What the record reader returns, as Spark's JSON: a format that groups records, its record stage's row."""
    return getattr(registry.module(format_id, "decoder"), "RECORD_STAGE", jvm_functions.RECORD_OUTPUT).json()


def nanos_per_record(reader: str, inputs: Path, readers_jar: Path, rounds: int, returns: str,
                     options: list[str], mode: str = "records", profile: Path | None = None) -> tuple[float, ...]:
    """The reader's ns per record (`mode` "groups": a group reader's ns per group, `inputs` written by `write_groups`),
    then its output's conversion to Spark's internal rows: by Spark's converter (after a UDF) and by the normalizer's
    own (`InternalRows`, after a Catalyst expression's call). `profile`: async-profiler samples the timed rounds into
    `profile` + `.collapsed` and `.html` (the times are then the profiler's too)."""
    timing = jvm_classes.compiled_jar("cdc-conformance-timing", TIMING_JAVA, jvm.cache_dir())
    jars = [timing, readers_jar, jvm_classes.pyspark_jars() / "*"]
    settings = []
    if profile is not None:
        jars.append(jvm.ensure(jvm.async_profiler_artifacts())[0])
        settings.append(f"-Dcdc.timing.profile={profile}")
    line = subprocess.run([jvm_classes.jvm_tool("java"), "-Xmx2g", *settings, "-cp", ":".join(map(str, jars)),
                           "io.cdcconformance.bench.ReaderTiming", mode, reader, str(inputs), str(rounds), returns,
                           *options], check=True, capture_output=True, text=True).stdout
    return tuple(map(float, line.splitlines()[-1].split()[1:4]))  # the last line: the profiler may print before it


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", action="append", dest="formats", help="a format (repeatable; default: every one)")
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=8, help="timed rounds after two warm-up rounds; the best counts")
    parser.add_argument("--turns", type=int, default=2, help="with --against: turns of each jar")
    parser.add_argument("--against", type=Path, help="another build's readers' jar, timed in turns with this tree's")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="also sample each reader's timed rounds with async-profiler: DIR/<format>-<reader>.html "
                             "and .collapsed, and DIR/summary.md (its heaviest frames)")
    args = parser.parse_args()
    if args.profile and args.against:
        parser.error("--profile samples this tree's readers alone: not with --against")
    registry = Registry.load()
    ours = jvm_functions.jar(jvm.cache_dir())
    formats = args.formats or registry.decoded_formats()
    if args.against:
        print("| format | reader | ns/record (this tree) | ns/record (--against) | this / against |\n|---|---|---:|---:|---:|")
    else:
        print("| format | reader | ns/record | its output converted: by Spark (UDF) | by `InternalRows` (expression) |\n"
              "|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder, LazySchemaRegistry() as schema_registry:  # started by debezium-avro's
        for format_id in formats:
            reader = record_reader(registry, format_id)
            if reader is None:
                print(f"| {format_id} | - | (no record reader) |")
                continue
            records_file = Path(folder) / f"{format_id}.bin"
            records = write_records(registry, format_id, args.messages, records_file, schema_registry)
            returns, options = output_type(registry, format_id), reader_options(registry, format_id, schema_registry)
            timed = [(reader, records_file, returns, options, "records")]
            if hasattr(registry.module(format_id, "decoder"), "GROUP_READER"):
                groups_file = Path(folder) / f"{format_id}.groups"
                group_reader = write_groups(registry, format_id, records, groups_file)
                timed.append((group_reader, groups_file, jvm_functions.RECORD_OUTPUT.json(), [], "groups"))
            for java_class, inputs, output, arguments, mode in timed:
                print(timed_row(format_id, java_class, inputs, output, arguments, mode, ours, args))


def timed_row(format_id: str, reader: str, inputs: Path, returns: str, options: list[str], mode: str, ours: Path,
              args: argparse.Namespace) -> str:
    """One reader's row of the table: alone, or in turns with `--against`'s jar."""
    name = reader.rpartition('.')[2]
    if not args.against:
        profile = None
        if args.profile:
            args.profile.mkdir(parents=True, exist_ok=True)
            profile = args.profile / f"{format_id}-{name}"
        read, by_spark, by_own = nanos_per_record(reader, inputs, ours, args.rounds, returns, options, mode, profile)
        if profile is not None:
            timed = breakdown(profile.with_suffix(".collapsed"), thread_frame="ReaderTiming.main")  # no compiler's, GC's
            with (args.profile / "summary.md").open("a") as summary:
                summary.write("\n".join([f"### {format_id}: `{name}`", "",
                                         f"{timed.samples:,} samples of the timing thread in its timed rounds.", "",
                                         *heaviest_frames(timed, "share")]) + "\n\n")
        return f"| {format_id} | `{name}` | {read:,.0f} | {by_spark:,.0f} | {by_own:,.0f} |"
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    for _ in range(args.turns):
        times["theirs"].append(nanos_per_record(reader, inputs, args.against, args.rounds, returns, options, mode)[0])
        times["ours"].append(nanos_per_record(reader, inputs, ours, args.rounds, returns, options, mode)[0])
    ours_best, theirs_best = min(times["ours"]), min(times["theirs"])
    return f"| {format_id} | `{name}` | {ours_best:,.0f} | {theirs_best:,.0f} | {ours_best / theirs_best:.2f} |"


if __name__ == "__main__":
    terminable(main)  # SIGTERM stops the schema registry it started, as the CLI's commands do
