"""The conformance runner: cases in, one result per case x format@version x mode out.

Each case's records go to topics of their own (a run-unique prefix on the case's topic names), all
cases of one format are normalized in one Spark job, and the output is split back per case by topic.
Topic names and offsets in the rendered output are the case's own, so golden files are stable.
"""
from __future__ import annotations

import json
import time
import traceback
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from cdc_conformance.harness import accounting, golden, known_failures, suite_files
from cdc_conformance.harness.cases import Case
from cdc_conformance.harness.registry import FormatVersion, Registry
from cdc_conformance.harness.roundtrip import RoundTrip, RunOutput

PASS, FAIL, XFAIL, XPASS, ERROR, SKIP = "PASS", "FAIL", "XFAIL", "XPASS", "ERROR", "SKIP"
# a normalizer that expresses less than the model (harness/expressed.py)
REFUSED, LOST, NOT_EXPRESSED = "REFUSED", "LOST", "NOT_EXPRESSED"
FAILING_STATUSES = {FAIL, XPASS, ERROR, REFUSED, LOST}


@dataclass
class CaseResult:
    case: Case
    status: str
    mode: str
    format_versions: list[FormatVersion]
    problems: list[str] = field(default_factory=list)
    output: dict | None = None
    seconds: float = 0.0
    known_failure_reason: str | None = None
    replay_options: str = ""  # what else the run was given (normalizer, directories, broker), so replay is exact

    @property
    def replay(self) -> str:
        return f"cdc-conformance run --case {self.case.id}{self.replay_options}"

    @property
    def quarantined(self) -> int:
        return len((self.output or {}).get("quarantine", []))


@dataclass
class SuiteResult:
    results: list[CaseResult]
    suite_problems: list[str]
    seconds: float
    golden: golden.Tally = field(default_factory=golden.Tally)

    @property
    def failed(self) -> bool:
        return bool(self.suite_problems) or any(r.status in FAILING_STATUSES for r in self.results)


def replay_options(normalizer_spec: str | None = None, cases_dir=None, golden_dir=None, known_failures_file=None,
                   broker: str | None = None, bootstrap_servers=None, kafka_image=None, remote=None) -> str:
    """The options a replay command needs to run a case exactly as this run did (the defaults left out), for the
    CLI's `run` and the pytest plugin alike: a replayed failure must run the same normalizer on the same files."""
    import shlex

    from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER

    given = [("--normalizer", None if normalizer_spec in (None, DEFAULT_NORMALIZER) else normalizer_spec),
             ("--cases-dir", cases_dir), ("--golden-dir", golden_dir), ("--known-failures", known_failures_file),
             ("--broker", None if broker in (None, "embedded") else broker), ("--bootstrap-servers", bootstrap_servers),
             ("--kafka-image", kafka_image), ("--remote", remote)]
    return "".join(f" {option} {shlex.quote(str(value))}" for option, value in given if value is not None)


# ---------------------------------------------------------------------------------------------------
# Rendering: physical topics back to the case's own
# ---------------------------------------------------------------------------------------------------

def _logical(topic: str, prefix: str) -> str:
    return topic[len(prefix):] if topic.startswith(prefix) else topic


def _render_event(event: dict, prefix: str) -> dict:
    event = json.loads(json.dumps(event))
    for origin in event["origin"]:
        origin["topic"] = _logical(origin["topic"], prefix)
    event["event_id"] = _logical(event["event_id"], prefix)
    return event


def _render_quarantine(record: dict, prefix: str) -> dict:
    record = dict(record)
    record["origin"] = [{**o, "topic": _logical(o["topic"], prefix)} for o in record["origin"]]
    record["raw_key"] = golden.readable_bytes(record["raw_key"])
    record["raw_value"] = golden.readable_bytes(record["raw_value"])
    record["raw_headers"] = [{"key": h["key"], "value": golden.readable_bytes(h["value"])}
                             for h in (record.get("raw_headers") or [])]
    return record


# ---------------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------------

