"""`cdc-conformance producers`: drawn histories through the real producers (PostgreSQL or MariaDB + Debezium on
Kafka Connect; MariaDB + canal's own server), each checked three ways (docs/producers.md)."""
from __future__ import annotations

import re
import sys

import click

from cdc_conformance.harness import suite_files
from cdc_conformance.harness.cli.common import UNDER_TEST_OPTION, Misuse, normalizer_under_test
from cdc_conformance.harness.progress import Progress

DOC = suite_files.SUITE_ROOT / "docs" / "producers.md"
_TABLE_BLOCK = re.compile(r"(<!-- fidelity:begin -->\n).*?(<!-- fidelity:end -->)", re.S)


def documented_table(text: str) -> str | None:
    """The fidelity table as docs/producers.md holds it (None without the markers)."""
    match = _TABLE_BLOCK.search(text)
    return None if match is None else text[match.end(1):match.start(2)].rstrip("\n")


@click.command()
@click.option("--histories", type=click.IntRange(1, 1000), default=4, show_default=True,
              help="Histories per connector version.")
@click.option("--database", "databases", type=click.Choice(["postgresql", "mariadb"]), multiple=True,
              help="Database and its Debezium connector (repeatable) [default: both].")
@click.option("--debezium", "versions", multiple=True, metavar="VERSION",
              help="Debezium release from Maven Central (repeatable) [default: 3.3.2.Final; MariaDB's: 3.3.0.Final].")
@click.option("--replica-identity", type=click.Choice(["FULL", "DEFAULT", "both"]), default="both", show_default=True,
              help="PostgreSQL REPLICA IDENTITY of the drawn tables (both: alternating).")
@click.option("--settings", "setting_names", multiple=True, metavar="NAME[,NAME]",
              help="Connector and converter settings to run with, combined by commas; repeatable, one run each "
                   "(docs/producers.md, settings; `--settings list` names them; `--settings rotation`: the defaults "
                   "and three others taken in turn by seed) [default: the defaults].")
@click.option("--canal", "run_canal", is_flag=True,
              help="canal's own server (1.1.4, with a Kafka 3.9 broker of its own) on MariaDB instead of Debezium.")
@click.option("--flink-cdc", "run_flink_cdc", is_flag=True,
              help="Flink CDC's MySQL source (3.1.1, a local Flink) on MariaDB instead of Kafka Connect: its Debezium JSON.")
@click.option("--seed", type=int, default=None, help="Draw the same histories again [default: a fresh seed].")
@click.option("--table", "print_table", is_flag=True, help="Print the generator-fidelity table and exit.")
@click.option("--update-docs", is_flag=True, help="Write the fidelity table into docs/producers.md and exit.")
@UNDER_TEST_OPTION
def producers(histories, databases, versions, replica_identity, setting_names, run_canal, run_flink_cdc, seed, print_table,
              update_docs, normalizer_spec) -> None:
    """Real producers in the loop: histories through PostgreSQL or MariaDB and Debezium, checked against the oracle,
    the database's final state and the project's own generator."""
    from cdc_conformance.harness.producers import fidelity

    if update_docs and not (suite_files.editing_the_suite() and DOC.is_file()):
        raise Misuse("--update-docs writes the suite's own docs/producers.md: run it inside the suite's checkout")
    if print_table or update_docs:
        table = fidelity.markdown_table()
        if update_docs:
            DOC.write_text(_TABLE_BLOCK.sub(lambda m: m.group(1) + table + "\n" + m.group(2), DOC.read_text()))
        click.echo(table)
        return
    from cdc_conformance.harness.producers import settings as known

    if "list" in setting_names:
        click.echo("\n".join(f"{s.name:<24}{s.about}" for s in known.SETTINGS.values()))
        return
    try:
        chosen = [known.parse(text) for text in setting_names if text != "rotation"] or [known.DEFAULT]
    except ValueError as error:
        raise Misuse(f"--settings: {error}") from error
    unreleased = [v for v in versions if not re.fullmatch(r"\d+\.\d+\.\d+\.\w+", v)]
    if unreleased:
        raise Misuse(f"--debezium {unreleased[0]}: a release such as 3.3.2.Final")
    from cdc_conformance.harness.property import session_seed

    seed = session_seed() if seed is None else seed
    if run_canal or run_flink_cdc:
        option = "--canal" if run_canal else "--flink-cdc"
        if databases or versions or setting_names or (run_canal and run_flink_cdc):
            raise Misuse(f"{option} runs on MariaDB alone: --database, --debezium and --settings are Kafka Connect's")
        (_canal if run_canal else _flink_cdc)(histories, seed, normalizer_under_test(normalizer_spec))
        return
    if "rotation" in setting_names:
        chosen = known.rotation(seed) + [s for s in chosen if s is not known.DEFAULT]
    from cdc_conformance.harness.producers.checks import DATABASES

    results = _run(histories, databases or tuple(DATABASES), versions, replica_identity, chosen, seed,
                   normalizer_under_test(normalizer_spec))
    click.echo(summary(results))
    from cdc_conformance.harness.producers import checks

    problems = checks.failures(results, seed)
    for problem in problems:
        click.echo(problem, err=True)
    if problems:
        sys.exit(1)


