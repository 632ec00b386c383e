"""scripts/reader_ceiling.py (make ceiling) end to end, in its own process (its session starts with the replay jar):
each ceiling's plan gives the normalizer's own output, row for row (`--check`), so a ceiling measures the same work
minus the reading, and the table has the three sides. make test-long."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.long]

SCRIPT = Path(__file__).parents[2] / "scripts" / "reader_ceiling.py"


def test_each_ceiling_replays_the_normalizers_output_and_is_measured():
    run = subprocess.run([sys.executable, str(SCRIPT), "--format", "debezium-avro", "--format", "ces-json",
                          "--messages", "2000", "--repeat", "1", "--check"], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    rows = {line.split("|")[1].strip(): line for line in run.stdout.splitlines() if line.startswith("| ")}
    cells = [cell.strip() for cell in rows["debezium-avro"].split("|")[2:-1]]  # plain, normalizer, 2 ceilings, 3 ratios
    assert all(re.fullmatch(r"[\d,]+", rate) and int(rate.replace(",", "")) > 0 for rate in cells[:4]), cells
    assert all(re.fullmatch(r"\d+\.\d\d", ratio) for ratio in cells[4:]) and len(cells) == 7, cells
    assert rows["ces-json"].rstrip().endswith("no record reader |"), rows["ces-json"]
