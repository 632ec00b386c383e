"""Alibaba Cloud DTS Avro (`dts-avro`): encoder, profiles, oracle, mutators, hostile records.

Records are raw Avro binary datums of `com.alibaba.dts.formats.avro.Record`, written with fastavro from
the schemas in `generators/schemas/dts-record-{2019,2020}.avsc` (transcribed from the DTS subscription
demo's Record.avsc, apart from the decoder's own copy, so a typo on either side fails a test). MySQL
values take the value classes the demo's MysqlFieldConverter reads (docs/formats/dts-avro.md).
"""
from __future__ import annotations

import copy
import datetime as dt
import io
import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import fastavro
from hypothesis import strategies as st

from cdc_conformance import keys
from cdc_conformance.generators import ces_avro
from cdc_conformance.generators.extremes import ITEM_COUNT_BOMB, avro_variants
from cdc_conformance.generators.history import Change, History, Table, Transaction
from cdc_conformance.generators.oracle import change_events
from cdc_conformance.generators.plugin import NOT_EVERY_VERSION, Bench, FormatGenerator, Hostile, profile_examples, profile_render, record_mutator
from cdc_conformance.generators.records import Expected, KafkaRecord
from cdc_conformance.generators.values import LogicalType, canonical_text
from cdc_conformance.model import CanonicalEvent, Code, Column

FORMAT = "dts-avro"
NS = "com.alibaba.dts.formats.avro"
_SCHEMAS = Path(__file__).with_name("schemas")
GENERATIONS = (2019, 2020)


def _inline(named_types: list) -> dict:
    """The .avsc is an array of named types referring to earlier ones; Avro writers want one schema with
    each named type defined at its first use."""
    definitions = {t["name"]: t for t in named_types[:-1]}
    defined: set[str] = set()

    def resolve(node):
        if isinstance(node, str):
            name = node.split(".")[-1]
            if name in definitions and name not in defined:
                defined.add(name)
                return resolve(copy.deepcopy(definitions[name]))
            return node
        if isinstance(node, list):
            return [resolve(n) for n in node]
        if isinstance(node, dict) and node.get("type") == "record":
            defined.add(node["name"])
            return {**node, "fields": [{**f, "type": resolve(f["type"])} for f in node["fields"]]}
        if isinstance(node, dict) and node.get("type") == "array":
            return {**node, "items": resolve(node["items"])}
        return node

    return resolve(copy.deepcopy(named_types[-1]))


@cache
def schema(generation: int):
    return fastavro.parse_schema(_inline(json.loads((_SCHEMAS / f"dts-record-{generation}.avsc").read_text())))


def write(generation: int, record: dict) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, schema(generation), record)
    return out.getvalue()


def read(value: bytes) -> tuple[int, Any]:
    """The generation and datum, found as the decoder finds them: the 2020 schema first."""
    for generation in (2020, 2019):
        try:
            return generation, fastavro.schemaless_reader(io.BytesIO(value), schema(generation))
        except Exception:  # noqa: BLE001 (an EOF or a bad union index: try the other generation)
            continue
    raise ValueError("not a DTS Record datum")


@dataclass(frozen=True)
class Profile:
    generation: int = 2020                # the 2019 schema has no bornTimestamp
    transaction_markers: bool = False     # BEGIN / COMMIT records around each transaction
    charset: str = "utf8mb4"              # of Character values; text the charset cannot hold is sent as utf8mb4
    zone: str | None = None               # TIMESTAMP_TZ as TimestampWithTimeZone at this offset (else Timestamp)
    geometry: bool = False                # BYTES as BinaryGeometry under GEOMETRY (else BinaryObject under BLOB)
    null_object: bool = False             # NULL as EmptyObject NULL (else the union's null)
    minimal: bool = False                 # binlog_row_image=MINIMAL: before holds the key, after the changed columns
    database: str = "shop"                # a database name with a dot is escaped in objectName
    topic: str = "dts.shop"


def profiles():
    return st.builds(Profile, generation=st.sampled_from(GENERATIONS), transaction_markers=st.booleans(),
                     charset=st.sampled_from(["utf8mb4", "utf8", *PYTHON_CODECS]), database=st.sampled_from(["shop", "shop.eu"]),
                     zone=st.sampled_from([None, "+08:00", "-05:30", "+00:00"]), geometry=st.booleans(),
                     null_object=st.booleans(), minimal=st.booleans())


