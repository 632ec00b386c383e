"""Decoder for `debezium-json`: Debezium (SQL Server, PostgreSQL, MySQL) through Kafka Connect's JsonConverter.

Handles `schemas.enable` true (`{"schema","payload"}`) and false (bare payload), 1.x and 2.6+/3.x
profiles, ops c/r/u/d/t/m, tombstones, heartbeats, transaction metadata and schema-change events.
Column values are typed by the Connect schema of the record (decimals, io.debezium.time.*, ...);
without a schema, values keep their JSON text (docs/formats/debezium-json.md explains why).

Everything is one Spark SQL pipeline over the Kafka source's columns; no Python UDF.
"""
from __future__ import annotations

import base64
import hashlib
import json
import uuid
from dataclasses import dataclass, field

from pyspark.sql import DataFrame

from normalizer import canonical_text as ct
from normalizer import events, keys, sql, types
from normalizer.json_text import json_record_rules, parse_json, repeats_a_member, with_corrupt_record
from normalizer.json_text import number_members as json_number_members
from normalizer.kafka_source import kafka_columns
from normalizer.model import Code
from normalizer.plugin import FormatDecoder, register
from normalizer.verdicts import QuarantineRule, accept_when, verdict

FORMAT = "debezium-json"
UNAVAILABLE_PLACEHOLDER = "__debezium_unavailable_value"


def unavailable_renderings(placeholder: str = UNAVAILABLE_PLACEHOLDER) -> tuple[str, ...]:
    """How the PostgreSQL connector writes an unchanged TOASTed value, per column type, as JsonConverter
    renders it (Debezium `UnchangedToastedPlaceholder`): the text itself (text, json, xml, enum), its
    bytes (bytea: base64), one-element arrays of it (text[], bytea[], uuid[] as the name-based UUID of its
    bytes), its bytes as numbers (int[], bigint[]), and a one-entry hstore map."""
    raw = placeholder.encode()
    text = json.dumps(placeholder)
    return (placeholder, base64.b64encode(raw).decode(), f"[{text}]", f"[{json.dumps(base64.b64encode(raw).decode())}]",
            f'["{uuid.UUID(bytes=hashlib.md5(raw).digest(), version=3)}"]', "[" + ",".join(str(b) for b in raw) + "]",
            f"{{{text}:{text}}}")


_UNAVAILABLE = "(" + ", ".join(sql.sql_string(r) for r in unavailable_renderings()) + ")"
ROW_OPS = ("c", "r", "u", "d")
SNAPSHOT_MARKERS = ("true", "first", "first_in_data_collection", "last_in_data_collection", "last", "incremental")

# Connect JSON schema descriptors. Every scalar is read as string: the JSON parser then keeps the raw
# token text (1005, true, 1.0E10), and hand-written fixtures that quote numbers do not break the parse.
_COLUMN = "struct<type:string,name:string,field:string,optional:string,parameters:map<string,string>>"
_ENVELOPE_FIELD = f"struct<type:string,name:string,field:string,optional:string,fields:array<{_COLUMN}>>"
PAYLOAD_FIELDS = {
    "before": "map<string,string>", "after": "map<string,string>", "source": "map<string,string>",
    "transaction": "map<string,string>", "op": "string", "ts_ms": "string", "ts_us": "string", "ts_ns": "string",
    "message": "map<string,string>", "status": "string", "id": "string", "ddl": "string", "databaseName": "string",
    # JSON text: an object where Debezium writes an array is valid JSON of another shape (UNKNOWN_MESSAGE_SHAPE),
    # not a record that does not parse, as it was when the whole record was read with the array's type
    "tableChanges": "string",
}


@dataclass(frozen=True)
class Dialect:
    """A producer that writes Debezium's envelope its own way (CloudCanal). `payload_types` overrides how
    payload fields are read; `payload` rewrites fields of the parsed payload into Debezium's own form
    (field -> SQL over `p`, the payload as read); everything after that is this module's."""

    format_id: str
    payload_types: dict[str, str] = field(default_factory=dict)
    payload: dict[str, str] = field(default_factory=dict)

    def value_schema(self) -> str:
        fields = ",".join(f"{name}:{self.payload_types.get(name, kind)}" for name, kind in PAYLOAD_FIELDS.items())
        return with_corrupt_record(
            f"schema:struct<type:string,name:string,fields:array<{_ENVELOPE_FIELD}>>,payload:struct<{fields}>,{fields}")

    def normalized(self, payload: str) -> str:
        if not self.payload:
            return payload
        parts = ", ".join(f"'{name}', {self.payload[name].format(p=payload) if name in self.payload else f'{payload}.{name}'}"
                          for name in PAYLOAD_FIELDS)
        return f"IF({payload} IS NULL, NULL, named_struct({parts}))"


