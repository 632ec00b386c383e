"""Stopping the JVM processes the harness starts (broker, Connect worker), each in a session of its own."""
from __future__ import annotations

import os
import signal
import subprocess

# a JVM's log4j2 configuration: everything at `level` into the file `log` (formatted in)
LOG4J2_TO_FILE = """\
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = {level}
rootLogger.appenderRef.file.ref = file
"""


# every process group started through `started` and not stopped yet: what a forced exit must not leave behind
_running: set[subprocess.Popen] = set()


def started(process: subprocess.Popen) -> subprocess.Popen:
    """`process` (started in a session of its own), remembered until `stop_group` stops it."""
    _running.add(process)
    return process


def kill_all() -> None:
    """SIGKILL every remembered process group (a forced exit: see harness.cli.main)."""
    for process in list(_running):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _running.discard(process)


def stop_group(process: subprocess.Popen | None, grace: float = 30.0) -> None:
    """SIGTERM to the process's group, SIGKILL if it is still there after `grace` seconds; nothing if it ended."""
    _running.discard(process)
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def log_tail(path, lines: int, missing: str) -> str:
    """The last `lines` lines of a process's log file (`missing` when there is none yet, or no longer)."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except (OSError, TypeError, AttributeError):
        return missing
