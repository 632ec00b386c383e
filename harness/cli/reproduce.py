"""Reproducing a production failure: capture records, minimize them, redact them, promote them to a case."""
from __future__ import annotations

from pathlib import Path

import click

from cdc_conformance.harness.cli.common import DecodedFormat, Misuse, normalizer_under_test, written_path
from cdc_conformance.harness.progress import Progress
from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER


def _reproducer(broker, normalizer_spec: str, format_id: str):
    from cdc_conformance.harness.reproduce import Reproducer
    from cdc_conformance.harness.roundtrip import RoundTrip
    from cdc_conformance.harness.spark import spark_session

    function = normalizer_under_test(normalizer_spec)
    spark = spark_session(under_test=[function, normalizer_under_test(DEFAULT_NORMALIZER)])
    return Reproducer(RoundTrip(spark, broker, function), RoundTrip(spark, broker), format_id)


def _load_capture(path: Path) -> dict:
    from cdc_conformance.harness.reproduce import ReproduceError, load

    try:
        return load(path)
    except ReproduceError as error:
        raise Misuse(str(error)) from error


@click.command()
@click.option("--format", "format_id", required=True, type=DecodedFormat())
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
@click.option("-X", "properties", multiple=True, metavar="KEY=VALUE",
              help="A librdkafka client property, as kcat takes them (TLS, SASL: security.protocol, sasl.mechanism, "
                   "sasl.username, sasl.password, ssl.ca.location, ...); repeatable. Never written anywhere.")
@click.option("--client-properties", "properties_file", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              help="A file of KEY=VALUE client properties (# comments), read before -X.")
def capture(format_id, out_file, bootstrap_servers, topic, partitions, offsets, since, until, group, count, kcat_dump,
            properties, properties_file) -> None:
    """Capture exact records (bytes, headers, partition, offset) with their provenance into a capture file."""
    from cdc_conformance.harness import reproduce

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
            try:
                bounds = reproduce.parse_offsets(offsets) if offsets else None
                since_ms, until_ms = reproduce.epoch_ms(since), reproduce.epoch_ms(until)
                client = reproduce.client_properties(properties_file.read_text(encoding="utf-8") if properties_file else "",
                                                     properties)
            except ValueError as error:
                raise Misuse(str(error)) from error
            records, provenance = reproduce.capture_from_cluster(
                bootstrap_servers, topic, list(partitions) or None, bounds, since_ms, until_ms, group, count, Progress(), client)
    except reproduce.ReproduceError as error:
        raise click.ClickException(str(error)) from error
    if not records:
        raise click.ClickException("no records in the chosen range; nothing written")
    reproduce.save(reproduce.capture_document(format_id, records, provenance), out_file)
    click.echo(f"captured {len(records)} records ({provenance['coordinates']}) into {out_file}")


@click.command()
@click.argument("capture_file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--normalizer", "normalizer_spec", required=True, metavar="MODULE:FUNCTION", help="The normalizer that fails.")
@click.option("--out", "out_file", type=click.Path(path_type=Path, dir_okay=False), help="[default: overwrite CAPTURE_FILE]")
def minimize(capture_file, normalizer_spec, out_file) -> None:
    """Shrink a failing capture (records, then members inside them) to the smallest that fails the same way."""
    from cdc_conformance.harness import reproduce
    from cdc_conformance.harness.broker import EmbeddedKafka

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


@click.command()
@click.argument("capture_file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--normalizer", "normalizer_spec", required=True, metavar="MODULE:FUNCTION", help="The normalizer that fails.")
@click.option("--column", "columns", multiple=True, metavar="NAME", help="Redact the values of this column (repeatable).")
@click.option("--all-strings", is_flag=True, help="Redact every string value.")
@click.option("--out", "out_file", type=click.Path(path_type=Path, dir_okay=False), help="[default: overwrite CAPTURE_FILE]")
def redact(capture_file, normalizer_spec, columns, all_strings, out_file) -> None:
    """Replace values with stand-ins of the same shape; written only if the capture still fails the same way."""
    from cdc_conformance.harness import reproduce
    from cdc_conformance.harness.broker import EmbeddedKafka

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


