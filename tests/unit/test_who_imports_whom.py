"""Who may import whom (issue 51). The wheel installs one top-level package, `cdc_conformance`; nothing of the suite
imports its folders by their bare names (`normalizer`, `harness`, ...), which in a user's repository are the user's own
packages. The harness and the generators see the reference normalizer only through the door (harness/under_test.py),
the package itself included (`from cdc_conformance import normalizer`); any import that must go around it is listed
below with its reason, and fails this test once it is gone, so the list stays the truth (none today). The model
(cdc_conformance/model.py, keys.py, model-grammar.json) is the suite's and imports nothing of it; the normalizer imports
nothing of the harness or the generators. Imports are read by tests/unit/imports.py (relative ones and import_module
strings too), and each rule has fixtures in import_fixtures/ that must break it (issue 58: seven of sixteen one-line
violations passed the rules before)."""
from collections import defaultdict
from pathlib import Path

import pytest

from tests.unit import imports

REFERENCE = "cdc_conformance.normalizer"
# (importing folder, imported module of the reference) -> why it still does; remove an entry once its import is gone
AROUND_THE_DOOR: dict[tuple[str, str], str] = {}


def bare_folder(path: Path, names: set[str]) -> list[str]:
    return [name for name in names if name.split(".")[0] in imports.FOLDERS]


def around_the_door(path: Path, names: set[str]) -> list[str]:
    """The harness and the generators (the door loads a normalizer by name, `import_module` of the user's spec)."""
    if path.parts[0] not in ("harness", "generators"):
        return []
    return [name for name in names if name == REFERENCE or name.startswith(REFERENCE + ".")]


def model_imports_the_suite(path: Path, names: set[str]) -> list[str]:
    if path.parts[0] != "cdc_conformance" or len(path.parts) != 2:
        return []
    return [name for name in names if name.startswith(imports.PACKAGE + ".") or name == imports.PACKAGE]


def normalizer_imports_the_harness(path: Path, names: set[str]) -> list[str]:
    if path.parts[0] != "normalizer":
        return []
    return [name for name in names if name.split(".")[:2] in (["cdc_conformance", "harness"], ["cdc_conformance", "generators"])]


RULES = {"bare-folder": bare_folder, "around-the-door": around_the_door, "model-imports-the-suite": model_imports_the_suite,
         "normalizer-imports-the-harness": normalizer_imports_the_harness}


def test_nothing_imports_the_suites_folders_by_their_bare_names():
    bare = [f"{path}: {name}" for path, names in imports.suite_imports().items() for name in bare_folder(path, names)]
    assert not bare, "import the suite as cdc_conformance.<folder>:\n" + "\n".join(bare)


def test_the_harness_and_generators_reach_the_reference_only_through_the_door():
    found = defaultdict(list)
    for path, names in imports.suite_imports().items():
        for name in around_the_door(path, names):
            found[(path.parts[0], ".".join(name.split(".")[:3]))].append(str(path))
    new = {key: files for key, files in found.items() if key not in AROUND_THE_DOOR}
    assert not new, f"imports of the reference normalizer from the harness or generators: {new}"
    gone = sorted(set(AROUND_THE_DOOR) - set(found))
    assert not gone, f"no longer imported (remove from AROUND_THE_DOOR): {gone}"


def test_the_model_imports_nothing_of_the_suite():
    wrong = [f"{path}: {name}" for path, names in imports.suite_imports().items() for name in model_imports_the_suite(path, names)]
    assert not wrong, wrong


def test_the_normalizer_imports_nothing_of_the_harness_or_generators():
    wrong = [f"{path}: {name}" for path, names in imports.suite_imports().items()
             for name in normalizer_imports_the_harness(path, names)]
    assert not wrong, wrong


@pytest.mark.parametrize("fixture, pretends, rule, source", [f for f in imports.fixtures() if f[2] in RULES],
                         ids=lambda value: value if isinstance(value, str) and value.endswith(".py") else "")
def test_each_fixture_breaks_its_rule(fixture, pretends, rule, source):
    assert RULES[rule](pretends, imports.imported(source, pretends)), f"{fixture} ({pretends}) passes {rule}"


def test_every_rule_has_fixtures_and_every_fixture_a_rule():
    named = {rule for _, _, rule, _ in imports.fixtures()}
    assert set(RULES) <= named and named <= set(RULES) | {"circle"}, named ^ set(RULES)
