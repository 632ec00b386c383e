"""The suite as a user installs it: the wheel built from this checkout, installed into a fresh virtualenv of its own and
run from a directory that is not the checkout (tests/integration/test_pytest_plugin.py, tests/user/test_workflows.py,
tests/user/test_spark_versions.py).

uv (installed by bootstrap) builds and installs: from its cache when it can (a fresh virtualenv in under a second),
from the package registry otherwise.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cdc_conformance.harness.suite_files import SUITE_ROOT

UV = str(Path(sys.executable).with_name("uv"))


def _uv(*args: str, cwd: Path | None = None) -> None:
    """uv offline first (its cache holds what bootstrap installed), then online; the last error in full."""
    for mode in (["--offline"], []):
        result = subprocess.run([UV, *args[:1], *mode, *args[1:]], capture_output=True, text=True, cwd=cwd)
        if result.returncode == 0:
            return
    raise RuntimeError(f"uv {' '.join(args)} failed:\n{result.stderr[-3000:]}")


def build_wheel(out: Path) -> Path:
    """The wheel of this checkout (by way of its sdist, as a package index would build it)."""
    out.mkdir(parents=True, exist_ok=True)
    _uv("build", "-q", "-o", str(out), str(SUITE_ROOT))
    wheels = sorted(out.glob("cdc_conformance-*.whl"))
    assert len(wheels) == 1 and sorted(out.glob("cdc_conformance-*.tar.gz")), f"uv build left {list(out.iterdir())}"
    return wheels[0]


def fresh_venv(directory: Path, wheel: Path, *requirements: str) -> Path:
    """A virtualenv at `directory` with the wheel (and `requirements`, e.g. another PySpark) installed; its python.
    The wheel alone, no extra, as the CI examples install it (docs/ci: `pip install suite-wheel/*.whl .`)."""
    _uv("venv", "-q", "--python", sys.executable, str(directory))
    python = directory / "bin" / "python"
    _uv("pip", "install", "-q", "--python", str(python), str(wheel), *requirements)
    return python


def site_packages(python: Path) -> Path:
    return Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())


def snapshot(directory: Path) -> dict[str, tuple[int, int]]:
    """Every file under `directory` with its size and modification time, but Python's own bytecode caches."""
    return {str(path.relative_to(directory)): (path.stat().st_size, path.stat().st_mtime_ns)
            for path in directory.rglob("*") if path.is_file() and "__pycache__" not in path.parts}


def user_env(python: Path, cache_home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user's shell with the virtualenv active: the checkout nowhere on the path, caches in a
    user cache directory (XDG_CACHE_HOME; reused between runs of this checkout so Maven and javac run once)."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "CDC_CONFORMANCE_CACHE", "CDC_CONFORMANCE_JVM_CACHE", "VIRTUAL_ENV")}
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    env["XDG_CACHE_HOME"] = str(cache_home)
    return {**env, **extra}


INSTALLED_CACHE = SUITE_ROOT / ".cache" / "installed-suite"  # the installed suite's "user cache directory" in tests
