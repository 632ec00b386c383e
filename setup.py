"""The build records which commit of the suite it was built from (cdc_conformance/_build.json), so that a run names
the suite by its version and that commit, never by a git command run at a user's site (where the git repository is
the user's own). Everything else about the build is in pyproject.toml."""
import json
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
BUILD_FILE = Path("cdc_conformance") / "_build.json"


def _build_facts() -> dict:
    """The commit of this source tree: from an sdist, the file it carries; from the suite's own clone, git, with
    "-dirty" when tracked files differ from it (a wheel must not claim a commit it was not built from)."""
    carried = ROOT / BUILD_FILE
    if carried.is_file():
        return json.loads(carried.read_text(encoding="utf-8"))
    if not (ROOT / ".git").exists():  # never a git repository around this tree: that one is not the suite's
        return {"commit": None}

    # the same two commands as harness/suite_files.py's: a build runs before the suite can be imported
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT, check=True).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        return {"commit": commit + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None}


def _write(directory: Path) -> None:
    (directory / BUILD_FILE).write_text(json.dumps(_build_facts()) + "\n", encoding="utf-8")


class BuildWithCommit(build_py):
    def run(self):
        super().run()
        if not self.editable_mode:  # an editable install is the suite's checkout: it asks git there (suite_files)
            _write(Path(self.build_lib))


class SdistWithCommit(sdist):
    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        _write(Path(base_dir))


setup(cmdclass={"build_py": BuildWithCommit, "sdist": SdistWithCommit})
