"""Where the suite reads and writes (harness/suite_files.py): its data in place, the user's files relative to the
user's working directory, caches in the user's cache directory once installed."""
from pathlib import Path

import pytest

from cdc_conformance.harness import suite_files
from cdc_conformance.harness.cli.common import Misuse, written_path


@pytest.fixture
def installed(monkeypatch):
    """The suite as a wheel installs it: no checkout around its packages."""
    monkeypatch.setattr(suite_files, "is_checkout", lambda: False)


def test_the_suites_data_is_found_through_its_packages():
    assert (suite_files.CONFORMANCE_DIR / "registry.yaml").is_file()
    assert list(suite_files.GOLDEN_DIR.glob("*/*.json")) and (suite_files.MAVEN_DIR / "settings.xml").is_file()


def test_an_installed_suite_caches_in_the_users_cache_directory(installed, monkeypatch, tmp_path):
    monkeypatch.delenv("CDC_CONFORMANCE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert suite_files.cache_dir() == tmp_path / "cdc-conformance"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert suite_files.cache_dir() == Path.home() / ".cache" / "cdc-conformance"
    monkeypatch.setenv("CDC_CONFORMANCE_CACHE", str(tmp_path / "mine"))
    assert suite_files.cache_dir() == tmp_path / "mine"


def test_the_checkout_caches_in_its_own_directory(monkeypatch):
    monkeypatch.delenv("CDC_CONFORMANCE_CACHE", raising=False)
    assert suite_files.cache_dir() == suite_files.SUITE_ROOT / ".cache"


def test_from_a_users_repository_defaults_are_the_users_and_the_suite_is_read_only(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert not suite_files.editing_the_suite()
    assert written_path(None, suite_files.CONFORMANCE_DIR / "cases", suite_files.USER_CASES, "--cases-dir") == Path("cdc-cases")
    with pytest.raises(Misuse, match="--golden-dir .* the suite's own data, read-only here"):
        written_path(suite_files.GOLDEN_DIR, suite_files.GOLDEN_DIR, suite_files.USER_GOLDEN, "--golden-dir")
    assert suite_files.obtained_root(suite_files.GOLDEN_DIR) == Path(".cdc-obtained")
    assert suite_files.obtained_root(tmp_path / "golden") is None  # the user's own golden files: beside them


def test_inside_the_checkout_the_suites_own_directories_are_the_defaults(monkeypatch):
    monkeypatch.chdir(suite_files.SUITE_ROOT)
    assert suite_files.editing_the_suite()
    cases = suite_files.CONFORMANCE_DIR / "cases"
    assert written_path(None, cases, suite_files.USER_CASES, "--cases-dir") == cases
    assert suite_files.obtained_root(suite_files.GOLDEN_DIR) is None


def test_an_installed_suite_is_read_only_even_from_inside_its_directory(installed, monkeypatch):
    monkeypatch.chdir(suite_files.SUITE_ROOT)
    assert not suite_files.editing_the_suite()
    assert suite_files.obtained_root(suite_files.GOLDEN_DIR) == Path(".cdc-obtained")
