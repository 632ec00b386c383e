"""Decoder for `debezium-avro`: Debezium through Kafka Connect's Avro converter, key and value each in the schema
registry's wire format (magic byte 0, the writer schema's 4-byte id, the Avro datum).

Each record is read on the JVM by `io.cdcconformance.debezium.DebeziumAvroRecords` (normalizer/java): the writer
schemas are found by id in the registry (`schema_registry`: its Confluent-compatible API's URL, the format's one
option), cached per executor, and each datum is read back as the document Kafka Connect's JsonConverter writes for the
same record, so that debezium-json's reader decides the rest: the same change gives the same events whichever
converter wrote it. docs/formats/debezium-avro.md gives every decision and its source.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from cdc_conformance.normalizer.jvm_functions import decode_records
from cdc_conformance.normalizer.plugin import FormatDecoder, register

FORMAT = "debezium-avro"
READER = "debezium.DebeziumAvroRecords"


def decode(raw: DataFrame, schema_registry: str, flattened: str = "") -> DataFrame:
    """Kafka source rows -> output rows; `schema_registry`: where the records' schema ids are found; `flattened`: the
    ExtractNewRecordState SMT's properties, as debezium-json's."""
    return decode_records(raw, READER, FORMAT, arguments=(schema_registry, flattened))


DECODER = register(FormatDecoder(FORMAT, decode=decode, options=("schema_registry",), optional=("flattened",)))
