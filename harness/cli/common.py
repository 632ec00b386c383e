"""What every command shares: the misuse error, the normalizer-under-test option, and a format argument that
reads the registry only when a command runs (not when the CLI is imported)."""
from __future__ import annotations

from pathlib import Path

import click

from harness.under_test import DEFAULT_NORMALIZER

PROG = "cdc-conformance"
DEFAULT_REPORTS = Path("reports") / "latest"


class Misuse(click.UsageError):
    """Raised for wrong arguments that click cannot see (unknown case ids, empty selections)."""


# every command that runs the normalizer under test names it the same way (its streaming entry, if any, is
# MODULE:FUNCTION_stream: harness/under_test.py)
UNDER_TEST_OPTION = click.option("--normalizer", "normalizer_spec", default=DEFAULT_NORMALIZER, show_default=True,
                                 metavar="MODULE:FUNCTION", help="The normalizer under test.")


def normalizer_under_test(spec: str):
    """The normalizer under test, or misuse naming the --normalizer value."""
    from harness.under_test import NormalizerUnderTest

    try:
        return NormalizerUnderTest.load(spec)
    except (ValueError, ImportError, AttributeError) as error:
        raise Misuse(f"--normalizer {spec}: {error}") from error




class DecodedFormat(click.ParamType):
    """A format id with a decoder in the registry (loaded on first use: `cdc-conformance --help` reads no registry)."""
    name = "FORMAT"

    def convert(self, value, param, ctx):
        from harness.registry import Registry

        decoded = Registry.load().decoded_formats()
        if value not in decoded:
            self.fail(f"{value!r} is not a decoded format (one of {', '.join(decoded)})", param, ctx)
        return value
