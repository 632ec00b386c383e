"""An afternoon's PySpark, the way a team starts reading a CDC topic: `from_json` with the envelope's schema (every
value a string, so no column type is needed) and the textbook mapping of the operation, all in Spark SQL.

- Debezium (`debezium-json`, `cloudcanal-debezium`): the `payload` when the record has one (Connect's
  `schemas.enable`), else the record; `op` c and r are inserts, u updates, d deletes; `before` and `after` as given.
- canal (`canal-json`): one change per element of `data`; an update's before image is `old` at the same index (the
  previous values of the columns that changed), a delete's is the row itself; `isDdl` messages and other types are
  skipped.

A record `from_json` cannot read (not JSON, another shape) or whose operation the mapping does not know yields
nothing: there is no quarantine in a textbook parse (docs/peers.md).
"""
from __future__ import annotations

from cdc_conformance.peers import changes

_IMAGE = "map<string, string>"
_DEBEZIUM = f"op string, before {_IMAGE}, after {_IMAGE}"
_CANAL = f"type string, isDdl boolean, data array<{_IMAGE}>, old array<{_IMAGE}>"

_DEBEZIUM_CHANGES = """
    CASE WHEN envelope.op IN ('c', 'r', 'u', 'd') THEN array(named_struct(
        'op', CASE envelope.op WHEN 'u' THEN 'UPDATE' WHEN 'd' THEN 'DELETE' ELSE 'INSERT' END,
        'before', IF(envelope.op IN ('u', 'd'), envelope.before, NULL),
        'after', IF(envelope.op = 'd', NULL, envelope.after)))
    ELSE array() END"""

_CANAL_CHANGES = """
    CASE WHEN NOT coalesce(envelope.isDdl, false) AND envelope.type IN ('INSERT', 'UPDATE', 'DELETE')
    THEN transform(coalesce(envelope.data, array()), (row, i) -> named_struct(
        'op', envelope.type,
        'before', CASE envelope.type WHEN 'UPDATE' THEN try_element_at(envelope.old, i + 1)
                                     WHEN 'DELETE' THEN row END,
        'after', IF(envelope.type = 'DELETE', NULL, row)))
    ELSE array() END"""


def normalize(raw, format_id: str) -> changes.Output:
    text = "CAST(value AS STRING)"
    if format_id == "canal-json":
        envelope, changes_sql = f"from_json({text}, '{_CANAL}')", _CANAL_CHANGES
    else:
        envelope = (f"coalesce(from_json({text}, 'payload struct<{_DEBEZIUM}>').payload, "
                    f"from_json({text}, '{_DEBEZIUM}'))")
        changes_sql = _DEBEZIUM_CHANGES
    decoded = raw.selectExpr("*", f"{envelope} AS envelope")
    return changes.output(decoded, format_id, changes_sql, "CAST(NULL AS STRING)")


def supported_formats() -> list[str]:
    return ["debezium-json", "cloudcanal-debezium", "canal-json"]


def expresses() -> dict:
    # a textbook parse has no refusal: a record it cannot read yields nothing
    return {"kinds": ["ROW"], "fields": ["kind", "op", "before", "after"], "values": "text", "quarantine": "none",
            "reads": ["value"], "topics": "tables"}


def label() -> str:
    return "naive Spark from_json"
