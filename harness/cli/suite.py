"""The suite's own workflow: run the cases, merge shards, gate on regressions, lint, list the formats."""
from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click

from harness.broker import BACKENDS
from harness.cli.common import DEFAULT_REPORTS, UNDER_TEST_OPTION, Misuse, normalizer_under_test
from harness.registry import Registry
from harness.under_test import DEFAULT_NORMALIZER


def _select(cases, case_ids, formats):
    known = {c.id for c in cases}
    unknown = [c for c in case_ids if c not in known]
    if unknown:
        raise Misuse(f"no such case: {', '.join(unknown)} (see conformance/cases/)")
    selected = [c for c in cases if (not case_ids or c.id in case_ids) and (not formats or c.format in formats)]
    if not selected:
        raise Misuse("the selection matches no case")
    return selected


@click.command()
@click.option("--case", "case_ids", multiple=True, metavar="ID", help="Run only this case (repeatable).")
@click.option("--format", "formats", multiple=True, metavar="FORMAT", help="Run only cases of this format.")
@click.option("--broker", type=click.Choice(BACKENDS), default="embedded", show_default=True)
@click.option("--bootstrap-servers", metavar="HOST:PORT", help="For --broker external.")
@click.option("--kafka-image", metavar="IMAGE", help="For --broker testcontainers: 'official' (apache/kafka, the default), "
              "'local' (built from docker/kafka on the Maven-resolved jars) or an image name [env: CDC_KAFKA_IMAGE].")
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
              default=None, help="Known-failures list [default: conformance/known_failures.yaml].")
def run(case_ids, formats, broker, bootstrap_servers, kafka_image, normalizer_spec, update_golden, keep_orphans, reports_dir,
        cases_dir, golden_dir, shard, known_failures_file) -> None:
    """Run conformance cases through a real broker and Spark; print the summary; write reports."""
    from harness import golden
    from harness.cases import CASES_DIR, CaseError, load_cases, parse_shard, shard_cases
    from harness.lint import lint
    from harness.runner import KNOWN_FAILURES_FILE, load_known_failures

    if broker == "external" and not bootstrap_servers:
        raise Misuse("--broker external needs --bootstrap-servers")
    if keep_orphans and not update_golden:
        raise Misuse("--keep-orphans applies only with --update-golden")
    registry = Registry.load()
    try:
        cases = load_cases(cases_dir or CASES_DIR)
    except CaseError as error:
        raise click.ClickException(str(error)) from error
    known_failures = load_known_failures(known_failures_file or KNOWN_FAILURES_FILE)
    # orphaned known failures are reported by the run itself (a suite problem), like orphaned golden files
    problems = [p for p in lint(cases, registry, known_failures) if p.rule != "known-failure-orphan"]
    if problems:
        raise click.ClickException("the suite does not lint:\n" + "\n".join(map(str, problems)))
    selected = _select(cases, set(case_ids), set(formats))
    try:
        shard_of = parse_shard(shard) if shard else None
    except ValueError as error:
        raise Misuse(str(error)) from error
    if shard_of:
        selected = shard_cases(selected, *shard_of)
        if update_golden:
            raise Misuse("--update-golden applies to whole runs, not to a shard")
    function = normalizer_under_test(normalizer_spec)
    settings = dict(update_golden=update_golden, keep_orphans=keep_orphans, golden_root=golden_dir or golden.GOLDEN_DIR,
                    known_failures=known_failures, kafka_image=kafka_image, check_orphans=bool(golden_dir) or not cases_dir,
                    replay_options=replay_options(normalizer_spec, cases_dir, golden_dir, known_failures_file, broker,
                                                  bootstrap_servers, kafka_image))
    result = _run_cases(selected, cases, registry, broker, bootstrap_servers, function, settings)
    _print_result(result, reports_dir, normalizer_spec, shard_of)
    sys.exit(1 if result.failed else 0)


def replay_options(normalizer_spec, cases_dir, golden_dir, known_failures_file, broker, bootstrap_servers, kafka_image) -> str:
    """The options a replay command needs to run a case exactly as this run did (the defaults are left out)."""
    import shlex

    given = [("--normalizer", None if normalizer_spec == DEFAULT_NORMALIZER else normalizer_spec),
             ("--cases-dir", cases_dir), ("--golden-dir", golden_dir), ("--known-failures", known_failures_file),
             ("--broker", None if broker == "embedded" else broker), ("--bootstrap-servers", bootstrap_servers),
             ("--kafka-image", kafka_image)]
    return "".join(f" {option} {shlex.quote(str(value))}" for option, value in given if value is not None)