def check_expectation(case: Case, output: dict) -> list[str]:
    """The hand-written expectation: listed fields of each event, and the exact quarantine codes."""
    problems = []
    expected_events = case.expect.get("events", [])
    actual_events = output["events"]
    if len(expected_events) != len(actual_events):
        problems.append(f"expected {len(expected_events)} events, got {len(actual_events)}: "
                        f"{[e['kind'] + ('/' + e['op'] if e.get('op') else '') for e in actual_events]}")
    for index, (want, got) in enumerate(zip(expected_events, actual_events)):
        for name, value in want.items():
            if got.get(name) != value:
                problems.append(f"events[{index}].{name}: expected {json.dumps(value, sort_keys=True)}, "
                                f"got {json.dumps(got.get(name), sort_keys=True)}")
    coordinates = case.coordinates()
    want_quarantine = sorted((coordinates[q["record"]], q["phase"], q["code"]) for q in case.expect.get("quarantine", []))
    got_quarantine = sorted((accounting.coordinate(o), q["phase"], q["code"])
                            for q in output["quarantine"] for o in q["origin"])
    if want_quarantine != got_quarantine:
        problems.append(f"quarantine: expected {want_quarantine}, got {got_quarantine}")
    return problems


def check_accounting(case: Case, output: dict) -> list[str]:
    return accounting.problems(case.coordinates(), output["events"], output["quarantine"])


# ---------------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------------

@dataclass
class _Trip:
    """One format's round trip: the topic prefix of each case, and the output or why there is none."""
    prefixes: dict[str, str]
    output: RunOutput | None
    seconds: float
    failure: str = ""
    trace: str = ""


