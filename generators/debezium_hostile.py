"""Debezium's adversarial records: mutators that derive one from a valid record, and hand-made hostile records, each
with the quarantine code it must produce (docs/formats/debezium-json.md). Declared by generators.debezium's GENERATOR.
"""
from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal

from cdc_conformance.generators.debezium_connect import connect_field, payload_of
from cdc_conformance.generators.jsontext import dumps_bytes
from cdc_conformance.generators.plugin import Hostile, Mutator, record_mutator
from cdc_conformance.generators.records import Expected
from cdc_conformance.generators.values import (
    LogicalType,
)
from cdc_conformance.model import Code

# ------------------------------------------------------------------------------------------------
# Mutators: adversarial records derived from valid ones, each with the quarantine it must produce
# ------------------------------------------------------------------------------------------------

def _mutate_json(item: Expected, change) -> bytes | None:
    # fractions parsed as Decimal: a NUMERIC decimal of 65 digits read as a float would be rewritten as 1e+35,
    # and the record would be undecodable for that reason instead of the mutation's
    document = json.loads(item.record.written_value, parse_float=Decimal)
    if change(document) is False:
        return None
    return dumps_bytes(document)


def _set_first_value(kinds: tuple[str, ...], text: str | Decimal, semantics: tuple[str | None, ...] = (None,)):
    """Replace the first non-null after/before value of a column of one of `kinds` whose semantic name is one of
    `semantics` (none, by default) with `text`."""
    def change(document):
        payload = payload_of(document)
        fields = {f["field"]: f for f in document.get("schema", {}).get("fields", [{}])[0].get("fields", [])} \
            if "schema" in document else {}
        for image in ("after", "before"):
            row = payload.get(image) or {}
            for name, value in row.items():
                if value is not None and fields.get(name, {}).get("type") in kinds and fields[name].get("name") in semantics:
                    row[name] = text
                    return True
        return False
    return change


def _add_column(document):
    payload = payload_of(document)
    if "schema" not in document or not (payload.get("after") or payload.get("before")):
        return False
    (payload.get("after") or payload.get("before"))["zz_undeclared"] = 1
    return True


# names that are none of Kafka Connect's schema types (Schema.Type), some spelled like one of the model's types: a
# `bytes(` was once BYTES with its value unchecked (found by fuzzing the reader)
_NOT_CONNECT_TYPES = ("bytes(", "decimal(10,2)", "int128", "TIME(6)")


def _unknown_connect_type(document):
    """A row column's type, in each image's schema, as a name JsonConverter never writes: UNKNOWN_COLUMN_TYPE."""
    payload = payload_of(document)
    if "schema" not in document or payload.get("op") not in ("c", "r", "u", "d"):
        return False
    images = [f for f in document["schema"].get("fields", []) if f.get("field") in ("before", "after") and f.get("fields")]
    if not images:
        return False
    name = images[0]["fields"][-1]["field"]
    for image in images:
        for column in image["fields"]:
            if column["field"] == name:
                column["type"] = _NOT_CONNECT_TYPES[len(name) % len(_NOT_CONNECT_TYPES)]
    return True


def _replace_op(document):
    payload_of(document)["op"] = "x"


def _drop_source(document):
    payload_of(document).pop("source")


def _drop_op(document):
    payload_of(document).pop("op")


def _as_commit_status(document):
    """The payload as a transaction record of a status Debezium does not write (BEGIN and END are its
    statuses): no heartbeat (that holds only ts_ms) and no change, a shape the format does not define."""
    payload = payload_of(document)
    kept = {"status": "COMMIT", "id": str((payload.get("source") or {}).get("txId", "1")), "ts_ms": payload.get("ts_ms")}
    payload.clear()
    payload.update(kept)


def _table_changes_object(document):
    """The payload as a schema change whose tableChanges is one object where Debezium writes an array."""
    payload = payload_of(document)
    source = payload.get("source")
    payload.clear()
    payload.update(source=source, ts_ms=1, databaseName="db", ddl="ALTER TABLE t ADD c int",
                   tableChanges={"type": "ALTER", "id": '"db"."t"'})


