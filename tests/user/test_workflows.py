"""The three jobs as a user runs them: a throwaway repository of the user's own (a package with its normalizer and
version, its own cases; its packages named as the suite's folders are, `normalizer` first), the suite installed from
its built wheel into a fresh virtualenv, and the steps of docs/ci/conformance.sh and docs/workflows.md run as written
there. The user's jobs write only inside the user's repository and the user's cache directory: nothing inside the
installed suite.

`make test-user` runs it (after `make test` in .ci/run; a few minutes: every step starts its own Spark, and Maven and
javac run once in a fresh user cache directory).
"""
import json
import os
import re
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from cdc_conformance.harness import suite_files
from cdc_conformance.harness.suite_files import SUITE_ROOT
from tests import installed
from tests.unit.imports import FOLDERS

NORMALIZER = "normalizer.job:normalize"
# the user's own packages, named like the suite's folders: the suite installs only `cdc_conformance`, so these keep
# their names (they once shadowed the suite's, or were shadowed by them)
USER_PACKAGES = FOLDERS
# each hands over to the reference, so each brings the reference's jars through its door (spark_jars), and takes the
# formats' options (debezium-avro's schema registry: docs/normalizer-contract.md, "Format options")
CORRECT = "from cdc_conformance.normalizer.pipeline import normalize as reference\n" \
          "from cdc_conformance.normalizer.pipeline import spark_jars  # noqa: F401\n\n\n" \
          "def normalize(raw, format_id, **options):\n    return reference(raw, format_id, **options)\n"
# the next release's bug: before and after swapped on UPDATE
SWAPPED = """from pyspark.sql import functions as F

from cdc_conformance.normalizer.pipeline import Normalized
from cdc_conformance.normalizer.pipeline import normalize as reference
from cdc_conformance.normalizer.pipeline import spark_jars  # noqa: F401


def normalize(raw, format_id, **options):
    result = reference(raw, format_id, **options)
    update = F.col("op") == "UPDATE"
    swapped = [F.when(update, F.col("after")).otherwise(F.col("before")).alias("before") if name == "before" else
               F.when(update, F.col("before")).otherwise(F.col("after")).alias("after") if name == "after" else
               F.col(name) for name in result.events.columns]
    return Normalized(result.events.select(*swapped), result.quarantine)
"""
OWN_CASE = "debezium-schemaless-decimals-read-alike"


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    """The user's repository with the suite installed in its virtualenv (as `pip install cdc-conformance .` would)."""
    root = tmp_path_factory.mktemp("user")
    repo = root / "repo"
    for package in USER_PACKAGES:
        (repo / package).mkdir(parents=True)
        (repo / package / "__init__.py").write_text(f'"""The user\'s own {package}."""\n')
    (repo / "normalizer" / "__init__.py").write_text('__version__ = "1.4.0"\n')
    (repo / "normalizer" / "job.py").write_text(CORRECT)
    (repo / "pyproject.toml").write_text('[project]\nname = "mypkg"\nversion = "1.4.0"\n'
                                         f'[tool.setuptools]\npackages = {list(USER_PACKAGES)!r}\n'.replace("'", '"'))
    (repo / "ci").mkdir()
    shutil.copy(SUITE_ROOT / "docs" / "ci" / "conformance.sh", repo / "ci" / "conformance.sh")
    _git(repo, "init", "-q")  # a git repository of the user's own: the suite never takes its commit for the suite's
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "release 1.4.0")
    wheel = installed.build_wheel(root / "dist")
    python = installed.fresh_venv(root / "venv", wheel, "-e", str(repo))
    cache = root / "cache"  # a fresh user cache directory: Maven and javac run there, once
    env = installed.user_env(python, cache)
    return repo, python, env, cache, installed.site_packages(python)


def _git(repo, *args):
    env = {"GIT_AUTHOR_NAME": "user", "GIT_AUTHOR_EMAIL": "user@example.org", "GIT_COMMITTER_NAME": "user",
           "GIT_COMMITTER_EMAIL": "user@example.org", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _said(result) -> str:
    return f"exit {result.returncode}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"


def _run(user, *command, ok=(0,), timeout=900, **extra_env):
    repo, _, env, _, _ = user
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, cwd=repo, timeout=timeout,
                            env={**env, **extra_env})
    assert result.returncode in ok, f"{command}: {_said(result)}"
    return result


