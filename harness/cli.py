"""`cdc-conformance`: run the suite, lint it, resolve JVM artifacts, list formats.

Exit codes: 0 = every case passed or failed as known; 1 = a failure; 2 = misuse (one line on stderr).
"""
from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click

from harness.broker import BACKENDS, BrokerError
from harness.progress import Progress
from harness.registry import Registry

PROG = "cdc-conformance"
DEFAULT_REPORTS = Path("reports") / "latest"


class Misuse(click.UsageError):
    """Raised for wrong arguments that click cannot see (unknown case ids, empty selections)."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Conformance suite for CDC message formats on Kafka and the Spark normalizer it certifies."""


# every command that runs the normalizer under test names it the same way (its streaming entry, if any, is
# MODULE:FUNCTION_stream: harness/under_test.py)
UNDER_TEST_DEFAULT = "normalizer.pipeline:normalize"
UNDER_TEST_OPTION = click.option("--normalizer", "normalizer_spec", default=UNDER_TEST_DEFAULT, show_default=True,
                                 metavar="MODULE:FUNCTION", help="The normalizer under test.")


def _normalizer(spec: str):
    """The normalizer under test, or misuse naming the --normalizer value."""
    from harness.under_test import NormalizerUnderTest

    try:
        return NormalizerUnderTest.load(spec)
    except (ValueError, ImportError, AttributeError) as error:
        raise Misuse(f"--normalizer {spec}: {error}") from error


def _select(cases, case_ids, formats):
    known = {c.id for c in cases}
    unknown = [c for c in case_ids if c not in known]
    if unknown:
        raise Misuse(f"no such case: {', '.join(unknown)} (see conformance/cases/)")
    selected = [c for c in cases if (not case_ids or c.id in case_ids) and (not formats or c.format in formats)]
    if not selected:
        raise Misuse("the selection matches no case")
    return selected


@cli.command()
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
    from harness.cases import CASES_DIR, CaseError, load_cases
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
    shard_of = _parse_shard(shard) if shard else None
    if shard_of:
        selected = shard_cases(selected, *shard_of)
        if update_golden:
            raise Misuse("--update-golden applies to whole runs, not to a shard")
    function = _normalizer(normalizer_spec)
    settings = dict(update_golden=update_golden, keep_orphans=keep_orphans, golden_root=golden_dir or golden.GOLDEN_DIR,
                    known_failures=known_failures, kafka_image=kafka_image)
    result = _run_cases(selected, cases, registry, broker, bootstrap_servers, function, settings)
    _print_result(result, reports_dir, normalizer_spec, shard_of)
    sys.exit(1 if result.failed else 0)


def _parse_shard(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise Misuse(f"--shard {text}: expected I/N with 1 <= I <= N, e.g. 2/4")
    return int(index), int(count)


def shard_cases(cases, index: int, count: int):
    """Shard `index` of `count`: every count-th case in id order, so shards never overlap and always cover
    the selection, on any machine. The golden-orphan check needs the whole selection and is left to merge."""
    ordered = sorted(cases, key=lambda c: c.id)
    return [c for position, c in enumerate(ordered) if position % count == index - 1]


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
                            golden_root=settings["golden_root"])
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


@cli.command()
@click.argument("target", required=False, metavar="FORMAT@VERSION")
@click.option("--all", "every_version", is_flag=True, help="Certify every supported version, one after another.")
@click.option("--check", "check_records", is_flag=True, help="Re-verify every certification record instead.")
@click.option("--examples", type=click.IntRange(10, 1_000_000), default=2000, show_default=True,
              help="Examples per generic check (property, mutators, streaming).")
