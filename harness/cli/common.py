"""What every command shares: the misuse error, the normalizer-under-test option, a format argument that reads the
registry only when a command runs (not when the CLI is imported), the selection of cases, and Spark with a broker."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click

from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER

PROG = "cdc-conformance"
DEFAULT_REPORTS = Path("reports") / "latest"


class Misuse(click.UsageError):
    """Raised for wrong arguments that click cannot see (unknown case ids, empty selections)."""


# every command that runs the normalizer under test names it the same way (its streaming entry, if any, is
# MODULE:FUNCTION_stream: harness/under_test.py)
UNDER_TEST_OPTION = click.option("--normalizer", "normalizer_spec", default=DEFAULT_NORMALIZER, show_default=True,
                                 metavar="MODULE:FUNCTION", help="The normalizer under test.")


SCHEMA_REGISTRY_OPTION = click.option(
    "--schema-registry", "schema_registry", metavar="URL", default=None,
    help="The Confluent-compatible API of a schema registry of your own, for the formats whose records name schemas by "
         "id (debezium-avro) [default: the suite's own, started when a format needs it].")


def schema_registry_for(url: str | None):
    """The run's schema registry: the one at `url`, else the suite's own, started on first use."""
    from cdc_conformance.harness.schema_registry import ExternalSchemaRegistry, LazySchemaRegistry

    if url is not None and not url.startswith(("http://", "https://")):
        raise Misuse(f"--schema-registry {url}: an http:// or https:// URL")
    return ExternalSchemaRegistry(url) if url else LazySchemaRegistry()


def normalizer_under_test(spec: str, option: str = "--normalizer"):
    """The normalizer under test, or misuse naming the option's value (one line, whatever its import raised)."""
    from cdc_conformance.harness.under_test import NormalizerNotLoadable, NormalizerUnderTest

    try:
        return NormalizerUnderTest.load(spec)
    except NormalizerNotLoadable as error:
        raise Misuse(f"{option} {error}") from error


def written_path(given: Path | None, suite_default: Path, user_default: Path, option: str) -> Path:
    """A path a command writes: as given; else the suite's own inside the suite's checkout, the user's (relative to the
    working directory) anywhere else. The suite's own files are read-only from a user's repository."""
    from cdc_conformance.harness import suite_files

    if given is None:
        return suite_default if suite_files.editing_the_suite() else user_default
    if suite_files.read_only(given):
        raise Misuse(f"{option} {given}: that is the suite's own data, read-only here; give a path in your repository")
    return given


class DecodedFormat(click.ParamType):
    """A format id with a decoder in the registry (loaded on first use: `cdc-conformance --help` reads no registry)."""
    name = "FORMAT"

    def convert(self, value, param, ctx):
        from cdc_conformance.harness.registry import Registry

        decoded = Registry.load().decoded_formats()
        if value not in decoded:
            self.fail(f"{value!r} is not a decoded format (one of {', '.join(decoded)})", param, ctx)
        return value


def selected_cases(cases, case_ids, formats, registry):
    """The cases chosen by id and format, or misuse saying why none is (an unknown id, a format without cases)."""
    from cdc_conformance.harness.cases import EmptySelection, select

    try:
        return select(cases, case_ids, formats, registry.decoded_formats())
    except EmptySelection as error:
        raise Misuse(str(error)) from error


@contextmanager
def started_with_spark(broker, under_test):
    """The Spark session for `under_test` (one normalizer, or several: their jars on its classpath; with the quick
    JIT: `run` is a few short jobs), with `broker` started and stopped on
    the way out (told of any error). An embedded broker starts on a thread of its own while this one starts
    Spark (their start-ups overlap: about 2 s of `make run`); another backend is reached first, so that an
    unreachable one is a one-line error before any JVM of Spark's says a word."""
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.spark import spark_session

    with ExitStack() as stack:
        if not isinstance(broker, EmbeddedKafka):
            stack.enter_context(broker)
            yield spark_session(quick_start=True, under_test=under_test)
            return
        with ThreadPoolExecutor(max_workers=1) as pool:
            starting = pool.submit(broker.__enter__)
            try:
                spark = spark_session(quick_start=True, under_test=under_test)
            finally:
                if starting.exception() is None:
                    stack.push(broker)
        starting.result()
        yield spark
