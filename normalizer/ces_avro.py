"""Decoder for `ces-avro`: SQL Server 2025 change event streaming with `@encoding = 'Binary'`.

The Kafka value is the Avro binary datum of the published `ChangeEvent` record; its `data` bytes are (the
concatenated segments of) an Avro `Data` datum whose `eventrow.old/current` are JSON texts, as in JSON mode. Only the
first two levels differ from `ces-json`: their JVM readers (`CesAvroRecords`, `CesAvroChanges`; the schemas as
published beside them, `ces-change-event.avsc`, `ces-data.avsc`) read them, the Avro guard walking every datum
before Avro's reader does, and the CES stages (grouping, assembly, typing, events) are shared, in batch and
streaming mode. docs/formats/ces.md.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from cdc_conformance.normalizer import assembly, ces
from cdc_conformance.normalizer.plugin import FormatDecoder, register

FORMAT = "ces-avro"
AVRO = ces.Encoding(format_id=FORMAT, record_reader="ces.CesAvroRecords", event_reader="ces.CesAvroChanges")
READER, GROUP_READER = AVRO.record_reader, AVRO.event_reader
RECORD_STAGE = ces.RECORD_STAGE  # what READER returns: the CES record stage's row, as in JSON mode


def decode(raw: DataFrame) -> DataFrame:
    return ces.decode(raw, AVRO)


def decode_stream(raw: DataFrame, segment_timeout_seconds: float = assembly.DEFAULT_TIMEOUT_SECONDS,
                  copy_window_seconds: float = assembly.DEFAULT_COPY_WINDOW_SECONDS,
                  group_stream: assembly.StreamGrouping = assembly.group_stream) -> DataFrame:
    return ces.decode_stream(raw, segment_timeout_seconds, AVRO, copy_window_seconds, group_stream)


DECODER = register(FormatDecoder(FORMAT, decode=decode, decode_stream=decode_stream))