def test_the_three_jobs_from_the_users_repository(user):
    repo, python, env, cache, site_packages = user
    before = installed.snapshot(site_packages)
    suite_cases = len(list((site_packages / "cdc_conformance" / "conformance" / "cases").rglob("*.yaml")))

    # the user's own case, approved into the user's own golden files
    (repo / "cdc-cases" / "debezium-json").mkdir(parents=True)
    suite_case = site_packages / "cdc_conformance" / "conformance" / "cases" / "debezium-json" / f"{OWN_CASE}.yaml"
    shutil.copy(suite_case, repo / "cdc-cases" / "debezium-json")
    _run(user, "cdc-conformance", "run", "--normalizer", NORMALIZER, "--cases-dir", "cdc-cases", "--golden-dir", "cdc-golden",
         "--update-golden", "--reports", "approve")
    assert (repo / "cdc-golden" / "debezium-json" / f"{OWN_CASE}.json").is_file()

    # release 1.4.0: the CI script, certifying debezium-json@3.2; its merged results become the baseline
    # as the CI examples' parallel jobs run it (one machine here): own cases, two shards, the gate job
    shutil.rmtree(repo / "conformance-results", ignore_errors=True)
    own = _run(user, "bash", "ci/conformance.sh", "own", CDC_NORMALIZER=NORMALIZER)
    for shard in ("1/2", "2/2"):
        _run(user, "bash", "ci/conformance.sh", "shard", shard, CDC_NORMALIZER=NORMALIZER)
    first = _run(user, "bash", "ci/conformance.sh", "gate", CDC_NORMALIZER=NORMALIZER, CDC_CERTIFY="debezium-json@3.2",
                 CDC_EXAMPLES="30")  # 10 left some seeds without a TOMBSTONE or key change (coverage, not a bug)
    assert "2 passed" in own.stdout and "no CDC_BASELINE" in first.stdout, _said(own) + _said(first)
    merged = [json.loads(line) for line in (repo / "conformance-results" / "merged" / "results.jsonl").read_text().splitlines()]
    assert merged[0]["normalizer"] == NORMALIZER and merged[0]["normalizer_version"] == "mypkg 1.4.0"
    suite = {"suite_version": metadata.version("cdc-conformance"), "suite_commit": suite_files.suite_commit()}  # this checkout's
    assert {key: merged[0][key] for key in suite} == suite, "the suite is named by its version and build commit"
    assert len({row["case"] for row in merged[1:]}) == suite_cases and all(row["status"] == "PASS" for row in merged[1:])
    records = sorted(p.name for p in (repo / "cdc-certifications").glob("*.json"))
    assert records == ["debezium-json@3.2+normalizer.job.normalize.json"], records
    # Avro through a schema registry: the suite's own registry, built into the user's cache and started for the run
    _run(user, "cdc-conformance", "certify", "debezium-avro@3.2", "--normalizer", NORMALIZER, "--examples", "10")
    assert (repo / "cdc-certifications" / "debezium-avro@3.2+normalizer.job.normalize.json").is_file()
    (repo / "conformance-baseline").mkdir()
    shutil.copy(repo / "conformance-results" / "merged" / "results.jsonl", repo / "conformance-baseline" / "results.jsonl")

    # the next release swaps before and after on UPDATE: its own cases fail, so does the gate, naming the regressions
    (repo / "normalizer" / "job.py").write_text(SWAPPED)
    _git(repo, "commit", "-q", "-am", "swap")
    (repo / "normalizer" / "job.py").write_text(SWAPPED + "\n")  # and a dirty tree: neither is the suite's commit
    second = _run(user, "bash", "ci/conformance.sh", ok=(1,), CDC_NORMALIZER=NORMALIZER, CDC_SHARDS="1")
    second_facts = json.loads((repo / "conformance-results" / "own" / "results.jsonl").read_text().splitlines()[0])  # set -e: it stopped there
    assert {key: second_facts[key] for key in suite} == suite
    assert "FAIL debezium-schemaless-decimals-read-alike" in second.stdout and "replay: cdc-conformance run --case " \
        f"{OWN_CASE} --normalizer {NORMALIZER} --cases-dir cdc-cases --golden-dir cdc-golden" in second.stdout
    shutil.rmtree(repo / "cdc-cases")  # the user's cases aside: to the gate
    shutil.rmtree(repo / "cdc-golden")
    gated = _run(user, "bash", "ci/conformance.sh", ok=(1,), CDC_NORMALIZER=NORMALIZER, CDC_SHARDS="1",
                 CDC_BASELINE="conformance-baseline/results.jsonl")
    assert "REGRESSION" in gated.stdout and "gate: FAILED" in gated.stdout, _said(gated)
    # ... and gated against its own failing results, a bug already released is no regression
    shutil.copy(repo / "conformance-results" / "merged" / "results.jsonl", repo / "conformance-baseline" / "results.jsonl")
    again = _run(user, "bash", "ci/conformance.sh", CDC_NORMALIZER=NORMALIZER, CDC_SHARDS="1",
                 CDC_BASELINE="conformance-baseline/results.jsonl")
    assert "gate: passed" in again.stdout, _said(again)

    _reproduce_a_production_bug(user)

    assert installed.snapshot(site_packages) == before, "a user's job wrote into the installed suite"
    assert list((cache / "cdc-conformance" / "jvm").glob("cdc-conformance-normalizer-*/cdc-conformance-normalizer.jar"))
    assert not (repo / "artifacts").exists()