# MySQL charsets drawn besides UTF-8, and the Python codec that writes them as MySQL does (MySQL's latin1
# is cp1252). Only text made of ASCII, cp1252 letters and CJK ideographs is written in them: the codec
# tables of Python and Java differ on a few symbols, and the test is about the charset, not the tables.
PYTHON_CODECS = {"gbk": "gbk", "big5": "big5", "latin1": "cp1252"}


def _charset_bytes(text: str, charset: str) -> tuple[str, bytes]:
    codec = PYTHON_CODECS.get(charset)
    extra = (lambda c: c in "\u00e9\u20ac") if charset == "latin1" else (lambda c: "\u4e00" <= c <= "\u9fa5")
    plain = all(ord(c) < 0x80 or extra(c) for c in text)
    if codec is not None and plain:
        try:
            return charset, text.encode(codec)
        except UnicodeEncodeError:
            pass
    return ("utf8mb4" if codec else charset), text.encode("utf-8")


# logical kind -> (MySQL binlog type code, its name, the logical type DTS values come back as)
MYSQL_TYPES = {"INT16": (2, "SHORT", "INT32"), "INT32": (3, "LONG", "INT64"), "INT64": (8, "LONGLONG", "DECIMAL(20,0)"),
               "STRING": (253, "VAR_STRING", "STRING"), "DECIMAL": (246, "NEWDECIMAL", None),
               "FLOAT64": (5, "DOUBLE", "FLOAT64"), "DATE": (10, "DATE", "DATE"), "TIME": (11, "TIME", "TIME(6)"),
               "TIMESTAMP": (12, "DATETIME", "TIMESTAMP(6)"), "TIMESTAMP_TZ": (7, "TIMESTAMP", "TIMESTAMP_TZ"),
               "BYTES": (252, "BLOB", "BYTES")}
VALUE_TYPES = [LogicalType(k) for k in ("INT16", "INT32", "INT64", "STRING", "FLOAT64", "DATE", "TIMESTAMP_TZ", "BYTES")] + [
    LogicalType("TIME", 6), LogicalType("TIMESTAMP", 3), LogicalType("TIMESTAMP", 6), LogicalType("DECIMAL", 10, 2),
    LogicalType("DECIMAL", 38, 10), LogicalType("DECIMAL", 65, 30), LogicalType("DECIMAL", 5, 0)]


def _datetime(year=None, month=None, day=None, hour=None, minute=None, second=None, micros=None) -> tuple[str, dict]:
    return f"{NS}.DateTime", {"year": year, "month": month, "day": day, "hour": hour, "minute": minute, "second": second,
                              "millis": micros}


