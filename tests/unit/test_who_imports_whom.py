"""Who may import whom (issue 51). The wheel installs one top-level package, `cdc_conformance`; nothing of the suite
imports its folders by their bare names (`normalizer`, `harness`, ...), which in a user's repository are the user's own
packages. The harness and the generators see the reference normalizer only through the door (harness/under_test.py);
any import that must go around it is listed below with its reason, and fails this test once it is gone, so the list
stays the truth (none today). The model (cdc_conformance/model.py, keys.py, model-grammar.json) is the suite's and
imports nothing of it."""
import ast
import subprocess
from collections import defaultdict

from cdc_conformance.harness.suite_files import SUITE_ROOT

FOLDERS = {"normalizer", "harness", "generators", "conformance", "golden"}
REFERENCE = "cdc_conformance.normalizer"
# (importing folder, imported module of the reference) -> why it still does; remove an entry once its import is gone
AROUND_THE_DOOR: dict[tuple[str, str], str] = {}


def _python_files():
    listed = subprocess.run(["git", "ls-files", "*.py"], capture_output=True, text=True, cwd=SUITE_ROOT, check=True).stdout
    return [SUITE_ROOT / name for name in listed.split()]


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def test_nothing_imports_the_suites_folders_by_their_bare_names():
    bare = [f"{path.relative_to(SUITE_ROOT)}: {name}" for path in _python_files() for name in _imports(path)
            if name.split(".")[0] in FOLDERS]
    assert not bare, "import the suite as cdc_conformance.<folder>:\n" + "\n".join(bare)


def _around_the_door() -> dict[tuple[str, str], list[str]]:
    found = defaultdict(list)
    for path in _python_files():
        folder = path.relative_to(SUITE_ROOT).parts[0]
        if folder not in ("harness", "generators"):  # the door loads a normalizer by name (import_module), never by import
            continue
        for name in _imports(path):
            parts = name.split(".")
            if name.startswith(REFERENCE + ".") and len(parts) >= 3:
                module = ".".join(parts[:3])
                if str(path.relative_to(SUITE_ROOT)) not in found[(folder, module)]:
                    found[(folder, module)].append(str(path.relative_to(SUITE_ROOT)))
    return found


def test_the_harness_and_generators_reach_the_reference_only_through_the_door():
    found = _around_the_door()
    new = {key: files for key, files in found.items() if key not in AROUND_THE_DOOR}
    assert not new, f"imports of the reference normalizer from the harness or generators: {new}"
    gone = sorted(set(AROUND_THE_DOOR) - set(found))
    assert not gone, f"no longer imported (remove from AROUND_THE_DOOR): {gone}"


def test_the_model_imports_nothing_of_the_suite():
    wrong = [f"{path.name}: {name}" for path in (SUITE_ROOT / "cdc_conformance").glob("*.py") for name in _imports(path)
             if name.startswith("cdc_conformance")]
    assert not wrong, wrong


def test_the_normalizer_imports_nothing_of_the_harness_or_generators():
    wrong = [f"{path.relative_to(SUITE_ROOT)}: {name}" for path in _python_files()
             if path.relative_to(SUITE_ROOT).parts[0] == "normalizer" for name in _imports(path)
             if name.startswith(("cdc_conformance.harness", "cdc_conformance.generators"))]
    assert not wrong, wrong