def _table_changes_text(document):
    """... whose tableChanges is a string holding the array's text: no array JsonConverter wrote (issue 49: read as
    the array, a CREATE came out as the DROP its text named)."""
    _table_changes_object(document)
    payload = payload_of(document)
    payload["tableChanges"] = json.dumps([{"type": "DROP", "id": '"db"."t"'}])


def _table_change_type_unknown(document):
    """... whose table change names a type that is none of Debezium's TableChangeType (issue 49: passed through)."""
    _table_changes_object(document)
    payload_of(document)["tableChanges"] = [{"type": "EXPLODE", "id": '"db"."t"'}]


# the semantic names the reader checks against their one Connect type (ConnectTypes.WRITTEN_AS), and for each type
# written another: a field keeps its name and takes the other type
_SEMANTIC_NAMES = frozenset({
    "io.debezium.data.Bits", "org.apache.kafka.connect.data.Decimal", "io.debezium.time.Date", "io.debezium.time.Time",
    "io.debezium.time.MicroTime", "io.debezium.time.NanoTime", "io.debezium.time.Timestamp", "io.debezium.time.MicroTimestamp",
    "io.debezium.time.NanoTimestamp", "io.debezium.time.ZonedTimestamp", "io.debezium.time.ZonedTime",
    "io.debezium.time.MicroDuration", "io.debezium.data.Json", "io.debezium.data.Uuid", "io.debezium.data.Xml",
    "io.debezium.data.Enum", "io.debezium.data.VariableScaleDecimal", "io.debezium.data.geometry.Geometry",
    "org.apache.kafka.connect.data.Date", "org.apache.kafka.connect.data.Time", "org.apache.kafka.connect.data.Timestamp"})
_OTHER_TYPE = {"bytes": "int64", "int32": "string", "int64": "string", "string": "int64", "struct": "bytes"}


def _semantic_name_on_another_type(document):
    """A row column with a semantic name given another Connect type than the name is written with (a Bits on an
    int64, a Decimal on a string): its digits were decoded as base64 (issue 49). UNKNOWN_COLUMN_TYPE."""
    payload = payload_of(document)
    if "schema" not in document or payload.get("op") not in ("c", "r", "u", "d"):
        return False
    images = [f for f in document["schema"].get("fields", []) if f.get("field") in ("before", "after") and f.get("fields")]
    named = [c["field"] for c in (images[0]["fields"] if images else []) if c.get("name") in _SEMANTIC_NAMES]
    if not named:
        return False
    for image in images:
        for column in image["fields"]:
            if column["field"] == named[0]:
                column["type"] = _OTHER_TYPE[column["type"]]
    return True


# a position part of each connector as no unsigned integer: negative, hex, a fraction (issue 49: the part was null)
_POSITION_PARTS = {"postgresql": "lsn", "mysql": "pos", "mariadb": "pos", "sqlserver": "event_serial_no"}
_NOT_DIGITS = (-5, "0x1F", Decimal("1.5"))


def _position_not_digits(document):
    source = payload_of(document).get("source") or {}
    part = _POSITION_PARTS.get(source.get("connector"))
    if part is None or source.get(part) is None:
        return False
    source[part] = _NOT_DIGITS[len(str(source[part])) % len(_NOT_DIGITS)]
    return True


# PostgreSQL's `sequence` as text that is no JSON array of [commit LSN, LSN] (issue 58: the commit part was null)
_NOT_A_SEQUENCE = ("not json", "[]", '{"commit":"100"}', '"100"')


def _sequence_not_an_array(document):
    source = payload_of(document).get("source") or {}
    if source.get("connector") != "postgresql" or source.get("sequence") is None:
        return False
    source["sequence"] = _NOT_A_SEQUENCE[len(source["sequence"]) % len(_NOT_A_SEQUENCE)]
    return True


