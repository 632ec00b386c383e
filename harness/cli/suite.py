"""The suite's own workflow: run the cases, merge shards, gate on regressions, lint, list the formats."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from cdc_conformance.harness.broker import BACKENDS
from cdc_conformance.harness.cli.common import (
    DEFAULT_REPORTS,
    SCHEMA_REGISTRY_OPTION,
    UNDER_TEST_OPTION,
    Misuse,
    normalizer_under_test,
    schema_registry_for,
    selected_cases,
    started_with_spark,
)
from cdc_conformance.harness.registry import Registry


@click.command()
@click.option("--case", "case_ids", multiple=True, metavar="ID", help="Run only this case (repeatable).")
@click.option("--format", "formats", multiple=True, metavar="FORMAT", help="Run only cases of this format.")
@click.option("--broker", type=click.Choice(BACKENDS), default="embedded", show_default=True)
@click.option("--bootstrap-servers", metavar="HOST:PORT", help="For --broker external.")
@click.option("--kafka-image", metavar="IMAGE", help="For --broker testcontainers: 'official' (apache/kafka, the default), "
              "'local' (built from harness/docker/kafka on the Maven-resolved jars) or an image name [env: CDC_KAFKA_IMAGE].")
@UNDER_TEST_OPTION
@click.option("--update-golden", is_flag=True, help="Rewrite the selected golden files (review with git diff); "
              "with every case selected, also remove golden files that belong to no case.")
@click.option("--keep-orphans", is_flag=True, help="With --update-golden: keep golden files that belong to no case.")
@click.option("--reports", "reports_dir", type=click.Path(path_type=Path), default=DEFAULT_REPORTS, show_default=True)
@click.option("--cases-dir", type=click.Path(path_type=Path, file_okay=False, exists=True), default=None,
              help="Case files to run [default: conformance/cases].")
@click.option("--golden-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Golden files [default: golden].")
@click.option("--shard", metavar="I/N", help="Run only shard I of N (1-based; cases split by id, the same way every "
              "time): parallel CI jobs, combined by `cdc-conformance merge`.")
@click.option("--known-failures", "known_failures_file", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              default=None, help="Known-failures list [default: the suite's own for the suite's cases, none for --cases-dir].")
@click.option("--remote", metavar="sc://HOST:PORT", default=None, help="Run on a Spark Connect server (holding the "
              "normalizer's jars: `cdc-conformance jvm --spark-jars`) instead of a local session [env: CDC_SPARK_REMOTE].")
@click.option("--obtained-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where outputs that differ from their golden files go [default: beside your --golden-dir files; "
                   ".cdc-obtained/ for the suite's own golden files].")
@SCHEMA_REGISTRY_OPTION
def run(case_ids, formats, broker, bootstrap_servers, kafka_image, normalizer_spec, update_golden, keep_orphans, reports_dir,
        cases_dir, golden_dir, shard, known_failures_file, remote, obtained_dir, schema_registry) -> None:
    """Run conformance cases through a real broker and Spark; print the summary; write reports."""
    from cdc_conformance.harness import golden, suite_files
    from cdc_conformance.harness.cases import CASES_DIR, CaseError, load_cases, parse_shard, shard_cases
    from cdc_conformance.harness.known_failures import known_failures_for
    from cdc_conformance.harness.lint import lint
    from cdc_conformance.harness.runner import replay_options

    if broker == "external" and not bootstrap_servers:
        raise Misuse("--broker external needs --bootstrap-servers")
    if remote:
        from cdc_conformance.harness.spark import remote_problem

        if problem := remote_problem(remote):
            raise Misuse(f"--remote {problem}")
        os.environ["CDC_SPARK_REMOTE"] = remote
    if keep_orphans and not update_golden:
        raise Misuse("--keep-orphans applies only with --update-golden")
    golden_root = golden_dir or golden.GOLDEN_DIR
    if update_golden and suite_files.read_only(golden_root):
        raise Misuse("--update-golden: the suite's own golden files are read-only here; approve into yours (--golden-dir)")
    registry = Registry.load()
    try:
        cases = load_cases(cases_dir or CASES_DIR)
    except CaseError as error:
        raise click.ClickException(str(error)) from error
    known_failures = known_failures_for(cases_dir, known_failures_file)
    # orphaned known failures are reported by the run itself (a suite problem), like orphaned golden files
    problems = [p for p in lint(cases, registry, known_failures) if p.rule != "known-failure-orphan"]
    if problems:
        raise click.ClickException("the suite does not lint:\n" + "\n".join(map(str, problems)))
    selected = selected_cases(cases, case_ids, formats, registry)
    try:
        shard_of = parse_shard(shard) if shard else None
    except ValueError as error:
        raise Misuse(str(error)) from error
    if shard_of:
        if update_golden:
            raise Misuse("--update-golden applies to whole runs, not to a shard")
        selected = shard_cases(selected, *shard_of)
        if not selected:
            raise Misuse(f"--shard {shard}: the shard holds no case of the {len(cases)} selected")
    function = normalizer_under_test(normalizer_spec)
    registry_client = schema_registry_for(schema_registry)
    settings = dict(schema_registry=registry_client, update_golden=update_golden, keep_orphans=keep_orphans, golden_root=golden_root,
                    known_failures=known_failures, known_failures_file=known_failures_file and str(known_failures_file),
                    kafka_image=kafka_image, check_orphans=bool(golden_dir) or not cases_dir,
                    obtained_root=obtained_dir,  # None: the Runner's default (suite_files.obtained_root)
                    replay_options=replay_options(normalizer_spec, cases_dir, golden_dir, known_failures_file, broker,
                                                  bootstrap_servers, kafka_image, remote))
    result = _run_cases(selected, cases, registry, broker, bootstrap_servers, function, settings)
    _print_result(result, reports_dir, function, shard_of)
    sys.exit(1 if result.failed else 0)


def _run_cases(selected, cases, registry, backend, bootstrap_servers, function, settings):
    from cdc_conformance.harness.broker import make_broker
    from cdc_conformance.harness.roundtrip import RoundTrip
    from cdc_conformance.harness.runner import Runner

    broker = make_broker(backend, bootstrap_servers, settings["kafka_image"])
    with started_with_spark(broker, function) as spark, settings["schema_registry"] as schema_registry:
        try:
            runner = Runner(RoundTrip(spark, broker, function, schema_registry=schema_registry), registry, settings["known_failures"],
                            update_golden=settings["update_golden"], keep_orphans=settings["keep_orphans"],
                            golden_root=settings["golden_root"], replay_options=settings["replay_options"],
                            check_orphans=settings["check_orphans"], obtained_root=settings["obtained_root"],
                            known_failures_file=settings["known_failures_file"])
            return runner.run(selected, cases)
        except Exception:
            if hasattr(broker, "log_tail"):
                click.echo(f"broker log (last lines):\n{broker.log_tail()}", err=True)
            raise


def _print_result(result, reports_dir: Path, under_test, shard: tuple[int, int] | None = None) -> None:
    from cdc_conformance.harness.reports import Report, run_facts, summary_table, write_all

    for r in result.results:
        if r.status in ("FAIL", "ERROR", "XPASS"):
            click.echo(f"\n{r.status} {r.case.id} ({r.case.relative_path})")
            for line in r.problems:
                click.echo(f"  {line}")
            click.echo(f"  replay: {r.replay}")
    for problem in result.suite_problems:
        click.echo(f"\nSUITE {problem}")
    facts = run_facts({"normalizer": under_test.spec, "normalizer_version": under_test.version,
                       **({"shard": f"{shard[0]}/{shard[1]}"} if shard else {})})
    report = Report.of(result, facts)
    paths = write_all(report, reports_dir)
    click.echo("\n" + summary_table(report))
    click.echo(result.golden.summary())
    click.echo(f"reports: {', '.join(str(p) for p in paths.values())}")


@click.command()
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option("--reports", "reports_dir", type=click.Path(path_type=Path), default=DEFAULT_REPORTS, show_default=True)
def merge(shards, reports_dir) -> None:
    """Combine reports (folders or results.jsonl files) into one JUnit file, results.jsonl and matrix: the shards of
    one run, or runs of several normalizers (the matrix then compares them side by side)."""
    from cdc_conformance.harness.reports import Report, suite_identity, suite_label, summary_table, write_all
    from cdc_conformance.harness.reports import merge as merge_reports

    try:
        reports = [Report.load(path / "results.jsonl" if path.is_dir() else path) for path in shards]
    except (ValueError, OSError) as error:
        raise Misuse(str(error)) from error
    suites = {suite_identity(report.facts): suite_label(report.facts) for report in reports}
    if len(suites) > 1:
        raise Misuse(f"the reports ran different suites: {'; '.join(sorted(suites.values()))}")
    # the merged report names one Spark (its rows carry none of their own): runs on two would be labelled as one
    sparks = sorted({str(report.facts.get("spark_version")) for report in reports})
    if len(sparks) > 1:
        raise Misuse(f"the reports ran on different Spark versions ({', '.join(sparks)}): merge each version's apart")
    merged = merge_reports(reports)
    duplicated = len(merged.rows) - len({(r["case"], r["format_version"], r["mode"], r.get("normalizer")) for r in merged.rows})
    if duplicated:
        raise Misuse(f"{duplicated} result row(s) appear in more than one shard")
    paths = write_all(merged, reports_dir)
    click.echo(summary_table(merged))
    click.echo(f"reports: {', '.join(str(p) for p in paths.values())}")
    sys.exit(1 if merged.failed else 0)


@click.command()
@click.argument("results", type=click.Path(path_type=Path, exists=True))
@click.option("--baseline", required=True, type=click.Path(path_type=Path, exists=True),
              help="The same normalizer's results.jsonl (or its folder) to compare with: its last release's run.")
@click.option("--allow-gone", is_flag=True, help="Rows of the baseline missing from the results do not fail the gate "
              "(cases removed on purpose).")
def gate(results, baseline, allow_gone) -> None:
    """Fail on regressions: a row (case x format@version x mode) that passed in the baseline and now fails, errors or is
    newly listed as a known failure; rows gone from the baseline; new suite problems."""
    from cdc_conformance.harness import gate as gating
    from cdc_conformance.harness.reports import Report, suite_identity, suite_label

    def load(path: Path) -> Report:
        try:
            return Report.load(path / "results.jsonl" if path.is_dir() else path)
        except (ValueError, OSError) as error:
            raise Misuse(str(error)) from error

    before, now = load(baseline), load(results)
    try:
        result = gating.compare(before, now, allow_gone)
    except gating.GateMisuse as error:
        raise Misuse(str(error)) from error
    if suite_identity(before.facts) != suite_identity(now.facts):  # an upgrade of the suite: allowed, and said
        click.echo(f"the baseline ran suite {suite_label(before.facts)}, the results {suite_label(now.facts)}: "
                   "new and gone rows may be the suite's own changes")
    click.echo(gating.table(result))
    sys.exit(0 if result.passed else 1)


@click.command("lint")
@click.option("--cases-dir", type=click.Path(path_type=Path, exists=True, file_okay=False), default=None,
              help="Lint these case files (your cdc-cases/) instead of the suite's own.")
@click.option("--known-failures", "known_failures_file", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help="Lint this known-failures file [default: the suite's own for the suite's cases, none for "
              "--cases-dir].")
def lint_command(cases_dir, known_failures_file) -> None:
    """Check case files, the registry and the known failures (rules: harness/lint.py): the suite's, or your own."""
    from cdc_conformance.harness.cases import CASES_DIR, CaseError, load_cases
    from cdc_conformance.harness.known_failures import known_failures_for
    from cdc_conformance.harness.lint import lint

    try:
        cases = load_cases(cases_dir or CASES_DIR)
    except CaseError as error:
        raise click.ClickException(str(error)) from error
    problems = lint(cases, Registry.load(), known_failures_for(cases_dir, known_failures_file),
                    known_failures_file=str(known_failures_file or "known_failures.yaml"))
    for problem in problems:
        click.echo(str(problem))
    click.echo(f"{len(cases)} cases, {len(problems)} problems")
    sys.exit(1 if problems else 0)


@click.command()
@click.option("--markdown", is_flag=True, help="Print the README's format table instead.")
@click.option("--summary", is_flag=True, help="Print the README's run summary (what `run` prints when every case meets "
              "its golden file) instead.")
def formats(markdown, summary) -> None:
    """List the format registry: formats, versions, status, features."""
    registry = Registry.load()
    if markdown:
        click.echo(registry.markdown_table())
        return
    if summary:
        from cdc_conformance.harness.cases import load_cases
        from cdc_conformance.harness.known_failures import load_known_failures
        from cdc_conformance.harness.reports import expected_summary

        click.echo(expected_summary(load_cases(), load_known_failures()))
        return
    for format_id in sorted(registry.formats):
        for fv in registry.versions(format_id):
            click.echo(f"{fv.label:<28}{fv.status:<14}{', '.join(fv.features)}")


