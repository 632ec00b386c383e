"""The example CI configurations in docs/ci are valid YAML, install the suite as the README says (its wheel, built
from a clone of the suite at a pinned tag: it is on no package index; no `make`), run the suite's cases as a parallel
matrix of shard jobs merged by a last job, and run docs/ci/conformance.sh, whose commands are commands the CLI has (the
script itself runs in a throwaway user repository in tests/user/test_workflows.py). The suite's own release workflow
builds and checks what users' CI downloads."""
import re
from pathlib import Path

import pytest
import yaml

from cdc_conformance.harness.cli import cli

CI = Path(__file__).parents[2] / "docs" / "ci"
EXAMPLES = sorted(CI.glob("*.yml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_ci_configuration_installs_the_suite_and_runs_the_script(path):
    text = path.read_text()
    config = yaml.safe_load(text)
    assert isinstance(config, dict) and config
    assert "python -m build --wheel" in text and "pip install suite-wheel/*.whl ." in text, "the wheel, built from a clone"
    assert "pip install cdc-conformance" not in text, "the suite is on no package index"
    assert 'bash ci/conformance.sh shard "' in text and "bash ci/conformance.sh gate" in text, "shards as parallel jobs, merged"
    assert re.search(r"matrix: \{shard: \[1, 2, 3, 4\]\}|parallel: 4", text)
    assert "make " not in text and ".venv/bin/cdc-conformance" not in text and "|| true" not in text


def test_the_release_workflow_builds_and_checks_what_users_download():
    text = (CI.parents[1] / ".github" / "workflows" / "release.yml").read_text()
    assert yaml.safe_load(text) and "python -m build" in text and "twine check --strict dist/*" in text
    assert "gh release create" in text


def test_the_script_calls_only_commands_the_cli_has_and_swallows_no_failure():
    script = (CI / "conformance.sh").read_text()
    used = set(re.findall(r"^\s*cdc-conformance (\w+)", script, re.M))
    assert used and used <= set(cli.commands), used - set(cli.commands)
    assert "|| true" not in script and "set -euo pipefail" in script
    assert re.search(r"^\s*shard\) ", script, re.M) and re.search(r"^\s*gate\) gate", script, re.M)


def test_there_are_examples_for_github_and_gitlab():
    assert [p.name for p in EXAMPLES] == ["github-actions.yml", "gitlab-ci.yml"]