def _old_key_null(item: Expected) -> bytes | None:
    """An update or delete whose before image holds NULL for the first column of its Kafka key: which row
    changed is unknown (MISSING_OLD_KEY), never a DELETE of key NULL (issue 19 A)."""
    if item.record.key is None:
        return None
    key = json.loads(item.record.key)
    names = list((key.get("payload") if "schema" in key else key) or {})

    def change(document):
        payload = payload_of(document)
        before = payload.get("before")
        if payload.get("op") not in ("u", "d") or not before or not names or before.get(names[0]) is None:
            return False
        before[names[0]] = None
        return True
    return _mutate_json(item, change)


_INTEGERS = ("int16", "int32", "int64")
# a plain integer, or a PostgreSQL interval's MicroDuration, an int64 too (text in one passed through: issue 40)
_PLAIN_OR_INTERVAL = (None, "io.debezium.time.MicroDuration")
_STRINGS = (None, "io.debezium.data.Uuid", "io.debezium.data.Json", "io.debezium.data.Xml", "io.debezium.data.Ltree")


def _first_half(value: bytes) -> bytes:
    """About the first half of a UTF-8 text, cut between characters: a cut inside a multi-byte character is no
    longer UTF-8, and NOT_UTF8 is checked before the JSON (found by certify: a drawn emoji at the middle byte)."""
    cut = len(value) // 2
    while 0 < cut < len(value) and value[cut] & 0xC0 == 0x80:  # a continuation byte: still inside a character
        cut -= 1
    return value[:cut]


_VALUE_CHANGES = {
    # name: (new value bytes from the record, or None where it does not apply; the code it must get)
    "truncated-json": (lambda item: _first_half(item.record.value), Code.MALFORMED_JSON),
    "comment-prefix": (lambda item: b"// change event\n" + item.record.value, Code.MALFORMED_JSON),
    "json-array": (lambda item: b"[" + item.record.value + b"]", Code.MALFORMED_JSON),
    "not-utf8": (lambda item: item.record.value.replace(b'"op"', b'"\xff\xfeop"', 1), Code.NOT_UTF8),
    "unknown-op": (lambda item: _mutate_json(item, _replace_op), Code.UNKNOWN_OPERATION),
    "no-source": (lambda item: _mutate_json(item, _drop_source), Code.MISSING_FIELD),
    "no-op": (lambda item: _mutate_json(item, _drop_op), Code.MISSING_FIELD),
    "undeclared-column": (lambda item: _mutate_json(item, _add_column), Code.SCHEMA_MISMATCH),
    "unknown-connect-type": (lambda item: _mutate_json(item, _unknown_connect_type), Code.UNKNOWN_COLUMN_TYPE),
    "int-as-text": (lambda item: _mutate_json(item, _set_first_value(_INTEGERS, "12abc", _PLAIN_OR_INTERVAL)),
                    Code.UNDECODABLE_VALUE),
    # beyond every integer width (a smallint holding 10^23 was once emitted)
    "int-overflow": (lambda item: _mutate_json(item, _set_first_value(_INTEGERS, "99999999999999999999999",
                                                                      _PLAIN_OR_INTERVAL)), Code.UNDECODABLE_VALUE),
    # a string of any kind holding a number: it came out as the number's text (issue 40)
    "string-as-number": (lambda item: _mutate_json(item, _set_first_value(("string",), Decimal(5), _STRINGS)),
                         Code.UNDECODABLE_VALUE),
    "old-key-null": (_old_key_null, Code.MISSING_OLD_KEY),
    # shapes that are valid JSON but no Debezium record (issue 19 C): never a HEARTBEAT, never MALFORMED_JSON
    "status-commit": (lambda item: _mutate_json(item, _as_commit_status), Code.UNKNOWN_MESSAGE_SHAPE),
    "table-changes-object": (lambda item: _mutate_json(item, _table_changes_object), Code.UNKNOWN_MESSAGE_SHAPE),
    "table-changes-text": (lambda item: _mutate_json(item, _table_changes_text), Code.UNKNOWN_MESSAGE_SHAPE),
    "table-change-type-unknown": (lambda item: _mutate_json(item, _table_change_type_unknown), Code.UNKNOWN_EVENT_TYPE),
    "semantic-name-on-another-type": (lambda item: _mutate_json(item, _semantic_name_on_another_type), Code.UNKNOWN_COLUMN_TYPE),
    "position-not-digits": (lambda item: _mutate_json(item, _position_not_digits), Code.UNDECODABLE_VALUE),
    "sequence-not-an-array": (lambda item: _mutate_json(item, _sequence_not_an_array), Code.UNDECODABLE_VALUE),
    "time-past-range": (lambda item: _mutate_json(item, _time_past_range), Code.UNDECODABLE_VALUE),
    # an exponent form past any column's digits (a 100 KB record of such tokens expanded to 50 MB: issue 49)
    "decimal-exponent-past-column": (lambda item: _mutate_json(item, _set_first_value(
        ("bytes",), Decimal("1E+131071"), ("org.apache.kafka.connect.data.Decimal",))), Code.UNDECODABLE_VALUE),
    # digits only a double could read, as Infinity and 0.0 (docs/formats/debezium-json.md)
    "double-beyond-range": (lambda item: _mutate_json(item, _set_first_value(("double",), Decimal("-1e400"))), Code.UNDECODABLE_VALUE),
    "double-below-range": (lambda item: _mutate_json(item, _set_first_value(("double",), Decimal("1e-400"))), Code.UNDECODABLE_VALUE),
}


