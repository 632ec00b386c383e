"""A format whose producer writes differently per version draws each registry version under its own profile
(certify runs a version that way): every registry version has one, and its examples are that version's."""
import pytest

from cdc_conformance.harness.property import draw_examples
from cdc_conformance.harness.registry import Registry

REGISTRY = Registry.load()
VERSIONED = [(f, v.version) for f in REGISTRY.decoded_formats() if REGISTRY.generator(f).version_profile
             for v in REGISTRY.versions(f)]


def test_the_versioned_generators_are_the_expected_ones():
    assert {f for f, _ in VERSIONED} == {"debezium-json", "debezium-avro", "dataworks-json", "dts-avro"}


@pytest.mark.parametrize("format_id, version", VERSIONED)
def test_a_version_draws_only_its_own_profile(format_id, version):
    generator = REGISTRY.generator(format_id)
    fixed = generator.version_profile(version)
    examples = draw_examples(generator.for_version(version).examples(), 10, 1)
    assert all(getattr(example[0], name) == value for example in examples for name, value in fixed.items())  # (profile, ...)
    assert str(next(iter(fixed.values()))).startswith(version)


def test_the_late_arrival_property_draws_again_when_no_group_has_late_records():
    """Some seeds draw DataWorks examples all in one-record mode: no group, nothing to arrive late (seed 1154590801
    did, and failed a fresh clone's make test). The property takes the next seed that draws one. Which seeds draw
    none changes with every module added (Hypothesis mixes the loaded modules' literals into its draws), so the
    test finds one first instead of naming it."""
    from cdc_conformance.harness.generic import _emitted_groups, _with_late_records, render_examples
    from cdc_conformance.harness.property import placed

    generator = Registry.load().generator("dataworks-json")

    def has_late_records(seed: int) -> bool:
        examples = placed(render_examples(generator, draw_examples(generator.examples(), 2, seed), "late"))
        return any(generator.late_records(members) for members in _emitted_groups(examples))

    lacking = next(seed for seed in range(1, 500) if not has_late_records(seed) and has_late_records(seed + 1))
    seed, examples = _with_late_records(generator, 2, lacking)
    assert seed == lacking + 1 and any(generator.late_records(members) for members in _emitted_groups(examples))


def test_a_pinned_version_draws_only_configurations_that_ran_it():
    """Pinning 3.2 after drawing once left a third of the draws Flink CDC's (the MySQL connector at 3.2, no
    tombstones, no key changes); a user's 10-example certification then drew neither (seed 2079243615)."""
    from cdc_conformance.generators.debezium import _was_run

    examples = draw_examples(REGISTRY.generator("debezium-json").for_version("3.2").examples(), 40, 2079243615)
    assert all(_was_run(profile) and not profile.flink_cdc for profile, _ in examples)
    assert any(profile.tombstones for profile, _ in examples)
