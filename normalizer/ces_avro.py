"""Decoder for `ces-avro`: SQL Server 2025 change event streaming with `@encoding = 'Binary'`.

The Kafka value is the Avro binary datum of the published `ChangeEvent` record; its `data` bytes are
(the concatenated segments of) an Avro `Data` datum whose `eventrow.old/current` are JSON texts, as in
JSON mode. Only the first two levels differ from `ces-json`, so this module describes them and reuses
the CES stages (grouping, assembly, typing, events) in batch and streaming mode. Spark's own Avro
support (`from_avro`, from the Maven-resolved spark-avro) decodes both levels; docs/formats/ces.md.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from normalizer import assembly, avro_guard, ces, sql
from normalizer.model import Code
from normalizer.plugin import FormatDecoder, register
from normalizer.verdicts import QuarantineRule

FORMAT = "ces-avro"

# The two schemas as published (docs: "JSON message format - change event streaming", Avro section)
CHANGE_EVENT_SCHEMA = {"type": "record", "name": "ChangeEvent", "fields": [
    {"name": "specversion", "type": "string"}, {"name": "type", "type": "string"},
    {"name": "source", "type": "string"}, {"name": "id", "type": "string"},
    {"name": "logicalid", "type": "string"}, {"name": "time", "type": "string"},
    {"name": "datacontenttype", "type": "string"}, {"name": "operation", "type": "string"},
    {"name": "segmentindex", "type": "int"}, {"name": "finalsegment", "type": "boolean"},
    {"name": "data", "type": "bytes"}]}
DATA_SCHEMA = {"name": "Data", "type": "record", "fields": [
    {"name": "eventsource", "type": {"name": "EventSource", "type": "record", "fields": [
        {"name": "db", "type": "string"}, {"name": "schema", "type": "string"}, {"name": "tbl", "type": "string"},
        {"name": "cols", "type": {"type": "array", "items": {"name": "Column", "type": "record", "fields": [
            {"name": "name", "type": "string"}, {"name": "type", "type": "string"}, {"name": "index", "type": "int"}]}}},
        {"name": "pkkey", "type": {"type": "array", "items": {"name": "PkKey", "type": "record", "fields": [
            {"name": "columnname", "type": "string"}, {"name": "value", "type": "string"}]}}},
        {"name": "transaction", "type": {"name": "Transaction", "type": "record", "fields": [
            {"name": "commitlsn", "type": "string"}, {"name": "beginlsn", "type": "string"},
            {"name": "sequencenumber", "type": "int"}, {"name": "committime", "type": "string"}]}}]}},
    {"name": "eventrow", "type": {"name": "EventRow", "type": "record", "fields": [
        {"name": "old", "type": "string"}, {"name": "current", "type": "string"}]}}]}


NOT_UTF8_MARK = ces.NOT_UTF8_MARK


def _guarded(binary: str, schema: dict, name: str, parts: str, corrupt: str) -> str:
    """The datum as `parts` (SQL over `name`, the datum read), with `_corrupt_record` set when the guard found
    something wrong: NOT_UTF8_MARK for a string that is not UTF-8, `corrupt` for anything else. Bytes that
    are not exactly one datum are never read (`from_avro` would allocate what they declare first)."""
    marked = (f"CASE WHEN ct_found = '{avro_guard.NOT_UTF8}' THEN '{NOT_UTF8_MARK}' "
              f"WHEN ct_found != '{avro_guard.OK}' OR {name} IS NULL THEN '{corrupt}' END")
    return sql.let(avro_guard.problem(binary, schema), "ct_found", sql.let(
        avro_guard.read(binary, schema, "ct_found"), name, f"named_struct({parts}, '_corrupt_record', {marked})"))


_ENVELOPE = _guarded("value", CHANGE_EVENT_SCHEMA, "ct_a", """
    'specversion', ct_a.specversion, 'type', ct_a.type, 'source', ct_a.source, 'id', ct_a.id,
    'logicalid', ct_a.logicalid, 'time', ct_a.time, 'datacontenttype', ct_a.datacontenttype,
    'operation', ct_a.operation, 'segmentindex', CAST(ct_a.segmentindex AS STRING),
    'finalsegment', CAST(ct_a.finalsegment AS STRING), 'splitindex', CAST(NULL AS STRING),
    'splittotalcnt', CAST(NULL AS STRING), 'data', hex(ct_a.data)""", "not a ChangeEvent datum")

_DATA = f"'eventsource', CAST(ct_d.eventsource AS {ces.EVENTSOURCE_TYPE}), 'eventrow', ct_d.eventrow"


def _parse_data(hex_text: str) -> str:
    """The reassembled hex text -> the same struct as ces-json's `data` (numbers as text, like JSON's)."""
    return _guarded(f"unhex({hex_text})", DATA_SCHEMA, "ct_d", _DATA, "not a Data datum")


AVRO = ces.Encoding(
    format_id=FORMAT,
    envelope=_ENVELOPE,
    decode_rules=(
        ces.NO_VALUE,
        QuarantineRule(f"cloud_event._corrupt_record = '{NOT_UTF8_MARK}'", Code.NOT_UTF8,
                       "'a string of the ChangeEvent datum is not UTF-8'"),
        QuarantineRule("cloud_event IS NULL OR cloud_event._corrupt_record IS NOT NULL", Code.MALFORMED_AVRO,
                       "'value is not an Avro ChangeEvent datum'"),
    ),
    parse_data=_parse_data,
)


def decode(raw: DataFrame) -> DataFrame:
    return ces.decode(raw, AVRO)


def decode_stream(raw: DataFrame, segment_timeout_seconds: float = assembly.DEFAULT_TIMEOUT_SECONDS) -> DataFrame:
    return ces.decode_stream(raw, segment_timeout_seconds, AVRO)


DECODER = register(FormatDecoder(FORMAT, decode=decode, decode_stream=decode_stream))
