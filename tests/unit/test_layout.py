"""One address per module (issue 58): the module `cdc_conformance.a.b` is the file cdc_conformance/a/b.py, for the
interpreter and for any tool that reads paths. The client's top-level folders are subpackages through relative links
in cdc_conformance/, the one list of the parts; the build takes the package as the folder shows it."""
import tomllib
from pathlib import Path

from cdc_conformance.harness.suite_files import SUITE_ROOT
from tests.unit.imports import FOLDERS, PACKAGE

PACKAGE_DIR = SUITE_ROOT / PACKAGE


def _top_level_packages() -> set[str]:
    return {entry.parent.name for entry in SUITE_ROOT.glob("*/__init__.py")} - {PACKAGE, "tests"}


def test_every_top_level_package_is_linked_into_the_namespace_by_a_relative_link():
    assert set(FOLDERS) == _top_level_packages(), "a top-level package outside cdc_conformance/, or a link to nothing"
    for folder in FOLDERS:
        target = Path((PACKAGE_DIR / folder).readlink())
        assert not target.is_absolute() and target == Path("..") / folder, f"{folder} -> {target}: link ../{folder}"


def test_the_build_maps_nothing_by_name():
    """No package-dir and no list of packages: a new part is a new link, and nothing else restates it."""
    setuptools = tomllib.loads((SUITE_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "package-dir" not in setuptools and "packages" not in {k for k, v in setuptools.items() if isinstance(v, list)}
    assert setuptools["packages"]["find"]["include"] == [PACKAGE, f"{PACKAGE}.*"]


def test_each_module_imported_is_the_file_its_name_spells():
    import cdc_conformance.harness.jvm as jvm
    import cdc_conformance.model as model
    import cdc_conformance.normalizer.pipeline as pipeline

    for module in (jvm, model, pipeline):
        spelled = PACKAGE_DIR.joinpath(*module.__name__.split(".")[1:]).with_suffix(".py")
        assert Path(module.__file__).resolve() == spelled.resolve(), module.__name__
