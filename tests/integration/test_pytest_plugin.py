"""The pytest plugin in a throwaway project: its own normalizer module (which hands over to the reference
normalizer), `pytest --cdc-normalizer mypkg.job:normalize`, one test per case, with the suite installed from its built
wheel (by way of its sdist) into a fresh virtualenv: the wheel holds its own data (cases, golden files, registry,
schemas, the normalizer's Java sources) and the run writes nothing into site-packages (a wheel of `.py` files only
ended every command in FileNotFoundError). A misuse is pytest's usage error before any JVM starts, never a green run
of nothing."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cdc_conformance.harness.cases import load_cases

pytestmark = pytest.mark.integration
FORMAT = "cloudcanal-json"


def _user_project(tmp_path):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text('__version__ = "1.4.0"\n')
    (package / "job.py").write_text("from cdc_conformance.normalizer.pipeline import normalize as reference\n"
                                    "from cdc_conformance.normalizer.pipeline import spark_jars  # noqa: F401\n\n\n"
                                    "def normalize(raw, format_id):\n    return reference(raw, format_id)\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mypkg"\nversion = "1.4.0"\n')
    return tmp_path


def _pytest(project, *args, timeout=900, python=sys.executable, env=None):
    return subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], capture_output=True,
                          text=True, cwd=project, timeout=timeout, env={**(env or os.environ), "PYTHONPATH": str(project)})


@pytest.fixture(scope="module")
def installed_suite(tmp_path_factory):
    """The wheel in a fresh virtualenv: its python, its site-packages, a user's environment (the checkout's resolved
    JVM artifacts and compiled jar, one PySpark version: Maven and javac in a fresh user cache directory are make
    test-user's, tests/user/test_workflows.py)."""
    from cdc_conformance.harness import jvm
    from tests import installed

    root = tmp_path_factory.mktemp("installed")
    python = installed.fresh_venv(root / "venv", installed.build_wheel(root / "dist"))
    env = installed.user_env(python, installed.INSTALLED_CACHE, CDC_CONFORMANCE_JVM_CACHE=str(jvm.cache_dir()))
    return python, installed.site_packages(python), env


def _wrong_copy(case, new_id: str) -> dict:
    """The case under another id, expecting an event kind it does not produce."""
    document = yaml.safe_load(case.path.read_text(encoding="utf-8"))
    document["id"] = new_id
    document["expect"] = {"events": [{"kind": "DDL"}] * len(document["expect"].get("events", [{}]))}
    return document


@pytest.mark.long
def test_the_installed_plugin_runs_the_suite_in_another_project_as_the_cli_would(installed_suite, tmp_path):
    """Every case of one format passes against the user's normalizer; a case failing for a known reason is xfail
    with the user's known-failures file; a failing case shows its own message (not pytest's frames) and a replay
    command that runs the same normalizer on the same files; mismatching outputs go to the user's .cdc-obtained/;
    the reports name the user's package's version."""
    from tests import installed

    python, site_packages, env = installed_suite
    before = installed.snapshot(site_packages)
    project = _user_project(tmp_path)
    cases_dir = project / "cases" / FORMAT  # the user's own copy of the cases, given as a relative path
    cases_dir.mkdir(parents=True)
    cases = [c for c in load_cases() if c.format == FORMAT]
    for case in cases:
        (cases_dir / case.path.name).write_bytes(case.path.read_bytes())
    for new_id in ("mine-wrong", "mine-known"):
        (cases_dir / f"{new_id}.yaml").write_text(yaml.safe_dump(_wrong_copy(cases[0], new_id), sort_keys=False))
    (project / "known.yaml").write_text(yaml.safe_dump({"known_failures": [{"case": "mine-known", "reason": "not yet"}]}))
    result = _pytest(project, "--cdc-normalizer", "mypkg.job:normalize", "--cdc-format", FORMAT, "--cdc-cases", "cases",
                     "--cdc-known-failures", "known.yaml", "--cdc-reports", "results", python=python, env=env)
    out = result.stdout
    assert result.returncode == 1, out[-3000:] + result.stderr[-2000:]
    assert f"1 failed, {len(cases) + 1} passed, 1 xfailed" in out, out[-3000:]
    failure = out[out.index("_ case mine-wrong _"):out.index("short test summary")]
    assert len(failure.splitlines()) < 20 and "Traceback" not in failure and "harness/" not in failure, failure
    assert "replay: cdc-conformance run --case mine-wrong --normalizer mypkg.job:normalize --cases-dir cases " \
           "--known-failures known.yaml" in failure
    assert (project / ".cdc-obtained" / FORMAT / "mine-wrong.obtained.json").is_file()
    facts = json.loads((project / "results" / "results.jsonl").read_text().splitlines()[0])
    assert facts["normalizer"] == "mypkg.job:normalize" and "1.4.0" in facts["normalizer_version"]
    assert not (project / "artifacts").exists(), "Spark's artifacts/ left in the user's repository"
    assert installed.snapshot(site_packages) == before, "the installed suite wrote into site-packages"
    assert "/site-packages/cdc_conformance/golden/" in failure, "the golden files are not the installed suite's"


