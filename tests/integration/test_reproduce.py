"""Reproducing a production parsing bug end to end, as a team would: 1,000 records on the embedded broker, a
deliberately broken normalizer that mishandles three of them; `capture` (the CLI) takes the offset range, `minimize`
keeps what matters, `redact` keeps the failure (and refuses a redaction that loses it), `promote` writes a
case that lints, fails with the broken normalizer and passes with the real one. Promoted as a known failure of
the broken normalizer instead, the case is listed with its reason and bug, and fails the run once it passes."""
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness import reproduce
from cdc_conformance.harness.cases import load_case, load_cases
from cdc_conformance.harness.known_failures import load_known_failures
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.roundtrip import RoundTrip
from cdc_conformance.harness.runner import XFAIL, XPASS, Runner
from cdc_conformance.harness.under_test import NormalizerUnderTest

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
    return subprocess.run([sys.executable, "-m", "cdc_conformance.harness", *args], capture_output=True, text=True, cwd=cwd, timeout=900,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})


@pytest.mark.long
def test_capture_minimize_redact_promote(spark, broker, tmp_path, cli_here):
    topic = f"prod-{os.getpid()}.public.customers"
    broker.create_topics({topic: 1})
    broker.produce([_record(topic, i) for i in range(1000)])
    capture = tmp_path / "capture.yaml"

    code, _, err = cli_here("capture", "--format", "debezium-json", "--bootstrap-servers", broker.bootstrap_servers,
                            "--topic", topic, "--offsets", "0:1000", "--out", capture)
    assert code == 0, err
    document = reproduce.load(capture)
    assert len(document["records"]) == 1000 and document["provenance"]["cluster_id"]
    assert document["provenance"]["coordinates"] == f"{topic}[0]@0..999"

    # the Spark steps run in this session's Spark (the CLI commands are thin wrappers over these functions)
    reproducer = reproduce.Reproducer(RoundTrip(spark, broker, NormalizerUnderTest.load(BROKEN)), RoundTrip(spark, broker), "debezium-json")
    records, signature = reproduce.minimize(reproducer, document["records"])
    assert len(records) == 1 and signature == {"event field after.email"}
    (record,) = records
    assert "+news@" in record["value"] and record["offset"] in TAGGED
    assert len(record["value"]) < len(_record(topic, 0).value)  # members that do not matter are gone too

    # every string of the row data, never the envelope ("op": "c" once became "x", and the failure vanished)
    (every,) = reproduce.redacted(reproducer, records, set(), every_string=True)
    assert json.loads(every["value"])["op"] == "c" and "+news@" not in every["value"]
    (record,) = reproduce.redacted(reproducer, records, {"email"})
    email = json.loads(record["value"])["after"]["email"]
    assert re.fullmatch(r"xxxx9+\+xxxx@xxxxxxx\.xxx", email), email  # same shape, '+tag' kept: still fails

    cases, golden = tmp_path / "cases", tmp_path / "golden"
    path = reproduce.promote(RoundTrip(spark, broker), {**document, "records": [record]}, "captured-email-plus-tag", ["insert"],
                             "*", None, cases, golden)
    case = yaml.safe_load(path.read_text())
    assert case["expect"]["events"][0]["after"]["email"] == email and "cluster_id" in case["provenance"]["source"]
    assert (golden / "debezium-json" / "captured-email-plus-tag.json").exists()

    common = ["run", "--cases-dir", cases, "--golden-dir", golden, "--reports", tmp_path / "r",
              "--broker", "external", "--bootstrap-servers", broker.bootstrap_servers]
    code, out, _ = cli_here(*common, "--normalizer", BROKEN)
    assert code == 1 and "FAIL captured-email-plus-tag" in out
    code, out, err = cli_here(*common)
    assert code == 0, out + err

    # not approved yet: the broken normalizer is the one under test, the expectation is what the fix must give
    broken, known_file, bug = RoundTrip(spark, broker, NormalizerUnderTest.load(BROKEN)), tmp_path / "known.yaml", "https://bugs.example/42"
    known = reproduce.KnownFailure(case["expect"], "drops '+tag' from addresses", bug)
    cases = tmp_path / "known-cases"  # the same records as the approved case: lint allows one case per input
    listed = reproduce.promote(RoundTrip(spark, broker), {**document, "records": [record]}, "email-tag-dropped", ["insert"], "*",
                               None, cases, golden, known, known_file, failing=broken)  # promote --normalizer BROKEN
    assert load_known_failures(known_file) == {"email-tag-dropped": f"drops '+tag' from addresses (bug: {bug})"}
    assert not (golden / "debezium-json" / "email-tag-dropped.json").exists()
    statuses = {name: Runner(rt, Registry.load(), load_known_failures(known_file), golden_root=golden)
                .run([load_case(listed)], load_cases(cases)).results[0].status
                for name, rt in (("broken", broken), ("fixed", RoundTrip(spark, broker)))}
    assert statuses == {"broken": XFAIL, "fixed": XPASS}  # once fixed, the listed case fails the run
    with pytest.raises(reproduce.ReproduceError, match="meets the given expectation already"):
        reproduce.promote(RoundTrip(spark, broker), {**document, "records": [record]}, "email-tag-kept", ["insert"], "*",
                          None, tmp_path / "refused", golden, known, known_file)
    assert not (tmp_path / "refused" / "debezium-json" / "email-tag-kept.yaml").exists() and "email-tag-kept" not in load_known_failures(known_file)