# the changes that break any record's JSON; the others are a change record's
_ANY_RECORD = ("truncated-json", "comment-prefix", "json-array")
_NO_CHANGE_KINDS = ("HEARTBEAT", "DDL")  # the records with no op, row or change source: a heartbeat, a schema change


def _value_mutation(name: str):
    change, code = _VALUE_CHANGES[name]

    def mutate(item: Expected) -> Expected | None:
        if item.record.value is None or item.quarantine:  # tombstones and already-mutated records stay
            return None
        if name not in _ANY_RECORD and any(event.kind in _NO_CHANGE_KINDS for event in item.events):
            return None
        value = change(item)
        return None if value is None else Expected.quarantined(replace(item.record, value=value), code)
    return mutate


def mutate_key(item: Expected) -> Expected | None:
    """A key that is not JSON: the record cannot be attributed to a row."""
    if item.record.key is None or item.quarantine:
        return None
    return Expected.quarantined(replace(item.record, key=b"{" + item.record.key), Code.MALFORMED_KEY)


def schema_null_key(item: Expected) -> Expected | None:
    """A bare key as JsonConverter with schemas.enable writes a key that has no schema, `{"schema":null,"payload":..}`
    (Paimon's Flink CDC test data): the same key, the same events (it was read as columns `schema` and `payload`)."""
    if item.record.key is None or item.quarantine:
        return None
    key = json.loads(item.record.key)
    if not isinstance(key, dict) or "schema" in key:
        return None
    return replace(item, record=replace(item.record, key=dumps_bytes({"schema": None, "payload": key})))


# the last value of each time a TIME column holds (838:59:59.999999 in its unit), one unit past it: refused at every
# precision (a NanoTime of 838:59:59.999999500 passed, issue 49)
_PAST_LAST_TIME = {"io.debezium.time.Time": 3_020_400_000, "io.debezium.time.MicroTime": 3_020_400_000_000,
                   "io.debezium.time.NanoTime": 3_020_399_999_999_001}


def _time_past_range(document):
    payload = payload_of(document)
    fields = {f["field"]: f for f in (document.get("schema") or {}).get("fields", [{}])[0].get("fields", [])} \
        if "schema" in document else {}
    for image in ("after", "before"):
        row = payload.get(image) or {}
        for name in row:
            past = _PAST_LAST_TIME.get(fields.get(name, {}).get("name"))
            if past is not None and row[name] is not None:
                row[name] = past
                return True
    return False


