"""`bench --profile` (make profile) end to end, in this process's Spark session: async-profiler loads into the running
driver, and each side's profiled pass leaves a flame graph, its stacks and a summary in which the normalizer's time is
the readers' and the plain pass's is Spark's parser. make test-long."""
import re

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.long]


def test_bench_profile_writes_flame_graphs_and_where_the_time_went(tmp_path, cli_here):
    code, out, err = cli_here("bench", "--format", "canal-json", "--messages", "20000", "--repeat", "1",
                              "--profile", str(tmp_path))
    assert code == 0, out + err
    for side in ("plain", "normalizer"):
        assert (tmp_path / f"canal-json-{side}.html").read_text().lstrip().startswith("<!DOCTYPE html>")
        assert (tmp_path / f"canal-json-{side}.collapsed").stat().st_size > 0
    summary = (tmp_path / "summary.md").read_text()
    parts = {name: (int(plain), int(normalizer))
             for name, plain, normalizer in re.findall(r"^\| ([^|`]+?) \| (\d+)% \| (\d+)% \|$", summary, re.M)}
    assert parts["readers (io.cdcconformance)"][0] == 0 and parts["readers (io.cdcconformance)"][1] > 20, summary
    assert parts["Spark's JSON (from_json)"][0] > 20 and parts["Spark's JSON (from_json)"][1] == 0, summary
    assert "`io.cdcconformance.canal.CanalRecords.call`" in summary
