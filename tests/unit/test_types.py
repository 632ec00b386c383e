"""mypy over the package as it is imported (scripts/typecheck.sh). Not yet clean: tests/typecheck-baseline.txt lists
each module's errors today, and this test fails when a module has more (a new type error) or fewer (mend the list:
the baseline only ever shrinks, until it is empty and the list goes)."""
import re
import subprocess
from collections import Counter

import pytest

from cdc_conformance.harness.suite_files import SUITE_ROOT

BASELINE = SUITE_ROOT / "tests" / "typecheck-baseline.txt"


def _errors() -> Counter:
    result = subprocess.run([str(SUITE_ROOT / "scripts" / "typecheck.sh")], capture_output=True, text=True, timeout=600,
                            cwd=SUITE_ROOT)
    if result.returncode not in (0, 1) or "error: " not in result.stdout and result.returncode:
        pytest.fail(f"mypy did not run: {result.stdout[-2000:]}{result.stderr[-2000:]}")
    return Counter(m.group(1) for m in re.finditer(r"^(\S+?):\d+: error:", result.stdout, re.M))


def test_no_module_has_more_type_errors_than_its_baseline_and_the_baseline_is_true():
    baseline = Counter({name: int(count) for name, count in (line.split() for line in BASELINE.read_text().splitlines())})
    found = _errors()
    more = {name: (baseline[name], count) for name, count in found.items() if count > baseline[name]}
    fewer = {name: (count, found[name]) for name, count in baseline.items() if found[name] < count}
    assert not more, f"new type errors (module: baseline, now): {more}; scripts/typecheck.sh shows them"
    assert not fewer, f"fewer type errors than {BASELINE.name} says (module: baseline, now): {fewer}; lower the list"
