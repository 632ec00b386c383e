"""scripts/operator_floor.py end to end, in its own process (its session starts with the operator's jar): the operator
running a function that does nothing of the normalizer's passes on the very groups the normalizer releases (`--check`,
over the topic in one batch), so its speed is the operator's own, and the table has every variant. make test-long."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.long]

SCRIPT = Path(__file__).parents[2] / "scripts" / "operator_floor.py"


def test_the_bare_operator_releases_the_normalizers_groups_and_is_measured():
    run = subprocess.run([sys.executable, str(SCRIPT), "--format", "dataworks-json", "--messages", "2000", "--repeat", "1",
                          "--check"], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    row = next(line for line in run.stdout.splitlines() if line.startswith("| dataworks-json |"))
    cells = [cell.strip() for cell in row.split("|")[2:-1]]  # plain, floor, 3 operators, normalizer, 4 ratios to the floor
    assert len(cells) == 10, cells
    assert all(re.fullmatch(r"[\d,]+", rate) and int(rate.replace(",", "")) > 0 for rate in cells[:6]), cells
    assert all(re.fullmatch(r"\d+\.\d\d", ratio) for ratio in cells[6:]), cells
