"""Where the suite's own files are, and where a command may write.

The suite's data is package data, read in place through importlib.resources from a source checkout and from an
installed wheel alike: the registry, case schema, cases and known failures (`conformance`), the approved outputs
(`golden`), the Maven poms, Spark's log configuration and the Kafka image's files (`harness`), the normalizer's Java
sources and Avro schemas (`normalizer`), the generators' schemas (`generators`).

The suite's files are read-only to every command run from anywhere but the suite's own checkout: a user's repository
gets its certifications, promoted cases and mismatching outputs in directories relative to its working directory
(`USER_*` below), and the JVM artifacts go to the user's cache directory, never into site-packages. Inside the
checkout (a developer approving golden files, promoting a case into the suite, certifying the reference normalizer)
the suite's own directories are the defaults, as before.
"""
from __future__ import annotations

import json
import os
import pkgutil
import subprocess
from functools import cache
from importlib import metadata
from importlib.resources import files
from pathlib import Path


def package_dir(package: str) -> Path:
    """The directory of one of the suite's packages (regular packages on a file system, never a zip), by its real path
    (in the checkout, cdc_conformance/golden is a link to golden/: a path is the suite's whichever way it is spelled)."""
    return Path(str(files(package))).resolve()


SUITE_ROOT = Path(__file__).resolve().parent.parent   # the checkout, or the installed cdc_conformance package
CONFORMANCE_DIR = package_dir("cdc_conformance.conformance")
GOLDEN_DIR = package_dir("cdc_conformance.golden")
MAVEN_DIR = package_dir("cdc_conformance.harness") / "maven"
# the canonical model's value grammar: the suite's, read by its contract check and built into the reference's jar
MODEL_GRAMMAR = package_dir("cdc_conformance") / "model-grammar.json"
# certification records of the reference normalizer: committed in the checkout, not part of the wheel
CERTIFICATIONS_DIR = SUITE_ROOT / "reports" / "certifications"

# a user's own directories, relative to the working directory (the user's repository)
USER_CASES = Path("cdc-cases")
USER_GOLDEN = Path("cdc-golden")
USER_KNOWN_FAILURES = Path("cdc-known-failures.yaml")
USER_OBTAINED = Path(".cdc-obtained")
USER_CERTIFICATIONS = Path("cdc-certifications")


@cache
def is_checkout() -> bool:
    """The suite runs from its own source checkout (an editable install), not from an installed wheel."""
    return (SUITE_ROOT / "pyproject.toml").is_file() and (SUITE_ROOT / "harness" / "suite_files.py").is_file()


BUILD_FILE = package_dir("cdc_conformance") / "_build.json"  # written by the build (setup.py), absent in a checkout


@cache
def suite_version() -> str:
    try:
        return metadata.version("cdc-conformance")
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def suite_commit() -> str | None:
    """The commit the installed suite was built from (recorded by the build), or, in the suite's own checkout, HEAD
    with "-dirty" when tracked files differ from it. Never a git command outside the checkout: an installed suite sits
    in the user's virtualenv, often inside the user's own git repository."""
    if BUILD_FILE.is_file():
        return json.loads(BUILD_FILE.read_text(encoding="utf-8")).get("commit")
    if not is_checkout():
        return None

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=SUITE_ROOT).stdout.strip()
    try:
        commit = git("rev-parse", "HEAD")
        return (commit + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")) or None
    except OSError:
        return None


def editing_the_suite() -> bool:
    """The command runs inside the suite's own checkout, whose data a developer edits: only then may a default path
    point into the suite. From a user's repository (even with an editable install of the suite) it may not."""
    return is_checkout() and Path.cwd().resolve().is_relative_to(SUITE_ROOT)


def is_suite_path(path: Path) -> bool:
    """`path` lies among the suite's own files (the checkout's or the installed packages')."""
    resolved = path.resolve()
    return any(resolved.is_relative_to(root) for root in (*_part_dirs(), SUITE_ROOT / "reports"))


@cache
def _part_dirs() -> tuple[Path, ...]:
    """The package's own folder and each subpackage's (the client's folders, linked into it in the checkout)."""
    root = package_dir("cdc_conformance")
    return (root, *(package_dir(f"cdc_conformance.{part.name}") for part in pkgutil.iter_modules([str(root)]) if part.ispkg))


def read_only(path: Path) -> bool:
    """`path` is the suite's own data and the command runs outside the suite's checkout: nothing may be written there."""
    return is_suite_path(path) and not editing_the_suite()


def cache_dir() -> Path:
    """Where JVM artifacts, the compiled normalizer jar and image build locks go: CDC_CONFORMANCE_CACHE, else the
    checkout's .cache/, else the user's cache directory (XDG_CACHE_HOME, or ~/.cache)."""
    given = os.environ.get("CDC_CONFORMANCE_CACHE")
    if given:
        return Path(given)
    if is_checkout():
        return SUITE_ROOT / ".cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cdc-conformance"


def shown(path: Path) -> str:
    """A path as a person should read it: relative to the working directory when it lies under it, else absolute
    (a path relative to the suite's checkout points nowhere from a user's repository)."""
    absolute = path.resolve()
    here = Path.cwd().resolve()
    return str(absolute.relative_to(here)) if absolute.is_relative_to(here) else str(absolute)


def obtained_root(golden_root: Path, given: Path | None = None, here: Path | None = None) -> Path | None:
    """Where outputs that differ from their golden files go (None: beside them): as given; beside the golden files
    when they are the user's own, or the suite's inside its checkout; else .cdc-obtained/ in `here` (the working
    directory, or the pytest plugin's rootdir)."""
    if given is not None:
        return given
    if read_only(golden_root):
        return (here or Path()) / USER_OBTAINED
    return None
