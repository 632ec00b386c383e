"""The suite installed from its wheel into a fresh virtualenv, run from an empty directory: it holds its own data
(cases, golden files, registry, schemas, poms, the normalizer's Java sources), resolves and compiles its JVM parts
into the user's cache directory, and writes nothing into site-packages (a wheel of `.py` files only ended every
command in FileNotFoundError)."""
import json
import re
import subprocess

import pytest

from harness import jvm
from harness.cases import load_cases
from tests import installed

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("installed-suite")]


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("installed")
    wheel = installed.build_wheel(root / "dist")
    python = installed.fresh_venv(root / "venv", wheel)
    return python, installed.site_packages(python)


def _cli(python, cwd, *args, timeout=600):
    # the checkout's resolved JVM artifacts and compiled jar (one PySpark version, so the same jar): Maven and javac
    # in the user's own cache directory are proven by tests/user_workflows.py (make test-user), not paid for here
    env = installed.user_env(python, installed.INSTALLED_CACHE, CDC_CONFORMANCE_JVM_CACHE=str(jvm.cache_dir()))
    return subprocess.run([str(python.parent / "cdc-conformance"), *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env=env)


def test_the_installed_suite_runs_its_cases_from_an_empty_directory_writing_only_there(suite, tmp_path):
    python, site_packages = suite
    before = installed.snapshot(site_packages)
    result = _cli(python, tmp_path, "run")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    expected = len(load_cases())
    assert re.search(rf"^total\s+{expected}\s+{expected}\s+0\s+0\s+0\s+0\s", result.stdout, re.M), result.stdout
    assert installed.snapshot(site_packages) == before, "the installed suite wrote into site-packages"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]
    facts = json.loads((tmp_path / "reports" / "latest" / "results.jsonl").read_text().splitlines()[0])
    assert facts["normalizer_version"].startswith("cdc-conformance ")
