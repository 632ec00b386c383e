"""The real schema registry the harness starts (harness/schema_registry.py: Apicurio Registry 2.4.2.Final, built once into
the cache): its Confluent-compatible API as Kafka Connect's Avro converters use it. Issue 59's first part; the tiers that
need a registry start one, so this runs in make test-long."""
import json

import pytest

from cdc_conformance.harness.schema_registry import LazySchemaRegistry, SchemaRegistry, SchemaRegistryError

pytestmark = [pytest.mark.integration, pytest.mark.long]

KEY = json.dumps({"type": "record", "name": "Key", "namespace": "pg.public.t", "fields": [{"name": "id", "type": "int"}]})
VALUE_V1 = json.dumps({"type": "record", "name": "Value", "namespace": "pg.public.t",
                       "fields": [{"name": "id", "type": "int"}, {"name": "v", "type": ["null", "string"], "default": None}]})
VALUE_V2 = json.dumps({"type": "record", "name": "Value", "namespace": "pg.public.t",
                       "fields": [{"name": "id", "type": "int"}, {"name": "v", "type": ["null", "string"], "default": None},
                                  {"name": "w", "type": ["null", "long"], "default": None}]})


@pytest.fixture(scope="module")
def registry():
    with SchemaRegistry() as started:
        yield started


def test_a_schema_registered_under_a_subject_is_found_by_its_id(registry):
    key_id = registry.register("pg.public.t-key", KEY)
    assert registry.register("pg.public.t-key", KEY) == key_id  # registering it again names the same schema
    assert json.loads(registry.schema(key_id)) == json.loads(KEY)
    assert "pg.public.t-key" in registry.subjects()


def test_a_changed_schema_gets_its_own_id_and_the_old_one_stays_readable(registry):
    """An ALTER TABLE mid-topic: the value's new schema is a new id; records written with the old id still resolve."""
    first, second = registry.register("pg.public.t-value", VALUE_V1), registry.register("pg.public.t-value", VALUE_V2)
    assert first != second
    assert json.loads(registry.schema(first)) == json.loads(VALUE_V1)
    assert json.loads(registry.schema(second)) == json.loads(VALUE_V2)
    assert registry.request("GET", "/subjects/pg.public.t-value/versions") == [1, 2]


def test_an_unknown_id_is_an_error_the_registry_names(registry):
    with pytest.raises(SchemaRegistryError, match="404"):
        registry.schema(987654)


def test_the_lazy_registry_starts_once_for_many_threads_and_leaves_no_process():
    """The runner's formats run on threads, each asking the run's registry for its URL: one registry starts, whatever
    the threads' timing, and stopping the run leaves none running (two once started, and one was left: issue 59)."""
    from concurrent.futures import ThreadPoolExecutor

    lazy = LazySchemaRegistry()
    with ThreadPoolExecutor(max_workers=4) as pool:
        urls = set(pool.map(lambda _: lazy.url, range(8)))
    assert len(urls) == 1
    process = lazy._started._process
    lazy.stop()
    assert process.poll() is not None and lazy._started is None


def test_a_restarted_registry_holds_nothing_of_the_last_one():
    """Storage in memory: each run's registry starts empty (a run registers what its records name)."""
    with SchemaRegistry() as fresh:
        assert fresh.subjects() == []
        running = fresh._process
        assert fresh.start() is fresh and fresh._process is running  # started once, however often asked


def test_a_registry_that_does_not_answer_fails_the_job_naming_it_and_quarantines_nothing(spark, broker):
    """Issue 59, registry faults: the records' schemas are registered, then the registry stops before the normalizer
    reads them. Not one record is quarantined as undecodable: the job fails, naming the registry (a record's
    UNKNOWN_SCHEMA_ID is for an id a registry that answers does not hold)."""
    from cdc_conformance.generators import debezium_avro
    from cdc_conformance.generators.records import KafkaRecord
    from cdc_conformance.harness.roundtrip import RoundTrip

    neighbour = debezium_avro.HOSTILE["valid neighbour"]
    topic = "registry-gone"
    with SchemaRegistry() as registry:
        roundtrip = RoundTrip(spark, broker, schema_registry=registry)
        ranges, coordinates = roundtrip.produce([KafkaRecord(topic, 0, neighbour.key, neighbour.value,
                                                             registrations=neighbour.registrations)], {topic: 1})
    with pytest.raises(Exception, match="the schema registry at http://127.0.0.1:[0-9]+/apis/ccompat/v6 did not answer"):
        roundtrip.normalize_ranges(ranges, "debezium-avro", coordinates)
