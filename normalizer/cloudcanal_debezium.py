"""Decoder for `cloudcanal-debezium`: CloudCanal's "Debezium Envelope" MQ format.

It is Debezium's envelope written CloudCanal's way, so this module only says how CloudCanal differs (a
`debezium.Dialect`) and the Debezium decoder does the rest: `op` `i` is an insert (the doc's example;
its table says `c`), `a` marks a DDL that is recognised by `ddl` as Debezium's schema changes are,
`before`/`after` `{}` mean no image, and `tableChanges` is one object, not Debezium's array.
`source.connector` `MySQL` is Debezium's `mysql` (the decoder lower-cases it). docs/formats/cloudcanal-debezium.md.
"""
from __future__ import annotations

from normalizer import debezium
from normalizer.plugin import FormatDecoder, register

FORMAT = "cloudcanal-debezium"

CLOUDCANAL = debezium.Dialect(
    FORMAT,
    payload_types={"tableChanges": "string"},  # an object here, an array in Debezium: read as text first
    payload={
        "op": "CASE {p}.op WHEN 'i' THEN 'c' WHEN 'a' THEN NULL ELSE {p}.op END",
        "before": "IF(size({p}.before) = 0, NULL, {p}.before)",
        "after": "IF(size({p}.after) = 0, NULL, {p}.after)",
        # CloudCanal writes one object where Debezium writes an array of them
        "tableChanges": "IF(ltrim({p}.tableChanges) LIKE '{{%', concat('[', {p}.tableChanges, ']'), {p}.tableChanges)",
    },
)

DECODER = register(FormatDecoder(FORMAT, decode=lambda raw: debezium.decode(raw, CLOUDCANAL)))