MISUSES = [
    # a selection that matches nothing: `--cdc-format debezium-jsn` ran zero cases and reported "1 passed", exit 0
    (["--cdc-format", "debezium-jsn"], "no such format: debezium-jsn"),
    # a normalizer that cannot be loaded: a module that did not import gave 148 failures and 129,940 lines
    (["--cdc-normalizer", "mypkg.broken:normalize"], "module mypkg.broken does not import: SyntaxError"),
    # as the CLI's --remote refuses it (issue 58, 7)
    (["--cdc-remote", "http://localhost:15002"], "--cdc-remote http://localhost:15002: a Spark Connect URL"),
    # a known-failures file with a mistake: a 107-line INTERNALERROR (issue 58, 9)
    (["--cdc-known-failures", "broken-known.yaml"], "broken-known.yaml: entry 1 (a-case): no reason"),
]


def test_every_misuse_is_one_usage_error_before_any_jvm_starts(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    project = _user_project(tmp_path)
    (project / "mypkg" / "broken.py").write_text("def normalize(raw, format_id)\n")
    (project / "broken-known.yaml").write_text("known_failures:\n  - case: a-case\n")

    def attempt(args):  # the last --cdc-normalizer given wins
        return _pytest(project, "--cdc-normalizer", "mypkg.job:normalize", *args, timeout=120)

    with ThreadPoolExecutor(max_workers=2) as pool:  # each is a Python process importing PySpark: a few seconds
        results = list(pool.map(attempt, [args for args, _ in MISUSES]))
    for (args, message), result in zip(MISUSES, results):
        errors = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.returncode == pytest.ExitCode.USAGE_ERROR, (args, result.stdout + result.stderr)
        assert len(errors) == 1 and message in errors[0] and "passed" not in result.stdout, (args, result.stderr)
        assert len(result.stdout.splitlines()) < 10, (args, result.stdout)


@pytest.mark.parametrize("args, message", [
    (["--cdc-format", "debezium-json", "--cdc-reports", "results/own"], "--cdc-format, --cdc-reports without --cdc-normalizer"),
    (["--cdc-normalizer", "", "--cdc-format", "debezium-json"], "--cdc-normalizer is empty"),
])
def test_a_suite_option_without_a_normalizer_is_a_usage_error_not_a_green_run(tmp_path, args, message):
    """A CI job that lost --cdc-normalizer (or passed it an unset variable) once said "1 passed" having run no case."""
    project = _user_project(tmp_path)
    (project / "test_own.py").write_text("def test_own():\n    pass\n")
    result = _pytest(project, *args, timeout=120)
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == pytest.ExitCode.USAGE_ERROR and "passed" not in result.stdout, result.stdout + result.stderr
    assert len(errors) == 1 and message in errors[0], result.stderr


def test_a_run_that_cannot_start_fails_once_in_one_line_and_leaves_nothing(tmp_path):
    """Without Java (the most common first-run gap) every case repeated the same traceback: 32,775 lines for 37
    cases, and a broker directory left in the temporary directory each time (issue 58, 7). Now the first case stops
    the session with one line."""
    (tmp_path / "project").mkdir()
    project = _user_project(tmp_path / "project")
    temporary = tmp_path / "tmp"  # the run's own temporary directory: other tests' brokers are elsewhere
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary), "JAVA_HOME": str(tmp_path / "no-java"), "PATH": os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "java").exists())}
    result = _pytest(project, "--cdc-normalizer", "mypkg.job:normalize", "--cdc-format", FORMAT, timeout=300, env=env)
    lines = (result.stdout + result.stderr).splitlines()
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout[-2000:] + result.stderr[-2000:]
    assert len(lines) < 15 and "Traceback" not in result.stdout + result.stderr, lines[:40]
    assert sum("the run could not start" in line for line in lines) == 1, lines
    assert not list(temporary.glob("cdc-kafka-*")), "a broker directory was left behind"


def test_without_the_option_the_plugin_adds_nothing(tmp_path):
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], capture_output=True, text=True,
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0 and "1 passed" in result.stdout
