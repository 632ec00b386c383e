"""The readers called by a Catalyst expression (a classic session: Spark's internal values in and out, issue 61) give
exactly what they give as Java UDFs (Spark Connect's door, and any session where the expression cannot be built): the
same events and quarantine, field for field, for every decoded format, over its hostile records and mutated examples
in one job."""
import pytest

from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness.generic import mutated_examples
from cdc_conformance.harness.property import placed
from cdc_conformance.harness.registry import Registry
from cdc_conformance.normalizer import jvm_functions

pytestmark = pytest.mark.integration
REGISTRY = Registry.load()


def _records(format_id: str) -> tuple[list[KafkaRecord], dict[str, int]]:
    generator = REGISTRY.generator(format_id)
    topic = f"internal-calls-{format_id}"
    hostile = [KafkaRecord(topic, 0, h.key, h.value, h.headers, registrations=h.registrations)
               for h in generator.hostile.values()]
    examples = placed(mutated_examples(generator, 20, seed=61)[0])
    partitions = {topic: 1} | {t: count for example in examples for t, count in example.partitions.items()}
    return hostile + [item.record for example in examples for item in example.expected], partitions


# make test keeps a record reader (debezium-json, whose key changes are marked in Kafka headers) and a format read by
# stages with a group reader (dataworks-json); every format is make test-long's (make test's 12 minutes)
IN_MAKE_TEST = ("debezium-json", "dataworks-json")


@pytest.mark.parametrize("format_id", [f if f in IN_MAKE_TEST else pytest.param(f, marks=pytest.mark.long)
                                       for f in REGISTRY.decoded_formats()])
def test_a_reader_called_by_an_expression_gives_its_udfs_output(roundtrip, monkeypatch, format_id):
    records, partitions = _records(format_id)
    ranges, coordinates = roundtrip.produce(records, partitions)
    internal = roundtrip.normalize_ranges(ranges, format_id, coordinates)
    monkeypatch.setattr(jvm_functions, "INTERNAL_CALLS", False)
    udf = roundtrip.normalize_ranges(ranges, format_id, coordinates)
    assert internal.events and internal.quarantine, "the records give both events and quarantine"
    assert sorted(map(repr, internal.events)) == sorted(map(repr, udf.events))
    assert sorted(map(repr, internal.quarantine)) == sorted(map(repr, udf.quarantine))


def test_a_classic_session_plans_the_expression(spark):
    frame = spark.createDataFrame([], "key BINARY, value BINARY, headers ARRAY<STRUCT<key: STRING, value: BINARY>>, "
                                      "topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP")
    plan = jvm_functions.decode_records(frame, "canal.CanalRecords", "canal-json")._jdf.queryExecution().toString()
    assert "InternalReaders.read" in plan and "cdc_conformance_canal_records" not in plan


def test_where_the_expression_cannot_be_built_the_readers_run_as_udfs(spark, monkeypatch):
    """A Spark whose internal classes differ from the tested ones: one warning, and the public door."""
    from py4j.protocol import Py4JError

    from cdc_conformance.normalizer import catalyst

    def unbuilt(*_args, **_kwargs):
        raise Py4JError("Constructor StaticInvoke([...]) does not exist")
    monkeypatch.setattr(catalyst, "static_call", unbuilt)
    frame = spark.createDataFrame([], "key BINARY, value BINARY, headers ARRAY<STRUCT<key: STRING, value: BINARY>>, "
                                      "topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP")
    with pytest.warns(RuntimeWarning, match="run as Java UDFs on this Spark"):
        decoded = jvm_functions.decode_records(frame, "canal.CanalRecords", "canal-json")
    assert "cdc_conformance_canal_records" in decoded._jdf.queryExecution().toString()


@pytest.mark.long  # about a minute: make test-long
def test_a_query_started_with_the_udfs_restarts_with_the_expression_and_loses_nothing(spark, broker, tmp_path, monkeypatch):
    """A stateful query of the release before (its readers Java UDFs) restarted from its checkpoint by this one: the
    state's schema is unchanged, and the halves it holds pair with those read after, as in batch."""
    from dataclasses import replace

    from cdc_conformance.generators import dataworks
    from cdc_conformance.harness.streaming import an_hour_ago_ms, batch_rows, rendered, stream_once
    from tests.integration.test_dataworks_streaming import _with_halves

    topic = f"internal-calls-restart-{id(tmp_path)}"
    t0 = an_hour_ago_ms()
    items = [replace(item, record=replace(item.record, timestamp_ms=t0 + index))
             for index, item in enumerate(_with_halves(61, topic))]
    broker.create_topics({topic: 3})
    cut = next(i for i, item in enumerate(items) if item.segment == 1)  # the first UPDATE_AFTER half
    broker.produce([item.record for item in items[:cut]])
    monkeypatch.setattr(jvm_functions, "INTERNAL_CALLS", False)
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 2)
    before = spark.read.parquet(str(tmp_path / "out")).count()
    monkeypatch.setattr(jvm_functions, "INTERNAL_CALLS", True)
    broker.produce([item.record for item in items[cut:]])
    stream_once(spark, broker, dataworks.FORMAT, [topic], tmp_path / "out", tmp_path / "checkpoint", 2)
    streamed = rendered(spark.read.parquet(str(tmp_path / "out")).collect())
    assert streamed == batch_rows(spark, broker, dataworks.FORMAT, [topic])
    assert not [row for kind, row in streamed if kind == "Q"]  # the half held in state was paired, not given up
    assert before < len(streamed)
