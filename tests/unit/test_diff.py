"""harness.diff's shortcut: what it calls identical DeepDiff finds no difference in, and deep_diff says what DeepDiff says."""
import math

import pytest
from deepdiff import DeepDiff

from cdc_conformance.harness.diff import deep_diff, identical

PAIRS = [  # (a, b, identical)
    ({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]}, True),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),  # member order is no difference
    (1, 1.0, False), (True, 1, False), (0, False, False), ([1], (1,), False),  # equal to Python, type changes to DeepDiff
    ({"a": 1}, {"a": 1, "b": None}, False), ([1, 2], [2, 1], False), ("x", "x ", False), ({"__x": 1}, {"__x": 2}, False),
    (math.nan, math.nan, False),  # not identical to itself; DeepDiff finds nothing, and decides as before
]


@pytest.mark.parametrize("a, b, same", PAIRS)
def test_identical_only_where_deepdiff_finds_nothing(a, b, same):
    plain = DeepDiff(a, b, verbose_level=2, ignore_private_variables=False)
    assert identical(a, b) is same
    assert not (same and plain)
    assert bool(deep_diff(a, b)) == bool(plain)
