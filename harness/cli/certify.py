"""`certify`: one format version, every supported one, or a re-check of the committed records."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from cdc_conformance.harness.cli.common import (
    SCHEMA_REGISTRY_OPTION,
    UNDER_TEST_OPTION,
    Misuse,
    normalizer_under_test,
    schema_registry_for,
    written_path,
)
from cdc_conformance.harness.progress import Progress
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER


@click.command()
@click.argument("target", nargs=-1, metavar="[FORMAT@VERSION]...")
@click.option("--all", "every_version", is_flag=True, help="Certify every supported version, one after another.")
@click.option("--check", "check_records", is_flag=True, help="Re-verify every certification record instead.")
@click.option("--examples", type=click.IntRange(10, 1_000_000), default=None,
              help="Examples per generic check (property, mutators, streaming) [default: 2000]; with --check, the fewest "
                   "a record may have been made with [default: 2000].")
@click.option("--seed", type=int, default=None, help="Hypothesis seed [default: a fresh one per version, recorded].")
@click.option("--producer", type=click.Choice(["generators", "real"]), default="generators", show_default=True,
              help="real: also run drawn histories through the version's real producer (docs/producers.md).")
@click.option("--histories", type=click.IntRange(1, 10_000), default=20, show_default=True,
              help="Histories through the real producer (--producer real).")
@click.option("--settings", "setting_names", default="default", show_default=True, metavar="NAME[,NAME]",
              help="The real producer's connector and converter settings, combined by commas (--producer real; "
                   "`producers --settings list` names them).")
@UNDER_TEST_OPTION
@click.option("--certifications-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where records are [default: ./cdc-certifications; the suite's reports/certifications for the "
                   "reference normalizer inside the suite's checkout].")
@click.option("--golden-dir", type=click.Path(path_type=Path, file_okay=False), default=None, help="Golden files [default: golden].")
@SCHEMA_REGISTRY_OPTION
def certify(target, every_version, check_records, examples, seed, producer, histories, setting_names, normalizer_spec,
            certifications_dir, golden_dir, schema_registry) -> None:
    """Certify FORMAT@VERSION (one or more: what ran is taken once, so a record written for one does not make the
    next one's suite commit "-dirty"), or --all supported versions (cases in range + generic checks), writing a record
    each; or --check every record. Progress goes to standard error."""
    from cdc_conformance.harness import certify as certification
    from cdc_conformance.harness import golden
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.cases import load_cases
    from cdc_conformance.harness.known_failures import load_known_failures
    from cdc_conformance.harness.reports import run_facts
    from cdc_conformance.harness.roundtrip import RoundTrip
    from cdc_conformance.harness.spark import spark_session

    if [bool(target), every_version, check_records].count(True) != 1:
        raise Misuse("give one of FORMAT@VERSION, --all or --check")
    examples = examples or certification.DEFAULT_EXAMPLES  # the count to run, or with --check the fewest accepted
    registry, cases = Registry.load(), load_cases()
    directory = _records_directory(certifications_dir, normalizer_spec)
    golden_root = golden_dir or golden.GOLDEN_DIR
    targets = [_format_version(registry, t) for t in target] if target else _supported_versions(registry) if every_version else []
    from cdc_conformance.harness.producers import settings as known

    try:
        setting = known.parse(setting_names)
    except ValueError as error:
        raise Misuse(f"--settings: {error}") from error
    if setting is not known.DEFAULT and producer != "real":
        raise Misuse("--settings chooses the real producer's settings: give --producer real too")
    if producer == "real":
        from cdc_conformance.harness.producers.checks import REAL_PRODUCER_FORMATS

        unrunnable = [fv.label for fv in targets if fv.format not in REAL_PRODUCER_FORMATS] or (
            ["--check"] if check_records else [])
        if unrunnable:
            raise Misuse(f"--producer real: {unrunnable[0]} has no real producer here "
                         f"(these do: {', '.join(REAL_PRODUCER_FORMATS)})")
    records = certification.load_records(directory) if check_records else []
    if check_records and not records:
        click.echo(f"no certification records in {directory}")
        return
    function, progress = normalizer_under_test(normalizer_spec), Progress()
    with EmbeddedKafka(heap="1g") as broker, schema_registry_for(schema_registry) as registry_client:
        roundtrip = RoundTrip(spark_session(under_test=function), broker, function, schema_registry=registry_client)
        if check_records:
            with progress.phase(f"checking {len(records)} certification record(s)"):
                problems = certification.check_all(roundtrip, registry, cases, records, load_known_failures(), golden_root,
                                                   examples)
            for problem in problems:
                click.echo(problem)
            click.echo(f"certifications: {len(records)} checked, {len(problems)} problem(s)")
            sys.exit(1 if problems else 0)
        failed = []
        # what ran, taken once before anything is written: a record written (and the registry marked) for one
        # version would otherwise make the next one's suite commit "-dirty"
        facts = run_facts({"normalizer": normalizer_spec, "normalizer_version": function.version})
        with progress.phase(f"certifying {len(targets)} version(s)", total=len(targets)) as done:
            for fv in targets:
                if not _certify_one(roundtrip, registry, cases, fv, examples, seed, facts, directory, golden_root, progress,
                                    histories if producer == "real" else 0, setting):
                    failed.append(fv.label)
                done()
    if len(targets) > 1:
        click.echo(f"certified {len(targets) - len(failed)} of {len(targets)} versions" + (f"; not certified: {', '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


def _records_directory(given: Path | None, normalizer_spec: str) -> Path:
    """The suite's own records certify the reference normalizer, inside the suite's checkout; every other record goes
    to the user's directory (./cdc-certifications unless given), never among the suite's, where it would stand for
    the reference (or land in an installed package)."""
    from cdc_conformance.harness import certify as certification
    from cdc_conformance.harness import suite_files

    reference = normalizer_spec == DEFAULT_NORMALIZER
    directory = written_path(given, certification.CERTIFICATIONS_DIR if reference else suite_files.USER_CERTIFICATIONS,
                             suite_files.USER_CERTIFICATIONS, "--certifications-dir")
    if not reference and directory.resolve() == certification.CERTIFICATIONS_DIR.resolve():
        raise Misuse(f"{directory} holds the suite's records of the reference normalizer; certify {normalizer_spec} "
                     "into a directory of your own (--certifications-dir)")
    return directory


def _format_version(registry: Registry, target: str):
    format_id, _, version = target.partition("@")
    fv = registry.version(format_id, version)
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


def _certify_one(roundtrip, registry, cases, fv, examples, seed, facts, directory, golden_root, progress,
                 histories: int = 0, setting=None) -> bool:
    """Certify one version and write its record (the registry says `certified` when the suite's own normalizer was
    certified into the suite's own directory); False, with its first problems printed, when it does not pass."""
    from cdc_conformance.harness import certify as certification
    from cdc_conformance.harness import suite_files
    from cdc_conformance.harness.contract import ContractViolation
    from cdc_conformance.harness.known_failures import load_known_failures
    from cdc_conformance.harness.property import session_seed

    seed = session_seed() if seed is None else seed
    real = {}
    if histories:  # --producer real: the record names the producer it ran against
        from cdc_conformance.harness.producers.checks import certification_check
        from cdc_conformance.harness.producers.postgres import ProducerUnavailable

        try:
            described, run = certification_check(roundtrip, registry.generator(fv.format), fv.version, setting)
        except ProducerUnavailable as error:
            raise click.ClickException(f"the real producers cannot run here: {error}") from error
        facts, real = {**facts, "producer": described}, {"real_producer": run, "histories": histories}
    try:
        record, problems = certification.certify(roundtrip, registry, cases, fv, examples, seed, load_known_failures(),
                                                 golden_root, facts, progress, **real)
    except ContractViolation as error:  # the generic checks run the normalizer outside the runner, which reports it
        record, problems = None, [str(error)]
    if problems or record is None:
        click.echo("\n".join([f"{fv.label} is not certified (seed {seed}):", *problems[:10]]))
        return False
    paths = certification.write(record, directory)
    if facts["normalizer"] == DEFAULT_NORMALIZER and directory.resolve() == certification.CERTIFICATIONS_DIR.resolve() \
            and fv.status != "certified" and suite_files.editing_the_suite():
        registry.mark_certified(fv, f"reports/certifications/{paths[0].name}")
    click.echo(f"{fv.label} certified: {len(record['cases'])} cases, {examples} examples per check, seed {seed}; "
               f"record: {', '.join(map(str, paths))}")
    return True