def avro_value(logical: LogicalType, value, profile: Profile):
    """A value as DTS writes it: one branch of the image element union (None: the null branch)."""
    if value is None:
        return "NULL" if profile.null_object else None
    kind = logical.kind
    if kind in ("INT16", "INT32", "INT64"):
        return f"{NS}.Integer", {"precision": {"INT16": 6, "INT32": 11, "INT64": 20}[kind], "value": str(value)}
    if kind == "STRING":
        charset, encoded = _charset_bytes(value, profile.charset)
        return f"{NS}.Character", {"charset": charset, "value": encoded}
    if kind == "DECIMAL":
        return f"{NS}.Decimal", {"value": canonical_text(logical, value), "precision": logical.precision,
                                 "scale": logical.scale}
    if kind == "FLOAT64":
        return f"{NS}.Float", {"value": value, "precision": 22, "scale": 31}
    if kind == "DATE":
        return _datetime(value.year, value.month, value.day)
    if kind == "TIME":  # DateTime.millis holds microseconds (the SDK: setNaons(getMillis() * 1000))
        return _datetime(hour=value.hour, minute=value.minute, second=value.second, micros=value.microsecond)
    if kind == "TIMESTAMP":
        return _datetime(value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond)
    if kind == "TIMESTAMP_TZ" and profile.zone is not None:  # the local time at the offset, and the offset
        sign, hours, minutes = profile.zone[0], int(profile.zone[1:3]), int(profile.zone[4:6])
        local = value.astimezone(dt.timezone((1 if sign == "+" else -1) * dt.timedelta(hours=hours, minutes=minutes)))
        return f"{NS}.TimestampWithTimeZone", {"value": _datetime(local.year, local.month, local.day, local.hour, local.minute,
                                                                 local.second, local.microsecond)[1], "timezone": profile.zone}
    if kind == "TIMESTAMP_TZ":  # Timestamp: epoch seconds, and the fraction in microseconds despite its name
        utc = value.astimezone(dt.UTC)
        seconds = (utc - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(seconds=1)
        return f"{NS}.Timestamp", {"timestamp": seconds, "millis": utc.microsecond}
    if kind == "BYTES":
        if profile.geometry:
            return f"{NS}.BinaryGeometry", {"type": "geometry", "value": value}
        return f"{NS}.BinaryObject", {"type": "blob", "value": value}
    raise ValueError(f"DTS has no value class for {logical}")


def escaped(name: str) -> str:
    return name.replace(".", "\\u002E")


@dataclass
class DtsEncoder:
    profile: Profile
    table: Table
    index: int = 0
    sent: int = 0
    transactions: int = 0

    def _mysql_type(self, column) -> tuple[int, str, str | None]:
        if column.logical.kind == "BYTES" and self.profile.geometry:
            return 255, "GEOMETRY", "BYTES"
        return MYSQL_TYPES[column.logical.kind]

    def _header(self, operation: str, tx: Transaction) -> dict:
        self.sent += 1
        record = {"version": 1, "id": self._id(), "sourceTimestamp": int(tx.commit_time.timestamp()),
                  "sourcePosition": f"{self._id()}@3", "safeSourcePosition": "", "sourceTxid": str(self.transactions),
                  "source": {"sourceType": "MySQL", "version": "5.7.40-log"}, "operation": operation,
                  "objectName": None, "processTimestamps": None, "tags": {}, "fields": None, "beforeImages": None,
                  "afterImages": None}
        if self.profile.generation == 2020:
            record["bornTimestamp"] = int(tx.commit_time.timestamp() * 1000)
        return record

    def _id(self) -> int:
        return 10 ** 12 + self.index * 100_000 + self.sent

    def _commit_ts(self, tx: Transaction) -> dt.datetime:
        ms = tx.commit_time.replace(microsecond=tx.commit_time.microsecond // 1000 * 1000)
        return ms if self.profile.generation == 2020 else ms.replace(microsecond=0)

    def _supplied(self, change: Change) -> tuple[set[str], set[str]]:
        """The columns each image holds. MINIMAL (MySQL's binlog_row_image): the before image only what
        identifies the row (the key; every column without one), the after image only the columns the
        statement set (the table's write set, a key set to the value it had among them); the others are
        EmptyObject NONE."""
        every = {c.name for c in self.table.columns}
        if not self.profile.minimal or change.kind != "UPDATE":
            return every, every
        identity = {c.name for c in self.table.key_columns} or every
        return identity, set(change.columns_set(self.table))

    def _row_record(self, operation: str, tx: Transaction, change: Change) -> dict:
        record = self._header(operation, tx)
        columns = self.table.columns
        record.update(objectName=f"{escaped(self.profile.database)}.{self.table.name}",
                      tags={"pk_uk_info": json.dumps({"PRIMARY": [c.name for c in self.table.key_columns]})},
                      fields=[{"name": c.name, "dataTypeNumber": self._mysql_type(c)[0]} for c in columns])

        def image(row, supplied):
            return None if row is None else [avro_value(c.logical, row[c.name], self.profile) if c.name in supplied
                                             else "NONE" for c in columns]

        before_names, after_names = self._supplied(change)
        record.update(beforeImages=image(change.before, before_names), afterImages=image(change.after, after_names))
        return record

    def _expected(self, record: dict, events: list[CanonicalEvent]) -> Expected:
        return Expected(KafkaRecord(self.profile.topic, 0, None, write(self.profile.generation, record)), events)

    def encode(self, history: History) -> list[Expected]:
        out = []
        for tx in history.transactions:
            self.transactions += 1
            if self.profile.transaction_markers:
                out.append(self._marker("BEGIN", "TX_BEGIN", tx))
            for change in tx.changes:
                out.append(self._change(change, tx))
            if self.profile.transaction_markers:
                out.append(self._marker("COMMIT", "TX_END", tx))
        return out

    def _base(self, record: dict, tx: Transaction) -> dict:
        return dict(event_id="", format=FORMAT, format_version=str(self.profile.generation), origin=[],
                    position={"commit": f"{record['id']:020d}", "event": None, "seq": keys.PLAIN_SEQ},
                    tx_id=record["sourceTxid"], commit_ts=self._commit_ts(tx))

    def _marker(self, operation: str, kind: str, tx: Transaction) -> Expected:
        record = self._header(operation, tx)
        return self._expected(record, [CanonicalEvent(kind=kind, **self._base(record, tx))])

    def _source(self) -> dict:
        return {"system": "mysql", "server": None, "database": self.profile.database, "schema": None,
                "table": self.table.name}

    def _change(self, change: Change, tx: Transaction) -> Expected:
        if change.kind == "TRUNCATE":  # DTS sends it as DDL, the statement as afterImages
            record = self._header("DDL", tx)
            statement = f"TRUNCATE TABLE `{self.table.name}`"
            record.update(objectName=f"{escaped(self.profile.database)}.{self.table.name}", afterImages=statement)
            return self._expected(record, [CanonicalEvent(kind="TRUNCATE", source=self._source(), ddl={
                "statement": statement, "change": "TRUNCATE"}, **self._base(record, tx))])
        operation = {"READ": "INIT", "INSERT": "INSERT", "UPDATE": "UPDATE", "DELETE": "DELETE"}[change.kind]
        record = self._row_record(operation, tx, change)
        return self._expected(record, self._oracle(change, record, tx))

    # -- oracle --------------------------------------------------------------------------------------
    def _oracle(self, change: Change, record: dict, tx: Transaction) -> list[CanonicalEvent]:
        table = self.table
        old, new = change.before, change.after
        before_names, after_names = self._supplied(change)

        def logical(c) -> str:
            code_logical = self._mysql_type(c)[2]
            if code_logical is not None:
                return code_logical
            supplied = [row[c.name] for row, names in ((new, after_names), (old, before_names))
                        if row is not None and c.name in names and row[c.name] is not None]
            return c.logical.name if supplied else "DECIMAL"

        columns = [Column(c.name, i + 1, self._mysql_type(c)[1], logical(c), None, c.pk_position)
                   for i, c in enumerate(table.columns)]
        row = dict(kind="ROW", snapshot=change.kind == "READ", source=self._source(), columns=columns,
                   **self._base(record, tx))

        def image(values, names=frozenset(c.name for c in table.columns)):
            return None if values is None else {c.name: canonical_text(c.logical, values[c.name]) for c in table.columns
                                                if c.name in names}

        def key(values):
            return [(c.name, canonical_text(c.logical, values[c.name])) for c in table.key_columns]

        # a key the statement did not set is not in a MINIMAL after image: the key is the before image's
        return change_events(change, row, key, image, {"system": "mysql", "server": "", "database": self.profile.database,
                                                       "schema": "", "table": table.name},
                             update_images=(lambda values: image(values, before_names), lambda values: image(values, after_names)))


def encode(history: History, profile: Profile, index: int = 0) -> list[Expected]:
    return DtsEncoder(profile, history.table, index).encode(history)


# ------------------------------------------------------------------------------------------------
# Mutators: each changes the datum (read back with fastavro) and expects its code
# ------------------------------------------------------------------------------------------------

def _rewrite(change, code: Code):
    """A record mutator from `change(datum) -> bool` (False: does not apply to this record)."""
    def mutate(item: Expected) -> Expected | None:
        generation, datum = read(item.record.written_value)
        if not change(datum):
            return None
        return item.now_quarantined(code, record=replace(item.record, value=write(generation, datum)))
    return record_mutator(mutate, code)


def _unknown_type(datum: dict) -> bool:
    if not isinstance(datum.get("fields"), list) or not datum["fields"]:
        return False
    datum["fields"][0]["dataTypeNumber"] = 99
    return True


def _short_image(datum: dict) -> bool:
    if not isinstance(datum.get("afterImages"), list) or not datum["afterImages"]:
        return False
    datum["afterImages"] = datum["afterImages"][:-1]
    return True


def _bad_utf8(datum: dict) -> bool:
    for values in (datum.get("afterImages"), datum.get("beforeImages")):
        for element in values if isinstance(values, list) else []:
            if isinstance(element, dict) and "charset" in element:
                element.update(charset="utf8mb4", value=b"\xc3\x28")  # an invalid UTF-8 sequence
                return True
    return False


def _old_key_null(datum: dict) -> bool:
    """An UPDATE or DELETE whose before image holds the union's null for a key column: which row changed is
    unknown (MISSING_OLD_KEY), never a DELETE of key NULL (issue 19 A)."""
    before, fields = datum.get("beforeImages"), datum.get("fields")
    if datum.get("operation") not in ("UPDATE", "DELETE") or not isinstance(before, list) or not isinstance(fields, list):
        return False
    try:
        key_names = json.loads((datum.get("tags") or {}).get("pk_uk_info") or "{}").get("PRIMARY") or []
    except ValueError:
        return False
    names = [field.get("name") for field in fields]
    if not key_names or key_names[0] not in names or before[names.index(key_names[0])] is None:
        return False
    before[names.index(key_names[0])] = None
    return True


_BLOB_CODE = 252
# the members that tell a number (Integer, Decimal, Float) or a time (DateTime, Timestamp, TimestampWithTimeZone)
# from the binary and text classes (`type`, `charset`), as fastavro reads a union's record back: a plain dict
_NUMBER_OR_TIME_MEMBERS = ("precision", "year", "timestamp", "timezone")


def _number_under_a_blob_code(datum: dict) -> bool:
    """A column whose value is a number or a time, its type code turned into a blob's: no binary value comes in those
    classes, and their text ("1234") would pass for base64 (issue 40, make fuzz's dtsAvro finding, on every record)."""
    fields, images = datum.get("fields"), datum.get("afterImages") or datum.get("beforeImages")
    if not isinstance(fields, list) or not isinstance(images, list):
        return False
    for index, element in enumerate(images[:len(fields)]):
        if isinstance(element, dict) and any(member in element for member in _NUMBER_OR_TIME_MEMBERS):
            fields[index]["dataTypeNumber"] = _BLOB_CODE
            return True
    return False


def _truncate(item: Expected) -> Expected:
    """A datum cut in half: neither generation reads it (cutting only the 2020 tail would leave a 2019 datum)."""
    value = item.record.written_value
    return item.now_quarantined(Code.MALFORMED_AVRO, record=replace(item.record, value=value[: len(value) // 2]))


MUTATORS = {
    "truncated-datum": record_mutator(_truncate, Code.MALFORMED_AVRO),
    "unknown-data-type": _rewrite(_unknown_type, Code.UNKNOWN_COLUMN_TYPE),
    "image-shorter-than-fields": _rewrite(_short_image, Code.SCHEMA_MISMATCH),
    "invalid-utf8-character": _rewrite(_bad_utf8, Code.UNDECODABLE_VALUE),
    "old-key-null": _rewrite(_old_key_null, Code.MISSING_OLD_KEY),
    "number-under-a-blob-code": _rewrite(_number_under_a_blob_code, Code.UNDECODABLE_VALUE),
}


# ------------------------------------------------------------------------------------------------
# Hostile records
# ------------------------------------------------------------------------------------------------

def hostile_record(n: int, operation: str = "INSERT", generation: int = 2020, fields=None, after="default",
                   before=None, **changes) -> bytes:
    fields = fields if fields is not None else [{"name": "id", "dataTypeNumber": 3}, {"name": "v", "dataTypeNumber": 253}]
    after = [(f"{NS}.Integer", {"precision": 11, "value": str(n)}),
             (f"{NS}.Character", {"charset": "utf8mb4", "value": b"x"})] if after == "default" else after
    record = {"version": 1, "id": 900_000 + n, "sourceTimestamp": 1700000000 + n, "sourcePosition": f"{n}@3",
              "safeSourcePosition": "", "sourceTxid": "", "source": {"sourceType": "MySQL", "version": "8.0"},
              "operation": operation, "objectName": "shop.t", "processTimestamps": None,
              "tags": {"pk_uk_info": '{"PRIMARY":["id"]}'}, "fields": fields, "beforeImages": before, "afterImages": after}
    if generation == 2020:
        record["bornTimestamp"] = 1700000000000 + n
    record.update(changes)
    return write(generation, record)


def _out_of_range_union() -> bytes:
    """An image element whose union index is 13: one past EmptyObject. Written with a schema whose union
    has one more branch, so the bytes are otherwise a valid datum."""
    named = json.loads((_SCHEMAS / "dts-record-2020.avsc").read_text())
    wider = _inline(named)
    for field in wider["fields"]:
        if field["name"] == "afterImages":
            field["type"][2]["items"].append({"type": "record", "name": "Extra", "fields": [{"name": "x", "type": "int"}]})
    out = io.BytesIO()
    datum: Any = fastavro.schemaless_reader(io.BytesIO(hostile_record(1)), schema(2020))
    datum["afterImages"] = [(f"{NS}.Integer", {"precision": 11, "value": "1"}), (f"{NS}.Extra", {"x": 1})]
    fastavro.schemaless_writer(out, fastavro.parse_schema(wider), datum)
    return out.getvalue()


def _ces_datum() -> bytes:
    return ces_avro.write(ces_avro.CHANGE_EVENT, {"specversion": "1.0", "type": "t", "source": "/", "id": "1",
                                                  "logicalid": "l", "time": "t", "datacontenttype": "application/avro",
                                                  "operation": "INS", "segmentindex": 1, "finalsegment": True, "data": b""})


def _integer(value: str):
    return f"{NS}.Integer", {"precision": 11, "value": value}


def _character(charset: str, value: bytes):
    return f"{NS}.Character", {"charset": charset, "value": value}


def _count_bomb() -> bytes:
    """A valid datum whose `fields` array (one Field) declares 2,147,483,639 items instead of 1."""
    valid = hostile_record(30, fields=[{"name": "id", "dataTypeNumber": 3}], after=[_integer("30")])
    fields = b"\x04\x02\x04id\x06\x00"  # union branch 2 (the array), 1 item, name "id", type code 3, end
    assert valid.count(fields) == 1
    return valid.replace(fields, b"\x04" + ITEM_COUNT_BOMB + fields[2:])


def _invalid_utf8(n: int, where: str) -> bytes:
    """A valid datum with two bytes of one string replaced by ones that are no UTF-8 (an overlong '/' or a
    lone surrogate's encoding): fastavro writes only valid strings, so the bytes are patched, length kept."""
    bad = {"objectName": b"\xc0\xaf", "column name": b"\xed\xa0"}[where]
    if where == "objectName":
        return hostile_record(n, objectName="shop.tZZ").replace(b"shop.tZZ", b"shop.t" + bad)
    return hostile_record(n, fields=[{"name": "id", "dataTypeNumber": 3}, {"name": "vZZ", "dataTypeNumber": 253}]) \
        .replace(b"vZZ", b"v" + bad)


_ID_AND_TIME = [{"name": "id", "dataTypeNumber": 3}, {"name": "t", "dataTypeNumber": 11}]
HOSTILE: dict[str, Hostile] = {name: Hostile(value, code) for name, (value, code) in {
    "no value": (None, Code.MISSING_FIELD),
    "empty value": (b"", Code.MALFORMED_AVRO),
    "not Avro": (b"\xff" * 64, Code.MALFORMED_AVRO),
    "truncated datum": (hostile_record(1)[:20], Code.MALFORMED_AVRO),
    "union index out of range": (_out_of_range_union(), Code.MALFORMED_AVRO),
    "another schema's datum (a CES event)": (_ces_datum(), Code.MALFORMED_AVRO),
    "2019 datum": (hostile_record(2, generation=2019), None),
    # the record id is the position's commit part: a negative one has no fixed-width digits (issue 58, found by the
    # fuzz seeds once the model's exit refused a position without its commit part)
    "negative record id": (hostile_record(8, id=-1), Code.UNDECODABLE_VALUE),
    "NOOP": (hostile_record(3, "NOOP", after=None), Code.UNMAPPED_CONTROL_EVENT),
    "ROLLBACK": (hostile_record(4, "ROLLBACK", after=None), Code.UNMAPPED_CONTROL_EVENT),
    "image shorter than fields": (hostile_record(5, after=[_integer("5")]), Code.SCHEMA_MISMATCH),
    "image longer than fields": (hostile_record(6, after=[_integer("6"), _character("utf8", b"x"), _integer("7")]),
                                 Code.SCHEMA_MISMATCH),
    "field named twice": (hostile_record(7, fields=[{"name": "id", "dataTypeNumber": 3}] * 2), Code.SCHEMA_MISMATCH),
    # an empty name is no column's (make fuzz, issue 40: the model's exit stopped it)
    "field with an empty name": (hostile_record(62, fields=[{"name": "", "dataTypeNumber": 3}, {"name": "v", "dataTypeNumber": 253}]),
                                 Code.SCHEMA_MISMATCH),
    "primary key not a field": (hostile_record(8, tags={"pk_uk_info": '{"PRIMARY":["nope"]}'}), Code.SCHEMA_MISMATCH),
    "unknown dataTypeNumber": (hostile_record(9, fields=[{"name": "id", "dataTypeNumber": 3},
                                                          {"name": "v", "dataTypeNumber": 77}]), Code.UNKNOWN_COLUMN_TYPE),
    "INSERT with before": (hostile_record(10, before=[_integer("10"), None]), Code.UNEXPECTED_IMAGE),
    "UPDATE without before": (hostile_record(11, "UPDATE"), Code.MISSING_FIELD),
    "DDL without statement": (hostile_record(12, "DDL", fields=None, after=None), Code.MISSING_FIELD),
    "Integer not a number": (hostile_record(13, after=[_integer("thirteen"), None]), Code.UNDECODABLE_VALUE),
    "charset gbk": (hostile_record(14, after=[_integer("14"), _character("gbk", b"\xc4\xe3")]), None),
    "gbk bytes that are not GBK": (hostile_record(34, after=[_integer("34"), _character("gbk", b"\x81\x20")]),
                                   Code.UNDECODABLE_VALUE),
    "charset Java does not know (swe7)": (hostile_record(35, after=[_integer("35"), _character("swe7", b"a")]),
                                          Code.UNDECODABLE_VALUE),
    "latin1 byte where cp1252 differs": (hostile_record(15, after=[_integer("15"), _character("latin1", b"\x80\x81")]),
                                         None),
    "invalid UTF-8": (hostile_record(16, after=[_integer("16"), _character("utf8mb4", b"\xff")]), Code.UNDECODABLE_VALUE),
    # a value class the type code does not hold (make fuzz, issue 39): a number's text passes for base64 ("1234"), so it
    # is refused; text under a blob or geometry code stays text, as a Character's does
    "a number under a blob code": (hostile_record(61, fields=[{"name": "id", "dataTypeNumber": 3}, {"name": "b", "dataTypeNumber": 252}],
                                                  after=[_integer("61"), _integer("1234")]), Code.UNDECODABLE_VALUE),
    "text under a geometry code": (hostile_record(62, fields=[{"name": "id", "dataTypeNumber": 3}, {"name": "g", "dataTypeNumber": 255}],
                                                  after=[_integer("62"), (f"{NS}.TextObject", {"type": "enum", "value": "red"})]),
                                   None),
    "TIME hour 100": (hostile_record(17, fields=_ID_AND_TIME, after=[_integer("17"), _datetime(hour=100, minute=0, second=0)]),
                      Code.UNDECODABLE_VALUE),
    "Timestamp seconds out of range": (hostile_record(18, fields=[{"name": "id", "dataTypeNumber": 3},
                                                                   {"name": "t", "dataTypeNumber": 7}],
                                                      after=[_integer("18"), (f"{NS}.Timestamp", {"timestamp": 2 ** 62,
                                                                                                   "millis": 0})]),
                                       Code.UNDECODABLE_VALUE),
    "bornTimestamp out of range": (hostile_record(19, bornTimestamp=2 ** 62), None),
    "EmptyObject NONE": (hostile_record(20, after=[_integer("20"), "NONE"]), None),
    "objectName with an escaped dot": (hostile_record(21, objectName="shop\\u002Eeu.t"), None),
    "ten megabyte Character": (hostile_record(22, after=[_integer("22"), _character("utf8mb4", b"x" * 10_000_000)]), None),
    "fields item count 2,147,483,639": (_count_bomb(), Code.MALFORMED_AVRO),
    "Decimal scale 2147483647": (hostile_record(31, fields=[{"name": "id", "dataTypeNumber": 3}, {"name": "d", "dataTypeNumber": 246}],
                                                after=[_integer("31"), (f"{NS}.Decimal", {"value": "1.5", "precision": 10,
                                                                                         "scale": 2147483647})]),
                                 Code.UNDECODABLE_VALUE),
    "objectName not UTF-8": (_invalid_utf8(32, "objectName"), Code.NOT_UTF8),
    "column name not UTF-8": (_invalid_utf8(33, "column name"), Code.NOT_UTF8),
    "valid neighbour": (hostile_record(100), None),
}.items()}


# ------------------------------------------------------------------------------------------------
# Benchmark data: an 8-column MySQL row as INSERT datums of the 2020 schema (cdc-conformance bench)
# ------------------------------------------------------------------------------------------------

_BENCH_FIELDS = [{"name": n, "dataTypeNumber": code} for n, code in [
    ("id", 3), ("customer", 253), ("product_id", 3), ("product", 253), ("price", 246), ("quantity", 3),
    ("purchased", 12), ("payment", 253)]]


def bench_records(topic: str, messages: int, partitions: int):
    for n in range(messages):
        after = [_integer(str(n)), _character("utf8mb4", f"Customer {n}".encode()), _integer(str(n % 977)),
                 _character("utf8mb4", b"Game"), (f"{NS}.Decimal", {"value": f"{n % 100}.50", "precision": 10, "scale": 2}),
                 _integer(str(n % 7 + 1)), _datetime(2025, 3, 14, 16, 45, n % 60, 0), _character("utf8mb4", b"Credit Card")]
        value = hostile_record(n, fields=_BENCH_FIELDS, after=after, objectName="shop.purchases", id=n)
        yield KafkaRecord(topic, n % partitions, None, value)


def _plain(raw):
    """The plain parse: Spark's from_avro with the producer's schema (the generator's own copy, inlined)."""
    producers = _inline(json.loads((_SCHEMAS / "dts-record-2020.avsc").read_text()))
    return raw.selectExpr(f"from_avro(value, '{json.dumps(producers)}') AS r")


BENCH = Bench(records=bench_records, plain=_plain, plain_label="plain from_avro (2020 schema)")


# ------------------------------------------------------------------------------------------------
# The plug-in declaration
# ------------------------------------------------------------------------------------------------

examples = profile_examples(profiles, VALUE_TYPES, max_changes=8)
render = profile_render(encode)


def coverage(events: list[dict], quarantine: list[dict]) -> list[str]:
    problems = [] if any(e["pk_change"] for e in events) else ["no key change drawn"]
    problems += [] if {e["format_version"] for e in events} >= {"2019", "2020"} else [f"{NOT_EVERY_VERSION}: not both schema generations"]
    return problems + ([] if any(e["snapshot"] for e in events) else ["no INIT (snapshot) record drawn"])


def extremes(value: bytes) -> list[tuple[str, bytes]]:
    generation, _ = read(value)
    return avro_variants(value, lambda v: read(v)[1], lambda datum: write(generation, datum))


GENERATOR = FormatGenerator(
    format_id=FORMAT,
    examples=examples,
    extremes=extremes,
    encoding="avro",
    version_profile=lambda version: {"generation": int(version)},
    render=render,
    partitions=lambda example: 1,  # DTS topics have one partition (the SDK README)
    mutators=MUTATORS,
    hostile=HOSTILE,
    coverage=coverage,
    shared_history=lambda history, topic, index: render((Profile(), history), topic, index),
    value_types=tuple(VALUE_TYPES),
    history_features=frozenset({"key-change", "snapshot", "truncate"}),
    bench=BENCH,
)
