"""Faults survived, on the real broker and Spark: a broker killed and restarted in the middle of a streaming
run (embedded process and container), a Spark driver killed mid-run, a broker unreachable at start, a
delivery the broker refuses. Streaming runs use CES events split into segments, so state straddles the
fault; after a restart from the checkpoint the output equals the batch output and accounts for every record."""
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from confluent_kafka.admin import NewTopic

from cdc_conformance.generators import ces
from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness import accounting
from cdc_conformance.harness.broker import BrokerError, EmbeddedKafka, TestcontainersKafka
from cdc_conformance.harness.kafka_read import read_stream
from cdc_conformance.harness.property import session_seed
from cdc_conformance.harness.streaming import batch_rows, end_offsets, rendered, run_until_caught_up, stream_once
from cdc_conformance.normalizer.pipeline import normalize_stream
from tests.integration.ces_events import split_events

pytestmark = pytest.mark.integration
_runs = itertools.count()
CASE = "debezium-sqlserver-seed001-create"


def _topic(kind: str) -> str:
    return f"fault-{kind}-{os.getpid()}-{next(_runs)}"


def _cut_inside_a_split_event(items) -> int:
    """An index after the first segment of a split event and before its last one."""
    return next(i for i, item in enumerate(items) if item.segment == 0 and items[i + 1].segment > 0) + 1


def _assert_streamed_equals_batch_and_accounts(spark, broker, topic, sink, coordinates):
    rows = spark.read.parquet(str(sink)).collect()
    streamed = rendered(rows)
    assert streamed == batch_rows(spark, broker, ces.FORMAT, [topic])
    events = [item for kind, item in streamed if kind == "E"]
    quarantine = [item for kind, item in streamed if kind == "Q"]
    assert events, "nothing was normalized"
    assert accounting.problems([(c.topic, c.partition, c.offset) for c in coordinates], events, quarantine) == []


# a trigger polling the dead broker gives up after 3 attempts (Spark's fetchOffset.numRetries) of one client timeout
# and a retry interval each: 3 x (3 s + 1 s) = 13 s measured with the defaults' interval, about 5 s with these
_SHORT_CLIENT_TIMEOUTS = {"kafka.default.api.timeout.ms": "1500", "kafka.request.timeout.ms": "1500",
                          "fetchOffset.retryIntervalMs": "100"}


def _wait_for_a_new_trigger(query, timeout: float = 30.0) -> None:
    """Until the query has started a trigger after this call (it starts one every 200 ms), or has failed."""
    deadline = time.monotonic() + timeout
    idle_seen = False
    while time.monotonic() < deadline and query.exception() is None:
        active = query.status["isTriggerActive"]
        if idle_seen and active:
            return
        idle_seen = idle_seen or not active
        time.sleep(0.02)


@pytest.fixture(params=["embedded", "testcontainers"])
def own_broker(request):
    """A broker of its own: the test kills it."""
    broker = (EmbeddedKafka() if request.param == "embedded" else TestcontainersKafka()).start()
    yield broker
    broker.stop()


@pytest.mark.long
def test_a_broker_killed_mid_stream_and_restarted_loses_and_duplicates_nothing(spark, own_broker, tmp_path):
    topic = _topic("broker")
    items = split_events(session_seed(), topic, count=3)
    cut = _cut_inside_a_split_event(items)
    own_broker.create_topics({topic: 3})
    coordinates = own_broker.produce([item.record for item in items[:cut]])
    sink, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    # Kafka clients wait 60 s for a dead broker by default, and Spark's offset reader cannot be interrupted
    # meanwhile: short client timeouts keep query.stop() from waiting a minute on the dead broker
    raw = read_stream(spark, own_broker.bootstrap_servers, [topic], 2, extra_options=_SHORT_CLIENT_TIMEOUTS)
    query = (normalize_stream(raw, ces.FORMAT)
             .writeStream.format("parquet").option("path", str(sink)).option("checkpointLocation", str(checkpoint))
             .trigger(processingTime="200 milliseconds").start())
    try:
        run_until_caught_up(query, end_offsets(own_broker, [topic]))
        own_broker.crash()  # SIGKILL: the process, or the container's broker
        _wait_for_a_new_trigger(query)  # the running query polls the dead broker
    finally:
        query.stop()
    own_broker.recover()  # same storage, same address
    coordinates += own_broker.produce([item.record for item in items[cut:]])
    stream_once(spark, own_broker, ces.FORMAT, [topic], sink, checkpoint, 4)  # restarted from its checkpoint
    _assert_streamed_equals_batch_and_accounts(spark, own_broker, topic, sink, coordinates)


