"""Bad input is contained: every adversarial Debezium record is quarantined with its stable code, the
valid records around it still normalize to the oracle, and no input makes the job fail."""
import itertools
import os

import pytest
from hypothesis import strategies as st

from generators import debezium
from generators.history import histories
from generators.records import KafkaRecord
from harness.property import Example, check_property

pytestmark = pytest.mark.integration
EXAMPLES = int(os.environ.get("CDC_ADVERSARIAL_EXAMPLES", "100"))
_runs = itertools.count()
MUTATION_NAMES = sorted(debezium.MUTATORS) + ["bad-key"]


@st.composite
def mutated_cases(draw):
    profile = draw(debezium.profiles())
    history = draw(histories(allow_truncate=profile.connector == "postgresql", max_changes=6))
    plan = draw(st.lists(st.tuples(st.integers(0, 40), st.sampled_from(MUTATION_NAMES)),
                         min_size=1, max_size=3))
    return profile, history, plan


def example_factory():
    run = next(_runs)

    def to_example(case, index):
        profile, history, plan = case
        topic = f"adversarial-{os.getpid()}-{run}-p{profile.partitions}"
        profile = debezium.Profile(**{**profile.__dict__, "prefix": f"server{index}", "topic_override": topic})
        expected = debezium.encode(history, profile)
        # every mutator is tried in turn (by example index), besides the drawn ones, so each code is exercised
        plan = [(plan[0][0], MUTATION_NAMES[index % len(MUTATION_NAMES)])] + list(plan)
        for position, name in plan:
            target = position % len(expected)
            mutated = (debezium.mutate_key(expected[target]) if name == "bad-key"
                       else debezium.mutate(expected[target], name))
            if mutated is not None:
                expected[target] = mutated
        return Example(label=f"#{index} {plan} {profile}", expected=expected, partitions={topic: profile.partitions})
    return to_example


def test_mutated_records_are_quarantined_with_their_code_and_the_rest_still_normalizes(normalizer):
    result = check_property(normalizer, debezium.FORMAT, mutated_cases(), example_factory(), EXAMPLES)
    codes = {q["code"] for q in result.output.quarantine}
    assert {"MALFORMED_JSON", "NOT_UTF8", "UNKNOWN_OPERATION", "MISSING_FIELD", "MALFORMED_KEY"} <= codes, codes
    assert not result.failures, result.report()


HOSTILE = [
    b"", b"null", b"0", b'"text"', b"[]", b"{}", b'{"op":null}', b'{"payload":null,"schema":{}}', b"\x00\x01\x02",
    b'{"op":"c","source":{},"after":{"a":1}}', b'{"op":"u","source":{"connector":"sqlserver"},"after":{}}',
    b'{"schema":{"type":"struct","fields":[{"field":"after","fields":[{"type":"int32","name":"io.debezium.time.Date","field":"d"}]}]},'
    b'"payload":{"op":"c","source":{"connector":"postgresql","ts_ms":99999999999999999999},"after":{"d":2147483647}}}',
    b'{"schema":{"type":"struct","fields":[{"field":"after","fields":[{"type":"int64","name":"io.debezium.time.MicroTimestamp","field":"t"},'
    b'{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"-3"},"field":"x"},'
    b'{"type":"string","name":"io.debezium.time.ZonedTimestamp","field":"z"}]}]},'
    b'"payload":{"op":"c","source":{"connector":"postgresql"},"after":{"t":9223372036854775807,"x":"////////////////////////////","z":"2025-13-45T99:99:99Z"}},"ts_ms":-9223372036854775808}',
    b'{"op":"c","source":{"connector":"mysql","pos":"x"},"after":{"a":"' + b"\\u0000" * 10 + b'"},"ts_us":"1e400"}',
    b'{"op":"c","op":"d","source":{"connector":"postgresql"},"before":{"id":1}}',
    # a field declared twice: a map built from the names would raise DUPLICATED_MAP_KEY and stop the job
    b'{"schema":{"type":"struct","fields":[{"field":"after","fields":[{"type":"int32","field":"a"},{"type":"int32","field":"a"}]}]},'
    b'"payload":{"op":"c","source":{"connector":"postgresql"},"after":{"a":1}}}',
    b'{' * 5000,
]


def test_hostile_values_never_fail_the_job_and_are_all_accounted_for(normalizer):
    topic = f"hostile-{os.getpid()}"
    records = [KafkaRecord(topic, 0, key, value) for value in HOSTILE for key in (None, b'{"id":1}', b"\xff")]
    output = normalizer.run(records, debezium.FORMAT, {topic: 1})
    assert output.unaccounted() == [] and output.quarantined_twice() == []
    assert len(output.events) + len(output.quarantine) == len(records)
    codes = {q["code"] for q in output.quarantine}
    assert {"MALFORMED_JSON", "NOT_UTF8", "UNDECODABLE_VALUE", "MISSING_FIELD", "UNKNOWN_MESSAGE_SHAPE",
            "SCHEMA_MISMATCH"} <= codes, codes
