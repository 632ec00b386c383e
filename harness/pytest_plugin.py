"""The suite as a pytest plugin (entry point `pytest11`), for a normalizer's own repository:

    pytest --cdc-normalizer mypkg.job:normalize [--cdc-format debezium-json] [--cdc-cases DIR --cdc-golden DIR]

adds one test per conformance case (and one for the suite's integrity), run on the embedded broker and
Spark against that normalizer. Without --cdc-normalizer the plugin does nothing.

It is the CLI's `run` inside pytest, not a second mechanism: the same selection (a selection that matches nothing,
an unknown format or a normalizer that cannot be loaded is a usage error, never a green run of nothing), the same
known-failures rule, the same replay command (with every option the run was given), the same default paths.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

_RUN = pytest.StashKey[object]()


def pytest_addoption(parser):
    group = parser.getgroup("cdc-conformance")
    group.addoption("--cdc-normalizer", metavar="MODULE:FUNCTION", default=None,
                    help="run the CDC conformance suite against this normalizer")
    group.addoption("--cdc-format", action="append", default=[], metavar="FORMAT", help="only cases of this format (repeatable)")
    group.addoption("--cdc-case", action="append", default=[], metavar="ID", help="only this case (repeatable)")
    group.addoption("--cdc-cases", default=None, metavar="DIR", help="case files [default: the suite's own]")
    group.addoption("--cdc-golden", default=None, metavar="DIR", help="golden files [default: the suite's own]")
    group.addoption("--cdc-known-failures", default=None, metavar="FILE",
                    help="known failures [default: the suite's own for the suite's cases, none for --cdc-cases]")
    group.addoption("--cdc-obtained", default=None, metavar="DIR",
                    help="where outputs that differ from their golden files go [default: beside your --cdc-golden files, "
                         "or .cdc-obtained/ in the rootdir when the golden files are the suite's own]")
    group.addoption("--cdc-remote", default=None, metavar="sc://HOST:PORT",
                    help="run on a Spark Connect server holding the normalizer's jars [env: CDC_SPARK_REMOTE]")
    group.addoption("--cdc-reports", default=None, metavar="DIR",
                    help="also write the run's reports here (results.jsonl for `cdc-conformance gate`, JUnit, matrix)")
    group.addoption("--cdc-schema-registry", default=None, metavar="URL",
                    help="the Confluent-compatible API of a schema registry of your own, for formats whose records name "
                         "schemas by id (debezium-avro) [default: the suite's own, started when a format needs it]")


_OPTIONS = ("--cdc-format", "--cdc-case", "--cdc-cases", "--cdc-golden", "--cdc-known-failures", "--cdc-obtained",
            "--cdc-remote", "--cdc-reports", "--cdc-schema-registry")


def pytest_configure(config):
    """Any of the suite's options without a normalizer is a usage error: a CI job that lost --cdc-normalizer must not
    go green having run no case."""
    normalizer = config.getoption("--cdc-normalizer")
    given = [name for name in _OPTIONS if config.getoption(name)]
    if normalizer is not None and not normalizer.strip():
        raise pytest.UsageError("cdc-conformance: --cdc-normalizer is empty; give MODULE:FUNCTION")
    if normalizer is None and given:
        raise pytest.UsageError(f"cdc-conformance: {', '.join(given)} without --cdc-normalizer MODULE:FUNCTION "
                                "(the normalizer to run the suite against)")


def pytest_collection_modifyitems(session, config, items):
    if not config.getoption("--cdc-normalizer"):
        return
    run = PluginRun.of(config)  # a usage error here, before any broker or Spark starts
    config.stash[_RUN] = run
    suite = ConformanceSuite.from_parent(session, name="cdc-conformance")
    items.extend(suite.collect())


def pytest_sessionfinish(session, exitstatus):
    run = session.config.stash.get(_RUN, None)
    if run is not None and run.result is not None and run.reports_dir is not None:
        run.write_reports()


class CaseFailed(AssertionError):
    """A case's own verdict: shown as its message alone (the case, its problems, the replay command), not as a
    traceback through pytest's and the plugin's frames."""


@dataclass
class PluginRun:
    """What the options ask for, checked once; the whole selection runs once, in one broker and Spark session, the
    first time an item asks."""

    under_test: Any  # harness.under_test.NormalizerUnderTest, imported where the run starts
    cases: list
    selected: list
    known_failures: dict
    golden_root: Path
    obtained_root: Path | None
    replay_options: str
    reports_dir: Path | None
    check_orphans: bool
    known_failures_file: str | None = None
    schema_registry: str | None = None  # --cdc-schema-registry; None: the suite's own, started when needed
    result: Any = None  # the run's SuiteResult, once it ran

    @classmethod
    def of(cls, config) -> PluginRun:
        from cdc_conformance.harness import golden, suite_files
        from cdc_conformance.harness.cases import CASES_DIR, CaseError, EmptySelection, load_cases, select
        from cdc_conformance.harness.known_failures import KnownFailuresError, known_failures_for
        from cdc_conformance.harness.registry import Registry
        from cdc_conformance.harness.runner import replay_options
        from cdc_conformance.harness.under_test import NormalizerNotLoadable, NormalizerUnderTest

        option = config.getoption
        here = Path(config.invocation_params.dir)
        registry_url = option("--cdc-schema-registry")
        if registry_url is not None and not registry_url.startswith(("http://", "https://")):
            raise pytest.UsageError(f"--cdc-schema-registry {registry_url}: an http:// or https:// URL")
        if option("--cdc-remote"):
            import os

            from cdc_conformance.harness.spark import remote_problem

            if problem := remote_problem(option("--cdc-remote")):
                raise pytest.UsageError(f"--cdc-remote {problem}")
            os.environ["CDC_SPARK_REMOTE"] = option("--cdc-remote")
        given = {name: (here / option(name) if option(name) else None)
                 for name in ("--cdc-cases", "--cdc-golden", "--cdc-known-failures", "--cdc-obtained", "--cdc-reports")}
        for name in ("--cdc-cases", "--cdc-known-failures"):
            path = given[name]
            if path is not None and not path.exists():
                raise pytest.UsageError(f"{name} {option(name)}: no such {'directory' if name == '--cdc-cases' else 'file'}")
        try:
            under_test = NormalizerUnderTest.load(option("--cdc-normalizer"))
        except NormalizerNotLoadable as error:
            raise pytest.UsageError(f"--cdc-normalizer {error}") from error
        try:
            cases = load_cases(given["--cdc-cases"] or CASES_DIR)
            selected = select(cases, option("--cdc-case"), option("--cdc-format"), Registry.load().decoded_formats())
        except (CaseError, EmptySelection) as error:
            raise pytest.UsageError(f"cdc-conformance: {error}") from error
        golden_root = given["--cdc-golden"] or golden.GOLDEN_DIR
        replay = replay_options(under_test.spec, option("--cdc-cases"), option("--cdc-golden"), option("--cdc-known-failures"),
                                remote=option("--cdc-remote"))
        try:
            known_failures = known_failures_for(given["--cdc-cases"], given["--cdc-known-failures"])
        except KnownFailuresError as error:
            raise pytest.UsageError(f"cdc-conformance: {error}") from error
        return cls(under_test, cases, selected, known_failures,
                   golden_root, suite_files.obtained_root(golden_root, given["--cdc-obtained"], Path(config.rootpath)),
                   replay, given["--cdc-reports"], check_orphans=bool(given["--cdc-golden"]) or not given["--cdc-cases"],
                   known_failures_file=option("--cdc-known-failures"), schema_registry=option("--cdc-schema-registry"))

    def outcome(self):
        """The run's result, made by the first item that asks. A run that cannot start (no Java on PATH, a Connect
        server that does not answer, a broker that does not come up) ends the session there, in one line: every case
        would fail the same way."""
        if self.result is None:
            try:
                self.result = self._run()
            except Exception as error:  # noqa: BLE001 - the message is the outcome; the session ends with it
                first = next((line for line in str(error).splitlines() if line.strip()), type(error).__name__)
                pytest.exit(f"cdc-conformance: the run could not start: {type(error).__name__}: {first[:500]}",
                            returncode=pytest.ExitCode.TESTS_FAILED)
        return self.result

    def _run(self):
        from cdc_conformance.harness.broker import EmbeddedKafka
        from cdc_conformance.harness.registry import Registry
        from cdc_conformance.harness.roundtrip import RoundTrip
        from cdc_conformance.harness.runner import Runner
        from cdc_conformance.harness.schema_registry import ExternalSchemaRegistry, LazySchemaRegistry
        from cdc_conformance.harness.spark import spark_session

        spark = spark_session(under_test=self.under_test)  # before the broker: a session that cannot start leaves no broker directory behind
        registry = ExternalSchemaRegistry(self.schema_registry) if self.schema_registry else LazySchemaRegistry()
        with EmbeddedKafka() as broker, registry:
            runner = Runner(RoundTrip(spark, broker, self.under_test, schema_registry=registry), Registry.load(), self.known_failures,
                            golden_root=self.golden_root, obtained_root=self.obtained_root,
                            replay_options=self.replay_options, check_orphans=self.check_orphans,
                            known_failures_file=self.known_failures_file)
            return runner.run(self.selected, self.cases)

    def write_reports(self) -> None:
        from cdc_conformance.harness.reports import Report, run_facts, write_all

        facts = run_facts({"normalizer": self.under_test.spec, "normalizer_version": self.under_test.version,
                           "runner": "pytest plugin"})
        if self.reports_dir is not None:
            write_all(Report.of(self.result, facts), self.reports_dir)


class ConformanceSuite(pytest.Collector):
    def collect(self):
        yield SuiteIntegrity.from_parent(self, name="suite-integrity")
        for case in self.config.stash[_RUN].selected:
            yield ConformanceCase.from_parent(self, name=case.id, case_id=case.id)


class _SuiteItem(pytest.Item):
    def outcome(self):
        return self.config.stash[_RUN].outcome()

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class SuiteIntegrity(_SuiteItem):
    def runtest(self):
        problems = self.outcome().suite_problems
        if problems:
            raise CaseFailed("\n".join(problems))

    def reportinfo(self):
        return "cdc-conformance", None, "suite integrity"


class ConformanceCase(_SuiteItem):
    def __init__(self, *, case_id: str, **kwargs):
        super().__init__(**kwargs)
        self.case_id = case_id

    def runtest(self):
        from cdc_conformance.harness.runner import PASS, XFAIL

        result = next(r for r in self.outcome().results if r.case.id == self.case_id)
        if result.status == XFAIL:
            pytest.xfail(result.known_failure_reason)
        if result.status != PASS:
            raise CaseFailed("\n".join([f"{result.status} {self.case_id} ({result.case.relative_path})",
                                        *result.problems, f"replay: {result.replay}"]))

    def reportinfo(self):
        return "cdc-conformance", None, f"case {self.case_id}"
