"""The release's artifacts as .github/workflows/release.yml (and `make dist`) build and check them: an sdist and a wheel
that `twine check --strict` passes, a wheel that installs one top-level package (`cdc_conformance`: a user's own
`normalizer` or `harness` keeps its name) and names the commit it was built from (setup.py records it at build time)."""
import json
import subprocess
import sys
import zipfile
from pathlib import Path

from cdc_conformance.harness.suite_files import suite_commit
from tests import installed

TWINE = Path(sys.executable).parent / "twine"


def test_the_release_artifacts_pass_twine_and_name_their_commit(tmp_path):
    wheel = installed.build_wheel(tmp_path / "dist")
    checked = subprocess.run([str(TWINE), "check", "--strict", *map(str, sorted((tmp_path / "dist").glob("cdc_conformance-*")))],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist() if not name.split("/")[0].endswith(".dist-info")}
        built = json.loads(archive.read("cdc_conformance/_build.json"))
    assert tops == {"cdc_conformance"}, tops
    assert built["commit"] == suite_commit(), "the wheel names the commit of the checkout it was built from"
