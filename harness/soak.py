"""The soak tier: many mutated records per format in one run through Kafka and Spark.

Each format gets at least `records` records, drawn as mutated examples (every mutator in turn), all
produced and normalized in one Spark job; then the envelope-extremes tier (every integer of the format's
valid record at its type's extremes, every text of a JSON one holding a lone surrogate) in a second job.
A soak counts what must be zero: crashes (the job or the harness stopped), wrong events (an example whose
events or quarantine codes differ from its oracle) and unaccounted records (invariant 2: every record in
one event's origin or in exactly one quarantine record).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from cdc_conformance.harness.generic import check_extremes, mutated_examples
from cdc_conformance.harness.property import run_batch
from cdc_conformance.harness.roundtrip import RoundTrip

# Drawn in chunks until a format has its records: a chunk of 200 gave 700-2,400 records where 500 were asked
# (a CES example is a dozen records), and the pytest slice paid for all of them; every mutator still applies
# within a chunk (mutated_examples tops up the ones none of its examples could take)
EXAMPLES_PER_DRAW = 50


@dataclass
class SoakFigures:
    format_id: str
    seed: int
    records: int = 0
    extremes: int = 0
    events: int = 0
    quarantined: int = 0
    crashes: int = 0
    wrong_events: int = 0
    unaccounted: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return self.crashes == self.wrong_events == self.unaccounted == 0


def soak(roundtrip: RoundTrip, generator, records: int, seed: int, extremes: bool = True) -> SoakFigures:
    """`extremes`: also run the envelope-extremes tier (the pytest slice leaves it to test_formats, which
    runs it for every format anyway)."""
    figures = SoakFigures(generator.format_id, seed)
    started = time.monotonic()
    examples = []
    draw = 0
    while figures.records < records:  # each draw has its own seed: new examples, not the same ones again
        drawn, _ = mutated_examples(generator, EXAMPLES_PER_DRAW, seed + draw)
        examples += drawn
        figures.records += sum(len(example.expected) for example in drawn)
        draw += 1
    try:
        result = run_batch(roundtrip, generator.format_id, examples, seed, generator.ordered_within_partition)
    except Exception as error:  # the point of a soak: a crash is a figure, reported with the others
        figures.crashes, figures.problems = 1, [f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"]
    else:
        figures.events, figures.quarantined = len(result.output.events), len(result.output.quarantine)
        unaccounted = result.output.accounting_problems()
        figures.unaccounted = len(unaccounted)
        wrong = [failure for failure in result.failures if failure.startswith("example ")]
        figures.wrong_events = len(wrong)
        figures.problems = (wrong + unaccounted)[:3]
    if extremes:
        _soak_extremes(roundtrip, generator, figures)
    figures.seconds = time.monotonic() - started
    return figures


def _soak_extremes(roundtrip: RoundTrip, generator, figures: SoakFigures) -> None:
    """The extremes tier's records and findings, counted with the soak's own."""
    figures.extremes, problems = check_extremes(roundtrip, generator)
    crashed = [p for p in problems if p.startswith("the job failed")]
    wrong = [p for p in problems if "expected NOT_UTF8" in p]
    figures.crashes += len(crashed)
    figures.wrong_events += len(wrong)
    figures.unaccounted += len(problems) - len(crashed) - len(wrong)
    figures.problems += [f"extremes: {p}" for p in problems[:3]]


def table(rows: list[SoakFigures]) -> str:
    header = (f"{'format':<22}{'records':>9}{'extremes':>10}{'events':>9}{'quarantined':>13}{'crashes':>9}"
              f"{'wrong events':>14}{'unaccounted':>13}{'seconds':>9}")
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(f"{r.format_id:<22}{r.records:>9,}{r.extremes:>10,}{r.events:>9,}{r.quarantined:>13,}{r.crashes:>9}{r.wrong_events:>14}"
                     f"{r.unaccounted:>13}{r.seconds:>9.0f}")
    for r in rows:
        lines += [f"{r.format_id} (seed {r.seed}): {problem}" for problem in r.problems]
    return "\n".join(lines)
