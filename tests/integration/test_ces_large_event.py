"""A single 10 MB CES event split into 256 KB segments reassembles with default memory settings (JSON and Avro)."""
import datetime as dt
import os

import pytest

from cdc_conformance.generators import ces, ces_avro
from cdc_conformance.generators.history import Change, ColumnSpec, History, Table, Transaction
from cdc_conformance.generators.records import with_coordinates
from cdc_conformance.generators.values import LogicalType

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("encoding", [ces, ces_avro], ids=lambda module: module.FORMAT)
def test_ten_megabyte_event_in_256_kb_segments(roundtrip, encoding):
    table = Table("dbo", "documents", (ColumnSpec("id", LogicalType("INT32"), False, 1),
                                       ColumnSpec("body", LogicalType("STRING"), True)))
    body = ("ünïcødé \"quoted\" \\ / " * 600_000)[:10_000_000]  # escapes and multi-byte characters throughout
    history = History(table, (Transaction((Change("INSERT", after={"id": 7, "body": body}),),
                                          dt.datetime(2025, 3, 14, 16, 45, 20, tzinfo=dt.UTC), 0),))
    topic = f"{encoding.FORMAT}-large-{os.getpid()}"
    # ~256 KB per segment: JSON splits characters (UTF-8 and escapes roughly double them), Avro splits bytes
    segment = 256 * 1024 // 2 if encoding is ces else 256 * 1024
    profile = ces.Profile(topic=topic, partitions=2, segment_chars=segment)
    items = with_coordinates(encoding.encode(history, profile))
    assert len(items) >= 40 and max(len(i.record.value) for i in items) < 1_000_000
    output = roundtrip.run([i.record for i in items], encoding.FORMAT, {topic: 2})
    assert output.quarantine == []
    [event] = output.events
    assert event["after"]["body"] == body and len(event["origin"]) == len(items)
