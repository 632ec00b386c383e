"""What a Python file of the suite imports, as the interpreter would resolve it: the one reader behind the import rules
(test_who_imports_whom.py: who may import whom; test_import_graph.py: no circle). A name counts however it is written:
`import a.b`, `from a import b` (the module a.b when it is one), relative imports, and a constant string handed to
`import_module` or `__import__`. Each rule's violations are fixtures in import_fixtures/ that must fail it."""
from __future__ import annotations

import ast
import functools
import subprocess
from pathlib import Path

from cdc_conformance.harness.suite_files import SUITE_ROOT

PACKAGE = "cdc_conformance"


def linked_folders() -> tuple[str, ...]:
    """The client's folders, each a subpackage of cdc_conformance through a link in cdc_conformance/: the one list of
    the parts (pyproject.toml), every other list derives from it."""
    return tuple(sorted(entry.name for entry in (SUITE_ROOT / PACKAGE).iterdir() if entry.is_symlink()))


FOLDERS = linked_folders()  # imported as cdc_conformance.<folder>


def module_name(relative: Path) -> str:
    """The module a repository file is imported as: the client's folders and cdc_conformance/ (the model, peers/) as
    cdc_conformance.*, anything else (tests) by its path."""
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if parts and parts[0] in FOLDERS:
        parts.insert(0, PACKAGE)
    return ".".join(parts)


def imported(source: str, relative: Path) -> set[str]:
    """Every module name the file at `relative` (repository-relative) imports, with each `from a import b`'s a.b."""
    module = module_name(relative)
    package = module.split(".") if relative.name == "__init__.py" else module.split(".")[:-1]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source, str(relative))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package[:len(package) - node.level + 1]
                base = ".".join([*kept, *([base] if base else [])])
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names if alias.name != "*"}
        elif isinstance(node, ast.Call) and _is_import_call(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.add(_resolved_string(first.value, node, package))
    return {name for name in names if name}


def _is_import_call(function: ast.expr) -> bool:
    name = function.attr if isinstance(function, ast.Attribute) else function.id if isinstance(function, ast.Name) else ""
    return name in ("import_module", "__import__")


def _resolved_string(name: str, call: ast.Call, package: list[str]) -> str:
    """`import_module(".x", __package__)`: a relative name against the caller's package."""
    if not name.startswith("."):
        return name
    level = len(name) - len(name.lstrip("."))
    kept = package[:len(package) - level + 1]
    return ".".join([*kept, name.lstrip(".")]) if name.lstrip(".") else ".".join(kept)


def python_files() -> list[Path]:
    """The repository's Python files (git's list), repository-relative; the fixtures below are data, not the suite."""
    listed = subprocess.run(["git", "ls-files", "*.py"], capture_output=True, text=True, cwd=SUITE_ROOT, check=True).stdout
    return [Path(name) for name in listed.split() if not name.startswith("tests/unit/import_fixtures/")]


@functools.cache  # every rule reads the same files: once per test process
def suite_imports() -> dict[Path, set[str]]:
    return {path: imported((SUITE_ROOT / path).read_text(encoding="utf-8"), path) for path in python_files()}


def fixtures() -> list[tuple[str, Path, str, str]]:
    """(fixture file, the path it pretends to have, the rule it must break, its source): each fixture's first line is
    `# as: PATH breaks: RULE`."""
    out = []
    for fixture in sorted((Path(__file__).parent / "import_fixtures").glob("*.py")):
        source = fixture.read_text(encoding="utf-8")
        header = source.splitlines()[0].removeprefix("# as: ").split(" breaks: ")
        out.append((fixture.name, Path(header[0]), header[1].strip(), source))
    return out
