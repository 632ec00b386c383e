"""The generic tests, for every decoded format of the registry (parametrized from it, never by hand):

- property: generated examples through Kafka and Spark normalize to the oracle (>= 200 per format);
- spellings: the same examples respelled (whitespace, member order, escapes) normalize to the same oracle,
  in a session with every setting the normalizer must not depend on flipped (HOSTILE_SESSION);
- mutators: every mutator's records get its code, the rest still normalize, everything is accounted for;
- hostile: each hand-made hostile record gets exactly its code, and none stops the job;
- copies: every record sent twice gives its events again (stateless formats) or joins its event's origin
  (grouping formats), never another event;
- extremes: every integer of a valid record at int32/int64 min and max, -1 and 0 never stops the job, a lone
  surrogate or a member named twice in any text or object is quarantined;
- streaming: Structured Streaming, two records per micro-batch, gives exactly the batch output;
- late records (stateful formats): after a group was emitted and the stream restarted, its copies, conflicting
  copies and reused ids get the codes the format's doc gives, and no earlier output changes;
- cross-format: one history rendered by every format that can express it normalizes alike.

A format module adds only the tests that are truly its own (CES: restarts mid-segment, timeouts, 10 MB).
"""
import os

import pytest

from cdc_conformance.harness import generic
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.spark import HOSTILE_SESSION, session_settings

pytestmark = pytest.mark.integration
REGISTRY = Registry.load()
FORMATS = REGISTRY.decoded_formats()
EXAMPLES = int(os.environ.get("CDC_PROPERTY_EXAMPLES", "200"))
# 100 (each mutator applied 4-30 times, a rare one topped up): make test-long's soak slice sends at least 500 mutated
# records per format through the same mutators, make soak 10,000 (docs/performance.md, Test-suite time)
MUTATED_EXAMPLES = int(os.environ.get("CDC_ADVERSARIAL_EXAMPLES", "100"))
SPELLING_EXAMPLES = int(os.environ.get("CDC_SPELLING_EXAMPLES", "100"))
COPIED_EXAMPLES = int(os.environ.get("CDC_COPIED_EXAMPLES", "30"))


@pytest.mark.parametrize("format_id", FORMATS)
def test_generated_examples_normalize_to_the_oracle(roundtrip, format_id):
    result = generic.check_property(roundtrip, REGISTRY.generator(format_id), EXAMPLES)
    assert len(result.examples) >= EXAMPLES
    assert not result.failures, result.report()


@pytest.mark.parametrize("format_id", [f for f in FORMATS if REGISTRY.generator(f).encoding == "json"])
def test_equivalent_spellings_normalize_alike(roundtrip, format_id):
    # in a session with every setting flipped (harness.spark.HOSTILE_SESSION): drawn values, not only the
    # curated cases, then prove that the output does not depend on the user's session
    with session_settings(roundtrip.spark, HOSTILE_SESSION):
        result = generic.check_spellings(roundtrip, REGISTRY.generator(format_id), SPELLING_EXAMPLES)
    assert not result.failures, result.report()


@pytest.mark.parametrize("format_id", FORMATS)
def test_mutated_records_get_their_codes_and_the_rest_still_normalizes(roundtrip, format_id):
    result = generic.check_mutators(roundtrip, REGISTRY.generator(format_id), MUTATED_EXAMPLES)
    assert not result.failures, result.report()


@pytest.mark.parametrize("format_id", FORMATS)
def test_hostile_records_get_their_exact_codes(roundtrip, format_id):
    generator = REGISTRY.generator(format_id)
    assert generator.hostile, f"{format_id} declares no hostile records"
    assert generic.check_hostile(roundtrip, generator) == []


@pytest.mark.parametrize("format_id", FORMATS)
def test_records_sent_twice_say_the_same(roundtrip, format_id):
    # invariant 3 as docs/invariants.md states it: copies folded (grouping formats) or their events again, same
    # position (stateless formats); nothing unaccounted
    assert generic.check_copies(roundtrip, REGISTRY.generator(format_id), COPIED_EXAMPLES) == []


@pytest.mark.parametrize("format_id", FORMATS)
def test_envelope_extremes_never_fail_the_job(roundtrip, format_id):
    sent, problems = generic.check_extremes(roundtrip, REGISTRY.generator(format_id))  # ANSI on: overflow raises
    assert sent >= 12, f"{format_id}: only {sent} extreme variants (the valid neighbour carries too few integers)"
    assert problems == []


# The stateful formats' micro-batch boundaries are also crossed in make test by test_ces_streaming's split events
# (ces-json one record at a time, ces-avro two) and test_dataworks_streaming's update halves (one record a batch);
# their 30-100-second runs here are make test-long's (make test's 12 minutes)
@pytest.mark.parametrize("format_id", [pytest.param(f, marks=pytest.mark.long)
                                       if REGISTRY.generator(f).groups_across_records else f for f in FORMATS])
def test_streaming_equals_batch(spark, broker, tmp_path, format_id, schema_registry):
    assert generic.check_streaming(spark, broker, REGISTRY.generator(format_id), tmp_path, count=8,
                                   schema_registry=schema_registry) == []


# a restart from a checkpoint per stateful format (30-90 s each): make test-long's; make test keeps the restart in the
# middle of a split event (test_ces_streaming) and between update halves (test_dataworks_streaming)
@pytest.mark.long
@pytest.mark.parametrize("format_id", [f for f in FORMATS if REGISTRY.generator(f).groups_across_records])
def test_late_records_after_a_restart_get_their_codes_and_change_nothing_else(spark, broker, tmp_path, format_id):
    assert generic.check_late_arrivals(spark, broker, REGISTRY.generator(format_id), tmp_path, count=8) == []


# 12 histories in make test's 12 minutes (it was the slowest test there, 115 s at 40), 40 in make test-long
@pytest.mark.parametrize("count", [12, pytest.param(40, marks=pytest.mark.long)])
def test_one_history_normalizes_alike_in_every_format(roundtrip, count):
    generators = {f: REGISTRY.generator(f) for f in FORMATS}
    result = generic.check_cross_format(roundtrip, generators, count=count)
    assert len(result.formats) >= 2, result.formats
    assert not result.failures, "\n".join(result.failures)