@click.option("--seed", type=int, default=None, help="Hypothesis seed [default: a fresh one per version, recorded].")
@UNDER_TEST_OPTION
@click.option("--certifications-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where records are [default: reports/certifications].")
@click.option("--golden-dir", type=click.Path(path_type=Path, file_okay=False), default=None, help="Golden files [default: golden].")
def certify(target, every_version, check_records, examples, seed, normalizer_spec, certifications_dir, golden_dir) -> None:
    """Certify FORMAT@VERSION, or --all supported versions (cases in range + generic checks), writing a record
    each; or --check every record. Progress goes to standard error."""
    from harness import certify as certification
    from harness import golden
    from harness.broker import EmbeddedKafka
    from harness.cases import load_cases
    from harness.roundtrip import RoundTrip
    from harness.runner import load_known_failures
    from harness.spark import spark_session

    if [bool(target), every_version, check_records].count(True) != 1:
        raise Misuse("give one of FORMAT@VERSION, --all or --check")
    registry, cases = Registry.load(), load_cases()
    directory = certifications_dir or certification.CERTIFICATIONS_DIR
    golden_root = golden_dir or golden.GOLDEN_DIR
    targets = [_format_version(registry, target)] if target else _supported_versions(registry) if every_version else []
    records = certification.load_records(directory) if check_records else []
    if check_records and not records:
        click.echo(f"no certification records in {directory}")
        return
    function, progress = _normalizer(normalizer_spec), Progress()
    with EmbeddedKafka(heap="1g") as broker:
        roundtrip = RoundTrip(spark_session(), broker, function)
        if check_records:
            with progress.phase(f"checking {len(records)} certification record(s)"):
                problems = certification.check_all(roundtrip, registry, cases, records, load_known_failures(), golden_root)
            for problem in problems:
                click.echo(problem)
            click.echo(f"certifications: {len(records)} checked, {len(problems)} problem(s)")
            sys.exit(1 if problems else 0)
        failed = []
        with progress.phase(f"certifying {len(targets)} version(s)", total=len(targets)) as done:
            for fv in targets:
                if not _certify_one(roundtrip, registry, cases, fv, examples, seed, normalizer_spec, directory, golden_root, progress):
                    failed.append(fv.label)
                done()
    if len(targets) > 1:
        click.echo(f"certified {len(targets) - len(failed)} of {len(targets)} versions" + (f"; not certified: {', '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


def _format_version(registry: Registry, target: str):
    format_id, _, version = target.partition("@")
    fv = next((v for v in registry.versions(format_id) if v.version == version), None) if format_id in registry.formats else None
    if fv is None:
        raise Misuse(f"no format version {target} in the registry (see cdc-conformance formats)")
    if not registry.decoded(format_id):
        raise Misuse(f"{target} is planned: there is no decoder to certify")
    return fv


def _supported_versions(registry: Registry) -> list:
    targets = [fv for f in registry.decoded_formats() for fv in registry.versions(f) if fv.status == "supported"]
    if not targets:
        raise Misuse("no version of the registry says supported: nothing to certify")
    return targets


def _certify_one(roundtrip, registry, cases, fv, examples, seed, normalizer_spec, directory, golden_root, progress) -> bool:
    """Certify one version and write its record (the registry says `certified` when the suite's own normalizer was
    certified into the suite's own directory); False, with its first problems printed, when it does not pass."""
    from harness import certify as certification
    from harness.property import session_seed
    from harness.reports import run_facts
    from harness.runner import load_known_failures

    seed = session_seed() if seed is None else seed
    record, problems = certification.certify(roundtrip, registry, cases, fv, examples, seed, load_known_failures(),
                                             golden_root, run_facts({"normalizer": normalizer_spec}), progress)
    if problems:
        click.echo("\n".join([f"{fv.label} is not certified (seed {seed}):", *problems[:10]]))
        return False
    paths = certification.write(record, directory)
    if normalizer_spec == UNDER_TEST_DEFAULT and directory == certification.CERTIFICATIONS_DIR and fv.status != "certified":
        registry.mark_certified(fv, f"reports/certifications/{paths[0].name}")
    click.echo(f"{fv.label} certified: {len(record['cases'])} cases, {examples} examples per check, seed {seed}; "
               f"record: {', '.join(map(str, paths))}")
    return True


def _reproducer(broker, normalizer_spec: str, format_id: str):
    from harness.reproduce import Reproducer
    from harness.roundtrip import RoundTrip
    from harness.spark import spark_session

    function = _normalizer(normalizer_spec)
    spark = spark_session()
    return Reproducer(RoundTrip(spark, broker, function), RoundTrip(spark, broker), format_id)


def _load_capture(path: Path) -> dict:
    from harness.reproduce import ReproduceError, load

    try:
        return load(path)
    except ReproduceError as error:
        raise Misuse(str(error)) from error


def _epoch_ms(text: str | None) -> int | None:
    from datetime import UTC, datetime

    if text is None:
        return None
    if text.isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as error:
        raise Misuse(f"not a time: {text!r} (ISO 8601, or epoch milliseconds)") from error
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp() * 1000)


@cli.command()
@click.option("--format", "format_id", required=True, type=click.Choice(Registry.load().decoded_formats()))
@click.option("--out", "out_file", required=True, type=click.Path(path_type=Path, dir_okay=False), help="The capture file to write.")
@click.option("--bootstrap-servers", metavar="HOST:PORT", help="A live cluster to capture from.")
@click.option("--topic", help="With --bootstrap-servers: the topic.")
@click.option("--partition", "partitions", multiple=True, type=click.IntRange(0), help="Only this partition (repeatable).")
@click.option("--offsets", metavar="START:END", help="Offsets [START, END) in every chosen partition.")
@click.option("--since", metavar="TIME", help="From the first record at or after TIME (ISO 8601 or epoch ms).")
@click.option("--until", metavar="TIME", help="With --since: up to the first record at or after TIME.")
@click.option("--group", help="From this consumer group's committed offsets.")
@click.option("--count", type=click.IntRange(1), help="With --group: at most this many records per partition.")
@click.option("--kcat-dump", type=click.Path(path_type=Path, exists=True, dir_okay=False), help="kcat -J output instead of a cluster.")
def capture(format_id, out_file, bootstrap_servers, topic, partitions, offsets, since, until, group, count, kcat_dump) -> None:
    """Capture exact records (bytes, headers, partition, offset) with their provenance into a capture file."""
    from harness import reproduce

    if bool(kcat_dump) == bool(bootstrap_servers):
        raise Misuse("capture from either --bootstrap-servers (with --topic) or --kcat-dump")
    try:
        if kcat_dump:
            records, provenance = reproduce.capture_from_kcat(kcat_dump)
        else:
            if not topic:
                raise Misuse("--bootstrap-servers needs --topic")
            if sum(x is not None for x in (offsets, since, group)) > 1:
                raise Misuse("choose one range: --offsets, --since/--until or --group")
            bounds = None
            if offsets:
                first, _, last = offsets.partition(":")
                if not (first.isdigit() and last.isdigit() and int(first) < int(last)):
                    raise Misuse(f"--offsets {offsets}: expected START:END with START < END")
                bounds = (int(first), int(last))
            with Progress().phase(f"capturing from {topic}"):
                records, provenance = reproduce.capture_from_cluster(
                    bootstrap_servers, topic, list(partitions) or None, bounds, _epoch_ms(since), _epoch_ms(until), group, count)
    except reproduce.ReproduceError as error:
        raise click.ClickException(str(error)) from error
    if not records:
        raise click.ClickException("no records in the chosen range; nothing written")
    reproduce.save(reproduce.capture_document(format_id, records, provenance), out_file)
    click.echo(f"captured {len(records)} records ({provenance['coordinates']}) into {out_file}")


@cli.command()
@click.argument("capture_file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--normalizer", "normalizer_spec", required=True, metavar="MODULE:FUNCTION", help="The normalizer that fails.")
@click.option("--out", "out_file", type=click.Path(path_type=Path, dir_okay=False), help="[default: overwrite CAPTURE_FILE]")
def minimize(capture_file, normalizer_spec, out_file) -> None:
    """Shrink a failing capture (records, then members inside them) to the smallest that fails the same way."""
    from harness import reproduce
    from harness.broker import EmbeddedKafka

    document = _load_capture(capture_file)
    with EmbeddedKafka() as broker:
        try:
            records, signature = reproduce.minimize(_reproducer(broker, normalizer_spec, document["format"]), document["records"],
                                                    progress=Progress())
        except reproduce.ReproduceError as error:
            raise click.ClickException(str(error)) from error
    before = len(document["records"])
    document["records"] = records
    document.setdefault("provenance", {})["minimized"] = f"{before} -> {len(records)} records; fails with: {sorted(signature)}"
    reproduce.save(document, out_file or capture_file)
    click.echo(f"minimized {before} -> {len(records)} records, still failing with: {'; '.join(sorted(signature))}")


@cli.command()
@click.argument("capture_file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--normalizer", "normalizer_spec", required=True, metavar="MODULE:FUNCTION", help="The normalizer that fails.")
@click.option("--column", "columns", multiple=True, metavar="NAME", help="Redact the values of this column (repeatable).")
@click.option("--all-strings", is_flag=True, help="Redact every string value.")
@click.option("--out", "out_file", type=click.Path(path_type=Path, dir_okay=False), help="[default: overwrite CAPTURE_FILE]")
def redact(capture_file, normalizer_spec, columns, all_strings, out_file) -> None:
    """Replace values with stand-ins of the same shape; written only if the capture still fails the same way."""
    from harness import reproduce
    from harness.broker import EmbeddedKafka

    if not columns and not all_strings:
        raise Misuse("name what to redact: --column NAME (repeatable) or --all-strings")
    document = _load_capture(capture_file)
    with EmbeddedKafka() as broker:
        try:
            document["records"] = reproduce.redacted(_reproducer(broker, normalizer_spec, document["format"]),
                                                     document["records"], set(columns), all_strings)
        except reproduce.ReproduceError as error:
            raise click.ClickException(str(error)) from error
    document.setdefault("provenance", {})["redacted"] = "every string" if all_strings else ", ".join(sorted(columns))
    reproduce.save(document, out_file or capture_file)
    click.echo(f"redacted {len(document['records'])} records; the failure is unchanged")


@cli.command()
@click.argument("capture_file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--id", "case_id", required=True, help="The new case's id (its file name too).")
@click.option("--feature", "features", multiple=True, required=True, help="A registry feature the case is about (repeatable).")
@click.option("--title", default=None, help="[default: from the capture's provenance]")
@click.option("--versions", default="*", show_default=True, help="PEP 440 range of the format's versions.")
@click.option("--cases-dir", type=click.Path(path_type=Path, file_okay=False), default=None, help="[default: conformance/cases]")
@click.option("--golden-dir", type=click.Path(path_type=Path, file_okay=False), default=None, help="[default: golden]")
@click.option("--known-failure", "reason", default=None,
              help="Behaviour not approved yet: list the case as a known failure, for this reason (needs --expect).")
@click.option("--bug", default=None, help="Link to the bug, kept with the known failure.")
@click.option("--expect", "expect_file", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
              help="YAML: the expectation (a case's `expect`: events, quarantine) the case must meet once fixed.")
@click.option("--known-failures", "known_failures_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="[default: conformance/known_failures.yaml]")
def promote(capture_file, case_id, features, title, versions, cases_dir, golden_dir, reason, bug, expect_file,
            known_failures_file) -> None:
    """Turn a capture into a case under <cases>/<format>/: approved behaviour takes its expectation and golden file from
    the reference normalizer and must pass; with --known-failure it takes --expect and is listed as a known failure."""
    from harness import golden, reproduce
    from harness.broker import EmbeddedKafka
    from harness.cases import CASES_DIR
    from harness.roundtrip import RoundTrip
    from harness.spark import spark_session

    if (reason is None) != (expect_file is None) or (bug and reason is None):
        raise Misuse("--known-failure and --expect go together (and --bug needs them)")
    document = _load_capture(capture_file)
    cases_root, golden_root = cases_dir or CASES_DIR, golden_dir or golden.GOLDEN_DIR
    if (cases_root / document["format"] / f"{case_id}.yaml").exists():
        raise Misuse(f"case {case_id} exists already under {cases_root}")
    known_failure = reproduce.KnownFailure(_load_expectation(expect_file), reason, bug) if reason else None
    with EmbeddedKafka() as broker:
        try:
            path = reproduce.promote(RoundTrip(spark_session(), broker), document, case_id, list(features), versions, title,
                                     cases_root, golden_root, known_failure, known_failures_file)
        except reproduce.ReproduceError as error:
            raise click.ClickException(str(error)) from error
    if known_failure:
        click.echo(f"promoted {case_id} as a known failure: {path}, listed in known failures ({reason})")
    else:
        click.echo(f"promoted {case_id}: {path} and {golden.golden_path(document['format'], case_id, golden_root)}")


def _load_expectation(path: Path) -> dict:
    """A case's `expect` mapping; the case schema checks the rest when the case is loaded."""
    import yaml

    try:
        expect = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise Misuse(f"{path}: not YAML ({str(error).splitlines()[0]})") from error
    if not isinstance(expect, dict) or not expect:
        raise Misuse(f"{path}: give a mapping of events and/or quarantine, as a case's expect")
    return expect


@cli.command()
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


@cli.command()
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


@cli.command("lint")
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


@cli.command()
@click.option("--markdown", is_flag=True, help="Print the README's format table instead.")
def formats(markdown) -> None:
    """List the format registry: formats, versions, status, features."""
    registry = Registry.load()
    if markdown:
        click.echo(registry.markdown_table())
        return
    for format_id in sorted(registry.formats):
        for fv in registry.versions(format_id):
            click.echo(f"{fv.label:<28}{fv.status:<14}{', '.join(fv.features)}")


@cli.command()
@click.option("--format", "formats", multiple=True, type=click.Choice(Registry.load().decoded_formats()),
              help="Benchmark this format (repeatable) [default: ces-json].")
@click.option("--all", "every_format", is_flag=True, help="Benchmark every decoded format, one table.")
@click.option("--messages", type=click.IntRange(1000, 10_000_000), default=100_000, show_default=True)
@click.option("--repeat", type=click.IntRange(1, 10), default=3, show_default=True,
              help="Passes per side after the warm-up; the best counts (warm).")
@click.option("--growth", is_flag=True, help="Also run 10x the messages and print time(10x)/time(1x) (linear: 10).")
@click.option("--json", "json_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Also write the table as JSON.")
@UNDER_TEST_OPTION
def bench(formats, every_format, messages, repeat, growth, json_path, normalizer_spec) -> None:
    """Throughput of the normalizer vs a plain parsing pass over the same Kafka data (embedded broker)."""
    import json

    from harness import bench as benchmark
    from harness.broker import EmbeddedKafka
    from harness.spark import spark_session

    registry = Registry.load()
    if every_format and formats:
        raise Misuse("give either --all or --format")
    chosen = registry.decoded_formats() if every_format else (list(formats) or ["ces-json"])
    missing = [f for f in chosen if registry.generator(f) is None or registry.generator(f).bench is None]
    if missing:
        raise Misuse(f"--format {missing[0]}: its generator declares no benchmark data")
    under_test, progress = _normalizer(normalizer_spec), Progress()
    rows = []
    with EmbeddedKafka(heap="1g") as broker, progress.phase(f"benchmarking {len(chosen)} format(s)", total=len(chosen)) as done:
        for format_id in chosen:
            with progress.phase(f"{format_id}: {messages:,} messages, {repeat} pass(es)"):
                rows.append(benchmark.format_row(spark_session(), broker, under_test, registry.generator(format_id),
                                                 messages, repeat, growth))
            progress.note(f"{format_id}: {rows[-1].normalizer_rate:,.0f} msg/s ({rows[-1].ratio:.2f}x plain)")
            done()
    click.echo(benchmark.summary(rows))
    if json_path:
        json_path.write_text(json.dumps([row.as_json() for row in rows], indent=2) + "\n")


@cli.command()
@click.option("--records", type=click.IntRange(100, 10_000_000), default=10_000, show_default=True,
              help="At least this many mutated records per format.")
@click.option("--format", "formats", multiple=True, type=click.Choice(Registry.load().decoded_formats()),
              help="Soak only this format (repeatable) [default: every decoded format].")
@click.option("--seed", type=int, default=None, help="Draw the same records again [default: a fresh seed].")
@UNDER_TEST_OPTION
def soak(records, formats, seed, normalizer_spec) -> None:
    """Many mutated records per format through Kafka and Spark; crashes, wrong events, unaccounted records must be 0."""
    from harness import soak as soaking
    from harness.broker import EmbeddedKafka
    from harness.property import session_seed
    from harness.roundtrip import RoundTrip
    from harness.spark import spark_session

    registry = Registry.load()
    seed = session_seed() if seed is None else seed
    under_test, progress = _normalizer(normalizer_spec), Progress()
    chosen = formats or registry.decoded_formats()
    rows = []
    with EmbeddedKafka(heap="1g") as broker, progress.phase(f"soaking {len(chosen)} format(s)", total=len(chosen)) as done:
        roundtrip = RoundTrip(spark_session(), broker, under_test)
        for format_id in chosen:
            with progress.phase(f"{format_id}: {records:,} mutated records"):
                rows.append(soaking.soak(roundtrip, registry.generator(format_id), records, seed))
            done()
    click.echo(soaking.table(rows))
    sys.exit(0 if all(row.clean for row in rows) else 1)


@cli.command()
def jvm() -> None:
    """Resolve the JVM artifacts (Kafka broker, Spark connectors) and build the Avro guard with Maven into .cache/jvm."""
    from harness import jvm as artifacts

    artifacts.main()


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name=PROG, standalone_mode=False)
    except click.UsageError as error:
        message = error.format_message().splitlines()[0]
        click.echo(f"{PROG}: error: {message}", err=True)
        sys.exit(2)
    except click.ClickException as error:
        click.echo(f"{PROG}: {error.format_message()}", err=True)
        sys.exit(1)
    except BrokerError as error:  # unreachable, refused or failed delivery: the first line says which
        click.echo(f"{PROG}: {str(error).splitlines()[0]}", err=True)
        sys.exit(1)
    except click.Abort:
        sys.exit(130)


if __name__ == "__main__":
    main()
