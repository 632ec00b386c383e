"""The output every decoder returns, and the builders of its two element types.

A decoder's output has one row per Kafka record (or per group of records that build events together)
with two arrays: `events` (canonical events in the model's schema) and `quarantine` (quarantine
records). One record may become many events (a key change, a multi-row message) or one quarantine
record; a failed group of records becomes one quarantine record per record. `pipeline.normalize`
flattens both arrays; built from `named_struct`s, they carry the model's NOT NULL fields as such.
"""
from __future__ import annotations

from cdc_conformance.model import EVENT_SCHEMA, typed_null

_REQUIRED = [f.name for f in EVENT_SCHEMA.fields if not f.nullable]
_REQUIRED_TEXT = ("event_id", "format", "kind")


def event(**fields: str) -> str:
    """An event struct with every model field in order; a field not given is a typed NULL.

    Values are SQL expressions. The model's NOT NULL fields (event_id, format, kind, origin) must be given.
    """
    unknown = set(fields) - set(EVENT_SCHEMA.fieldNames())
    missing = [name for name in _REQUIRED if fields.get(name) is None]
    if unknown or missing:
        raise ValueError(f"event(): unknown fields {sorted(unknown)}, missing required fields {missing}")
    def value(name: str, data_type) -> str:
        if name not in fields or fields[name] is None:
            return typed_null(data_type)
        if name in _REQUIRED_TEXT:  # given by the decoder; coalesce only tells Spark it is never NULL
            return f"coalesce({fields[name]}, '')"
        return fields[name]

    parts = [f"'{f.name}', {value(f.name, f.dataType)}" for f in EVENT_SCHEMA.fields]
    return f"named_struct({', '.join(parts)})"


def quarantine_record(origin: str, format_id: str, verdict: str, key: str = "key", value: str = "value",
                      headers: str = "headers") -> str:
    """A quarantine struct for one record, from a non-NULL verdict (struct<phase, code, detail>).

    Built only where the verdict is set, so the fallbacks never apply; they tell Spark that phase and
    code are NOT NULL, as the model says.
    """
    return (f"named_struct('origin', {origin}, 'format', '{format_id}', "
            f"'phase', coalesce({verdict}.phase, ''), 'code', coalesce({verdict}.code, ''), "
            f"'detail', {verdict}.detail, 'raw_key', {key}, 'raw_value', {value}, 'raw_headers', {headers})")


def record_output(events: str, verdict: str, format_id: str) -> list[str]:
    """The two output columns for one record: its events when the verdict is NULL, else one quarantine
    record holding the record as read."""
    return [f"IF({verdict} IS NULL, {events}, array()) AS events",
            f"IF({verdict} IS NULL, array(), array({quarantine_record('origin', format_id, verdict)})) AS quarantine"]


def group_output(events: str, verdict: str, format_id: str, origin: str = "origin", records: str = "raw") -> list[str]:
    """The two output columns for a group of records (segments, update halves): its events, or, when the
    verdict is set, one quarantine record per record of the group (`records`: array of key/value/headers,
    parallel to `origin`)."""
    # the i-th origin by a filter, not `origin[i]`: with ANSI mode off a subscript may be NULL, so Spark
    # would type the elements nullable and the output would leave the model
    own_origin = f"filter(coalesce({origin}, array()), (ct_o, ct_j) -> ct_j = i)"
    quarantined = (f"transform({records}, (r, i) -> "
                   f"{quarantine_record(own_origin, format_id, verdict, 'r.key', 'r.value', 'r.headers')})")
    return [f"IF({verdict} IS NULL, {events}, array()) AS events",
            f"IF({verdict} IS NULL, array(), {quarantined}) AS quarantine"]
