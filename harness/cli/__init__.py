"""`cdc-conformance`: the conformance suite's command line, one module per workflow.

- suite: run, merge, gate, lint, formats
- certify: certify a format version, all of them, or re-check the records
- reproduce: capture, minimize, redact, promote
- tools: bench, soak, jvm

Exit codes: 0 = every case passed or failed as known; 1 = a failure; 2 = misuse (one line on stderr).
Nothing heavy is imported (or the registry read) until a command runs.
"""
from __future__ import annotations

import sys

import click

from harness.broker import BrokerError
from harness.cli import certify, producers, reproduce, suite, tools
from harness.cli.common import PROG


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Conformance suite for CDC message formats on Kafka and the Spark normalizer it certifies."""


for command in (suite.run, suite.merge, suite.gate, suite.lint_command, suite.formats, certify.certify,
                reproduce.capture, reproduce.minimize, reproduce.redact, reproduce.promote, tools.bench, tools.soak, tools.jvm,
                producers.producers):
    cli.add_command(command)


def main(argv: list[str] | None = None) -> None:
    import signal

    # a terminated run (CI's timeout, kill) unwinds like an interrupted one, so the embedded broker it started
    # stops with it (Python's default for SIGTERM ends the process at once and left the broker running)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
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
