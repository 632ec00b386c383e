"""The example CI configurations in docs/ci are valid YAML, install the suite as a user does (no checkout of it, no
`make`), and run docs/ci/conformance.sh, whose commands are commands the CLI has (the script itself runs in a
throwaway user repository in tests/user/test_workflows.py)."""
import re
from pathlib import Path

import pytest
import yaml

from harness.cli import cli

CI = Path(__file__).parents[2] / "docs" / "ci"
EXAMPLES = sorted(CI.glob("*.yml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_ci_configuration_installs_the_suite_and_runs_the_script(path):
    text = path.read_text()
    config = yaml.safe_load(text)
    assert isinstance(config, dict) and config
    assert "pip install cdc-conformance" in text and "bash ci/conformance.sh" in text
    assert "make " not in text and ".venv/bin/cdc-conformance" not in text and "|| true" not in text


def test_the_script_calls_only_commands_the_cli_has_and_swallows_no_failure():
    script = (CI / "conformance.sh").read_text()
    used = set(re.findall(r"^\s*cdc-conformance (\w+)", script, re.M))
    assert used and used <= set(cli.commands), used - set(cli.commands)
    assert "|| true" not in script and "set -euo pipefail" in script


def test_there_are_examples_for_github_and_gitlab():
    assert [p.name for p in EXAMPLES] == ["github-actions.yml", "gitlab-ci.yml"]
