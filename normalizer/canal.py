"""Decoder for `canal-json`: alibaba canal's FlatMessage (and CloudCanal's flavour of it).

One message is one binlog rows event of one table: `data` holds the rows (the new rows; a DELETE's old rows), `old`
for an UPDATE the previous values of the changed columns only, parallel to `data`. Values are MySQL's text typed by
`mysqlType` (`sqlType`, the JDBC code, where a column has no type text).

Each record is read on the JVM by `io.cdcconformance.canal.CanalRecords` (normalizer/java), whose row logic it shares with
CloudCanal's JSON (`RowsRecords`). docs/formats/canal-json.md gives every decision and its source.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from cdc_conformance.normalizer.jvm_functions import decode_records
from cdc_conformance.normalizer.plugin import FormatDecoder, register

FORMAT = "canal-json"
READER = "canal.CanalRecords"


def decode(raw: DataFrame) -> DataFrame:
    return decode_records(raw, READER, FORMAT)


DECODER = register(FormatDecoder(FORMAT, decode=decode))
