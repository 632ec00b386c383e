"""`cdc-conformance peers`: the reference and the ecosystem's consumers side by side (harness/peers.py)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from cdc_conformance.harness.broker import BACKENDS
from cdc_conformance.harness.cli.common import DecodedFormat, Misuse, normalizer_under_test, selected_cases, started_with_spark
from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER


@click.command()
@click.option("--format", "formats", multiple=True, type=DecodedFormat(),
              help="Only this format (repeatable) [default: every format a peer reads].")
@click.option("--peer", "peer_specs", multiple=True, metavar="MODULE:FUNCTION",
              help="A peer normalizer (repeatable) [default: the shipped peers: Flink debezium-json and canal-json, each "
                   "with ignore-parse-errors false and true, and a Flink SQL job over each topic; Paimon's canal, "
                   "Debezium and aliyun (DataWorks) parsers; Kafka Connect's JsonConverter; DTS's subscription SDK; the naive Spark "
                   "parses]. Its "
                   "module must say which formats it reads (supported_formats()).")
@click.option("--case", "case_ids", multiple=True, metavar="ID", help="Only this case (repeatable); no drawn examples "
              "unless --examples is given.")
@click.option("--examples", type=click.IntRange(0, 100_000), default=None,
              help="Drawn examples per format, besides the cases [default: 200; 0 with --case].")
@click.option("--seed", type=click.IntRange(0, 2 ** 32 - 1), default=None, help="Draw the examples with this seed "
              "[default: a fresh one, printed].")
@click.option("--broker", type=click.Choice(BACKENDS), default="embedded", show_default=True)
@click.option("--bootstrap-servers", metavar="HOST:PORT", help="For --broker external.")
@click.option("--reports", "reports_dir", type=click.Path(path_type=Path), default=Path("reports") / "peers",
              show_default=True)
def peers(formats, peer_specs, case_ids, examples, seed, broker, bootstrap_servers, reports_dir) -> None:
    """Run the reference and peer normalizers over every case of the formats the peers read and drawn examples; each
    peer is judged on what it expresses. Exit 1 only when the reference fails."""
    from cdc_conformance.harness import peers as peer_run
    from cdc_conformance.harness.broker import make_broker
    from cdc_conformance.harness.cases import load_cases
    from cdc_conformance.harness.known_failures import known_failures_for
    from cdc_conformance.harness.property import session_seed
    from cdc_conformance.harness.registry import Registry
    from cdc_conformance.harness.reports import Report, run_facts, summary_table, write_all

    if broker == "external" and not bootstrap_servers:
        raise Misuse("--broker external needs --bootstrap-servers")
    reference = normalizer_under_test(DEFAULT_NORMALIZER)
    chosen = [normalizer_under_test(spec, "--peer") for spec in (peer_specs or peer_run.SHIPPED_PEERS)]
    for peer in chosen:
        if peer.supported_formats is None:
            raise Misuse(f"--peer {peer.spec}: its module has no supported_formats() (the formats it reads)")
        try:
            peer.expression  # noqa: B018  (a declaration the harness cannot read is misuse, said before any run)
        except ValueError as error:
            raise Misuse(f"--peer {peer.spec}: {error}") from error
    read = {peer.spec: set(peer.supported_formats()) for peer in chosen}
    registry = Registry.load()
    readable = set().union(*read.values()) & set(registry.decoded_formats())
    unread = sorted(set(formats) - readable)
    if unread:
        raise Misuse(f"--format {unread[0]}: no chosen peer reads it (they read {', '.join(sorted(readable))})")
    selected_formats = sorted(set(formats) or readable)
    cases = selected_cases(load_cases(), case_ids, selected_formats, registry)
    count = examples if examples is not None else (0 if case_ids else 200)
    seed = session_seed() if seed is None else seed
    known = known_failures_for(None, None)
    rows, problems, started = [], [], time.monotonic()
    from cdc_conformance.harness.schema_registry import LazySchemaRegistry

    kafka = make_broker(broker, bootstrap_servers, None)
    with started_with_spark(kafka, [reference, *chosen]) as spark, LazySchemaRegistry() as schema_registry:
        for format_id in selected_formats:
            units, missing = peer_run.case_units([c for c in cases if c.format == format_id])
            problems += missing
            if count:
                units += peer_run.drawn_units(registry.generator(format_id), count, seed)
            if not units:
                continue
            under_test = [reference] + [peer for peer in chosen if format_id in read[peer.spec]]
            click.echo(f"{format_id}: {len(units)} units through {', '.join(n.name for n in under_test)}", err=True)
            rows += peer_run.run_format(spark, kafka, format_id, units, under_test, known, schema_registry)
    facts = run_facts({"normalizer": ", ".join([reference.name] + [p.name for p in chosen]),
                       "normalizer_version": reference.version, "seed": seed, "examples_per_format": count,
                       "expressions": {n.name: n.expression.not_expressed() for n in [reference, *chosen]},
                       "peers": {p.name: p.spec for p in chosen}})
    report = Report(facts, rows, problems, time.monotonic() - started)
    paths = write_all(report, reports_dir)
    click.echo(summary_table(report))
    click.echo(f"seed {seed}; reports: {', '.join(str(p) for p in paths.values())}")
    failed = any(row["status"] in ("FAIL", "ERROR", "XPASS", "REFUSED") for row in rows if row["normalizer"] == reference.name)
    sys.exit(1 if failed or problems else 0)