@pytest.mark.long
def test_a_driver_killed_mid_stream_restarts_from_its_checkpoint(spark, broker, tmp_path):
    topic = _topic("driver")
    items = split_events(session_seed(), topic, count=8)
    broker.create_topics({topic: 3})
    coordinates = broker.produce([item.record for item in items])
    sink, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    log = open(tmp_path / "driver.log", "wb")
    driver = subprocess.Popen([sys.executable, "-m", "cdc_conformance.harness.streaming", "--bootstrap-servers", broker.bootstrap_servers,
                               "--format", ces.FORMAT, "--topic", topic, "--sink", str(sink), "--checkpoint", str(checkpoint),
                               "--max-offsets-per-trigger", "2"], stdout=log, stderr=log, start_new_session=True)
    commits = checkpoint / "commits"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and len(list(commits.glob("[0-9]*"))) < 2 and driver.poll() is None:
            time.sleep(0.1)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)  # Python and its Spark JVM: no shutdown hook runs
        driver.wait(30)
    committed = len(list(commits.glob("[0-9]*")))
    assert committed >= 2, (tmp_path / "driver.log").read_text()[-2000:]
    assert committed * 2 < len(items), "the driver finished before it was killed; the test proves nothing"
    stream_once(spark, broker, ces.FORMAT, [topic], sink, checkpoint, 8)  # a new driver, the same checkpoint
    _assert_streamed_equals_batch_and_accounts(spark, broker, topic, sink, coordinates)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes() + (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("backend", ["external", "testcontainers"])
def test_an_unreachable_broker_at_start_is_one_line_a_nonzero_exit_and_nothing_left(tmp_path, backend):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    args = ["--broker", backend]
    if backend == "external":
        args += ["--bootstrap-servers", f"127.0.0.1:{_closed_port()}"]
    else:
        env["DOCKER_HOST"] = f"unix://{scratch}/no-engine.sock"
    result = subprocess.run([sys.executable, "-m", "cdc_conformance.harness", "run", "--case", CASE, "--reports", str(tmp_path / "r"), *args],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cdc-conformance: "), result.stderr
    assert ("cannot reach" if backend == "external" else "needs a Docker engine") in lines[0]
    assert list(scratch.iterdir()) == []
    assert _processes_with(str(scratch)) == []


def test_a_refused_delivery_fails_the_produce_and_names_topic_and_partition(broker):
    topic = _topic("delivery")
    admin = broker.admin()
    for future in admin.create_topics([NewTopic(topic, 2, 1, config={"max.message.bytes": "1000"})]).values():
        future.result(30)
    with pytest.raises(BrokerError, match=rf"delivery failed for 1 record\(s\); record 1 to {topic}\[1\]: .*too large"):
        broker.produce([KafkaRecord(topic, 0, b"k", b"small", ()),
                        KafkaRecord(topic, 1, b"k", os.urandom(5000), ())])  # random: compression cannot shrink it


@pytest.mark.long  # about a minute (a soak command brought up, then terminated): make test-long
def test_a_terminated_command_leaves_no_broker_running(tmp_path):
    """SIGTERM (CI's timeout, kill) to a long command: the embedded broker it started stops with it (it once
    stayed, orphaned, holding its ports and temp directory)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    log = open(tmp_path / "soak.log", "wb")
    command = subprocess.Popen([sys.executable, "-m", "cdc_conformance.harness", "soak", "--records", "100000", "--format", "canal-json"],
                               stdout=log, stderr=log, env={**os.environ, "TMPDIR": str(scratch)}, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 180  # the broker and Spark are up once the format's phase has begun
        while time.monotonic() < deadline and "mutated records ..." not in (tmp_path / "soak.log").read_text():
            time.sleep(0.2)
        assert list(scratch.glob("cdc-kafka-*")), (tmp_path / "soak.log").read_text()[-2000:]
        # inside the drawing of 100,000 examples (many seconds), where Hypothesis once took the SystemExit for a
        # failure to replay and shrink: the command ended with exit 1 and a traceback, or ran on past CI's kill
        time.sleep(1)
        command.send_signal(signal.SIGTERM)
        assert command.wait(60) == 143, (tmp_path / "soak.log").read_text()[-2000:]
    finally:
        if command.poll() is None:
            command.kill()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _processes_with(str(scratch)):
        time.sleep(0.5)
    assert _processes_with(str(scratch)) == [], (tmp_path / "soak.log").read_text()[-2000:]
