"""A printed or recorded seed must draw the same examples again in another process: certification records
and failing property runs name their seed for exactly that. Two processes with different string-hash seeds,
one of which has first imported modules a Spark run would import, must render byte-identical records."""
import os
import subprocess
import sys

import pytest

from cdc_conformance.harness.suite_files import SUITE_ROOT as REPO_ROOT

DRAW = """
import hashlib, sys
{preload}
from cdc_conformance.harness.property import draw_examples
from cdc_conformance.harness.registry import Registry
registry = Registry.load()
for format_id in registry.decoded_formats():
    generator = registry.generator(format_id)
    digest = hashlib.sha256()
    for index, example in enumerate(draw_examples(generator.examples(), 10, 20261123)):
        for item in generator.render(example, "seed-topic", index):
            digest.update(repr((item.record.key, item.record.value, item.record.headers, item.record.partition,
                                item.events, item.quarantine)).encode())
    print(format_id, digest.hexdigest())
"""


def _digests(hash_seed: str, preload: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    result = subprocess.run([sys.executable, "-c", DRAW.format(preload=preload)], cwd=REPO_ROOT, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


# about 36 s (two processes drawing every format): make test-long, to keep make test's 12 minutes (a fresh clone took
# 684 s at cea2cdc)
@pytest.mark.long
def test_the_same_seed_draws_the_same_records_in_another_process():
    plain = _digests("1", "")
    after_a_run = _digests("2", "import cdc_conformance.normalizer.pipeline, cdc_conformance.normalizer.debezium, cdc_conformance.harness.cli")
    assert plain.count("\n") >= 8
    assert plain == after_a_run, f"{plain}\n!=\n{after_a_run}"

