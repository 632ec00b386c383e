"""The Spark versions users run: the oldest and the newest PySpark of the range the wheel declares each run every
conformance case from the installed wheel (the Scala line and the connectors' release derived from that PySpark, the
normalizer's jar compiled for it). The suite's own checkout runs one version (constraints.txt) in make test."""
import json
import re
import subprocess
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from cdc_conformance.harness.suite_files import SUITE_ROOT
from tests import installed

NEWEST = "4.3.0"  # the newest PySpark on PyPI (2026-11-26); its connectors fall back to 4.2.0 (harness/jvm.py)


def _declared() -> Requirement:
    dependencies = tomllib.loads((SUITE_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return next(Requirement(d) for d in dependencies if Requirement(d).name == "pyspark")


def _oldest() -> str:
    (lower,) = [spec.version for spec in _declared().specifier if spec.operator == ">="]
    return lower


def test_the_tested_ends_are_the_declared_range():
    assert _declared().specifier.contains(_oldest()) and _declared().specifier.contains(NEWEST)
    assert Version(NEWEST) > Version(_oldest())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return installed.build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.mark.parametrize("version", [_oldest(), NEWEST])
def test_every_case_passes_on_the_ends_of_the_pyspark_range(wheel, tmp_path, version):
    python = installed.fresh_venv(tmp_path / "venv", wheel, f"pyspark=={version}")
    work = tmp_path / "repo"
    work.mkdir()
    result = subprocess.run([str(python.parent / "cdc-conformance"), "run"], capture_output=True, text=True, cwd=work,
                            timeout=1200, env=installed.user_env(python, installed.INSTALLED_CACHE))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert re.search(r"^total\s+(\d+)\s+\1\s+0\s+0\s+0\s+0\s", result.stdout, re.M), result.stdout
    facts = json.loads((work / "reports" / "latest" / "results.jsonl").read_text().splitlines()[0])
    assert facts["spark_version"] == version and facts["spark_connectors"], facts
    print(f"PySpark {version}: connectors {facts['spark_connectors']}, {result.stdout.splitlines()[-4]}")
    # the stateful streaming assembly on this Spark: halves paired across micro-batches, a lone half released once a
    # record past its timeout is read (event-time timeouts: Spark's own operator, issue 58)
    streamed = subprocess.run([str(python), str(SUITE_ROOT / "tests" / "user" / "stateful_stream.py")], capture_output=True,
                              text=True, cwd=work, timeout=900, env=installed.user_env(python, installed.INSTALLED_CACHE))
    assert streamed.returncode == 0, streamed.stdout[-3000:] + streamed.stderr[-3000:]
    assert json.loads(streamed.stdout.strip().splitlines()[-1]) == {
        "events": [["INSERT", 1], ["INSERT", 4], ["UPDATE", 0]], "quarantine": [["UNPAIRED_UPDATE_HALF", 3]],
        "readers": {"by_expression": True, "as_udfs": []}}
