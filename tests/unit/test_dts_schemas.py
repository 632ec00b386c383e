"""The DTS Record schema exists twice on purpose: the decoder's transcription (normalizer/dts.py) and the
generator's .avsc files. Both must be the same Avro schema, generation by generation; the 2020 one is the
2019 one plus a trailing `bornTimestamp` (so a 2019 reader skips it and a 2020 reader fails on 2019 bytes)."""
import json

import pytest
from fastavro.schema import to_parsing_canonical_form

from cdc_conformance.generators import dts as generator
from cdc_conformance.normalizer import dts as decoder


@pytest.mark.parametrize("generation", generator.GENERATIONS)
def test_the_decoder_and_the_generator_transcribed_the_same_schema(generation):
    assert to_parsing_canonical_form(decoder.record_schema(generation)) == \
        to_parsing_canonical_form(generator.schema(generation))


def test_the_2020_schema_appends_born_timestamp_only():
    old, new = decoder.record_schema(2019)["fields"], decoder.record_schema(2020)["fields"]
    assert new[:-1] == old and new[-1]["name"] == "bornTimestamp" and new[-1]["default"] == 0


def test_a_2020_datum_is_never_read_as_2019_and_a_2019_datum_is_read_as_2019():
    assert generator.read(generator.hostile_record(1, generation=2020))[0] == 2020
    assert generator.read(generator.hostile_record(1, generation=2019))[0] == 2019
    assert json.loads(generator.read(generator.hostile_record(1))[1]["tags"]["pk_uk_info"]) == {"PRIMARY": ["id"]}