def test_reproduce_commands_refuse_misuse_in_one_line(tmp_path, cli_here, monkeypatch):
    # in this process (a Python process importing PySpark per command took 6 s a command beside a Spark job): that
    # misuse leaves a real process as one line and exit 2 is test_cli's test_misuse_from_a_real_process_is_one_line_and_exit_2
    monkeypatch.chdir(tmp_path)
    not_a_capture = tmp_path / "x.yaml"
    not_a_capture.write_text("just: text\n")
    for args in (["capture", "--format", "debezium-json", "--out", str(tmp_path / "c.yaml")],
                 ["minimize", str(not_a_capture), "--normalizer", BROKEN],
                 ["redact", str(not_a_capture), "--normalizer", BROKEN],
                 ["promote", str(not_a_capture), "--id", "x-y", "--feature", "insert", "--known-failure", "why"]):
        code, _, err = cli_here(*args)
        assert code == 2 and len(err.strip().splitlines()) == 1, (args, err)


@pytest.mark.long
def test_capture_errors_are_one_line(broker, tmp_path):
    """A partition the topic lacks, a group that committed nothing, a broker nobody answers at: one line each,
    exit 1, nothing written (they were 28-line tracebacks, or a silent read from the start)."""
    import socket

    topic = f"errors-{os.getpid()}"
    broker.create_topics({topic: 1})
    broker.produce([_record(topic, 0)])
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{sock.getsockname()[1]}"  # bound, never listening
        for servers, extra, message in ((broker.bootstrap_servers, ["--partition", "7"], "has no partition 7"),
                                        (broker.bootstrap_servers, ["--group", "never-committed"], "has no committed offset"),
                                        (closed, [], f"cannot reach {closed}")):
            out = tmp_path / "c.yaml"
            result = _cli("capture", "--format", "debezium-json", "--out", str(out), "--bootstrap-servers", servers,
                          "--topic", topic, *extra, cwd=tmp_path)
            lines = result.stderr.strip().splitlines()
            assert result.returncode == 1 and len(lines) == 1 and message in lines[0], result.stderr[-2000:]
            assert not out.exists()


def test_a_client_secret_is_never_written_to_a_capture_an_output_or_an_error(broker, tmp_path):
    """Client properties reach librdkafka (-X as kcat takes them, or a properties file); a recognisable password
    appears in no capture file, standard output or error line, on success or on failure."""
    secret = "Sup3r-S3cret-7f1c!"
    topic = f"secret-{os.getpid()}"
    broker.create_topics({topic: 1})
    broker.produce([_record(topic, 0)])
    properties = tmp_path / "client.properties"
    properties.write_text(f"# the broker here is PLAINTEXT: the SASL settings are carried, not used\nsasl.password={secret}\n")
    out = tmp_path / "c.yaml"
    ok = _cli("capture", "--format", "debezium-json", "--out", str(out), "--bootstrap-servers", broker.bootstrap_servers,
              "--topic", topic, "--client-properties", str(properties), "-X", "sasl.username=svc", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr[-2000:]
    written = out.read_text()
    assert "sasl.password" in written and secret not in written + ok.stdout + ok.stderr  # the name is provenance
    failed = _cli("capture", "--format", "debezium-json", "--out", str(tmp_path / "d.yaml"), "--bootstrap-servers",
                  broker.bootstrap_servers, "--topic", topic, "-X", f"sasl.password={secret}", "-X", f"no.such.property={secret}",
                  cwd=tmp_path)
    assert failed.returncode == 1 and len(failed.stderr.strip().splitlines()) == 1, failed.stderr[-2000:]
    assert secret not in failed.stdout + failed.stderr


@pytest.mark.long
def test_capture_from_a_cluster_with_sasl_scram_over_tls(tmp_path):
    """The secured-cluster path: the embedded broker with a SASL/SCRAM-SHA-512 listener over TLS (a self-signed
    certificate made at start); the capture authenticates with kcat's -X properties, and a wrong password is a
    one-line error that names neither password."""
    from cdc_conformance.harness.broker import EmbeddedKafka

    secret, wrong = "Sc4am-Pa55-9e2d!", "Wr0ng-Pa55-41c7!"
    with EmbeddedKafka(secured_user=("alice", secret)) as secured:
        topic = f"secured-{os.getpid()}"
        secured.create_topics({topic: 1})
        secured.produce([_record(topic, i) for i in range(3)])  # through the plain listener, as the producer's side

        def capture(password: str, out):
            return _cli("capture", "--format", "debezium-json", "--out", str(out), "--topic", topic,
                        "--bootstrap-servers", secured.secured_bootstrap_servers, "-X", "security.protocol=SASL_SSL",
                        "-X", "sasl.mechanism=SCRAM-SHA-512", "-X", "sasl.username=alice", "-X", f"sasl.password={password}",
                        "-X", f"ssl.ca.location={secured.ca_file}", cwd=tmp_path)

        ok = capture(secret, tmp_path / "ok.yaml")
        assert ok.returncode == 0, ok.stderr[-2000:]
        assert len(reproduce.load(tmp_path / "ok.yaml")["records"]) == 3
        assert secret not in (tmp_path / "ok.yaml").read_text() + ok.stdout + ok.stderr
        refused = capture(wrong, tmp_path / "no.yaml")
        lines = refused.stderr.strip().splitlines()
        assert refused.returncode == 1 and len(lines) == 1, refused.stderr[-2000:]
        assert "SASL authentication error" in lines[0]  # why, not only "transport failure"
        assert wrong not in refused.stderr and secret not in refused.stderr and not (tmp_path / "no.yaml").exists()
