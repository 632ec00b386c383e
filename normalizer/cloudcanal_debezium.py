"""Decoder for `cloudcanal-debezium`: CloudCanal's "Debezium Envelope" MQ format.

It is Debezium's envelope written CloudCanal's way, so its reader (`io.cdcconformance.cloudcanal.CloudCanalDebeziumRecords`,
normalizer/java) only says how CloudCanal differs and Debezium's does the rest: `op` `i` is an insert (the doc's
example; its table says `c`), `a` marks a DDL that is recognised by `ddl` as Debezium's schema changes are,
`before`/`after` `{}` mean no image, and `tableChanges` is one object, not Debezium's array. `source.connector`
`MySQL` is Debezium's `mysql` (the reader lower-cases it). docs/formats/cloudcanal-debezium.md.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from cdc_conformance.normalizer.jvm_functions import decode_records
from cdc_conformance.normalizer.plugin import FormatDecoder, register

FORMAT = "cloudcanal-debezium"
READER = "cloudcanal.CloudCanalDebeziumRecords"


def decode(raw: DataFrame) -> DataFrame:
    return decode_records(raw, READER, FORMAT)


DECODER = register(FormatDecoder(FORMAT, decode=decode))
