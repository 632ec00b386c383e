"""Property, for both encodings (`ces-json`, `ces-avro`): any generated history, split size, partition
assignment and attribute generation of CES normalizes to the oracle; re-sent records are dropped (but accounted for), an event whose final segment
never arrives and an event with conflicting segments are quarantined, never emitted half."""
import itertools
import os

import pytest
from hypothesis import strategies as st

from generators import ces, ces_avro
from generators.history import histories, tables
from generators.values import KEY_TYPES
from harness.property import Example, check_property

pytestmark = pytest.mark.integration
EXAMPLES = int(os.environ.get("CDC_PROPERTY_EXAMPLES", "200"))
_runs = itertools.count()
MUTATIONS = ["none", "none", "resend", "drop-final", "conflict"]


@st.composite
def ces_cases(draw, encoding):
    profile = draw(encoding.profiles())
    history = draw(histories(table_strategy=tables(key_types=KEY_TYPES, value_types=ces.VALUE_TYPES),
                             allow_truncate=False, allow_snapshot=False, max_changes=6))
    mutation = draw(st.sampled_from(MUTATIONS))
    return profile, history, mutation, draw(st.integers(0, 50))


def example_factory(encoding):
    run = next(_runs)

    def to_example(case, index):
        profile, history, mutation, where = case
        topic = f"{encoding.FORMAT}-property-{os.getpid()}-{run}-p{profile.partitions}"
        profile = ces.Profile(**{**profile.__dict__, "topic": topic,
                                 "stream_guid": f"00000000-0000-4000-8000-{index:012d}"})
        items = encoding.encode(history, profile)
        target = where % len(items)
        mutated = {"none": lambda: items, "resend": lambda: ces.resend(items, target),
                   "drop-final": lambda: ces.drop_segment(items, target),
                   "conflict": lambda: encoding.conflict(items, target)}[mutation]()
        return Example(label=f"#{index} {mutation}@{target} {profile}", expected=mutated or items,
                       partitions={topic: profile.partitions})
    return to_example


@pytest.mark.parametrize("encoding", [ces, ces_avro], ids=lambda module: module.FORMAT)
def test_ces_encoding_normalizes_to_the_oracle(normalizer, encoding):
    result = check_property(normalizer, encoding.FORMAT, ces_cases(encoding), example_factory(encoding), EXAMPLES)
    codes = {q["code"] for q in result.output.quarantine}
    assert {"SEGMENT_INCOMPLETE", "SEGMENT_DUPLICATE_CONFLICT"} <= codes, codes
    assert any(len(e["origin"]) > 1 for e in result.output.events)  # split events were really reassembled
    assert any(e["pk_change"] for e in result.output.events)
    assert not result.failures, result.report()
