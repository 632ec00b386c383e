"""The pytest plugin in a throwaway project: its own normalizer module (which hands over to the reference
normalizer), `pytest --cdc-normalizer mypkg.job:normalize`, one test per case, all passing."""
import os
import subprocess
import sys

import pytest

from harness.cases import load_cases

pytestmark = pytest.mark.integration
FORMAT = "cloudcanal-json"


def test_the_plugin_runs_the_suite_in_another_project_against_its_normalizer(tmp_path):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "job.py").write_text("from normalizer.pipeline import normalize as reference\n\n\n"
                                    "def normalize(raw, format_id):\n    return reference(raw, format_id)\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mypkg"\nversion = "0"\n')
    cases_dir = tmp_path / "cases" / FORMAT  # the user's own copy of the cases, given as a relative path
    cases_dir.mkdir(parents=True)
    for case in load_cases():
        if case.format == FORMAT:
            (cases_dir / case.path.name).write_bytes(case.path.read_bytes())
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cdc-normalizer",
                             "mypkg.job:normalize", "--cdc-format", FORMAT, "--cdc-cases", "cases"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=900,
                            env={**os.environ, "PYTHONPATH": str(tmp_path)})
    cases = [c for c in load_cases() if c.format == FORMAT]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert f"{len(cases) + 1} passed" in result.stdout
    assert not (tmp_path / "artifacts").exists(), "Spark's artifacts/ left in the user's repository"


def test_without_the_option_the_plugin_adds_nothing(tmp_path):
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], capture_output=True, text=True,
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0 and "1 passed" in result.stdout