@dataclass
class Runner:
    roundtrip: RoundTrip
    registry: Registry
    known_failures: dict[str, str]
    update_golden: bool = False
    keep_orphans: bool = False      # with a full-selection update: leave golden files of no case in place
    mode: str = "batch"
    golden_root: Path = golden.GOLDEN_DIR
    concurrent_formats: int = 2     # formats whose round trips run at once (one per core of this machine kind)
    replay_options: str = ""        # appended to each result's replay command (the run's own options)
    obtained_root: Path | None = None  # where mismatching outputs go [default: beside their golden files]
    # golden files of no case are reported only when the golden files belong to the cases run (a user's own
    # cases against the suite's golden files would make every other golden file an "orphan")
    check_orphans: bool = True
    known_failures_file: str | None = None  # the file given, named in the advice for a case that passes now

    def __post_init__(self):
        # never into the installed suite: mismatching outputs of the suite's golden files go to .cdc-obtained/
        # unless the run is inside the suite's checkout (harness/suite_files.py), whoever made the Runner
        self.obtained_root = suite_files.obtained_root(self.golden_root, self.obtained_root)

    def run(self, cases: list[Case], all_cases: list[Case] | None = None) -> SuiteResult:
        started = time.monotonic()
        run_id = uuid.uuid4().hex[:8]
        tally = golden.Tally()
        # one job per format and the options its cases are read with (a flattening SMT's cases apart)
        groups: dict[tuple, list[Case]] = {}
        for case in sorted(cases, key=lambda c: c.format):
            groups.setdefault((case.format, tuple(sorted(case.options.items()))), []).append(case)
        # formats round-trip concurrently: a job's driver plans and compiles on one core while the other runs
        # tasks (Spark runs jobs of several threads side by side); checks and golden files stay on this thread
        def round_trip(numbered) -> _Trip:
            index, ((format_id, options), group) = numbered
            return self._round_trip(format_id, group, f"{run_id}-{index}", dict(options))

        with ThreadPoolExecutor(max_workers=self.concurrent_formats) as pool:
            trips = pool.map(round_trip, enumerate(groups.items()))
            results = [r for group, trip in zip(groups.values(), trips) for r in self._check_format(group, trip, tally)]
        all_cases = all_cases if all_cases is not None else cases
        problems = self._orphans(cases, all_cases, tally)
        problems += [f"known failure {case_id!r} names no case"
                     for case_id in known_failures.orphans(self.known_failures, {c.id for c in all_cases})]
        order = {c.id: i for i, c in enumerate(cases)}
        results.sort(key=lambda r: order[r.case.id])
        return SuiteResult(results, problems, time.monotonic() - started, tally)

    def _orphans(self, cases: list[Case], all_cases: list[Case], tally: golden.Tally) -> list[str]:
        """Golden files of no case: only a run of the full selection can tell (syrupy's rule)."""
        if len(cases) != len(all_cases) or not self.check_orphans:
            return []
        orphans = golden.orphans(all_cases, self.golden_root)
        if self.update_golden and not self.keep_orphans:
            for path in orphans:
                path.unlink()
            tally.removed += len(orphans)
            return []
        return [f"golden file {suite_files.shown(p)} belongs to no case" for p in orphans]

    def _round_trip(self, format_id: str, cases: list[Case], run_id: str, options: dict[str, str]) -> _Trip:
        """Every case of one format through the broker and the normalizer, in one job."""
        # unique per run, format and case: cases of different formats may name the same topics
        prefixes = {case.id: f"cc.{run_id}.{format_id}.{index}." for index, case in enumerate(cases)}
        records, partitions = [], {}
        for case in cases:
            prefix = prefixes[case.id]
            records += case.kafka_records(lambda topic: prefix + topic)
            partitions.update({prefix + topic: count for topic, count in case.partitions().items()})
        started = time.monotonic()
        try:
            output = self.roundtrip.run(records, format_id, partitions, options)
        except Exception as error:  # the normalizer under test failed the whole job: every case errors
            detail = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            return _Trip(prefixes, None, 0.0, f"normalizer failed: {detail}", traceback.format_exc(limit=3))
        return _Trip(prefixes, output, (time.monotonic() - started) / max(len(cases), 1))

    def _check_format(self, cases: list[Case], trip: _Trip, tally: golden.Tally) -> list[CaseResult]:
        if trip.output is None:
            return [self._result(case, [trip.failure], None, 0.0, error=True, trace=trip.trace) for case in cases]
        results = []
        for case in cases:
            prefix = trip.prefixes[case.id]
            own = {prefix + topic for topic in case.partitions()}
            rendered = {
                "events": [_render_event(e, prefix) for e in trip.output.events if e["origin"][0]["topic"] in own],
                "quarantine": [_render_quarantine(q, prefix) for q in trip.output.quarantine
                               if q["origin"][0]["topic"] in own],
            }
            if not self.roundtrip.normalizer.expression.whole_model:
                results.append(self._expressed_result(case, rendered, trip.seconds))
                continue
            problems = check_expectation(case, rendered) + check_accounting(case, rendered)
            # a failing case is never approved: --update-golden only writes what meets the expectation
            unmet = bool(problems)
            problems += golden.check(case, rendered, self.update_golden and not problems, self.golden_root, tally,
                                     self.obtained_root, f"cdc-conformance run --case {case.id}{self.replay_options}")
            if not unmet and self.expected_failure(case) and not golden.golden_path(case.format, case.id, self.golden_root).exists():
                # a known failure never had a golden file (none is written for a failing case): meeting its
                # expectation is passing, or it would stay an expected failure for ever once fixed
                problems = []
            results.append(self._result(case, problems, rendered, trip.seconds))
        return results

    def _expressed_result(self, case: Case, rendered: dict, seconds: float) -> CaseResult:
        """A normalizer that expresses less than the model (a peer) is judged on what it expresses, against the golden
        file: the reference's approved output (harness/expressed.py). The suite's known failures are the reference's."""
        from cdc_conformance.harness.expressed import Expectation, Output, verdict

        approved = golden.read(golden.golden_path(case.format, case.id, self.golden_root))
        if approved is None:
            return CaseResult(case, FAIL, self.mode, self.registry.resolve(case.format, case.versions),
                              ["no golden file: a normalizer that expresses part of the model is compared with the "
                               "reference's approved output"], rendered, seconds, None, self.replay_options)
        status, problems = verdict(Expectation.of(case.coordinates(), approved), Output.of(rendered),
                                   self.roundtrip.normalizer.expression)
        return CaseResult(case, status, self.mode, self.registry.resolve(case.format, case.versions), problems, rendered,
                          seconds, None, self.replay_options)

    def expected_failure(self, case: Case) -> str | None:
        """Why the case is expected to fail: its format is planned, or it is listed as a known failure."""
        if not self.registry.decoded(case.format):
            return f"format {case.format} is planned: no decoder yet"
        return self.known_failures.get(case.id)

    def _result(self, case: Case, problems: list[str], output: dict | None, seconds: float,
                error: bool = False, trace: str = "") -> CaseResult:
        versions = self.registry.resolve(case.format, case.versions)
        reason = self.expected_failure(case)
        if reason is not None:
            status = XFAIL if problems else XPASS
            if status == XPASS:
                problems = [known_failures.passing_advice(case, reason, self.registry.decoded(case.format),
                                                          self.known_failures_file, self.replay_options)]
        else:
            status = (ERROR if error else FAIL) if problems else PASS
        return CaseResult(case, status, self.mode, versions, problems, output, seconds, reason, self.replay_options)
