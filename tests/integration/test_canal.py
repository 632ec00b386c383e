"""What is canal's own beyond the generic tests: one message of 10,000 rows becomes 10,000 events in row
order (positions sort as the rows came), in one run, and several messages in one second keep their order."""
import itertools
import os

import pytest

from cdc_conformance.generators import canal
from cdc_conformance.generators.records import KafkaRecord

pytestmark = pytest.mark.integration
_runs = itertools.count()


def test_a_ten_thousand_row_message_is_ten_thousand_events_in_row_order(roundtrip):
    topic = f"canal-rows-{os.getpid()}-{next(_runs)}"
    rows = [{"id": str(i), "v": f"row {i}"} for i in range(10_000)]
    output = roundtrip.run([KafkaRecord(topic, 0, None, canal.hostile_message(1, data=rows))], canal.FORMAT, {topic: 1})
    assert output.quarantine == [] and output.accounting_problems() == []
    by_position = sorted(output.events, key=lambda e: tuple(e["position"].values()))
    assert [e["after"]["id"] for e in by_position] == [str(i) for i in range(10_000)]
    assert sorted(e["event_id"] for e in output.events) == sorted(f"{topic}/0/0#{i}" for i in range(10_000))


def test_messages_of_one_second_sort_in_offset_order(roundtrip):
    """`es` has second precision: three updates of one row within a second are ordered by the offset."""
    topic = f"canal-second-{os.getpid()}-{next(_runs)}"
    updates = [canal.hostile_message(0, type_="UPDATE", data=[{"id": "1", "v": new}], old=[{"v": old}], es=1700000000000)
               for old, new in (("a", "b"), ("b", "c"), ("c", "d"))]
    output = roundtrip.run([KafkaRecord(topic, 0, None, value) for value in updates], canal.FORMAT, {topic: 1})
    by_position = sorted(output.events, key=lambda e: tuple(e["position"].values()))
    assert [(e["before"]["v"], e["after"]["v"]) for e in by_position] == [("a", "b"), ("b", "c"), ("c", "d")]