DEBEZIUM = Dialect(FORMAT)
VALUE_SCHEMA = DEBEZIUM.value_schema()
KEY_SCHEMA = f"struct<schema:struct<type:string,name:string,fields:array<{_COLUMN}>>,payload:map<string,string>>"


# The row images again, each value a VARIANT: it keeps what a string-typed parse loses, whether the JSON value
# was a number or a string ("1234" is also base64; "12.30" is a string to keep), and a number's exact digits
# (to 38 of them). Parsed only for records with a Decimal column or a schemaless fraction (`_parse`).
_VARIANT_IMAGES = ("struct<payload:struct<before:map<string,variant>,after:map<string,variant>>,"
                   "before:map<string,variant>,after:map<string,variant>>")
_VARIANT_KEY = "struct<payload:map<string,variant>>"
_FRACTION = "'^-?[0-9]+[.][0-9]+(E-?[0-9]+)?$'"


def _variant(image: str, name: str) -> str:
    """The VARIANT of member `name` of `image` (before, after, key); NULL where none was parsed."""
    if image == "key":
        return f"try_element_at(coalesce(key_variants.payload, bare_key_variants), {name})"
    return f"try_element_at(IF(wrapped, value_variants.payload.{image}, value_variants.{image}), {name})"


def number_members(text: str) -> str:
    """SQL: every (name, token) of a number-valued member in the JSON `text`, names unescaped. Computed once
    per record that has a fractional number at all: only those lose digits in Spark's reading.

    One streaming pass of Jackson in the guard jar (json_text.number_members), not a regular expression over
    the text: the expression was two thirds of a Debezium decode (JFR), its string loop had to be kept free of
    recursion (a few thousand characters overflowed the task's stack, issue 18 A) and of backtracking over
    escaped quotes (quadratic), and names needed unescaping; a parser has none of that."""
    return f"IF({text} RLIKE '[0-9][.][0-9]', {json_number_members(text)}, NULL)"


def _members(image: str) -> str:
    """The number members (`number_members`) of the text that holds `image` (before, after, key)."""
    return "key_numbers" if image == "key" else "value_numbers"


def _number_token(raw: str, name: str, members: str) -> str:
    """The JSON number token of member `name` as written, if exactly one number-valued member of that name in
    the record reads as `raw` (Spark's reading: a fractional number passes through a double, 12.30 reads
    12.3; an integer keeps its digits, so it is its own token).

    Any spelling is found (spaces, member order, `source` before `after`, names written with escapes); a
    member of the same name elsewhere that reads differently is no candidate; two different tokens that
    read alike are ambiguous: NULL (quarantined), never a guess.
    """
    candidates = (f"array_distinct(transform(filter({members}, ct_n -> ct_n.name = {name} AND "
                  f"(ct_n.token = {raw} OR CAST(CAST(ct_n.token AS DOUBLE) AS STRING) = {raw})), ct_n -> ct_n.token))")
    recovered = sql.let(candidates, "ct_tokens", "IF(size(ct_tokens) = 1, ct_tokens[0], NULL)")
    return f"IF({raw} RLIKE '^-?[0-9]+$', {raw}, {recovered})"


def _schemaless_value(raw: str, name: str, image: str) -> str:
    """A value without a schema keeps its JSON text. Spark's reader passes a fractional number through a
    double (Jackson's copy of a float token), which loses digits of a NUMERIC decimal and, on JDK 17, may
    print a non-shortest double (JDK-4511638): such a number's own token is taken instead, and where it
    cannot be found the value is NULL (`_QUARANTINE_RULES`: UNDECODABLE_VALUE), never the double's text."""
    # the variant bound once (ct.let): it is a long expression, and the plan would hold it at each use
    number = "coalesce(schema_of_variant(ct_sv) != 'STRING', false)"
    # where two tokens of the name read alike (before 9...9.9999999999, after 9...9.9999999998: one double),
    # the VARIANT's exact digits (up to 38) are this member's own; beyond 38 digits nothing tells them apart
    exact = "IF(schema_of_variant(ct_sv) LIKE 'DECIMAL%', CAST(ct_sv AS STRING), NULL)"
    return sql.let(_variant(image, name), "ct_sv",
                  f"CASE WHEN {ct.beyond_double_range('ct_sv')} THEN NULL "
                  f"WHEN {raw} RLIKE {_FRACTION} AND {number} THEN coalesce({_number_token(raw, name, _members(image))}, {exact}) "
                  f"ELSE {raw} END")


