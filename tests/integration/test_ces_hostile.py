"""Hostile CES records: each one gets its own stable quarantine code, none stops the job, and every
record is accounted for exactly once. Each case changes one thing in an otherwise valid event."""
import json
import os

import pytest

from generators.records import KafkaRecord

pytestmark = pytest.mark.integration
FORMAT = "ces-json"


def event(n: int, data: dict | str | None = None, **envelope) -> bytes:
    """A valid unsplit INS event (unique ids per `n`), with `data` or envelope attributes replaced."""
    default = {"eventsource": {"db": "db1", "schema": "dbo", "tbl": "t",
                               "cols": [{"name": "id", "type": "int", "index": 0},
                                        {"name": "v", "type": "varchar(10)", "index": 1}],
                               "pkkey": [{"columnname": "id", "value": str(n)}]},
               "eventrow": {"old": "{}", "current": json.dumps({"id": str(n), "v": "x"})}}
    body = {"specversion": "1.0", "type": "com.microsoft.SQL.CES.DML.V1", "source": "/", "id": f"id-{n}",
            "logicalid": f"L-{n}", "time": "2025-03-14T16:45:20.650Z", "datacontenttype": "application/json",
            "operation": "INS", "segmentindex": 1, "finalsegment": True,
            "data": data if isinstance(data, str) else json.dumps(data or default)}
    body.update(envelope)
    return json.dumps({k: v for k, v in body.items() if v is not None}).encode()


def data_with(n: int, cols=None, pkkey=None, current=None, old="{}") -> dict:
    cols = cols if cols is not None else [{"name": "id", "type": "int", "index": 0}]
    return {"eventsource": {"db": "db1", "schema": "dbo", "tbl": "t", "cols": cols,
                            "pkkey": pkkey if pkkey is not None else [{"columnname": "id", "value": str(n)}]},
            "eventrow": {"old": old, "current": current if current is not None else json.dumps({"id": str(n)})}}


INT_COL = {"name": "id", "type": "int", "index": 0}
HOSTILE = {
    "column declared twice": (event(1, data_with(1, cols=[INT_COL, INT_COL])), "SCHEMA_MISMATCH"),
    "key column named twice": (event(2, data_with(2, pkkey=[{"columnname": "id", "value": "2"}] * 2)), "SCHEMA_MISMATCH"),
    "undeclared column": (event(3, data_with(3, current=json.dumps({"id": "3", "extra": "x"}))), "SCHEMA_MISMATCH"),
    "unknown column type": (event(4, data_with(4, cols=[{"name": "id", "type": "geography", "index": 0}])),
                            "UNKNOWN_COLUMN_TYPE"),
    "value not of its type": (event(5, data_with(5, current=json.dumps({"id": "five"}))), "UNDECODABLE_VALUE"),
    "int16 out of range": (event(6, data_with(6, cols=[{"name": "id", "type": "smallint", "index": 0}],
                                              current=json.dumps({"id": "99999"}))), "UNDECODABLE_VALUE"),
    "data not JSON": (event(7, "{not json"), "MALFORMED_DATA"),
    "data a JSON array": (event(8, "[1, 2]"), "MALFORMED_DATA"),
    "row image not JSON": (event(9, data_with(9, current="{oops")), "MALFORMED_DATA"),
    "cols not an array": (event(10, data_with(10, cols="int")), "MALFORMED_DATA"),
    "no eventrow": (event(11, {"eventsource": data_with(11)["eventsource"]}), "MISSING_FIELD"),
    "INS without values": (event(12, data_with(12, current="{}")), "MISSING_FIELD"),
    "DEL with current values": (event(13, operation="DEL"), "UNEXPECTED_IMAGE"),
    "unknown operation": (event(14, operation="MRG"), "UNKNOWN_OPERATION"),
    "not a CES type": (event(15, type="com.example.Other"), "UNKNOWN_EVENT_TYPE"),
    "no logicalid": (event(16, logicalid=None), "MISSING_FIELD"),
    "no segment attributes": (event(17, segmentindex=None, finalsegment=None), "MISSING_FIELD"),
    "only segment 2 of 2": (event(18, segmentindex=2), "SEGMENT_INCOMPLETE"),
    "not JSON": (b"{" * 5000, "MALFORMED_JSON"),
    "not UTF-8": (b'{"type":"\xff"}', "NOT_UTF8"),
    "no value": (None, "MISSING_FIELD"),
}


def test_each_hostile_record_gets_its_code_and_valid_neighbours_still_normalize(normalizer):
    topic = f"ces-hostile-{os.getpid()}"
    names = list(HOSTILE)
    records = [KafkaRecord(topic, 0, None, HOSTILE[name][0]) for name in names]
    records += [KafkaRecord(topic, 0, None, event(100 + n)) for n in range(3)]  # valid events among them
    output = normalizer.run(records, FORMAT, {topic: 1})
    assert output.unaccounted() == [] and output.quarantined_twice() == []
    codes = {q["origin"][0]["offset"]: q["code"] for q in output.quarantine}
    assert {name: codes.get(offset) for offset, name in enumerate(names)} == {n: HOSTILE[n][1] for n in names}
    assert sorted(e["key"][0]["value"] for e in output.events) == ["100", "101", "102"]


def avro_event(n: int, data: bytes | None = None, **attributes) -> bytes:
    from generators import ces_avro

    record = json.loads(event(n))
    payload = ces_avro.write(ces_avro.DATA, {
        "eventsource": {**json.loads(record["data"])["eventsource"],
                        "transaction": {"commitlsn": "0000002C:00000730:0011", "beginlsn": "0000002C:00000730:000C",
                                        "sequencenumber": 1, "committime": "2025-03-14T16:45:20.650Z"}},
        "eventrow": json.loads(record["data"])["eventrow"]})
    record.update(data=payload if data is None else data, datacontenttype="application/avro", **attributes)
    return ces_avro.write(ces_avro.CHANGE_EVENT, record)


def test_hostile_avro_records_get_their_codes(normalizer):
    valid = avro_event(1)
    hostile = {
        "empty value": (b"", "MALFORMED_AVRO"),
        "not Avro": (b"{\"specversion\": \"1.0\"}", "MALFORMED_AVRO"),
        "cut short": (valid[: len(valid) // 2], "MALFORMED_AVRO"),
        "huge length prefix": (b"\xfe\xff\xff\xff\x0f" + b"x" * 20, "MALFORMED_AVRO"),
        "data not a Data datum": (avro_event(2, data=b"\x02\x03garbage"), "MALFORMED_DATA"),
        "data empty": (avro_event(3, data=b""), "MALFORMED_DATA"),
        "unknown operation": (avro_event(4, operation="MRG"), "UNKNOWN_OPERATION"),
        "segment 2 of 2 only": (avro_event(5, segmentindex=2), "SEGMENT_INCOMPLETE"),
        "no value": (None, "MISSING_FIELD"),
    }
    topic = f"ces-avro-hostile-{os.getpid()}"
    names = list(hostile)
    records = [KafkaRecord(topic, 0, None, hostile[name][0]) for name in names] + [KafkaRecord(topic, 0, None, valid)]
    output = normalizer.run(records, "ces-avro", {topic: 1})
    assert output.unaccounted() == [] and output.quarantined_twice() == []
    codes = {q["origin"][0]["offset"]: q["code"] for q in output.quarantine}
    assert {name: codes.get(offset) for offset, name in enumerate(names)} == {n: hostile[n][1] for n in names}
    [emitted] = output.events
    assert emitted["format"] == "ces-avro" and emitted["position"]["commit"] == "0000002C000007300011"