@contextmanager
def _started_with_spark(broker):
    """The Spark session (with the quick JIT: `run` is a few short jobs), with `broker` started and stopped on
    the way out (told of any error). An embedded broker starts on a thread of its own while this one starts
    Spark (their start-ups overlap: about 2 s of `make run`); another backend is reached first, so that an
    unreachable one is a one-line error before any JVM of Spark's says a word."""
    from harness.broker import EmbeddedKafka
    from harness.spark import spark_session

    with ExitStack() as stack:
        if not isinstance(broker, EmbeddedKafka):
            stack.enter_context(broker)
            yield spark_session(quick_start=True)
            return
        with ThreadPoolExecutor(max_workers=1) as pool:
            starting = pool.submit(broker.__enter__)
            try:
                spark = spark_session(quick_start=True)
            finally:
                if starting.exception() is None:
                    stack.push(broker)
        starting.result()
        yield spark


def _run_cases(selected, cases, registry, backend, bootstrap_servers, function, settings):
    from harness.broker import make_broker
    from harness.roundtrip import RoundTrip
    from harness.runner import Runner

    broker = make_broker(backend, bootstrap_servers, settings["kafka_image"])
    with _started_with_spark(broker) as spark:
        try:
            runner = Runner(RoundTrip(spark, broker, function), registry, settings["known_failures"],
                            update_golden=settings["update_golden"], keep_orphans=settings["keep_orphans"],
                            golden_root=settings["golden_root"], replay_options=settings["replay_options"],
                            check_orphans=settings["check_orphans"])
            return runner.run(selected, cases)
        except Exception:
            if hasattr(broker, "log_tail"):
                click.echo(f"broker log (last lines):\n{broker.log_tail()}", err=True)
            raise


def _print_result(result, reports_dir: Path, normalizer_spec: str, shard: tuple[int, int] | None = None) -> None:
    from harness.reports import Report, run_facts, summary_table, write_all

    for r in result.results:
        if r.status in ("FAIL", "ERROR", "XPASS"):
            click.echo(f"\n{r.status} {r.case.id} ({r.case.relative_path})")
            for line in r.problems:
                click.echo(f"  {line}")
            click.echo(f"  replay: {r.replay}")
    for problem in result.suite_problems:
        click.echo(f"\nSUITE {problem}")
    facts = run_facts({"normalizer": normalizer_spec, **({"shard": f"{shard[0]}/{shard[1]}"} if shard else {})})
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
    from harness.reports import Report, summary_table, write_all
    from harness.reports import merge as merge_reports

    try:
        reports = [Report.load(path / "results.jsonl" if path.is_dir() else path) for path in shards]
    except (ValueError, OSError) as error:
        raise Misuse(str(error)) from error
    commits = {report.facts.get("suite_commit") for report in reports}
    if len(commits) > 1:
        raise Misuse(f"the reports ran different suite commits: {', '.join(sorted(map(str, commits)))}")
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
              help="The results.jsonl (or its folder) to compare with: a committed one, or one from another commit.")
def gate(results, baseline) -> None:
    """Fail on regressions only (a passing case that now fails or errors, a certified version that fails)."""
    from harness import gate as gating
    from harness.reports import Report

    def load(path: Path) -> Report:
        try:
            return Report.load(path / "results.jsonl" if path.is_dir() else path)
        except (ValueError, OSError) as error:
            raise Misuse(str(error)) from error

    registry = Registry.load()
    certified = {fv.label for f in registry.formats for fv in registry.versions(f) if fv.status == "certified"}
    result = gating.compare(load(baseline), load(results), certified)
    click.echo(gating.table(result))
    sys.exit(0 if result.passed else 1)


@click.command("lint")
def lint_command() -> None:
    """Check case files, the registry and the known failures (rules: harness/lint.py)."""
    from harness.cases import CaseError, load_cases
    from harness.lint import lint
    from harness.runner import load_known_failures

    try:
        cases = load_cases()
    except CaseError as error:
        raise click.ClickException(str(error)) from error
    problems = lint(cases, Registry.load(), load_known_failures())
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
        from harness.cases import load_cases
        from harness.reports import expected_summary
        from harness.runner import load_known_failures

        click.echo(expected_summary(load_cases(), load_known_failures()))
        return
    for format_id in sorted(registry.formats):
        for fv in registry.versions(format_id):
            click.echo(f"{fv.label:<28}{fv.status:<14}{', '.join(fv.features)}")


