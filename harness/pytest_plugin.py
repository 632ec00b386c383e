"""The suite as a pytest plugin (entry point `pytest11`), for a normalizer's own repository:

    pytest --cdc-normalizer mypkg.job:normalize [--cdc-format debezium-json] [--cdc-cases DIR --cdc-golden DIR]

adds one test per conformance case (and one for the suite's integrity), run on the embedded broker and
Spark against that normalizer. Without --cdc-normalizer the plugin does nothing.
"""
from __future__ import annotations

from pathlib import Path

import pytest

_RESULT = pytest.StashKey[object]()


def pytest_addoption(parser):
    group = parser.getgroup("cdc-conformance")
    group.addoption("--cdc-normalizer", metavar="MODULE:FUNCTION", default=None,
                    help="run the CDC conformance suite against this normalizer")
    group.addoption("--cdc-format", action="append", default=[], metavar="FORMAT", help="only cases of this format (repeatable)")
    group.addoption("--cdc-cases", default=None, metavar="DIR", help="case files [default: the suite's own]")
    group.addoption("--cdc-golden", default=None, metavar="DIR", help="golden files [default: the suite's own]")
    group.addoption("--cdc-obtained", default=None, metavar="DIR",
                    help="where outputs that differ from their golden files go [default: beside your --cdc-golden files, "
                         "or .cdc-obtained/ in the rootdir when the golden files are the suite's own]")


def pytest_collection_modifyitems(session, config, items):
    if not config.getoption("--cdc-normalizer"):
        return
    suite = ConformanceSuite.from_parent(session, name="cdc-conformance")
    items.extend(suite.collect())


def _obtained_root(config) -> Path | None:
    """Never into the installed suite: beside the user's own golden files, or a directory of the user's."""
    given = config.getoption("--cdc-obtained")
    if given:
        return Path(given)
    return None if config.getoption("--cdc-golden") else Path(config.rootpath) / ".cdc-obtained"


class ConformanceSuite(pytest.Collector):
    def _cases(self):
        from harness.cases import CASES_DIR, load_cases

        config = self.config
        given = config.getoption("--cdc-cases")
        cases = load_cases(Path(given) if given else CASES_DIR)
        formats = set(config.getoption("--cdc-format"))
        return cases, [c for c in cases if not formats or c.format in formats]

    def collect(self):
        _, selected = self._cases()
        yield SuiteIntegrity.from_parent(self, name="suite-integrity")
        for case in selected:
            yield ConformanceCase.from_parent(self, name=case.id, case_id=case.id)

    def result(self):
        """The whole selection runs once, in one broker and Spark session, the first time an item asks."""
        if _RESULT not in self.config.stash:
            from harness import golden
            from harness.broker import EmbeddedKafka
            from harness.registry import Registry
            from harness.roundtrip import RoundTrip
            from harness.runner import Runner, load_known_failures
            from harness.spark import spark_session
            from harness.under_test import NormalizerUnderTest

            cases, selected = self._cases()
            function = NormalizerUnderTest.load(self.config.getoption("--cdc-normalizer"))
            golden_root = Path(self.config.getoption("--cdc-golden") or golden.GOLDEN_DIR)
            with EmbeddedKafka() as broker:
                runner = Runner(RoundTrip(spark_session(), broker, function), Registry.load(), load_known_failures(),
                                golden_root=golden_root, obtained_root=_obtained_root(self.config),
                                check_orphans=bool(self.config.getoption("--cdc-golden")) or not self.config.getoption("--cdc-cases"))
                self.config.stash[_RESULT] = runner.run(selected, cases)
        return self.config.stash[_RESULT]


class SuiteIntegrity(pytest.Item):
    def runtest(self):
        problems = self.parent.result().suite_problems
        assert not problems, "\n".join(problems)

    def reportinfo(self):
        return "cdc-conformance", None, "suite integrity"


class ConformanceCase(pytest.Item):
    def __init__(self, *, case_id: str, **kwargs):
        super().__init__(**kwargs)
        self.case_id = case_id

    def runtest(self):
        from harness.runner import PASS, XFAIL

        result = next(r for r in self.parent.result().results if r.case.id == self.case_id)
        if result.status == XFAIL:
            pytest.xfail(result.known_failure_reason)
        assert result.status == PASS, "\n".join([f"{result.status} {self.case_id}", *result.problems,
                                                 f"replay: {result.replay}"])

    def reportinfo(self):
        return "cdc-conformance", None, f"case {self.case_id}"
