"""Every repository path a doc, comment or test names exists (issue 51: fifteen of them named files that had gone).
A reference is a path under one of the repository's folders with a file's extension; the few that name something
not in the repository on purpose are listed with their reason."""
import re
import subprocess

from cdc_conformance.harness.suite_files import SUITE_ROOT
from tests.unit.imports import FOLDERS as PARTS

FOLDERS = "|".join((*PARTS, "docs", "tests", "scripts", "cdc_conformance", "reports"))
REFERENCE = re.compile(rf"(?<![\w./-])((?:{FOLDERS})/[\w./-]*\w\.(?:py|md|java|json|yaml|sh|avsc|xml|properties))")
NOT_IN_THE_REPOSITORY = {
    "cdc_conformance/_build.json": "written by the build into the wheel (setup.py)",
    "cdc_conformance/a/b.py": "the layout's rule, spelled for any module a.b",
    "docs/formats/no-such-page.md": "a lint fixture's missing page",
    "docs/relational-databases/track-changes/change-event-streaming/message-format.md": "a path of Microsoft's docs",
    "golden/x.json": "a made-up golden path in a gate test's rows",
    "reports/peers/results.json": "written by `make peers` (the regex stops at .json of results.jsonl)",
}


def _referring_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=SUITE_ROOT, check=True).stdout.split()
    return [name for name in listed if name.endswith((".py", ".md", ".java", ".yaml", ".yml", ".sh", ".toml", ".xml"))
            and not name.startswith(("golden/", "reports/certifications/",
                                     "tests/unit/import_fixtures/"))]  # the paths they pretend to have


def test_every_named_path_exists():
    missing = []
    for name in _referring_files():
        path = SUITE_ROOT / name
        for reference in REFERENCE.findall(path.read_text(encoding="utf-8", errors="replace")):
            if reference in NOT_IN_THE_REPOSITORY:
                continue
            if not any(candidate.exists() for candidate in (SUITE_ROOT / reference, SUITE_ROOT / "docs" / reference,
                                                             path.parent / reference)):
                missing.append(f"{name}: {reference}")
    assert not missing, "paths that do not exist:\n" + "\n".join(missing)


def test_the_listed_exceptions_are_still_named_somewhere():
    named = {ref for name in _referring_files() for ref in REFERENCE.findall((SUITE_ROOT / name).read_text(errors="replace"))}
    assert set(NOT_IN_THE_REPOSITORY) <= named, set(NOT_IN_THE_REPOSITORY) - named