@click.command()
@click.argument("capture_file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--id", "case_id", required=True, help="The new case's id (its file name too).")
@click.option("--feature", "features", multiple=True, required=True, help="A registry feature the case is about (repeatable).")
@click.option("--title", default=None, help="[default: from the capture's provenance]")
@click.option("--versions", default="*", show_default=True, help="PEP 440 range of the format's versions.")
@click.option("--cases-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="[default: ./cdc-cases; the suite's conformance/cases inside its checkout]")
@click.option("--golden-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="[default: ./cdc-golden; the suite's golden inside its checkout]")
@click.option("--known-failure", "reason", default=None,
              help="Behaviour not approved yet: list the case as a known failure, for this reason (needs --expect).")
@click.option("--bug", default=None, help="Link to the bug, kept with the known failure.")
@click.option("--expect", "expect_file", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
              help="YAML: the expectation (a case's `expect`: events, quarantine) the case must meet once fixed.")
@click.option("--known-failures", "known_failures_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="[default: ./cdc-known-failures.yaml; the suite's inside its checkout]")
@click.option("--normalizer", "normalizer_spec", default=None, metavar="MODULE:FUNCTION",
              help="With --known-failure: the normalizer that has the bug (the case must fail with it) [default: the reference].")
@click.option("--unredacted", is_flag=True, help="Promote a capture that was never redacted (it is production data: "
              "the case file will say so).")
def promote(capture_file, case_id, features, title, versions, cases_dir, golden_dir, reason, bug, expect_file,
            known_failures_file, normalizer_spec, unredacted) -> None:
    """Turn a capture into a case under <cases>/<format>/: approved behaviour takes its expectation and golden file from
    the reference normalizer and must pass; with --known-failure it takes --expect and is listed as a known failure."""
    from cdc_conformance.harness import golden, reproduce, suite_files
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.cases import CASES_DIR
    from cdc_conformance.harness.known_failures import KNOWN_FAILURES_FILE
    from cdc_conformance.harness.roundtrip import RoundTrip
    from cdc_conformance.harness.spark import spark_session

    if (reason is None) != (expect_file is None) or (bug and reason is None):
        raise Misuse("--known-failure and --expect go together (and --bug needs them)")
    if normalizer_spec and reason is None:
        raise Misuse("--normalizer applies to a --known-failure (approved behaviour comes from the reference normalizer)")
    failing_normalizer = normalizer_under_test(normalizer_spec) if normalizer_spec else None
    document = _load_capture(capture_file)
    # the suite's own directories only inside its checkout; from a user's repository, ./cdc-cases and ./cdc-golden
    cases_root = written_path(cases_dir, CASES_DIR, suite_files.USER_CASES, "--cases-dir")
    golden_root = written_path(golden_dir, golden.GOLDEN_DIR, suite_files.USER_GOLDEN, "--golden-dir")
    known_failures_file = written_path(known_failures_file, KNOWN_FAILURES_FILE, suite_files.USER_KNOWN_FAILURES,
                                       "--known-failures")
    if (cases_root / document["format"] / f"{case_id}.yaml").exists():
        raise Misuse(f"case {case_id} exists already under {cases_root}")
    _check_features(document["format"], versions, features)  # before any JVM starts: misuse is a one-line error
    if not document.get("provenance", {}).get("redacted"):
        if not unredacted:
            raise Misuse(f"{capture_file} was never redacted and holds production data: run `cdc-conformance redact` "
                         "first, or promote it with --unredacted")
        document.setdefault("provenance", {})["redacted"] = "no: promoted with --unredacted (production data)"
    known_failure = reproduce.KnownFailure(_load_expectation(expect_file), reason, bug) if reason else None
    with EmbeddedKafka() as broker:
        try:
            reference = normalizer_under_test(DEFAULT_NORMALIZER)
            spark = spark_session(under_test=[reference, *([failing_normalizer] if failing_normalizer else [])])
            failing = RoundTrip(spark, broker, failing_normalizer) if failing_normalizer else None
            path = reproduce.promote(RoundTrip(spark, broker), document, case_id, list(features), versions, title,
                                     cases_root, golden_root, known_failure, known_failures_file, failing)
        except reproduce.ReproduceError as error:
            raise click.ClickException(str(error)) from error
    if known_failure:
        click.echo(f"promoted {case_id} as a known failure: {path}, listed in known failures ({reason})")
    else:
        click.echo(f"promoted {case_id}: {path} and {golden.golden_path(document['format'], case_id, golden_root)}")


def _check_features(format_id: str, versions: str, features) -> None:
    """Every --feature is a feature of a version in the case's range (what the linter would reject later)."""
    from packaging.specifiers import InvalidSpecifier

    from cdc_conformance.harness.registry import Registry

    try:
        resolved = Registry.load().resolve(format_id, versions)
    except InvalidSpecifier as error:
        raise Misuse(f"--versions {versions}: not a PEP 440 range") from error
    available = {feature for fv in resolved for feature in fv.features}
    unknown = [f for f in features if f not in available]
    if unknown:
        raise Misuse(f"--feature {', '.join(unknown)}: not a feature of {format_id} {versions} "
                     f"(one of: {', '.join(sorted(available))})")


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


