"""`cdc-conformance bench`: normalizer throughput against a plain from_json pass over the same Kafka data.

Both passes read the same topic of the embedded broker with Spark's Kafka source and are forced to
compute every output column through Spark's `noop` sink (a count could be answered from pruned
columns). The plain pass only parses the three CES JSON levels; the normalizer does everything.
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


def ces_template_events(count: int, target_bytes: int = 1000) -> list[bytes]:
    """Distinct unsplit CES events of about `target_bytes`, as SQL Server writes them (docs' shape)."""
    events = []
    for n in range(count):
        current = {"purchase_id": str(n), "customer_name": f"Customer {n}", "product_id": str(n % 977),
                   "product_name": "Game " + "x" * 40, "price_per_item": str(n % 100), "quantity": str(n % 7 + 1),
                   "purchase_date": "2025-03-14 16:45:01.000", "payment_method": "Credit Card"}
        cols = [{"name": k, "type": t, "index": i} for i, (k, t) in enumerate(zip(current, [
            "int", "varchar(100)", "int", "varchar(100)", "int", "int", "datetime", "varchar(50)"]))]
        data = {"eventsource": {"db": "db1", "schema": "dbo", "tbl": "Purchases", "cols": cols,
                                "pkkey": [{"columnname": "purchase_id", "value": str(n)}],
                                "transaction": {"commitlsn": f"0000002C:{n:08X}:0001", "beginlsn": f"0000002C:{n:08X}:0000",
                                                "sequencenumber": 1, "committime": "2025-03-14T16:45:20.650Z"}},
                "eventrow": {"old": "{}", "current": json.dumps(current)}}
        envelope = {"specversion": "1.0", "type": "com.microsoft.SQL.CES.DML.V1", "source": "/",
                    "id": str(uuid.UUID(int=n)), "logicalid": f"9c8d4ad2-bf54-4f10-a96f-038af496997f:{n:020d}:{1:020d}",
                    "time": "2025-03-14T16:45:20.650Z", "datacontenttype": "application/json", "operation": "INS",
                    "segmentindex": 1, "finalsegment": True, "data": json.dumps(data)}
        text = json.dumps(envelope)
        events.append(text.encode())
    return events


def produce_ces(broker, topic: str, messages: int, partitions: int = 2, distinct: int = 5000) -> None:
    """`messages` events: `distinct` templates, re-keyed so that every event has its own id and logicalid."""
    templates = ces_template_events(min(distinct, messages))
    broker.create_topics({topic: partitions})

    def records():
        for n in range(messages):
            template = templates[n % len(templates)]
            if n >= len(templates):  # new id / logicalid, same size: distinct events, no duplicates
                template = template.replace(b"-4f10-a96f-038af496997f:", f"-4f10-a96f-{n:012d}:".encode(), 1)
                template = template.replace(b'"id": "', f'"id": "r{n}-'.encode(), 1)
            yield KafkaRecord(topic, n % partitions, None, template)

    broker.produce(records())


def measure(name: str, frame, messages: int) -> Measurement:
    started = time.monotonic()
    frame.write.format("noop").mode("overwrite").save()
    return Measurement(name, messages, time.monotonic() - started)


def run_ces(spark, broker, messages: int, repeat: int = 1) -> list[Measurement]:
    from normalizer.kafka_source import read_batch
    from normalizer.pipeline import normalize_combined

    topic = f"bench-ces-{uuid.uuid4().hex[:8]}"
    produce_ces(broker, topic, messages)
    ends = broker.end_offsets(topic)
    ranges = {topic: {p: (0, end) for p, end in ends.items()}}
    raw = lambda: read_batch(spark, broker.bootstrap_servers, ranges)  # noqa: E731
    plain = raw().selectExpr(PLAIN_CES).selectExpr(
        "e", "from_json(e.data, 'struct<eventsource:struct<db:string,schema:string,tbl:string,"
             "cols:array<struct<name:string,type:string,index:int>>,pkkey:array<struct<columnname:string,value:string>>,"
             "transaction:struct<commitlsn:string,beginlsn:string,sequencenumber:int,committime:string>>,"
             "eventrow:struct<old:string,current:string>>') AS d").selectExpr(
        "e", "d", "from_json(d.eventrow.old, 'map<string,string>') AS old",
        "from_json(d.eventrow.current, 'map<string,string>') AS current")
    measure("warm-up", raw().limit(1000).selectExpr(PLAIN_CES), 1000)  # JIT and Kafka consumer start-up
    results = []
    for _ in range(repeat):
        results.append(measure("plain from_json (3 levels)", plain, messages))
        results.append(measure("normalizer ces-json", normalize_combined(raw(), "ces-json"), messages))
    return results


def table(results: list[Measurement]) -> str:
    plain = [r for r in results if r.name.startswith("plain")]
    baseline = max(r.rate for r in plain) if plain else None
    lines = [f"{'pass':<30}{'messages':>10}{'seconds':>10}{'messages/s':>14}{'ratio':>8}"]
    for r in results:
        ratio = f"{r.rate / baseline:.2f}" if baseline else "-"
        lines.append(f"{r.name:<30}{r.messages:>10}{r.seconds:>10.2f}{r.rate:>14,.0f}{ratio:>8}")
    return "\n".join(lines)
