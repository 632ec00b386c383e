"""Progress of long commands (certify, soak, bench, minimize, capture) on standard error.

On a terminal: a rich progress line per phase (what, items done/total, elapsed). Elsewhere (CI logs, pipes): plain
lines, one when a phase starts and one when it ends, with its elapsed seconds, so a log shows where the minutes went.
Always standard error, so `--json` and report output on standard output stay parseable; `quiet()` says nothing.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Progress:
    """`with progress.phase("certify ces-json@1: property", total=4) as step: ... step()` per item done."""

    def __init__(self, stream=None, terminal: bool | None = None, enabled: bool = True):
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.enabled = enabled
        self.started = time.monotonic()
        self._bar: Any = None  # the live rich display (rich.progress.Progress) while a phase runs on a terminal
        self._depth = 0

    def note(self, text: str) -> None:
        """One line, outside any phase (a finding, a phase's verdict)."""
        if self.enabled and self._bar is not None:
            self._bar.console.print(text)
        elif self.enabled:
            print(f"[{self._elapsed()}] {text}", file=self.stream, flush=True)

    @contextmanager
    def phase(self, name: str, total: int | None = None) -> Iterator:
        if not self.enabled:
            yield lambda advance=1: None
        elif self.terminal:
            with self._rich_phase(name, total) as step:
                yield step
        else:
            with self._plain_phase(name, total) as step:
                yield step

    @contextmanager
    def _plain_phase(self, name: str, total: int | None) -> Iterator:
        began, done = time.monotonic(), [0]
        self.note(f"{name} ..." + (f" ({total})" if total else ""))

        def step(advance: int = 1) -> None:
            done[0] += advance

        yield step
        counted = f"{done[0]}/{total}, " if total else (f"{done[0]}, " if done[0] else "")
        self.note(f"{name}: done ({counted}{time.monotonic() - began:.1f} s)")

    @contextmanager
    def _rich_phase(self, name: str, total: int | None) -> Iterator:
        """Phases nest (certify --all: a version, then its checks); rich allows one live display, so they share one."""
        if self._bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bar

            self._bar = Bar(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=Console(file=self.stream))
            self._bar.start()
        bar = self._bar
        self._depth += 1
        task = bar.add_task(("  " * (self._depth - 1)) + name, total=total)
        try:
            yield lambda advance=1: bar.advance(task, advance)
        finally:
            bar.update(task, completed=total or 1, total=total or 1)
            self._depth -= 1
            if self._depth == 0:
                bar.stop()
                self._bar = None

    def _elapsed(self) -> str:
        seconds = int(time.monotonic() - self.started)
        return f"{seconds // 60:d}:{seconds % 60:02d}"


def quiet() -> Progress:
    return Progress(enabled=False)
