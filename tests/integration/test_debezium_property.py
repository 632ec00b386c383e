"""Property: for any generated history and Debezium profile, normalizing the encoding equals the oracle.

Histories include snapshots, inserts, updates, key changes (delete + tombstone + create), deletes with
tombstones and PostgreSQL truncates, over SQL Server and PostgreSQL profiles of Debezium 1.9 / 2.7 / 3.2
with and without JsonConverter schemas.
"""
import itertools
import os

import pytest
from hypothesis import strategies as st

from generators import debezium
from generators.history import histories
from harness.property import Example, check_property

pytestmark = pytest.mark.integration
EXAMPLES = int(os.environ.get("CDC_PROPERTY_EXAMPLES", "200"))
_runs = itertools.count()


@st.composite
def debezium_cases(draw):
    profile = draw(debezium.profiles())
    history = draw(histories(allow_truncate=profile.connector == "postgresql"))
    return profile, history


def example_factory():
    run = next(_runs)

    def to_example(case, index: int) -> Example:
        profile, history = case
        topic = f"property-{os.getpid()}-{run}-dbz-p{profile.partitions}"
        profile = debezium.Profile(**{**profile.__dict__, "prefix": f"server{index}", "topic_override": topic})
        return Example(label=f"#{index} {profile}", expected=debezium.encode(history, profile),
                       partitions={topic: profile.partitions})
    return to_example


def test_debezium_encoding_normalizes_to_the_oracle(normalizer):
    result = check_property(normalizer, debezium.FORMAT, debezium_cases(), example_factory(), EXAMPLES)
    assert len(result.examples) >= EXAMPLES
    kinds = {e["kind"] for e in result.output.events}
    assert {"ROW", "TOMBSTONE", "TRUNCATE"} <= kinds, kinds  # the histories really exercise them
    assert any(e["pk_change"] for e in result.output.events)
    assert not result.failures, result.report()
