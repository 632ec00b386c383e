"""Adding a format is adding files: a toy format that lives only under tests/ registers through the
plug-in interfaces (tests/toy/decoder.py, tests/toy/generator.py) and passes the generic property,
mutator, hostile and streaming tests, with no module of the project edited to know it."""
import copy

import pytest
import yaml

from cdc_conformance.harness import generic
from cdc_conformance.harness.lint import lint_registry
from cdc_conformance.harness.registry import REGISTRY_FILE, Registry
from cdc_conformance.normalizer.plugin import register, unregister

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def toy():
    formats = copy.deepcopy(yaml.safe_load(REGISTRY_FILE.read_text())["formats"])
    formats["toy-json"] = {"title": "a toy format", "doc": "docs/formats/ces.md", "decoder": "tests.toy.decoder",
                           "generator": "tests.toy.generator", "versions": {"1": {"status": "supported",
                                                                                  "features": ["insert"]}}}
    registry = Registry(formats)
    from tests.toy import decoder

    register(decoder.DECODER)  # importing the decoder module registers it; again, after an earlier module's removal
    assert [str(p) for p in lint_registry(registry)] == []
    yield registry.generator("toy-json")
    unregister(decoder.DECODER)  # a later test of this process lints the real registry (found by a reordered run)


def test_toy_format_passes_the_generic_property(roundtrip, toy):
    result = generic.check_property(roundtrip, toy, 30)
    assert not result.failures, result.report()
    assert len(result.output.events) > 30


def test_toy_format_passes_the_generic_mutator_and_hostile_tests(roundtrip, toy):
    result = generic.check_mutators(roundtrip, toy, 16)
    assert not result.failures, result.report()
    assert generic.check_hostile(roundtrip, toy) == []


def test_toy_format_streams_as_in_batch(spark, broker, tmp_path, toy):
    assert generic.check_streaming(spark, broker, toy, tmp_path, count=4) == []