_PARTNER_HEADERS = ("__debezium.newkey", "__debezium.oldkey")


def unreadable_partner_key(item: Expected) -> Expected | None:
    """A key-change half whose header naming the other half's key is not JSON: its partner cannot be
    identified, so the half is MALFORMED_KEY (never a pk_change group built from a NULL key, issue 19 A);
    the other half stays an event of its own, as Debezium sends each half as a record of its own."""
    # the key change's tombstone carries the delete's header too (as the connector writes it) but is no half
    if item.quarantine or item.record.value is None or not any(name in _PARTNER_HEADERS for name, _ in item.record.headers):
        return None
    headers = tuple((name, b"{not json" if name in _PARTNER_HEADERS else value) for name, value in item.record.headers)
    return Expected.quarantined(replace(item.record, headers=headers), Code.MALFORMED_KEY)


MUTATORS: dict[str, Mutator] = {
    **{name: record_mutator(_value_mutation(name), code) for name, (_, code) in _VALUE_CHANGES.items()},
    "bad-key": record_mutator(mutate_key, Code.MALFORMED_KEY),
    "partner-key-unreadable": record_mutator(unreadable_partner_key, Code.MALFORMED_KEY),
    "schema-null-key": record_mutator(schema_null_key, None),
}


def _date_schema(after: str) -> bytes:
    return (b'{"schema":{"type":"struct","fields":[{"field":"after","fields":' + after.encode() + b'}]},')


def _bits_record(length: str | None, value: str) -> bytes:
    parameters = "" if length is None else f',"parameters":{{"length":"{length}"}}'
    return (_date_schema(f'[{{"type":"bytes","name":"io.debezium.data.Bits"{parameters},"field":"b"}}]')
            + b'"payload":{"op":"c","source":{"connector":"mariadb"},"after":{"b":"' + value.encode() + b'"}}}')


def _geometry_record(value: str) -> bytes:
    field = connect_field("g", LogicalType("GEOMETRY"), True)
    return (_date_schema(json.dumps([field])) + b'"payload":{"op":"c","source":{"connector":"mariadb"},"after":{"g":'
            + value.encode() + b'}}}')


