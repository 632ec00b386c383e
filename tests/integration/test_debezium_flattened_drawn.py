"""Drawn histories through the flattening SMT (generators/debezium_flattened.py), in each of its delete handling modes,
with and without added fields, schemas on and off, each read with the format option `flattened` and compared with
the generator's oracle: the property tier's check for a setting its other checks do not draw (they read without
options). tests/integration/test_debezium_flattened_real.py holds the same rules against the real connector."""
import pytest

from cdc_conformance.generators import debezium, debezium_avro
from cdc_conformance.harness.generic import render_examples
from cdc_conformance.harness.property import draw_examples, run_batch, session_seed
from cdc_conformance.harness.roundtrip import RoundTrip

pytestmark = pytest.mark.integration

# every mode; make test draws three (a job each), make test-long the rest
OPTIONS = ["delete.tombstone.handling.mode=tombstone",
           "delete.tombstone.handling.mode=rewrite;add.fields=op,table,db,source.ts_ms,ts_ms",
           pytest.param("delete.tombstone.handling.mode=rewrite-with-tombstone;add.fields=op:operation,lsn",
                        marks=pytest.mark.long),
           "delete.tombstone.handling.mode=delete-to-tombstone;add.fields=op",
           pytest.param("delete.tombstone.handling.mode=drop;add.fields=source.ts_ms", marks=pytest.mark.long)]
EXAMPLES = 8


@pytest.mark.parametrize("option", OPTIONS)
def test_drawn_histories_through_the_smt_give_the_oracles_events(spark, broker, option):
    seed = session_seed()
    # Flink CDC runs no SMT; the SMT's delete.tombstone.handling.mode is 2.5's (1.9 named its modes otherwise)
    fixed = {"flattened": option, "pipeline": "connect", "version": "3.2.0.Final"}
    drawn = draw_examples(debezium.examples(fixed=fixed), EXAMPLES, seed)
    examples = render_examples(debezium.GENERATOR, drawn, "flattened")
    result = run_batch(RoundTrip(spark, broker), debezium.FORMAT, examples, seed, options={"flattened": option})
    assert not result.failures, "\n".join(result.failures[:3])


@pytest.mark.parametrize("option", [pytest.param(OPTIONS[0], marks=pytest.mark.long), OPTIONS[1]])
def test_through_the_avro_converter_too(spark, broker, schema_registry, option):
    seed = session_seed()
    fixed = {"flattened": option, "version": "3.2.0.Final"}
    drawn = draw_examples(debezium_avro.examples(fixed=fixed), EXAMPLES, seed)
    examples = render_examples(debezium_avro.GENERATOR, drawn, "flattened")
    result = run_batch(RoundTrip(spark, broker, schema_registry=schema_registry), debezium_avro.FORMAT, examples, seed,
                       options={"flattened": option})
    assert not result.failures, "\n".join(result.failures[:3])