def _unrecoverable_fraction(image: str) -> str:
    values = f"payload.{image}"
    return (f"coalesce(row_fields IS NULL AND exists(map_entries({values}), e -> e.value IS NOT NULL "
            f"AND {_schemaless_value('e.value', 'e.key', image)} IS NULL), false)")


def convert_value(raw: str, field_: str, variant: str, members: str) -> str:
    """Canonical text of one JSON value `raw` described by a typed field (`_typed_fields`: with `logical`);
    `variant`: the value read as VARIANT (NULL where none was parsed), `members`: the record's number members
    (`number_members`). A Decimal is base64 of its unscaled bytes, or, with `decimal.format=NUMERIC`, a JSON
    number: the VARIANT says which, and gives the exact digits (up to 38); beyond those, the number's own
    token in the text (`_number_token`)."""
    exact = ("CASE WHEN schema_of_variant(ct_v) RLIKE '^(DECIMAL|BIGINT|INT|SMALLINT|TINYINT)' "
             f"THEN CAST(ct_v AS STRING) ELSE {_number_token(raw, f'{field_}.field', members)} END")
    number = f"coalesce({field_}.logical LIKE 'DECIMAL(%' AND schema_of_variant(ct_v) != 'STRING', false)"
    # a number no double holds (1e-400 read as 0.0) is no value of any Connect type: NULL, quarantined
    as_read = f"IF({ct.beyond_double_range('ct_v')}, NULL, {raw})"
    return sql.let(variant, "ct_v", f"IF({number}, "
                  f"{types.convert(exact, f'{field_}.logical', types.TEXT)}, "
                  # bound once: the converter repeats its input in every branch it tries
                  f"{sql.let(as_read, 'ct_r', types.convert('ct_r', f'{field_}.logical', types.CONNECT))})")


def _typed_fields(fields: str) -> str:
    """Connect field descriptors with their logical type, computed once per field: the converter reads
    it in every branch it tries, so it must be a field, not an expression."""
    return (f"transform({fields}, f -> named_struct('field', f.field, 'name', f.name, 'type', f.type, "
            f"'optional', f.optional, 'parameters', f.parameters, 'logical', {types.connect_logical_type('f')}))")


def _header(name: str) -> str:
    return f"CAST(get(filter(headers, h -> h.key = '{name}'), 0).value AS STRING)"


def _key_map(text: str, options: str = "") -> str:
    """A key struct as map, from either `{"schema","payload"}` or the bare object (also in headers)."""
    return (f"coalesce(from_json({text}, '{KEY_SCHEMA}'{options}).payload, "
            f"CASE WHEN from_json({text}, '{KEY_SCHEMA}'{options}).schema IS NULL "
            f"THEN from_json({text}, 'map<string,string>'{options}) END)")


def _header_key(name: str) -> str:
    """The key in a key change's partner header (`__debezium.newkey`, `__debezium.oldkey`). Kafka Connect's
    default header converter writes the key struct as JSON-like text escaping only backslashes and quotes
    (SimpleHeaderConverter -> Values.convertToString): a control character stays raw, which strict JSON
    refuses, and a key holding a tab made its key change unpairable (found by the real connector, issue 22)."""
    return _key_map(_header(name), ", map('allowUnquotedControlChars', 'true')")


