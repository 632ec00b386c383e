"""The order tests are handed out in (tests/timeline.py) and the measured durations it reads."""
import subprocess
import sys
from dataclasses import dataclass

from cdc_conformance.harness.suite_files import SUITE_ROOT as REPO_ROOT
from tests import timeline


@dataclass
class Item:
    nodeid: str
    group: str | None = None


def _ids(items):
    return [item.nodeid for item in items]


def test_longest_first_a_group_by_its_sum_and_ties_in_collection_order():
    items = [Item("a"), Item("g1", "g"), Item("b"), Item("g2", "g"), Item("c"), Item("d")]
    known = {"a": 5.0, "g1": 4.0, "g2": 4.0, "b": 6.0, "c": 1.0}
    assert _ids(timeline.ordered(items, lambda item: item.group, known)) == ["g1", "g2", "b", "a", "c", "d"]


def test_tests_that_need_the_image_start_after_the_lead():
    lead = timeline.IMAGE_LEAD
    items = [Item("x[testcontainers]"), Item("a"), Item("b"), Item("c")]
    known = {"x[testcontainers]": 100.0, "a": lead / 2, "b": lead / 2, "c": 1.0}
    assert _ids(timeline.ordered(items, lambda item: None, known)) == ["a", "b", "x[testcontainers]", "c"]
    assert _ids(timeline.ordered(items[:2], lambda item: None, known)) == ["a", "x[testcontainers]"]  # too little work: last


def test_the_durations_file_names_only_tests_that_exist(request):
    """A renamed or removed test would leave a hint that no longer applies: remake the file (tests/timeline.py). The
    tests this session collected answer it; where it collected less than the suite (this file run alone), a
    collection of the whole suite does (15 s)."""
    named = set(timeline.durations())
    assert named, "tests/durations.tsv is missing or empty"
    unknown = named - request.config.stash.get(timeline.COLLECTED, set())
    if unknown:
        unknown -= set(subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-o", "addopts="],
                                      cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout.splitlines())
    assert sorted(unknown) == []


def test_the_durations_file_is_made_from_a_timeline(tmp_path):
    lines = ["gw0\t10.0\t70.5\tconformance/test_cases.py::test_suite_integrity[embedded]",
             "gw1\t10.0\t10.5\ttests/unit/test_x.py::test_fast"]
    assert timeline.from_timeline(lines) == ["60.5\tconformance/test_cases.py::test_suite_integrity[embedded]"]
