"""Decoder for `debezium-json`: Debezium (SQL Server, PostgreSQL, MySQL, MariaDB) through Kafka Connect's JsonConverter.

Handles `schemas.enable` true (`{"schema","payload"}`) and false (bare payload), 1.x and 2.6+/3.x profiles, ops
c/r/u/d/t/m, tombstones, heartbeats, transaction metadata and schema-change events. Column values are typed by the
record's Connect schema (decimals, io.debezium.time.*, ...); without a schema, values keep their JSON text.

Each record is read on the JVM by `io.cdcconformance.debezium.DebeziumRecords` (normalizer/java): one pass of Jackson that
keeps every number's token as written, then the rules in order and the events. Every decision and its source is in
docs/formats/debezium-json.md; the rules and conversions name their SQL twins (normalizer/canonical_text.py,
cdc_conformance/keys.py), which the SQL decoders share.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from cdc_conformance.normalizer.jvm_functions import decode_records
from cdc_conformance.normalizer.plugin import FormatDecoder, register

FORMAT = "debezium-json"
READER = "debezium.FlattenedDebeziumRecords"   # with the option `flattened`
PLAIN_READER = "debezium.DebeziumRecords"      # without it: one literal column fewer on the hot path


def decode(raw: DataFrame, flattened: str = "") -> DataFrame:
    """Kafka source rows -> output rows (normalizer.events): the record's events, or its quarantine record.
    `flattened`: the ExtractNewRecordState SMT's properties the connector runs with (io.cdcconformance.debezium.Flattening),
    empty when the records are Debezium's envelope."""
    if flattened:
        return decode_records(raw, READER, FORMAT, arguments=(flattened,))
    return decode_records(raw, PLAIN_READER, FORMAT)


DECODER = register(FormatDecoder(FORMAT, decode=decode, optional=("flattened",)))
