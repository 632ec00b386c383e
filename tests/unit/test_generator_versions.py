"""A format whose producer writes differently per version draws each registry version under its own profile
(certify runs a version that way): every registry version has one, and its examples are that version's."""
import pytest

from harness.property import draw_examples
from harness.registry import Registry

REGISTRY = Registry.load()
VERSIONED = [(f, v.version) for f in REGISTRY.decoded_formats() if REGISTRY.generator(f).version_profile
             for v in REGISTRY.versions(f)]


def test_the_versioned_generators_are_the_expected_ones():
    assert {f for f, _ in VERSIONED} == {"debezium-json", "dataworks-json", "dts-avro"}


@pytest.mark.parametrize("format_id, version", VERSIONED)
def test_a_version_draws_only_its_own_profile(format_id, version):
    generator = REGISTRY.generator(format_id)
    fixed = generator.version_profile(version)
    examples = draw_examples(generator.for_version(version).examples(), 10, 1)
    assert all(getattr(profile, name) == value for profile, _ in examples for name, value in fixed.items())
    assert str(next(iter(fixed.values()))).startswith(version)