def _run(histories, databases, versions, replica_identity, chosen, seed, under_test):
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.producers import checks
    from cdc_conformance.harness.producers.postgres import ProducerUnavailable
    from cdc_conformance.harness.schema_registry import LazySchemaRegistry
    from cdc_conformance.harness.spark import spark_session

    progress, results = Progress(), []
    click.echo(f"seed {seed} (again: --seed {seed})", err=True)
    try:
        # a setting whose converter writes through a schema registry (avro) starts the suite's, once
        with EmbeddedKafka(heap="512m") as broker, LazySchemaRegistry() as registry:
            for database in databases:
                identities = (None if database != "postgresql" or replica_identity == "both"
                              else (replica_identity,))
                for version in versions or [checks.DATABASES[database].default_version]:
                    for setting in chosen:
                        with progress.phase(f"Debezium {version} on {database} ({setting.name}): {histories} histories",
                                            total=histories) as done:
                            results += checks.drawn_checks(spark_session(under_test=under_test), broker, under_test, version, histories, seed,
                                                           identities, done, database, setting, registry)
    except ProducerUnavailable as error:
        raise click.ClickException(f"the real producers cannot run here: {error}") from error
    return results


def _canal(histories, seed, under_test) -> None:
    from cdc_conformance.harness.jvm import CANAL_KAFKA_VERSION, CANAL_VERSION
    from cdc_conformance.harness.producers import canal_mariadb

    _alone(f"canal {CANAL_VERSION}", histories, seed, canal_mariadb.drawn_checks, {"kafka_version": CANAL_KAFKA_VERSION},
           f"Kafka {CANAL_KAFKA_VERSION}", under_test)


def _flink_cdc(histories, seed, under_test) -> None:
    from cdc_conformance.harness.jvm import FLINK_CDC_VERSION
    from cdc_conformance.harness.producers import flink_cdc

    _alone(f"Flink CDC {FLINK_CDC_VERSION}", histories, seed, flink_cdc.drawn_checks, {}, "Flink 1.18.1 (local)",
           under_test)


def _alone(producer: str, histories, seed, drawn_checks, broker_settings: dict, beside: str, under_test) -> None:
    """A producer that is no Debezium connector on Connect (canal's server, Flink CDC), on MariaDB: its histories,
    one summary line, its problems."""
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.producers.postgres import ProducerUnavailable
    from cdc_conformance.harness.spark import spark_session
    click.echo(f"seed {seed} (again: --seed {seed})", err=True)
    try:
        with EmbeddedKafka(heap="512m", **broker_settings) as broker, \
                Progress().phase(f"{producer} on MariaDB: {histories} histories", total=histories) as done:
            results = drawn_checks(spark_session(under_test=under_test), broker, under_test, histories, seed, done)
    except ProducerUnavailable as error:
        raise click.ClickException(f"{producer} cannot run here: {error}") from error
    differences = sum(len(r.differences) for r in results)
    click.echo(f"{'producer':<18}{'histories':>10}{'records':>9}{'events':>8}{'differences':>13}{'failures':>10}  server\n"
               f"{producer:<18}{len(results):>10}{sum(r.records for r in results):>9}"
               f"{sum(r.events for r in results):>8}{differences:>13}{sum(len(r.problems) for r in results) - differences:>10}"
               f"  MariaDB {results[0].versions.get('mariadb', '?')}, {beside}")
    problems = [f"history {index} of seed {seed} ({producer}): {problem}" for index, result in enumerate(results)
                for problem in result.problems]
    for problem in problems:
        click.echo(problem, err=True)
    if problems:
        sys.exit(1)


def summary(results) -> str:
    """Per connector release and replica identity: histories, records, events, generator differences not
    accepted by the fidelity table, and failures (normalizer vs oracle, database vs events, quarantined)."""
    rows: dict[tuple, list] = {}
    for result in results:
        rows.setdefault((result.database, result.debezium_version, result.setting, result.replica_identity),
                        []).append(result)
    width = max([24, *(len(setting) + 2 for _, _, setting, _ in rows)])  # combined settings are long
    lines = [f"{'database':<12}{'debezium':<14}{'settings':<{width}}{'identity':<10}{'histories':>10}{'records':>9}{'events':>8}"
             f"{'differences':>13}{'failures':>10}  server"]
    for (database, version, setting, identity), group in sorted(rows.items()):
        differences = sum(len(r.differences) for r in group)
        side: dict[str, int] = {}
        for result in group:
            for kind, count in result.side_events.items():
                side[kind] = side.get(kind, 0) + count
        lines.append(f"{database:<12}{version:<14}{setting:<{width}}{identity:<10}{len(group):>10}{sum(r.records for r in group):>9}"
                     f"{sum(r.events for r in group):>8}{differences:>13}"
                     f"{sum(len(r.problems) for r in group) - differences:>10}"
                     f"  {group[0].versions.get(database, '?')}"
                     + ("" if not side else "; other topics: " + ", ".join(f"{k} {n}" for k, n in sorted(side.items()))))
    return "\n".join(lines)
