"""Reproducing a production parsing bug end to end, as a team would: 1,000 records on the embedded broker, a
deliberately broken normalizer that mishandles three of them; `capture` takes the offset range, `minimize`
keeps what matters, `redact` keeps the failure (and refuses a redaction that loses it), `promote` writes a
case that lints, fails with the broken normalizer and passes with the real one."""
import json
import os
import subprocess
import sys

import pytest
import yaml

from generators.records import KafkaRecord
from harness import reproduce

pytestmark = pytest.mark.integration
BROKEN = "tests.broken_normalizer:normalize_broken"
TAGGED = {137, 512, 901}  # the broken normalizer drops '+tag' from these addresses


def _record(topic: str, i: int) -> KafkaRecord:
    email = f"user{i}+news@example.org" if i in TAGGED else f"user{i}@example.org"
    value = {"before": None, "after": {"id": i, "email": email, "name": f"Customer {i}"},
             "source": {"version": "2.7.3.Final", "connector": "postgresql", "name": "prod", "ts_ms": 1700000000000 + i,
                        "snapshot": "false", "db": "shop", "sequence": f'["{i}","{i + 1}"]', "schema": "public",
                        "table": "customers", "txId": 5000 + i, "lsn": 10_000 + i, "xmin": None},
             "op": "c", "ts_ms": 1700000000100 + i}
    return KafkaRecord(topic, 0, json.dumps({"id": i}).encode(), json.dumps(value).encode(), ())


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, cwd=cwd, timeout=900,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})


def test_capture_minimize_redact_promote(broker, tmp_path):
    topic = f"prod-{os.getpid()}.public.customers"
    broker.create_topics({topic: 1})
    broker.produce([_record(topic, i) for i in range(1000)])
    capture = tmp_path / "capture.yaml"

    captured = _cli("capture", "--format", "debezium-json", "--bootstrap-servers", broker.bootstrap_servers, "--topic", topic,
                    "--offsets", "0:1000", "--out", str(capture), cwd=tmp_path)
    assert captured.returncode == 0, captured.stderr
    document = reproduce.load(capture)
    assert len(document["records"]) == 1000 and document["provenance"]["cluster_id"]
    assert document["provenance"]["coordinates"] == f"{topic}[0]@0..999"

    minimized = _cli("minimize", str(capture), "--normalizer", BROKEN, cwd=tmp_path)
    assert minimized.returncode == 0, minimized.stdout + minimized.stderr
    assert "minimized 1000 -> 1 records, still failing with: event field after.email" in minimized.stdout
    (record,) = reproduce.load(capture)["records"]
    assert "+news@" in record["value"] and record["offset"] in TAGGED
    assert len(record["value"]) < len(_record(topic, 0).value)  # members that do not matter are gone too

    kept = capture.read_text()
    refused = _cli("redact", str(capture), "--normalizer", BROKEN, "--all-strings", cwd=tmp_path)
    assert refused.returncode == 1 and "no longer fail the same way" in refused.stderr
    assert capture.read_text() == kept  # nothing written
    redacted = _cli("redact", str(capture), "--normalizer", BROKEN, "--column", "email", cwd=tmp_path)
    assert redacted.returncode == 0, redacted.stdout + redacted.stderr
    (record,) = reproduce.load(capture)["records"]
    assert "user" not in record["value"] and "xxxx9+xxxx@xxxxxxx.xxx" in record["value"]

    cases, golden = tmp_path / "cases", tmp_path / "golden"
    promoted = _cli("promote", str(capture), "--id", "captured-email-plus-tag", "--feature", "insert",
                    "--cases-dir", str(cases), "--golden-dir", str(golden), cwd=tmp_path)
    assert promoted.returncode == 0, promoted.stdout + promoted.stderr
    case = yaml.safe_load((cases / "debezium-json" / "captured-email-plus-tag.yaml").read_text())
    assert case["expect"]["events"][0]["after"]["email"] == "xxxx9+xxxx@xxxxxxx.xxx"
    assert (golden / "debezium-json" / "captured-email-plus-tag.json").exists()

    common = ["run", "--cases-dir", str(cases), "--golden-dir", str(golden), "--reports", str(tmp_path / "r")]
    fails = _cli(*common, "--normalizer", BROKEN, cwd=tmp_path)
    assert fails.returncode == 1 and "FAIL captured-email-plus-tag" in fails.stdout
    passes = _cli(*common, cwd=tmp_path)
    assert passes.returncode == 0, passes.stdout + passes.stderr


def test_capture_reads_kcat_json_dumps_and_names_a_bad_line(tmp_path):
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"topic": "t", "partition": 2, "offset": 7, "tstype": "create", "ts": 1, "broker": 1,
                                "headers": ["h", "v"], "key": '{"id":1}', "payload": '{"op":"c"}'}) + "\n")
    records, provenance = reproduce.capture_from_kcat(dump)
    assert records == [{"topic": "t", "partition": 2, "offset": 7, "key": '{"id":1}', "value": '{"op":"c"}',
                        "headers": [{"key": "h", "value": "v"}]}]
    assert provenance["coordinates"] == "t[2]@7"
    dump.write_text("not json\n")
    with pytest.raises(reproduce.ReproduceError, match="dump.json:1: not a kcat -J line"):
        reproduce.capture_from_kcat(dump)