def _parse(raw: DataFrame, dialect: Dialect) -> DataFrame:
    bare_payload = ", ".join(f"'{name}', document.{name}" for name in PAYLOAD_FIELDS)
    return kafka_columns(raw).selectExpr(
        "*",
        f"{parse_json('value_text', dialect.value_schema())} AS document",
        f"from_json(key_text, '{KEY_SCHEMA}') AS key_document",
        "from_json(key_text, 'map<string,string>') AS bare_key",
    ).selectExpr(
        "*",
        "(document.schema IS NOT NULL OR document.payload IS NOT NULL) AS wrapped",
        "(key_document.schema IS NOT NULL AND key_document.payload IS NOT NULL) AS key_wrapped",
    ).selectExpr(
        "*",
        f"IF(wrapped, document.payload, named_struct({bare_payload})) AS payload_as_read",
        "coalesce(get(filter(document.schema.fields, f -> f.field = 'after'), 0).fields,"
        " get(filter(document.schema.fields, f -> f.field = 'before'), 0).fields) AS declared_fields",
        "IF(key_wrapped, key_document.payload, bare_key) AS key_raw",
        "IF(key_wrapped, transform(key_document.schema.fields, f -> f.field), json_object_keys(key_text)) AS key_names",
    ).selectExpr(
        "*", f"{dialect.normalized('payload_as_read')} AS payload", f"{_typed_fields('declared_fields')} AS row_fields",
        f"{_typed_fields('key_document.schema.fields')} AS key_fields",
    ).selectExpr(
        "*",
        # Decimal columns, schemaless values that may be fractional numbers (a string can look like one), and
        # numbers that may be beyond a double's range (ct.MAYBE_BEYOND_DOUBLE)
        f"IF(exists(row_fields, f -> f.logical LIKE 'DECIMAL(%') OR (row_fields IS NULL AND value_text RLIKE '[0-9][.][0-9]')"
        f" OR value_text RLIKE {ct.MAYBE_BEYOND_DOUBLE}, "
        f"from_json(value_text, '{_VARIANT_IMAGES}'), NULL) AS value_variants",
        f"IF(exists(key_fields, f -> f.logical LIKE 'DECIMAL(%'), from_json(key_text, '{_VARIANT_KEY}'), NULL) "
        "AS key_variants",
        "IF(exists(key_fields, f -> f.logical LIKE 'DECIMAL(%'), from_json(key_text, 'map<string,variant>'), NULL) "
        "AS bare_key_variants",
        f"{number_members('value_text')} AS value_numbers", f"{number_members('key_text')} AS key_numbers",
    )


_IMAGES = ("before", "after", "key")


def _convert_images(parsed: DataFrame) -> DataFrame:
    """Per-column conversion, computed once and reused for the images and the failure checks.

    The cells of all three images go through one `convert_value` over one array: the converter is large
    (every type's branch), and Spark analyses and optimizes each copy of it; one copy instead of three takes
    a Debezium plan from ~3 s to ~2 s, paid by every batch and micro-batch before any data."""
    def cells(image: str) -> str:
        index, where = _IMAGES.index(image), ("key_document.payload" if image == "key" else f"payload.{image}")
        # concat is NULL when one part is: an image without cells is an empty part (its cells stay NULL below)
        present = "IF(key_wrapped, coalesce(key_fields, array()), array())" if image == "key" else (
            f"IF(payload.{image} IS NULL, array(), coalesce(row_fields, array()))")
        return (f"transform({present}, f -> named_struct('image', {index}, 'f', f, "
                f"'present', map_contains_key({where}, f.field), 'raw', try_element_at({where}, f.field), "
                f"'variant', {_variant(image, 'f.field')}))")

    members = f"IF(ct_c.image = {_IMAGES.index('key')}, {_members('key')}, {_members('after')})"
    convert = (f"transform(concat({', '.join(cells(image) for image in _IMAGES)}), ct_c -> named_struct("
               f"'image', ct_c.image, 'name', ct_c.f.field, 'present', ct_c.present, 'raw', ct_c.raw, "
               f"'value', {convert_value('ct_c.raw', 'ct_c.f', 'ct_c.variant', members)}))")

    def image_cells(image: str) -> str:
        return f"filter(all_cells, c -> c.image = {_IMAGES.index(image)})"

    return parsed.selectExpr("*", f"{convert} AS all_cells").selectExpr(
        "*",
        f"IF(payload.before IS NULL OR row_fields IS NULL, NULL, {image_cells('before')}) AS before_cells",
        f"IF(payload.after IS NULL OR row_fields IS NULL, NULL, {image_cells('after')}) AS after_cells",
        f"IF(key_wrapped, IF(key_fields IS NULL, NULL, "
        f"transform({image_cells('key')}, c -> named_struct('name', c.name, 'raw', c.raw, 'value', c.value))),"
        f" transform(key_names, n -> named_struct('name', n, 'raw', try_element_at(bare_key, n),"
        f" 'value', try_element_at(bare_key, n)))) AS key_cells",
    )


_DUPLICATE_FIELDS = "size(array_distinct(row_fields.field)) < size(row_fields)"


