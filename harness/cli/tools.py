"""Tools around the suite: throughput (bench), endurance (soak), the JVM artifacts (jvm)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from cdc_conformance.harness.cli.common import UNDER_TEST_OPTION, DecodedFormat, Misuse, normalizer_under_test
from cdc_conformance.harness.progress import Progress
from cdc_conformance.harness.registry import Registry

# --state-store: Spark's own providers (None: the session's setting, Spark's default HDFS-backed store unless it was set)
STATE_STORES = {"default": None,
                "rocksdb": "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"}


@click.command()
@click.option("--format", "formats", multiple=True, type=DecodedFormat(),
              help="Benchmark this format (repeatable) [default: ces-json].")
@click.option("--all", "every_format", is_flag=True, help="Benchmark every decoded format, one table.")
@click.option("--messages", type=click.IntRange(1000, 10_000_000), default=100_000, show_default=True)
@click.option("--repeat", type=click.IntRange(1, 10), default=3, show_default=True,
              help="Passes per side after the warm-up; the best counts (warm).")
@click.option("--growth", is_flag=True, help="Also run 10x the messages and print time(10x)/time(1x) (linear: 10).")
@click.option("--streaming", is_flag=True,
              help="Structured Streaming queries (the default trigger, the noop sink) instead of batch reads; also the "
                   "session's first (cold) query and the state's rows and memory at the end.")
@click.option("--max-offsets-per-trigger", type=click.IntRange(1, 100_000_000), default=100_000, show_default=True,
              help="With --streaming: the Kafka source's maxOffsetsPerTrigger.")
@click.option("--json", "json_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Also write the table as JSON.")
@click.option("--state-store", type=click.Choice(sorted(STATE_STORES)), default="default", show_default=True,
              help="With --streaming: Spark's state store provider for the stateful formats' queries (the default keeps "
                   "state in the executor's memory; rocksdb in RocksDB, on local disk).")
@click.option("--profile", "profile_dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Batch only: one more pass of each side under async-profiler (not counted), its flame graphs and "
                   "summary.md (where the time goes) written to this folder.")
@UNDER_TEST_OPTION
def bench(formats, every_format, messages, repeat, growth, streaming, max_offsets_per_trigger, json_path, state_store,
          profile_dir, normalizer_spec) -> None:
    """Throughput of the normalizer vs a plain parsing pass over the same Kafka data (embedded broker), batch or
    streaming."""
    import json

    from cdc_conformance.harness import bench as benchmark
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.schema_registry import LazySchemaRegistry
    from cdc_conformance.harness.spark import remote_url, spark_session

    registry = Registry.load()
    if every_format and formats:
        raise Misuse("give either --all or --format")
    chosen = registry.decoded_formats() if every_format else (list(formats) or ["ces-json"])
    missing = [f for f in chosen if registry.generator(f) is None or registry.generator(f).bench is None]
    if missing:
        raise Misuse(f"--format {missing[0]}: its generator declares no benchmark data")
    under_test, progress = normalizer_under_test(normalizer_spec), Progress()
    if streaming and under_test.normalize_stream is None:  # before any JVM starts, like every --normalizer problem
        raise Misuse(f"--streaming: {under_test.spec} has no streaming entry ({under_test.spec}_stream)")
    if state_store != "default" and not streaming:
        raise Misuse("--state-store is a streaming query's setting: give it with --streaming")
    if profile_dir is not None and streaming:
        raise Misuse("--profile profiles batch passes: give it without --streaming")
    if profile_dir is not None and remote_url():
        raise Misuse("--profile loads the profiler into a local driver: not with a Spark Connect session")
    if streaming:
        _bench_streaming(chosen, registry, under_test, progress, messages, max_offsets_per_trigger, repeat, growth, json_path,
                         STATE_STORES[state_store])
        return
    rows = []
    with EmbeddedKafka(heap="1g") as broker, LazySchemaRegistry() as schema_registry, \
            progress.phase(f"benchmarking {len(chosen)} format(s)", total=len(chosen)) as done:
        for format_id in chosen:
            with progress.phase(f"{format_id}: {messages:,} messages, {repeat} pass(es)"):
                spark = spark_session(under_test=under_test)
                rows.append(benchmark.format_row(spark, broker, under_test, registry.generator(format_id), messages, repeat,
                                                 growth, schema_registry, profile_dir))
            progress.note(f"{format_id}: {rows[-1].normalizer_rate:,.0f} msg/s ({rows[-1].ratio:.2f}x plain)")
            done()
    click.echo(benchmark.summary(rows))
    if json_path:
        json_path.write_text(json.dumps([row.as_json() for row in rows], indent=2) + "\n")
    if profile_dir is not None:
        (profile_dir / "summary.md").write_text("\n".join(row.profile or "" for row in rows))
        click.echo(f"flame graphs and summary.md in {profile_dir}")


def _bench_streaming(chosen, registry, under_test, progress, messages, max_offsets, repeat, growth, json_path,
                     state_store: str | None) -> None:
    import json
    import tempfile

    from cdc_conformance.harness import bench as benchmark
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.schema_registry import LazySchemaRegistry
    from cdc_conformance.harness.spark import spark_session

    rows = []
    with tempfile.TemporaryDirectory(prefix="cdc-bench-") as workdir, EmbeddedKafka(heap="1g") as broker, \
            LazySchemaRegistry() as schema_registry, progress.phase(f"streaming {len(chosen)} format(s)", total=len(chosen)) as done:
        for format_id in chosen:
            with progress.phase(f"{format_id}: {messages:,} messages, {max_offsets:,} a trigger, {repeat} pass(es)"):
                spark = spark_session(under_test=under_test)
                if state_store:  # a query's provider is fixed in its (new) checkpoint when it starts
                    spark.conf.set("spark.sql.streaming.stateStore.providerClass", state_store)
                rows.append(benchmark.stream_row(spark, broker, under_test, registry.generator(format_id),
                                                 messages, max_offsets, repeat, workdir, cold=True, growth=growth,
                                                 schema_registry=schema_registry))
            progress.note(f"{format_id}: {rows[-1].normalizer_rate:,.0f} msg/s streaming ({rows[-1].ratio:.2f}x plain)")
            done()
    click.echo(benchmark.stream_summary(rows))
    if json_path:
        json_path.write_text(json.dumps([row.as_json() for row in rows], indent=2) + "\n")


@click.command()
@click.option("--records", type=click.IntRange(100, 10_000_000), default=10_000, show_default=True,
              help="At least this many mutated records per format.")
@click.option("--format", "formats", multiple=True, type=DecodedFormat(),
              help="Soak only this format (repeatable) [default: every decoded format].")
@click.option("--seed", type=int, default=None, help="Draw the same records again [default: a fresh seed].")
@UNDER_TEST_OPTION
def soak(records, formats, seed, normalizer_spec) -> None:
    """Many mutated records per format through Kafka and Spark; crashes, wrong events, unaccounted records must be 0."""
    from cdc_conformance.harness import soak as soaking
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.property import session_seed
    from cdc_conformance.harness.roundtrip import RoundTrip
    from cdc_conformance.harness.spark import spark_session

    registry = Registry.load()
    seed = session_seed() if seed is None else seed
    under_test, progress = normalizer_under_test(normalizer_spec), Progress()
    chosen = formats or registry.decoded_formats()
    rows = []
    with EmbeddedKafka(heap="1g") as broker, progress.phase(f"soaking {len(chosen)} format(s)", total=len(chosen)) as done:
        roundtrip = RoundTrip(spark_session(under_test=under_test), broker, under_test)
        for format_id in chosen:
            with progress.phase(f"{format_id}: {records:,} mutated records"):
                rows.append(soaking.soak(roundtrip, registry.generator(format_id), records, seed))
            done()
    click.echo(soaking.table(rows))
    sys.exit(0 if all(row.clean for row in rows) else 1)


@click.command()
@click.option("--spark-jars", "spark_jars", is_flag=True, help="Print only the comma-separated `spark.jars` a session "
              "needs for the normalizer (spark-submit --jars, a cluster's libraries).")
def jvm(spark_jars) -> None:
    """Resolve the JVM artifacts (Kafka broker, Spark connectors; Kafka Connect resolves on first use) with Maven and
    build the jars the reference normalizer brings (its `spark_jars`: normalizer/java compiled) into the cache (the
    checkout's .cache/jvm, or the user's cache directory)."""
    from cdc_conformance.harness import jvm as artifacts
    from cdc_conformance.harness.spark import normalizer_jars

    if spark_jars:
        click.echo(",".join(normalizer_jars()))
        return
    artifacts.main()
    from cdc_conformance.harness.under_test import NormalizerUnderTest

    click.echo(f"normalizer classes: {', '.join(NormalizerUnderTest.load().jars)}")




@click.command("broker")
@click.argument("command", nargs=-1, metavar="[-- COMMAND ...]")
def broker_command(command) -> None:
    """Start the embedded Kafka broker (a real Apache Kafka, KRaft, on a free loopback port) for your own producing and
    capturing: with COMMAND, run it with CDC_BOOTSTRAP_SERVERS set and stop the broker after it (its exit code is
    this command's); without, print the address and serve until interrupted."""
    import os
    import subprocess
    import threading

    from cdc_conformance.harness.broker import EmbeddedKafka

    with EmbeddedKafka() as kafka:
        if command:
            result = subprocess.run(list(command), env={**os.environ, "CDC_BOOTSTRAP_SERVERS": kafka.bootstrap_servers})
            sys.exit(result.returncode)
        click.echo(f"CDC_BOOTSTRAP_SERVERS={kafka.bootstrap_servers}  (Ctrl-C stops the broker)", err=True)
        click.echo(kafka.bootstrap_servers)
        threading.Event().wait()  # until interrupted; leaving the block stops the broker