HOSTILE: dict[str, Hostile] = {
    "empty value": Hostile(b"", Code.MALFORMED_JSON),
    "JSON null": Hostile(b"null", Code.MALFORMED_JSON),
    "a number": Hostile(b"0", Code.MALFORMED_JSON),
    "a string": Hostile(b'"text"', Code.MALFORMED_JSON),
    "an array": Hostile(b"[]", Code.MALFORMED_JSON),
    "control bytes": Hostile(b"\x00\x01\x02", Code.MALFORMED_JSON),
    "5000 open braces": Hostile(b"{" * 5000, Code.MALFORMED_JSON),
    "not UTF-8": Hostile(b'{"op":"\xff"}', Code.NOT_UTF8),
    "key not UTF-8": Hostile(b'{"op":"c","source":{},"after":{"a":1}}', Code.NOT_UTF8, key=b"\xff"),
    "key not JSON": Hostile(b'{"op":"c","source":{},"after":{"a":1}}', Code.MALFORMED_KEY, key=b"{id"),
    "empty object": Hostile(b"{}", Code.UNKNOWN_MESSAGE_SHAPE),
    "null op": Hostile(b'{"op":null}', Code.UNKNOWN_MESSAGE_SHAPE),
    "null payload": Hostile(b'{"payload":null,"schema":{}}', Code.MISSING_FIELD),
    "create without after": Hostile(b'{"op":"c","source":{"connector":"postgresql"}}', Code.MISSING_FIELD),
    "unknown op": Hostile(b'{"op":"z","source":{}}', Code.UNKNOWN_OPERATION),
    "a change event without op": Hostile(b'{"before":null,"after":{"id":1},"source":{"connector":"postgresql"}}',
                                         Code.MISSING_FIELD),
    "bytes that are not canonical base64": Hostile(
        _date_schema('[{"type":"bytes","field":"b"}]') + b'"payload":{"op":"c","source":{"connector":"postgresql"},'
        b'"after":{"b":"AQ"}}}', Code.UNDECODABLE_VALUE),
    "date beyond year 9999": Hostile(
        _date_schema('[{"type":"int32","name":"io.debezium.time.Date","field":"d"}]') +
        b'"payload":{"op":"c","source":{"connector":"postgresql","ts_ms":99999999999999999999},"after":{"d":2147483647}}}',
        Code.UNDECODABLE_VALUE),
    "extreme temporal values": Hostile(
        _date_schema('[{"type":"int64","name":"io.debezium.time.MicroTimestamp","field":"t"},'
                     '{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"-3"},"field":"x"},'
                     '{"type":"string","name":"io.debezium.time.ZonedTimestamp","field":"z"}]') +
        b'"payload":{"op":"c","source":{"connector":"postgresql"},"after":{"t":9223372036854775807,'
        b'"x":"////////////////////////////","z":"2025-13-45T99:99:99Z"}},"ts_ms":-9223372036854775808}',
        Code.UNDECODABLE_VALUE),
    # a field declared twice: a map built from the names would raise DUPLICATED_MAP_KEY and stop the job
    "column declared twice": Hostile(
        _date_schema('[{"type":"int32","field":"a"},{"type":"int32","field":"a"}]') +
        b'"payload":{"op":"c","source":{"connector":"postgresql"},"after":{"a":1}}}', Code.SCHEMA_MISMATCH),
    # a nameless field: a NULL map key would stop the job too
    "column without a name": Hostile(
        _date_schema('[{"type":"int32"}]') + b'"payload":{"op":"c","source":{"connector":"postgresql"},"after":{"a":1}}}',
        Code.SCHEMA_MISMATCH),
    # issue 18: integers from the message reach no arithmetic unchecked; positions are never cut
    "decimal scale 2147483647": Hostile(
        _date_schema('[{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal",'
                     '"parameters":{"scale":"2147483647","connect.decimal.precision":"10"},"field":"x"}]') +
        b'"payload":{"op":"c","source":{"connector":"postgresql"},"after":{"x":"AQ=="}}}', Code.UNDECODABLE_VALUE),
    "variable scale 2147483647": Hostile(
        _date_schema('[{"type":"struct","name":"io.debezium.data.VariableScaleDecimal","field":"x"}]') +
        b'"payload":{"op":"c","source":{"connector":"postgresql"},"after":{"x":{"scale":2147483647,"value":"AQ=="}}}}',
        Code.UNDECODABLE_VALUE),
    # BIT(n): a set bit past n, a column past the longest read (its text is n digits from any value: bounded as a
    # decimal's scale is), a Bits without a length: none is a value the column holds
    "bits past the column's length": Hostile(_bits_record("3", "CA=="), Code.UNDECODABLE_VALUE),
    "bits of a column past 16,384 bits": Hostile(_bits_record("16385", "AQ=="), Code.UNDECODABLE_VALUE),
    "bits without a length": Hostile(_bits_record(None, "AQ=="), Code.UNDECODABLE_VALUE),
    # a geometry's WKB must be a string of canonical base64 (1234 as a number reads as base64), its SRID an int32
    "geometry with a number for its wkb": Hostile(_geometry_record('{"wkb":1234,"srid":0}'), Code.UNDECODABLE_VALUE),
    "geometry with an srid past int32": Hostile(_geometry_record('{"wkb":"AQ==","srid":2147483648}'),
                                                Code.UNDECODABLE_VALUE),
    "lsn of 21 digits": Hostile(b'{"op":"c","source":{"connector":"postgresql","lsn":123456789012345678901},"after":{"a":1}}',
                                Code.UNDECODABLE_VALUE),
    # SQL Server's LSNs are 8, 8 and 4 hex digits (Lsn.toString); another width is no position (make fuzz, issue 40)
    "SQL Server LSN of another width": Hostile(
        b'{"op":"c","source":{"connector":"sqlserver","commit_lsn":"00000027:000007000000000058:0005",'
        b'"change_lsn":"00000027:00000758:0003","event_serial_no":"1"},"after":{"a":1}}', Code.UNDECODABLE_VALUE),
    "binlog file name with a colon": Hostile(
        b'{"op":"c","source":{"connector":"mariadb","file":"mariadb-bin.000001:","pos":400,"row":0},"after":{"a":1}}',
        Code.UNDECODABLE_VALUE),
    "after names a member twice": Hostile(b'{"op":"c","source":{"connector":"postgresql"},"after":{"v":"first","v":"last"}}',
                                          Code.DUPLICATE_KEY),
    "key names a member twice": Hostile(b'{"op":"c","source":{"connector":"postgresql"},"after":{"id":1}}',
                                        Code.DUPLICATE_KEY, key=b'{"id":1,"id":2}'),
    # a PostgreSQL insert with its schema and every source position (the envelope-extremes tier varies it)
    "valid neighbour": Hostile(
        _date_schema('[{"type":"int32","optional":false,"field":"id"},{"type":"bytes","optional":true,"field":"p",'
                     '"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2",'
                     '"connect.decimal.precision":"10"}},{"type":"int64","optional":true,"field":"t",'
                     '"name":"io.debezium.time.MicroTimestamp"}]') +
        b'"payload":{"before":null,"after":{"id":3,"p":"BM4=","t":1700000000000000},"source":{"version":"2.7.3.Final",'
        b'"connector":"postgresql","name":"pg","ts_ms":1700000000000,"ts_us":1700000000000000,"snapshot":"false",'
        b'"db":"shop","sequence":"[\\"100\\",\\"200\\"]","schema":"public","table":"t","txId":7,"lsn":200,'
        b'"xmin":null},"op":"c","ts_ms":1700000000100,"ts_us":1700000000100000}}', None, key=b'{"id":3}'),
    # accepted as events: the shapes are valid, however odd (nothing to quarantine, nothing to fail on)
    "schemaless insert with empty source": Hostile(b'{"op":"c","source":{},"after":{"a":1}}', None),
    "NUL characters and odd numbers": Hostile(
        b'{"op":"c","source":{"connector":"mysql","file":"mysql-bin.000001","pos":4},"after":{"a":"' + b"\\u0000" * 10 + b'"},"ts_us":"1e400"}',
        None),
    # parsers disagree on which one wins (Spark's reader took the last): no one is picked
    # a value of another JSON type than its schema's came out as its JSON text (issue 40)
    "int32 array holding text": Hostile(
        b'{"schema":{"type":"struct","fields":[{"type":"struct","optional":true,"field":"after","fields":['
        b'{"type":"int32","optional":false,"field":"id"},{"type":"array","items":{"type":"int32","optional":true},'
        b'"optional":true,"field":"a"}]},{"type":"string","optional":false,"field":"op"}]},'
        b'"payload":{"op":"c","source":{"connector":"postgresql"},"after":{"id":1,"a":["x",2147483648]}}}',
        Code.UNDECODABLE_VALUE),
    # a MicroDuration is an int64: text in one passed through as the interval (issue 40)
    "interval holding text": Hostile(
        b'{"schema":{"type":"struct","fields":[{"type":"struct","optional":true,"field":"after","fields":['
        b'{"type":"int32","optional":false,"field":"id"},{"type":"int64","optional":true,'
        b'"name":"io.debezium.time.MicroDuration","version":1,"field":"i"}]},{"type":"string","optional":false,'
        b'"field":"op"}]},"payload":{"op":"c","source":{"connector":"postgresql"},"after":{"id":1,"i":"12abc"}}}',
        Code.UNDECODABLE_VALUE),
    "op given twice": Hostile(b'{"op":"c","op":"d","source":{"connector":"postgresql"},"before":{"id":1}}', Code.DUPLICATE_KEY),
}