def _image(image: str) -> str:
    cells = f"{image}_cells"
    keep = f"c -> c.present AND coalesce(c.raw NOT IN {_UNAVAILABLE}, true)"
    return (f"CASE WHEN payload.{image} IS NULL THEN NULL "
            f"WHEN row_fields IS NULL THEN transform_values(map_filter(payload.{image}, (k, v) -> coalesce(v NOT IN {_UNAVAILABLE}, true)), "
            f"(k, v) -> {_schemaless_value('v', 'k', image)}) "
            f"WHEN {_DUPLICATE_FIELDS} THEN NULL "  # quarantined; a map with a repeated key would stop the job
            f"ELSE map_from_entries(transform(filter({cells}, {keep}), c -> struct(c.name, c.value))) END")


def _undecodable(cells: str) -> str:
    return (f"coalesce(exists({cells}, c -> c.raw IS NOT NULL AND c.value IS NULL"
            f" AND c.raw NOT IN {_UNAVAILABLE}), false)")


def _unknown_columns(image: str) -> str:
    return (f"(row_fields IS NOT NULL AND payload.{image} IS NOT NULL AND "
            f"size(array_except(map_keys(payload.{image}), transform(row_fields, f -> f.field))) > 0)")


_OP = "payload.op"


def _src(name: str) -> str:
    return f"try_element_at(payload.source, '{name}')"


# PostgreSQL's commit LSN: the first of source.sequence, a JSON text of [last commit LSN, LSN]
_SEQUENCE_COMMIT = f"get(from_json({_src('sequence')}, 'array<string>'), 0)"
# the source's numeric position parts and their fixed widths (`_position`)
_POSITION_PARTS = ((_src("lsn"), 20), (_src("pos"), 20), (_src("row"), 10), (_src("event_serial_no"), 20),
                   (_SEQUENCE_COMMIT, 20))
_ROW_OPS = ", ".join(repr(op) for op in ROW_OPS)
# Records without op that Debezium does write: transaction metadata, schema changes, heartbeats.
# A heartbeat holds a time and nothing else (`{"ts_ms": ...}`): a record with a `status` Debezium does not
# write (COMMIT) or an `id` is no heartbeat but a shape the format does not define
_IS_HEARTBEAT = ("payload.ts_ms IS NOT NULL AND "
                 + " AND ".join(f"payload.{name} IS NULL" for name in PAYLOAD_FIELDS if not name.startswith("ts_")))
_IS_CONTROL_RECORD = ("coalesce(payload.status IN ('BEGIN', 'END'), false) OR payload.ddl IS NOT NULL"
                      f" OR payload.tableChanges IS NOT NULL OR ({_IS_HEARTBEAT})")
_KEY_CHANGE_HALF = (f"CASE WHEN {_OP} = 'd' AND {_header('__debezium.newkey')} IS NOT NULL THEN 'OLD' "
                    f"WHEN {_OP} IN ('c', 'r') AND {_header('__debezium.oldkey')} IS NOT NULL THEN 'NEW' END")
# the key of a key change's other half, from this half's header: the new key of a DELETE, the old of a create
_PARTNER_KEY = f"IF({_OP} = 'd', {_header_key('__debezium.newkey')}, {_header_key('__debezium.oldkey')})"


def _key_known(key_map: str) -> str:
    """SQL: a key (map) that identifies a row: present, not empty, no NULL value. A key-change half's group
    is built from both keys; with one unknown, the halves would never meet (or two pairs would share one)."""
    return f"coalesce(size({key_map}) > 0 AND NOT exists(map_values({key_map}), v -> v IS NULL), false)"


