"""Decoder for `cloudcanal-json`: CloudCanal's default "CloudCanal Json" MQ format.

One message holds rows of one table: `data` (the new rows) and `before` (CloudCanal sends full before rows) are
lists paired by index; `dbValType` types the columns (`jdbcType` where a column has none). `entryType`
`TRANSACTIONEND` is a transaction end, never a row; the DDL flag is `isDdl` or, in the older doc revision, `ddl`.

Each record is read on the JVM by `io.cdcconformance.cloudcanal.CloudCanalRecords` (normalizer/java), whose row logic it shares
with canal (`RowsRecords`). docs/formats/cloudcanal-json.md.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from cdc_conformance.normalizer.jvm_functions import decode_records
from cdc_conformance.normalizer.plugin import FormatDecoder, register

FORMAT = "cloudcanal-json"
READER = "cloudcanal.CloudCanalRecords"


def decode(raw: DataFrame) -> DataFrame:
    return decode_records(raw, READER, FORMAT)


DECODER = register(FormatDecoder(FORMAT, decode=decode))
