"""`cdc-conformance bench`: normalizer throughput against a plain parsing pass over the same Kafka data.

Both passes read the same topic of the embedded broker with Spark's Kafka source and are forced to
compute every output column through Spark's `noop` sink (a count could be answered from pruned
columns). The plain pass only parses the three CES levels (JSON, or Avro + Avro + JSON for
`ces-avro`); the normalizer does everything.
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass

from generators.records import KafkaRecord

PLAIN_CES = """
  from_json(CAST(value AS STRING), 'struct<specversion:string,type:string,source:string,id:string,logicalid:string,
            time:string,datacontenttype:string,operation:string,segmentindex:int,finalsegment:boolean,data:string>') AS e
"""


@dataclass
class Measurement:
    name: str
    messages: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.messages / self.seconds if self.seconds else float("inf")


def ces_template_events(count: int, target_bytes: int = 1000, avro: bool = False) -> list[bytes]:
    """Distinct unsplit CES events: the docs' 8-column Purchases row with the captures' transaction block.

    JSON is written compactly (SQL Server indents it; only the size differs) and padded up to
    `target_bytes`; the docs' row is already ~1.5 KB in JSON (the escaped `cols` dominate), so that is
    the floor. With `avro`, the same events in the Binary encoding (~0.7 KB: no names, no escaping).
    """
    padding = "x" * max(0, target_bytes - len(_ces_event(0, "", avro=False)))
    return [_ces_event(n, padding, avro) for n in range(count)]


def _ces_event(n: int, padding: str, avro: bool) -> bytes:
    compact = {"separators": (",", ":")}
    current = {"purchase_id": str(n), "customer_name": f"Customer {n}", "product_id": str(n % 977),
               "product_name": "Game " + padding, "price_per_item": str(n % 100), "quantity": str(n % 7 + 1),
               "purchase_date": "2025-03-14 16:45:01.000", "payment_method": "Credit Card"}
    cols = [{"name": k, "type": t, "index": i} for i, (k, t) in enumerate(zip(current, [
        "int", "varchar(100)", "int", "varchar(100)", "int", "int", "datetime", "varchar(50)"]))]
    data = {"eventsource": {"db": "db1", "schema": "dbo", "tbl": "Purchases", "cols": cols,
                            "pkkey": [{"columnname": "purchase_id", "value": str(n)}],
                            "transaction": {"commitlsn": f"0000002C:{n:08X}:0001", "beginlsn": f"0000002C:{n:08X}:0000",
                                            "sequencenumber": 1, "committime": "2025-03-14T16:45:20.650Z"}},
            "eventrow": {"old": "{}", "current": json.dumps(current, **compact)}}
    envelope = {"specversion": "1.0", "type": "com.microsoft.SQL.CES.DML.V1", "source": "/",
                "id": str(uuid.UUID(int=n)), "logicalid": f"9c8d4ad2-bf54-4f10-a96f-038af496997f:{n:020d}:{1:020d}",
                "time": "2025-03-14T16:45:20.650Z", "datacontenttype": "application/json", "operation": "INS",
                "segmentindex": 1, "finalsegment": True, "data": json.dumps(data, **compact)}
    return _avro_event(envelope, data) if avro else json.dumps(envelope, **compact).encode()


def _avro_event(envelope: dict, data: dict) -> bytes:
    from generators import ces_avro

    return ces_avro.write(ces_avro.CHANGE_EVENT, {**envelope, "datacontenttype": "application/avro",
                                                  "data": ces_avro.write(ces_avro.DATA, data)})


def ces_records(topic: str, messages: int, partitions: int = 2, distinct: int = 5000, avro: bool = False):
    """`messages` events: `distinct` templates, re-keyed so that every event has its own id and logicalid.

    The replacements keep every string's length, so they are valid in Avro (length-prefixed) too.
    """
    templates = ces_template_events(min(distinct, messages), avro=avro)
    for n in range(messages):
        template = templates[n % len(templates)]
        if n >= len(templates):  # new id / logicalid, same size: distinct events, no duplicates
            template = template.replace(b"-4f10-a96f-038af496997f:", f"-4f10-a96f-{n:012d}:".encode(), 1)
            old_id = str(uuid.UUID(int=n % len(templates))).encode()
            template = template.replace(old_id, f"{n:08x}-0000-4000-8000-{n:012x}".encode(), 1)
        yield KafkaRecord(topic, n % partitions, None, template)


def produce_ces(broker, topic: str, messages: int, partitions: int = 2, avro: bool = False) -> None:
    broker.create_topics({topic: partitions})
    broker.produce(ces_records(topic, messages, partitions, avro=avro))


def measure(name: str, frame, messages: int) -> Measurement:
    started = time.monotonic()
    frame.write.format("noop").mode("overwrite").save()
    return Measurement(name, messages, time.monotonic() - started)


_PLAIN_DATA = ("struct<eventsource:struct<db:string,schema:string,tbl:string,"
               "cols:array<struct<name:string,type:string,index:int>>,pkkey:array<struct<columnname:string,value:string>>,"
               "transaction:struct<commitlsn:string,beginlsn:string,sequencenumber:int,committime:string>>,"
               "eventrow:struct<old:string,current:string>>")


def _plain(raw, avro: bool):
    """Only the three levels parsed: envelope, data, and the two row images."""
    if avro:
        from normalizer.ces_avro import CHANGE_EVENT_SCHEMA, DATA_SCHEMA

        parsed = raw.selectExpr(f"from_avro(value, '{json.dumps(CHANGE_EVENT_SCHEMA)}') AS e").selectExpr(
            "e", f"from_avro(e.data, '{json.dumps(DATA_SCHEMA)}') AS d")
    else:
        parsed = raw.selectExpr(PLAIN_CES).selectExpr("e", f"from_json(e.data, '{_PLAIN_DATA}') AS d")
    return parsed.selectExpr("e", "d", "from_json(d.eventrow.old, 'map<string,string>') AS old",
                             "from_json(d.eventrow.current, 'map<string,string>') AS current")


def run_ces(spark, broker, messages: int, repeat: int = 1, format_id: str = "ces-json") -> list[Measurement]:
    from normalizer.kafka_source import read_batch
    from normalizer.pipeline import normalize_combined

    avro = format_id == "ces-avro"
    topic = f"bench-{format_id}-{uuid.uuid4().hex[:8]}"
    produce_ces(broker, topic, messages, avro=avro)
    ends = broker.end_offsets(topic)
    ranges = {topic: {p: (0, end) for p, end in ends.items()}}
    raw = lambda: read_batch(spark, broker.bootstrap_servers, ranges)  # noqa: E731
    measure("warm-up", _plain(raw().limit(1000), avro), 1000)  # JIT and Kafka consumer start-up
    results = []
    for _ in range(repeat):
        results.append(measure(f"plain {'from_avro' if avro else 'from_json'} (3 levels)", _plain(raw(), avro), messages))
        results.append(measure(f"normalizer {format_id}", normalize_combined(raw(), format_id), messages))
    return results


def table(results: list[Measurement]) -> str:
    plain = [r for r in results if r.name.startswith("plain")]
    baseline = max(r.rate for r in plain) if plain else None
    lines = [f"{'pass':<30}{'messages':>10}{'seconds':>10}{'messages/s':>14}{'ratio':>8}"]
    for r in results:
        ratio = f"{r.rate / baseline:.2f}" if baseline else "-"
        lines.append(f"{r.name:<30}{r.messages:>10}{r.seconds:>10.2f}{r.rate:>14,.0f}{ratio:>8}")
    return "\n".join(lines)