PRODUCE = """import json, os
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
servers = os.environ["CDC_BOOTSTRAP_SERVERS"]
admin = AdminClient({"bootstrap.servers": servers})
for future in admin.create_topics([NewTopic("prod.public.customers", 1, 1)]).values():
    future.result()
producer = Producer({"bootstrap.servers": servers})
for i in range(5):
    before = {"id": i, "email": f"user{i}@example.org", "name": f"Old {i}"}
    value = {"before": before, "after": {**before, "name": f"New {i}"}, "op": "u", "ts_ms": 1700000000100 + i,
             "source": {"version": "3.2.0.Final", "connector": "postgresql", "name": "prod", "ts_ms": 1700000000000 + i,
                        "snapshot": "false", "db": "shop", "sequence": json.dumps([str(i), str(i + 1)]), "schema": "public",
                        "table": "customers", "txId": 5000 + i, "lsn": 10000 + i, "xmin": None}}
    producer.produce("prod.public.customers", key=json.dumps({"id": i}), value=json.dumps(value))
assert producer.flush(30) == 0
"""


def _reproduce_a_production_bug(user):
    """docs/workflows.md's Reproduce section, as written there: capture from a cluster (the embedded broker, started
    with `cdc-conformance broker`), minimize, redact, promote into the user's own cases as a known failure."""
    repo = user[0]
    (repo / "produce.py").write_text(PRODUCE)
    _run(user, "cdc-conformance", "broker", "--", "bash", "-c",
         'python produce.py && cdc-conformance capture --format debezium-json --bootstrap-servers "$CDC_BOOTSTRAP_SERVERS" '
         "--topic prod.public.customers --partition 0 --offsets 0:5 --out bug.yaml")
    _run(user, "cdc-conformance", "minimize", "bug.yaml", "--normalizer", NORMALIZER)
    _run(user, "cdc-conformance", "redact", "bug.yaml", "--normalizer", NORMALIZER, "--column", "email")
    (record,) = yaml.safe_load((repo / "bug.yaml").read_text())["records"]
    after = json.loads(record["value"])["after"]
    assert "@example.org" not in after["email"]
    want = {"events": [{"op": "UPDATE", "after": {name: str(value) for name, value in after.items()}}]}
    (repo / "want.yaml").write_text(yaml.safe_dump(want))
    _run(user, "cdc-conformance", "promote", "bug.yaml", "--id", "mine-update-swapped", "--feature", "update", "--expect",
         "want.yaml", "--known-failure", "swaps before and after on UPDATE", "--bug", "https://tracker.example/CDC-42",
         "--normalizer", NORMALIZER)
    assert (repo / "cdc-cases" / "debezium-json" / "mine-update-swapped.yaml").is_file()
    listed = yaml.safe_load((repo / "cdc-known-failures.yaml").read_text())["known_failures"]
    assert [entry["case"] for entry in listed] == ["mine-update-swapped"]
    # the user's suite of their own cases, with their known failures: the promoted case is an expected failure
    result = _run(user, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cdc-normalizer", NORMALIZER,
                  "--cdc-cases", "cdc-cases", "--cdc-golden", "cdc-golden", "--cdc-known-failures", "cdc-known-failures.yaml")
    assert "1 passed, 1 xfailed" in result.stdout, _said(result)


