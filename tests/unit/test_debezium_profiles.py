"""Debezium's profiles are drawn from the combinations the rules of what ran let through (generators/debezium.py,
`_ruled_fields`), not drawn field by field and filtered: every combination the rules allow can still be drawn, and
the rules read no field outside the ones drawn together (a rule that did would be a filter again, silently)."""
import dataclasses
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from cdc_conformance.generators import debezium
from cdc_conformance.generators.debezium_profile import Profile

WEIGHTED_VALUES = {"binary_handling": debezium.BINARY_HANDLING_MODES, "decimal_handling": debezium.DECIMAL_HANDLING_MODES,
                   "pipeline": ("connect", "flink-cdc")}


def _ruled(fields: dict) -> tuple:
    return tuple(sorted(fields.items()))


def test_every_combination_the_rules_allow_can_be_drawn():
    ruled = {**debezium._RULED, **WEIGHTED_VALUES}
    allowed = {_ruled(dict(zip(ruled, values))) for values in itertools.product(*ruled.values())
               if debezium._was_run(debezium._ruled_profile(dict(zip(ruled, values)), {}))}
    drawable = {combination for weighted in itertools.product(*WEIGHTED_VALUES.values())
                for combination in debezium._runnable(_ruled(dict(zip(WEIGHTED_VALUES, weighted))))}
    assert drawable == allowed and len(allowed) > 100


OTHER_FIELDS = [f.name for f in dataclasses.fields(Profile)
                if f.name not in debezium._RULED and f.name not in debezium._WEIGHTED]


@settings(max_examples=200, deadline=None, database=None)
@given(debezium.profiles(), st.data())
def test_the_rules_read_no_field_outside_the_ruled_ones(profile, data):
    name = data.draw(st.sampled_from(OTHER_FIELDS))
    value = getattr(profile, name)
    other = data.draw(st.sampled_from([not value] if isinstance(value, bool) else [value, None, 0, 3, "x", (1, 2)]))
    changed = dataclasses.replace(profile, **{name: other})
    assert debezium._was_run(changed), (name, other)
