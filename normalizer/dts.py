"""Decoder for `dts-avro`: Alibaba Cloud DTS `com.alibaba.dts.formats.avro.Record` (2019 and 2020 schemas).

The Kafka value is a raw Avro binary datum (no magic byte, no schema id). Each record is read on the JVM by
`io.cdcconformance.dts.DtsRecords` (normalizer/java): the Avro guard walks the datum with the 2020 schema and, when that
is not one datum, with the 2019 one (a 2019 reader would silently skip the 2020 field), then Avro's reader reads it
and every value class is turned into text and typed. docs/formats/dts-avro.md records every decision.

The schemas are the decoder's transcription of the DTS subscription demo's Record.avsc (LioRoger/subscribe_example,
avro/Record.avsc; 2019-11 and 2020-06 versions), beside the reader (`dts-record-{2019,2020}.avsc`); the generators
write from their own copy, so a typo on either side fails a test.
"""
from __future__ import annotations

import json

from pyspark.sql import DataFrame

from cdc_conformance.normalizer.jvm_functions import JAVA_RESOURCES, decode_records
from cdc_conformance.normalizer.plugin import FormatDecoder, register

FORMAT = "dts-avro"
READER = "dts.DtsRecords"
_SCHEMAS = JAVA_RESOURCES / "dts"


def record_schema(generation: int) -> dict:
    """The Record schema of a generation (2019, 2020), as the reader reads it."""
    return json.loads((_SCHEMAS / f"dts-record-{generation}.avsc").read_text())


def decode(raw: DataFrame) -> DataFrame:
    return decode_records(raw, READER, FORMAT)


DECODER = register(FormatDecoder(FORMAT, decode=decode))