def test_the_peers_from_the_users_repository(user):
    """`cdc-conformance peers` as issue 52 asks, from the user's repository: the reference and the shipped peers over
    every case of debezium-json, canal-json and dts-avro and 200 drawn examples each; flink-json, Flink's SQL job, Paimon,
    Kafka Connect and DTS's SDK resolved into the user's cache."""
    repo, _, _, cache, site_packages = user
    before = installed.snapshot(site_packages)
    result = _run(user, "cdc-conformance", "peers", "--format", "debezium-json", "--format", "canal-json",
                  "--format", "dts-avro", "--examples", "200", "--seed", "1", "--reports", "peer-reports")
    lines = [json.loads(line) for line in (repo / "peer-reports" / "results.jsonl").read_text().splitlines()]
    rows = lines[1:]
    cases = {fmt: len(list((site_packages / "cdc_conformance" / "conformance" / "cases" / fmt).glob("*.yaml")))
             for fmt in ("debezium-json", "canal-json", "dts-avro")}
    units = {(row["normalizer"], row["format"]) for row in rows}
    assert units == {("reference (cdc_conformance.normalizer)", "debezium-json"), ("reference (cdc_conformance.normalizer)", "canal-json"),
                     ("Flink debezium-json 1.20.4", "debezium-json"), ("naive Spark from_json", "debezium-json"),
                     ("Flink debezium-json 1.20.4 (ignore-parse-errors)", "debezium-json"),
                     ("Flink canal-json 1.20.4", "canal-json"), ("naive Spark from_json", "canal-json"),
                     ("Flink canal-json 1.20.4 (ignore-parse-errors)", "canal-json"),
                     ("Paimon debezium-json 1.3.1", "debezium-json"), ("Paimon canal-json 1.3.1", "canal-json"),
                     ("Kafka Connect JsonConverter 4.1.1", "debezium-json"),
                     ("Flink SQL job debezium-json 1.20.4 (ignore-parse-errors)", "debezium-json"),
                     ("Flink SQL job canal-json 1.20.4 (ignore-parse-errors)", "canal-json"),
                     ("reference (cdc_conformance.normalizer)", "dts-avro"), ("DTS subscribe SDK 2.0.0", "dts-avro")}, units
    for normalizer, fmt in units:
        mine = [row for row in rows if (row["normalizer"], row["format"]) == (normalizer, fmt)]
        assert len(mine) == cases[fmt] + 200, (normalizer, fmt, len(mine))
        if normalizer.startswith("reference"):
            assert {row["status"] for row in mine} == {"PASS"}, [row["problems"] for row in mine if row["status"] != "PASS"][:3]
    for flink_canal_label in ("Flink canal-json 1.20.4", "Flink SQL job canal-json 1.20.4 (ignore-parse-errors)"):
        flink_canal = {row["case"]: row for row in rows if row["normalizer"] == flink_canal_label}
        assert flink_canal["canal-json-old-per-row"]["status"] == "FAIL"  # docs/peers.md C1, in the UDF and the real job
        assert flink_canal["canal-json-old-per-row"]["classes"] == {"C1": 1}
    matrix = (repo / "peer-reports" / "matrix.html").read_text()
    assert "Implementations side by side" in matrix and all(name in matrix for name, _ in units)
    assert "<tr id='class-C1'>" in matrix and "<td class='LOST'>LOST</td>" in matrix  # the legend: classes, verdicts
    assert "seed 1" in result.stdout and lines[0]["examples_per_format"] == 200
    assert list((cache / "cdc-conformance" / "jvm").glob("cdc-conformance-flink-peer-1.20.4-*/cdc-conformance-flink-peer-1.20.4.jar"))
    assert list((cache / "cdc-conformance" / "jvm").glob("cdc-conformance-paimon-peer-1.3.1-*/cdc-conformance-paimon-peer-1.3.1.jar"))
    assert list((cache / "cdc-conformance" / "jvm").glob("cdc-conformance-connect-peer-4.1.1-*/cdc-conformance-connect-peer-4.1.1.jar"))
    assert list((cache / "cdc-conformance" / "jvm").glob("cdc-conformance-flink-sql-peer-1.20.4-*/cdc-conformance-flink-sql-peer-1.20.4.jar"))
    assert list((cache / "cdc-conformance" / "jvm").glob("cdc-conformance-dts-peer-2.0.0-*/cdc-conformance-dts-peer-2.0.0.jar"))
    assert installed.snapshot(site_packages) == before, "peers wrote into the installed suite"