_VALUE_NOT_UTF8, _VALUE_NOT_JSON, _VALUE_REPEATS_A_MEMBER = json_record_rules("document", "value")
_QUARANTINE_RULES = [
    _VALUE_NOT_UTF8,
    QuarantineRule("key IS NOT NULL AND NOT is_valid_utf8(key_text)", Code.NOT_UTF8, "'key is not UTF-8'"),
    _VALUE_NOT_JSON,
    QuarantineRule("key IS NOT NULL AND bare_key IS NULL", Code.MALFORMED_KEY, "'key is not a JSON object'"),
    QuarantineRule(repeats_a_member("key_text"), Code.DUPLICATE_KEY, "'an object in the key names a member twice'"),
    accept_when("value IS NULL"),  # a tombstone: never quarantined
    _VALUE_REPEATS_A_MEMBER,
    QuarantineRule("wrapped AND payload IS NULL", Code.MISSING_FIELD, "'payload is null'"),
    QuarantineRule("payload.tableChanges IS NOT NULL AND NOT ltrim(payload.tableChanges) LIKE '[%'", Code.UNKNOWN_MESSAGE_SHAPE,
                   "'tableChanges is not an array of table changes'"),
    QuarantineRule(f"{_OP} IS NULL AND NOT ({_IS_CONTROL_RECORD}) AND (payload.before IS NOT NULL OR payload.after IS NOT NULL"
                   " OR payload.source IS NOT NULL OR payload.transaction IS NOT NULL)", Code.MISSING_FIELD,
                   "'missing field: op (the record has the shape of a change event)'"),
    QuarantineRule(f"{_OP} IS NULL AND NOT ({_IS_CONTROL_RECORD})", Code.UNKNOWN_MESSAGE_SHAPE,
                   "'no op and not a heartbeat, transaction or schema-change record'"),
    QuarantineRule(f"{_OP} IS NOT NULL AND {_OP} NOT IN ({_ROW_OPS}, 't', 'm')", Code.UNKNOWN_OPERATION,
                   f"concat('unknown op ', {_OP})"),
    QuarantineRule(f"{_OP} IS NOT NULL AND payload.source IS NULL", Code.MISSING_FIELD, "'payload.source is missing'"),
    QuarantineRule(" OR ".join(ct.wider_than(part, width) for part, width in _POSITION_PARTS), Code.UNDECODABLE_VALUE,
                   "'a source position part (lsn, pos, row, event_serial_no, sequence) has too many digits'"),
    QuarantineRule(f"{_OP} IN ('c', 'r', 'u') AND payload.after IS NULL", Code.MISSING_FIELD,
                   f"concat('op ', {_OP}, ' without after')"),
    QuarantineRule(f"{_OP} = 'm' AND payload.message IS NULL", Code.MISSING_FIELD, "'op m without message'"),
    QuarantineRule(f"{_OP} IN ({_ROW_OPS}) AND ({_DUPLICATE_FIELDS} OR size(array_distinct(key_names)) < size(key_names))",
                   Code.SCHEMA_MISMATCH, "'the schema declares a column twice'"),
    QuarantineRule(f"{_OP} IN ({_ROW_OPS}) AND (exists(row_fields, f -> f.field IS NULL) "
                   "OR exists(key_names, n -> n IS NULL))", Code.SCHEMA_MISMATCH,
                   "'the schema declares a column without a name'"),
    QuarantineRule(f"{_OP} IN ({_ROW_OPS}) AND ({_unknown_columns('before')} OR {_unknown_columns('after')})",
                   Code.SCHEMA_MISMATCH, "'row image has columns its schema does not declare'"),
    QuarantineRule(f"{_unrecoverable_fraction('before')} OR {_unrecoverable_fraction('after')}", Code.UNDECODABLE_VALUE,
                   "'a number whose exact text cannot be told from the record (beyond the range of a double, written with escapes, or "
                   "two tokens that read alike)'"),
    QuarantineRule(f"{_undecodable('before_cells')} OR {_undecodable('after_cells')} OR {_undecodable('key_cells')}",
                   Code.UNDECODABLE_VALUE, "'a column value does not match its declared type'"),
    keys.missing_old_key_rule(f"{_OP} IN ('u', 'd') AND {keys.old_key_missing('key_names', 'payload.before')}"),
    QuarantineRule(f"({_KEY_CHANGE_HALF}) IS NOT NULL AND NOT ({_key_known('key_raw')} AND {_key_known(_PARTNER_KEY)})",
                   Code.MALFORMED_KEY, "'a key-change half whose partner cannot be identified (no Kafka key, or a "
                   "__debezium.newkey/oldkey header that is no key)'"),
]


def _kind() -> str:
    return f"""CASE
      WHEN value IS NULL THEN 'TOMBSTONE'
      WHEN {_OP} IN ({_ROW_OPS}) THEN 'ROW'
      WHEN {_OP} = 't' THEN 'TRUNCATE'
      WHEN {_OP} = 'm' THEN 'MESSAGE'
      WHEN payload.status = 'BEGIN' THEN 'TX_BEGIN'
      WHEN payload.status = 'END' THEN 'TX_END'
      WHEN payload.ddl IS NOT NULL OR payload.tableChanges IS NOT NULL THEN 'DDL'
      ELSE 'HEARTBEAT'
    END"""


