"""`cdc-conformance`: the conformance suite's command line, one module per workflow.

- suite: run, merge, gate, lint, formats
- peers: the reference and the ecosystem's consumers side by side
- certify: certify a format version, all of them, or re-check the records
- reproduce: capture, minimize, redact, promote
- tools: bench, soak, jvm, broker

Exit codes: 0 = every case passed or failed as known; 1 = a failure; 2 = misuse (one line on stderr).
Nothing heavy is imported (or the registry read) until a command runs.
"""
from __future__ import annotations

import sys
from collections.abc import Callable

import click

from cdc_conformance.harness.broker import BrokerError
from cdc_conformance.harness.cli import certify, peers, producers, reproduce, suite, tools
from cdc_conformance.harness.cli.common import PROG
from cdc_conformance.harness.jvm import ArtifactError
from cdc_conformance.harness.known_failures import KnownFailuresError
from cdc_conformance.jvm_classes import JvmBuildError


def _print_version(context: click.Context, _parameter, given: bool) -> None:
    """The release teams pin, and the commit it was built from (a certification record names both)."""
    if not given or context.resilient_parsing:
        return
    from cdc_conformance.harness import suite_files

    click.echo(f"{PROG} {suite_files.suite_version()} (commit {suite_files.suite_commit() or 'unknown'})")
    context.exit(0)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the suite's version and commit, and exit.")
def cli() -> None:
    """Conformance suite for CDC message formats on Kafka and the Spark normalizer it certifies."""


for command in (suite.run, suite.merge, suite.gate, suite.lint_command, suite.formats, certify.certify,
                reproduce.capture, reproduce.minimize, reproduce.redact, reproduce.promote, tools.bench, tools.soak, tools.jvm,
                tools.broker_command,
                producers.producers, peers.peers):
    cli.add_command(command)


TERMINATION_GRACE = 10.0  # seconds a terminated run has to unwind before it is ended by force


_terminating: list[bool] = []  # set by SIGTERM: however the run unwinds, it exits 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is: a KeyboardInterrupt (Hypothesis lets one through at once; a SystemExit it
    took for a failure to replay and shrink, exit 1 and a long traceback, or no end at all), of its own class so
    CPython's rule for an unhandled KeyboardInterrupt itself (end the process with SIGINT) never applies."""


def _terminated(*_) -> None:
    """SIGTERM: unwind, and end the process by force if that has not happened within the grace. Found when a
    reordered test run sent SIGTERM a second later than before, into a soak drawing its examples. An exception
    raised where a weakref callback runs is printed and dropped, so the run went on: the grace covers that case.
    From here on SIGINT and SIGTERM are ignored: one termination, unwound once."""
    import signal
    import threading

    if _terminating:
        return
    _terminating.append(True)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_force_exit, daemon=True).start()
    raise Terminated


def _force_exit() -> None:
    import os
    import time

    from cdc_conformance.harness import processes

    time.sleep(TERMINATION_GRACE)
    processes.kill_all()  # the brokers and Connect workers this process started (their temp directories stay);
    # Spark's JVM ends with its parent
    os._exit(143)


def main(argv: list[str] | None = None) -> None:
    terminable(lambda: _main(argv))


def terminable(body: Callable[[], object]) -> object:
    """`body()` in a process that SIGTERM ends as it ends the suite's own commands: a terminated run (CI's timeout,
    kill) unwinds like an interrupted one, so the embedded broker it started stops with it (Python's default for
    SIGTERM ends the process at once and left the broker running), and exits 143. The developer's scripts that start
    a broker run their `main` through it (a terminated `operator_floor.py` left its broker running)."""
    import signal

    signal.signal(signal.SIGTERM, _terminated)
    try:
        return body()
    except BaseException:
        if _terminating:
            _exit_terminated()  # whatever the unwinding became on its way (an error wrapping the SystemExit)
        raise


def _exit_terminated() -> None:
    """Exit 143 once a terminated run has unwound (its brokers stopped by their context managers): the atexit
    handlers run, the interpreter's own finalization does not. CI once saw the soak end by SIGINT (-2, no traceback)
    instead of 143, not reproduced here; finalization (where signal handlers go back to their defaults and threads
    are joined) is the part of the way out this skips, and SIGINT is ignored from the SIGTERM on."""
    import atexit
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(143)


def _main(argv: list[str] | None) -> None:
    try:
        cli.main(args=argv, prog_name=PROG, standalone_mode=False)
    except click.UsageError as error:
        message = error.format_message().splitlines()[0]
        click.echo(f"{PROG}: error: {message}", err=True)
        sys.exit(2)
    except KnownFailuresError as error:  # a hand-written file of the user's: which entry, and what was expected
        click.echo(f"{PROG}: error: {error}", err=True)
        sys.exit(2)
    except click.ClickException as error:
        click.echo(f"{PROG}: {error.format_message()}", err=True)
        sys.exit(1)
    except BrokerError as error:  # unreachable, refused or failed delivery: the first line says which
        click.echo(f"{PROG}: {str(error).splitlines()[0]}", err=True)
        sys.exit(1)
    except (ArtifactError, JvmBuildError) as error:  # a JVM part could not be had (Maven, javac): what the tool said, no traceback
        click.echo(f"{PROG}: {error}", err=True)
        sys.exit(1)
    except click.Abort:
        sys.exit(130)


if __name__ == "__main__":
    main()
