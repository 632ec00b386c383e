"""`toy-json`, a format that exists only for the tests: one JSON object per row change,

    {"op": "I"|"U"|"D", "table": "t", "seq": 7, "key": ["id"], "before": {...}, "after": {...}}

with every value a string. It is decoded with the normalizer's shared pieces only, and registered
through the plug-in interface without touching any module of the project.
"""
from pyspark.sql import DataFrame

from cdc_conformance.model import Code
from cdc_conformance.normalizer import canonical_text as ct
from cdc_conformance.normalizer import events
from cdc_conformance.normalizer.json_text import json_record_rules, parse_json, with_corrupt_record
from cdc_conformance.normalizer.kafka_source import kafka_columns
from cdc_conformance.normalizer.plugin import FormatDecoder, register
from cdc_conformance.normalizer.verdicts import QuarantineRule, verdict

FORMAT = "toy-json"
SCHEMA = with_corrupt_record("op:string,table:string,seq:string,key:array<string>,"
                             "before:map<string,string>,after:map<string,string>")
RULES = [
    *json_record_rules("toy"),
    QuarantineRule("toy.op IS NULL OR toy.table IS NULL OR toy.key IS NULL", Code.MISSING_FIELD, "'op, table and key'"),
    QuarantineRule("toy.op NOT IN ('I', 'U', 'D')", Code.UNKNOWN_OPERATION, "concat('op ', toy.op)"),
]


def decode(raw: DataFrame) -> DataFrame:
    image = "IF(size({0}) > 0, {0}, NULL)"
    key_image = "IF(toy.op = 'D', toy.before, toy.after)"
    event = events.event(
        event_id="concat(topic, '/', partition, '/', offset, '#0')", format=f"'{FORMAT}'", kind="'ROW'",
        op="CASE toy.op WHEN 'I' THEN 'INSERT' WHEN 'U' THEN 'UPDATE' WHEN 'D' THEN 'DELETE' END",
        source="named_struct('system', 'toy', 'server', CAST(NULL AS STRING), 'database', CAST(NULL AS STRING), "
               "'schema', CAST(NULL AS STRING), 'table', toy.table)",
        key=f"transform(toy.key, n -> named_struct('name', coalesce(n, ''), 'value', try_element_at({key_image}, n)))",
        before=image.format("toy.before"), after=image.format("toy.after"),
        position=f"named_struct('commit', {ct.fixed_width('toy.seq')}, 'event', CAST(NULL AS STRING), "
                 "'seq', CAST(NULL AS STRING))",
        origin="origin")
    return (kafka_columns(raw).selectExpr("*", f"{parse_json('value_text', SCHEMA)} AS toy")
            .selectExpr("*", f"{verdict(RULES)} AS verdict")
            .selectExpr(*events.record_output(f"array({event})", "verdict", FORMAT)))


DECODER = register(FormatDecoder(FORMAT, decode=decode))