def _position() -> str:
    """SQL Server orders the halves of a key change by event_serial_no; PostgreSQL and MySQL give both one
    log position, so `seq` orders them (keys.HALF_SEQ)."""
    connector = f"lower({_src('connector')})"
    half_seq = ("CASE key_change_half " + " ".join(f"WHEN '{role}' THEN '{seq}'" for role, seq in keys.HALF_SEQ.items())
                + f" ELSE '{keys.PLAIN_SEQ}' END")
    return f"""CASE
      WHEN {connector} = 'sqlserver' THEN named_struct(
        'commit', upper(regexp_replace({_src('commit_lsn')}, ':', '')),
        'event', upper(regexp_replace({_src('change_lsn')}, ':', '')),
        'seq', {ct.fixed_width(_src('event_serial_no'))})
      WHEN {connector} = 'postgresql' THEN named_struct(
        'commit', {ct.fixed_width(_SEQUENCE_COMMIT)},
        'event', {ct.fixed_width(_src('lsn'))},
        'seq', {half_seq})
      WHEN {connector} = 'mysql' THEN named_struct(
        'commit', concat({_src('file')}, ':', {ct.fixed_width(_src('pos'))}),
        'event', {ct.fixed_width(_src('row'), 10)},
        'seq', {half_seq})
    END"""


def _pk_change() -> str:
    """Key change = `d` with header __debezium.newkey + `c` with __debezium.oldkey (Debezium >= 1.2)."""
    parts = {name: f"source_info.{name}" for name in ("system", "server", "database", "schema", "table")}
    parts.update(commit="position.commit", event="position.event")
    return f"""CASE key_change_half
      WHEN 'OLD' THEN named_struct('group', {keys.group_sql(parts, 'key_raw', _header_key('__debezium.newkey'))}, 'role', 'OLD')
      WHEN 'NEW' THEN named_struct('group', {keys.group_sql(parts, _header_key('__debezium.oldkey'), 'key_raw')}, 'role', 'NEW')
    END"""


_FIRST_WORD = sql.sql_string(r"^\s*(\w+)")


def _ddl_change() -> str:
    first_word = f"upper(regexp_extract(payload.ddl, {_FIRST_WORD}, 1))"
    return f"""upper(coalesce(get_json_object(payload.tableChanges, '$[0].type'),
      CASE WHEN {first_word} IN ('CREATE', 'ALTER', 'DROP', 'RENAME', 'TRUNCATE') THEN {first_word} ELSE 'OTHER' END))"""


def _instant(seconds_micros: str, millis: str) -> str:
    return f"coalesce({ct.epoch_micros_to_timestamp(seconds_micros)}, {ct.epoch_millis_to_timestamp(millis)})"


