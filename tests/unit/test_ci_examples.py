"""The example CI configurations in docs/ci are valid YAML and call only commands the CLI has."""
from pathlib import Path

import pytest
import yaml

from harness.cli import cli

EXAMPLES = sorted((Path(__file__).parents[2] / "docs" / "ci").glob("*.yml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_ci_configuration_is_valid_yaml_using_real_commands(path):
    config = yaml.safe_load(path.read_text())
    assert isinstance(config, dict) and config
    used = {line.split("cdc-conformance ")[1].split()[0] for line in path.read_text().splitlines() if "bin/cdc-conformance " in line}
    assert used and used <= set(cli.commands), used - set(cli.commands)


def test_there_are_examples_for_github_and_gitlab():
    assert [p.name for p in EXAMPLES] == ["github-actions.yml", "gitlab-ci.yml"]