def test_the_first_run_mistakes_from_the_users_repository(user, tmp_path):
    """Issue 58's journey steps (7-13), as a new user meets them, with the built wheel: no Java on PATH is one line,
    once, and leaves no broker directory; a known-failures file with a mistake is one line naming it, from lint, run
    and the plugin; `--cdc-remote` is refused as `--remote` is; `--version` names the release and its commit; a
    streaming benchmark of a batch-only normalizer is refused before any JVM. Nothing is written into the installed
    suite."""
    repo, python, env, _, site_packages = user
    before = installed.snapshot(site_packages)
    cli, scratch = python.parent / "cdc-conformance", tmp_path / "tmp"
    scratch.mkdir()
    no_java = {"JAVA_HOME": str(tmp_path / "no-java"), "TMPDIR": str(scratch),
               "PATH": os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not (Path(p) / "java").exists())}
    started = _run(user, python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cdc-normalizer", "normalizer.job:normalize",
                   "--cdc-format", "canal-json", ok=(1,), **no_java)
    said = (started.stdout + started.stderr).splitlines()
    assert sum("the run could not start" in line for line in said) == 1 and len(said) < 15, said[:30]
    assert not list(scratch.glob("cdc-kafka-*")), "a broker directory was left behind"
    (repo / "broken-known.yaml").write_text("known_failures:\n  - case: a-case\n")
    for command in ([cli, "lint", "--known-failures", "broken-known.yaml"],
                    [cli, "run", "--normalizer", "normalizer.job:normalize", "--known-failures", "broken-known.yaml"]):
        refused = _run(user, *command, ok=(2,))
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and "cdc-conformance: error: broken-known.yaml: entry 1 (a-case): no reason" in lines[0], lines
    plugin = _run(user, python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cdc-normalizer", "normalizer.job:normalize",
                  "--cdc-known-failures", "broken-known.yaml", ok=(4,))
    assert "broken-known.yaml: entry 1 (a-case): no reason" in plugin.stderr and "Traceback" not in plugin.stderr, _said(plugin)
    remote = _run(user, python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cdc-normalizer", "normalizer.job:normalize",
                  "--cdc-remote", "http://localhost:15002", ok=(4,))
    assert "--cdc-remote http://localhost:15002: a Spark Connect URL" in remote.stderr, _said(remote)
    assert re.match(r"cdc-conformance \S+ \(commit [0-9a-f]{40}(-dirty)?\)$", _run(user, cli, "--version").stdout.strip())
    bench = _run(user, cli, "bench", "--streaming", "--normalizer", "normalizer.job:normalize", ok=(2,))
    assert "has no streaming entry" in bench.stderr and len(bench.stderr.strip().splitlines()) == 1, bench.stderr
    (repo / "broken-known.yaml").unlink()
    assert installed.snapshot(site_packages) == before, "a first-run mistake wrote into the installed suite"