def _events(converted: DataFrame, format_id: str) -> DataFrame:
    source_info = f"""CASE WHEN payload.source IS NOT NULL THEN named_struct(
        'system', lower({_src('connector')}), 'server', {_src('name')}, 'database', {_src('db')},
        'schema', nullif({_src('schema')}, ''), 'table', nullif({_src('table')}, ''))
      WHEN kind = 'HEARTBEAT' THEN named_struct('system', CAST(NULL AS STRING),
        'server', try_element_at(key_raw, 'serverName'), 'database', CAST(NULL AS STRING),
        'schema', CAST(NULL AS STRING), 'table', CAST(NULL AS STRING)) END"""
    # the name is never NULL here: a nameless field is quarantined (SCHEMA_MISMATCH); coalesce tells Spark
    columns = ("transform(row_fields, (f, i) -> named_struct('name', coalesce(f.field, ''), 'position', i + 1, "
               "'source_type', coalesce(try_element_at(f.parameters, '__debezium.source.column.type'), f.name, f.type), "
               "'logical_type', f.logical, 'nullable', lower(f.optional) = 'true', "
               "'pk_position', CAST(nullif(array_position(key_names, f.field), 0) AS INT)))")
    key = "transform(key_cells, c -> named_struct('name', coalesce(c.name, ''), 'value', c.value))"
    # computed once, as columns: the events below (one, or two for a key change) refer to them
    parts = [
        f"nullif(regexp_extract({_src('version')}, '^([0-9]+[.][0-9]+)', 1), '') AS format_version_out",
        f"CASE {_OP} WHEN 'c' THEN 'INSERT' WHEN 'r' THEN 'INSERT' WHEN 'u' THEN 'UPDATE' WHEN 'd' THEN 'DELETE' END AS op_out",
        (f"IF(kind = 'ROW', {_OP} = 'r' OR coalesce(lower({_src('snapshot')}) IN "
         f"({', '.join(repr(s) for s in SNAPSHOT_MARKERS)}), false), NULL) AS snapshot_out"),
        f"IF(kind = 'ROW', {columns}, NULL) AS columns_out",
        f"IF(kind IN ('ROW', 'TOMBSTONE') AND key IS NOT NULL, {key}, NULL) AS key_out",
        f"IF(kind = 'ROW', {_image('before')}, NULL) AS before_out",
        f"IF(kind = 'ROW', {_image('after')}, NULL) AS after_out",
        f"IF(kind = 'ROW', {_pk_change()}, NULL) AS pk_change_out",
        ("CASE WHEN kind IN ('TX_BEGIN', 'TX_END') THEN payload.id "
         f"ELSE coalesce(try_element_at(payload.transaction, 'id'), {_src('txId')}) END AS tx_out"),
        (f"CASE WHEN kind IN ('TX_BEGIN', 'TX_END') THEN {ct.epoch_millis_to_timestamp('payload.ts_ms')} "
         f"ELSE {_instant(_src('ts_us'), _src('ts_ms'))} END AS commit_out"),
        f"IF(kind IN ('TX_BEGIN', 'TX_END'), NULL, {_instant('payload.ts_us', 'payload.ts_ms')}) AS emit_out",
        f"IF(kind = 'DDL', named_struct('statement', payload.ddl, 'change', {_ddl_change()}), NULL) AS ddl_out",
        ("IF(kind = 'MESSAGE', named_struct('prefix', try_element_at(payload.message, 'prefix'), "
         "'content', try_element_at(payload.message, 'content')), NULL) AS message_out"),
        # an update that changed the key (Debezium splits those itself; other producers of its envelope may not)
        (f"coalesce({_OP} = 'u' AND payload.before IS NOT NULL AND {keys.key_changed('key_names', 'payload.before', 'payload.after')}, false) "
         "AS update_changed_key"),
    ]
    group_parts = {name: f"source_info.{name}" for name in ("system", "server", "database", "schema", "table")}
    group_parts.update(commit="position.commit", event="position.event")
    group = keys.group_sql(group_parts, "map_filter(payload.before, (k, v) -> array_contains(key_names, k))", "key_raw")

    def event(part: int) -> str:
        """Part 0: the record's event; 1 and 2: the DELETE and INSERT an update that changed the key becomes."""
        if part == 0:
            op, key, before, after, pk_change, position = ("op_out", "key_out", "before_out", "after_out",
                                                           "pk_change_out", "position")
        else:
            op = "'DELETE'" if part == 1 else "'INSERT'"
            key = ("transform(key_names, n -> named_struct('name', coalesce(n, ''), 'value', try_element_at(before_out, n)))"
                   if part == 1 else "key_out")
            before, after = ("before_out", None) if part == 1 else (None, "after_out")
            pk_change, position = keys.pk_change_sql(part), keys.half_position("position", part)
        return events.event(
            event_id=f"concat(topic, '/', partition, '/', offset, '#{max(part - 1, 0)}')", format=f"'{format_id}'",
            format_version="format_version_out", kind="kind", op=op, snapshot="snapshot_out", source="source_info",
            columns="columns_out", key=key, before=before, after=after, pk_change=pk_change, position=position,
            tx_id="tx_out", commit_ts="commit_out", emit_ts="emit_out", ddl="ddl_out", message="message_out",
            origin="origin")

    return converted.selectExpr(
        "*", f"{_kind()} AS kind", f"{verdict(_QUARANTINE_RULES)} AS verdict",
        f"{_KEY_CHANGE_HALF} AS key_change_half",  # read by the position and the pk_change
    ).selectExpr(
        "*", f"{source_info} AS source_info", f"{_position()} AS position",
    ).selectExpr("*", *parts).selectExpr(
        *events.record_output(keys.split_on_key_change("update_changed_key", group, event), "verdict", format_id))


def decode(raw: DataFrame, dialect: Dialect = DEBEZIUM) -> DataFrame:
    """Kafka source rows -> output rows (normalizer.events): the record's event, or its quarantine record."""
    return _events(_convert_images(_parse(raw, dialect)), dialect.format_id)


DECODER = register(FormatDecoder(FORMAT, decode=lambda raw: decode(raw)))
