"""Decoder for `dts-avro`: Alibaba Cloud DTS `com.alibaba.dts.formats.avro.Record` (2019 and 2020 schemas).

The Kafka value is a raw Avro binary datum (no magic byte, no schema id) decoded with Spark's own
`from_avro`. The 2020 schema appends `bornTimestamp`: a 2020 reader fails on 2019 bytes (they end
early) and a 2019 reader would silently skip the 2020 field, so each record is read with the 2020
schema first and with the 2019 one when that fails: the writer's generation is found per record.
Row images are arrays parallel to `fields`, each value a union of DTS value classes; each class is
turned into text and typed through the shared converter. docs/formats/dts-avro.md records every decision.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from normalizer import avro_guard, events, keys, rows, sql, types
from normalizer import canonical_text as ct
from normalizer.kafka_source import kafka_columns
from normalizer.model import Code
from normalizer.plugin import FormatDecoder, register
from normalizer.verdicts import QuarantineRule, verdict

FORMAT = "dts-avro"
_NS = "com.alibaba.dts.formats.avro"


# ---------------------------------------------------------------------------------------------------
# The Record schema, transcribed from the DTS subscription demo's Record.avsc (LioRoger/subscribe_example,
# avro/Record.avsc; 2019-11 and 2020-06 versions). Named types are defined at their first use, as
# Avro's parser wants one schema; the generators write from their own copy of the .avsc files.
# ---------------------------------------------------------------------------------------------------

def _record(name: str, *fields: tuple[str, object]) -> dict:
    return {"type": "record", "name": name, "namespace": _NS, "fields": [{"name": n, "type": t} for n, t in fields]}


def _nullable_int(name: str) -> tuple[str, object]:
    return name, ["null", "int"]


_DATETIME = _record("DateTime", *(_nullable_int(n) for n in ("year", "month", "day", "hour", "minute", "second", "millis")))
# the value classes, in the union's order (index 0 is null)
VALUE_CLASSES = ("Integer", "Character", "Decimal", "Float", "Timestamp", "DateTime", "TimestampWithTimeZone",
                 "BinaryGeometry", "TextGeometry", "BinaryObject", "TextObject", "EmptyObject")
_VALUE_UNION = ["null",
                _record("Integer", ("precision", "int"), ("value", "string")),
                _record("Character", ("charset", "string"), ("value", "bytes")),
                _record("Decimal", ("value", "string"), ("precision", "int"), ("scale", "int")),
                _record("Float", ("value", "double"), ("precision", "int"), ("scale", "int")),
                _record("Timestamp", ("timestamp", "long"), ("millis", "int")),
                _DATETIME,
                _record("TimestampWithTimeZone", ("value", f"{_NS}.DateTime"), ("timezone", "string")),
                _record("BinaryGeometry", ("type", "string"), ("value", "bytes")),
                _record("TextGeometry", ("type", "string"), ("value", "string")),
                _record("BinaryObject", ("type", "string"), ("value", "bytes")),
                _record("TextObject", ("type", "string"), ("value", "string")),
                {"type": "enum", "name": "EmptyObject", "namespace": _NS, "symbols": ["NULL", "NONE"]}]
OPERATIONS = ("INSERT", "UPDATE", "DELETE", "DDL", "BEGIN", "COMMIT", "ROLLBACK", "ABORT", "HEARTBEAT", "CHECKPOINT",
              "COMMAND", "FILL", "FINISH", "CONTROL", "RDB", "NOOP", "INIT")
SOURCE_TYPES = ("MySQL", "Oracle", "SQLServer", "PostgreSQL", "MongoDB", "Redis", "DB2", "PPAS", "DRDS", "HBASE",
                "HDFS", "FILE", "OTHER")


def record_schema(generation: int) -> dict:
    fields = [
        {"name": "version", "type": "int"}, {"name": "id", "type": "long"}, {"name": "sourceTimestamp", "type": "long"},
        {"name": "sourcePosition", "type": "string"}, {"name": "safeSourcePosition", "type": "string", "default": ""},
        {"name": "sourceTxid", "type": "string", "default": ""},
        {"name": "source", "type": _record("Source", ("sourceType", {"type": "enum", "name": "SourceType", "namespace": _NS,
                                                                      "symbols": list(SOURCE_TYPES)}),
                                           ("version", "string"))},
        {"name": "operation", "type": {"type": "enum", "name": "Operation", "namespace": _NS, "symbols": list(OPERATIONS)}},
        {"name": "objectName", "type": ["null", "string"], "default": None},
        {"name": "processTimestamps", "type": ["null", {"type": "array", "items": "long"}], "default": None},
        {"name": "tags", "type": {"type": "map", "values": "string"}, "default": {}},
        {"name": "fields", "type": ["null", "string", {"type": "array", "items": _record("Field", ("name", "string"),
                                                                                         ("dataTypeNumber", "int"))}],
         "default": None},
        {"name": "beforeImages", "type": ["null", "string", {"type": "array", "items": _VALUE_UNION}], "default": None},
        {"name": "afterImages", "type": ["null", "string", {"type": "array", "items": [
            "null", *(f"{_NS}.{name}" for name in VALUE_CLASSES)]}], "default": None},
    ]
    if generation == 2020:
        fields.append({"name": "bornTimestamp", "type": "long", "default": 0})
    return {"type": "record", "name": "Record", "namespace": _NS, "fields": fields}


def _problem(generation: int) -> str:
    return avro_guard.problem("value", record_schema(generation))


def _from_avro(generation: int) -> str:
    # bytes that are not exactly one datum of the schema give NULL instead of failing the job (or the JVM)
    return avro_guard.read("value", record_schema(generation), f"p{generation}")


# ---------------------------------------------------------------------------------------------------
# MySQL column types (dataTypeNumber is the binlog type code; subscribe_example MysqlFieldConverter)
# ---------------------------------------------------------------------------------------------------

MYSQL_TYPE_NAMES = {0: "DECIMAL", 1: "TINY", 2: "SHORT", 3: "LONG", 4: "FLOAT", 5: "DOUBLE", 6: "NULL", 7: "TIMESTAMP",
                    8: "LONGLONG", 9: "INT24", 10: "DATE", 11: "TIME", 12: "DATETIME", 13: "YEAR", 14: "NEWDATE",
                    15: "VARCHAR", 16: "BIT", 245: "JSON", 246: "NEWDECIMAL", 247: "ENUM", 248: "SET", 249: "TINY_BLOB",
                    250: "MEDIUM_BLOB", 251: "LONG_BLOB", 252: "BLOB", 253: "VAR_STRING", 254: "STRING", 255: "GEOMETRY"}
# binlog type codes carry no sign: each integer type gets the logical type that holds its unsigned range too
MYSQL = types.SourceTypes(system="mysql", plain={
    "TINY": "INT16", "SHORT": "INT32", "INT24": "INT32", "LONG": "INT64", "LONGLONG": "DECIMAL(20,0)",
    "BIT": "DECIMAL(20,0)", "YEAR": "INT16", "FLOAT": "FLOAT32", "DOUBLE": "FLOAT64", "TIMESTAMP": "TIMESTAMP_TZ",
    "DATE": "DATE", "NEWDATE": "DATE", "TIME": "TIME(6)", "DATETIME": "TIMESTAMP(6)", "VARCHAR": "STRING",
    "VAR_STRING": "STRING", "STRING": "STRING", "JSON": "JSON", "ENUM": "ENUM", "SET": "STRING", "TINY_BLOB": "BYTES",
    "MEDIUM_BLOB": "BYTES", "LONG_BLOB": "BYTES", "BLOB": "BYTES", "GEOMETRY": "BYTES",
    # the type code says decimal, the value says its precision and scale (see _column_logical)
    "DECIMAL": "DECIMAL", "NEWDECIMAL": "DECIMAL"})
# MySQL charset names -> the Java charset their bytes are decoded with. UTF-8 and ASCII are checked in SQL;
# the others go through the guard jar's CharsetText (Spark's own `decode` refuses them unless a session
# flag is set). MySQL's latin1 is cp1252, not ISO-8859-1: they differ at 0x80-0x9F.
UTF8_CHARSETS = ("utf8", "utf8mb3", "utf8mb4", "utf-8")
JAVA_CHARSETS = {
    "latin1": "mysql-latin1", "latin2": "ISO-8859-2", "latin5": "ISO-8859-9", "latin7": "ISO-8859-13",
    "greek": "ISO-8859-7", "hebrew": "ISO-8859-8", "cp1250": "windows-1250", "cp1251": "windows-1251",
    "cp1256": "windows-1256", "cp1257": "windows-1257", "cp850": "IBM850", "cp852": "IBM852", "cp866": "IBM866",
    "koi8r": "KOI8-R", "koi8u": "KOI8-U", "macroman": "x-MacRoman", "macce": "x-MacCentralEurope", "tis620": "TIS-620",
    "gbk": "GBK", "gb2312": "GB2312", "gb18030": "GB18030", "big5": "Big5", "sjis": "Shift_JIS", "cp932": "windows-31j",
    "ujis": "EUC-JP", "eucjpms": "EUC-JP", "euckr": "EUC-KR", "ucs2": "UTF-16BE", "utf16": "UTF-16BE",
    "utf16le": "UTF-16LE", "utf32": "UTF-32BE",
    "iso-8859-1": "ISO-8859-1"}  # not a MySQL name, but one DTS accepted before: strict ISO-8859-1
_CHARSET_CLASS = "io.cdcconformance.CharsetText"
_EPOCH_SECONDS = (-62135596800, 253402300799)  # years 0001-9999


def _type_name(code: str) -> str:
    names = "map(" + ", ".join(f"{k}, '{v}'" for k, v in MYSQL_TYPE_NAMES.items()) + ")"
    return f"IF(source_type = 'MySQL', try_element_at({names}, {code}), CAST({code} AS STRING))"


def _character_text(value: str) -> str:
    """Character bytes -> text in their charset, NULL when the bytes are not text of that charset or the
    charset is unknown (Spark's `decode` would fail the job on them, and a replacement character would be
    a wrong value)."""
    java = "map(" + ", ".join(f"'{k}', '{v}'" for k, v in JAVA_CHARSETS.items()) + ")"
    charset = f"lower({value}.charset)"
    text = f"CAST({value}.value AS STRING)"
    decoded = sql.let(f"java_method('{_CHARSET_CLASS}', 'decode', hex({value}.value), try_element_at({java}, {charset}))",
                     "ct_d", "IF(startswith(ct_d, 'T'), substr(ct_d, 2), NULL)")
    return (f"CASE WHEN {charset} IN {UTF8_CHARSETS} THEN IF(is_valid_utf8({text}), {text}, NULL) "
            f"WHEN {charset} = 'ascii' THEN IF(hex({value}.value) RLIKE '^(?:[0-7][0-9A-F])*+$', {text}, NULL) "
            f"WHEN {charset} IN {tuple(JAVA_CHARSETS)} THEN {decoded} END")


def _raw_text(v: str, logical: str) -> str:
    """One image element (the union as Spark reads it: member0..member11) -> (text in the TEXT encoding).

    `member11` is EmptyObject; NONE is handled by the caller (the column is not in the image)."""
    dt = f"{v}.member5"
    date = f"format_string('%04d-%02d-%02d', {dt}.year, {dt}.month, {dt}.day)"
    time = f"format_string('%02d:%02d:%02d.%06d', {dt}.hour, {dt}.minute, {dt}.second, coalesce({dt}.millis, 0))"
    tz = f"{v}.member6.value"
    tz_text = (f"concat(format_string('%04d-%02d-%02dT%02d:%02d:%02d.%06d', {tz}.year, {tz}.month, {tz}.day, {tz}.hour, "
               f"{tz}.minute, {tz}.second, coalesce({tz}.millis, 0)), {v}.member6.timezone)")
    seconds = f"{v}.member4.timestamp"
    instant = (f"IF({seconds} BETWEEN {_EPOCH_SECONDS[0]} AND {_EPOCH_SECONDS[1]} AND {v}.member4.millis BETWEEN 0 AND 999999, "
               f"concat(date_format(timestamp_seconds({seconds}), \"yyyy-MM-dd'T'HH:mm:ss\"), '.', "
               f"lpad(CAST({v}.member4.millis AS STRING), 6, '0'), 'Z'), NULL)")
    return f"""CASE
        WHEN {v}.member0 IS NOT NULL THEN {v}.member0.value
        WHEN {v}.member1 IS NOT NULL THEN IF({logical} = 'BYTES', {ct.base64_text(f'{v}.member1.value')}, {_character_text(f'{v}.member1')})
        WHEN {v}.member2 IS NOT NULL THEN {v}.member2.value
        WHEN {v}.member3 IS NOT NULL THEN CAST({v}.member3.value AS STRING)
        WHEN {v}.member4 IS NOT NULL THEN {instant}
        WHEN {dt} IS NOT NULL THEN CASE WHEN {logical} = 'DATE' THEN {date}
            WHEN {logical} LIKE 'TIME(%' THEN {time} WHEN {logical} = 'INT16' THEN CAST({dt}.year AS STRING)
            ELSE concat({date}, ' ', {time}) END
        WHEN {v}.member6 IS NOT NULL THEN {tz_text}
        WHEN {v}.member7 IS NOT NULL THEN {ct.base64_text(f'{v}.member7.value')}
        WHEN {v}.member8 IS NOT NULL THEN {v}.member8.value
        WHEN {v}.member9 IS NOT NULL THEN {ct.base64_text(f'{v}.member9.value')}
        WHEN {v}.member10 IS NOT NULL THEN {v}.member10.value
    END"""


def _column_logical(code_logical: str, index: str) -> str:
    """The logical type of column `index`: the type code's, with a decimal's precision and scale taken from
    its first value (the code does not carry them; DECIMAL without them when every value is NULL), and
    text under a blob or geometry code (Character, TextGeometry WKT) kept as text."""
    first = f"coalesce(try_element_at(after_values, {index} + 1).member2, try_element_at(before_values, {index} + 1).member2)"
    def first_is(member: str) -> str:
        return (f"coalesce(try_element_at(after_values, {index} + 1).{member}, "
                f"try_element_at(before_values, {index} + 1).{member}) IS NOT NULL")
    text = f"({first_is('member1')} OR {first_is('member8')})"  # Character, TextGeometry
    return (f"CASE WHEN {code_logical} = 'DECIMAL' AND {first} IS NOT NULL "
            f"THEN concat('DECIMAL(', {first}.precision, ',', {first}.scale, ')') "
            f"WHEN {code_logical} = 'BYTES' AND {text} THEN 'STRING' ELSE {code_logical} END")


# ---------------------------------------------------------------------------------------------------
# Stage 1: the datum, read with the 2020 schema, else the 2019 one
# ---------------------------------------------------------------------------------------------------

def _parsed(raw: DataFrame) -> DataFrame:
    return kafka_columns(raw).selectExpr("*", f"{_problem(2020)} AS p2020").selectExpr(
        "*", f"{_from_avro(2020)} AS r2020",
        # a 2019 datum is not one 2020 datum (it ends early); a 2020 datum with a bad string is still one
        f"IF(p2020 = '{avro_guard.MALFORMED}' AND value IS NOT NULL, {_problem(2019)}, NULL) AS p2019",
    ).selectExpr("*", f"IF(p2020 = '{avro_guard.MALFORMED}' AND value IS NOT NULL, {_from_avro(2019)}, NULL) AS r2019",
    ).selectExpr(
        "topic", "partition", "offset", "key", "value", "headers", "origin",
        f"coalesce(p2020 = '{avro_guard.NOT_UTF8}' OR p2019 = '{avro_guard.NOT_UTF8}', false) AS not_utf8",
        # PERMISSIVE gives a struct of NULLs for bytes that are not a datum; `id` is a required field
        "CASE WHEN r2020.id IS NOT NULL THEN '2020' WHEN r2019.id IS NOT NULL THEN '2019' END AS generation",
        # one struct for both: the 2019 reader has no bornTimestamp
        "IF(r2020.id IS NOT NULL, r2020, named_struct('version', r2019.version, 'id', r2019.id, 'sourceTimestamp', r2019.sourceTimestamp, "
        "'sourcePosition', r2019.sourcePosition, 'safeSourcePosition', r2019.safeSourcePosition, 'sourceTxid', r2019.sourceTxid, "
        "'source', r2019.source, 'operation', r2019.operation, 'objectName', r2019.objectName, "
        "'processTimestamps', r2019.processTimestamps, 'tags', r2019.tags, 'fields', r2019.fields, "
        "'beforeImages', r2019.beforeImages, 'afterImages', r2019.afterImages, 'bornTimestamp', CAST(NULL AS BIGINT))) AS r",
    )


# op -> (kind, canonical op, snapshot)
_KINDS = {"INSERT": ("ROW", "INSERT", "false"), "INIT": ("ROW", "INSERT", "true"), "UPDATE": ("ROW", "UPDATE", "false"),
          "DELETE": ("ROW", "DELETE", "false"), "BEGIN": ("TX_BEGIN", None, None), "COMMIT": ("TX_END", None, None),
          "HEARTBEAT": ("HEARTBEAT", None, None), "CHECKPOINT": ("HEARTBEAT", None, None), "DDL": ("DDL", None, None)}
UNMAPPED = tuple(op for op in OPERATIONS if op not in _KINDS)  # ROLLBACK, ABORT, NOOP, COMMAND, FILL, ...
_DDL_CHANGES = ("CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE")


def _object_name() -> list[str]:
    """`db.table` or `db.schema.table`, dots inside names escaped as \\u002E (the demo's uncompressionObjectName)."""
    parts = f"transform(split(r.objectName, '[.]'), p -> replace(p, {sql.sql_string(chr(92) + 'u002E')}, '.'))"
    return [f"{parts} AS name_parts"]


def _typed(parsed: DataFrame) -> DataFrame:
    statement_words = "upper(split(ltrim(r.afterImages.member0), '[ (\\n\\t]')[0])"
    return parsed.selectExpr(
        "*", f"{rows.lookup(_KINDS, 0, 'r.operation')} AS kind_base", f"{rows.lookup(_KINDS, 1, 'r.operation')} AS op",
        f"{rows.lookup(_KINDS, 2, 'r.operation')} AS snapshot_text",
        "r.source.sourceType AS source_type", *_object_name(),
        "r.fields.member1 AS fields", "r.beforeImages.member1 AS before_values", "r.afterImages.member1 AS after_values",
        "try_element_at(from_json(r.tags['pk_uk_info'], 'map<string,array<string>>'), 'PRIMARY') AS pk_names",
    ).selectExpr(
        "*",
        # a DDL that truncates is a TRUNCATE event, as the other formats give it
        f"IF(kind_base = 'DDL' AND {statement_words} = 'TRUNCATE', 'TRUNCATE', kind_base) AS kind",
        f"IF(kind_base = 'DDL', coalesce(IF({statement_words} IN {_DDL_CHANGES}, {statement_words}, NULL), 'OTHER'), NULL) "
        "AS ddl_change",
        f"transform(fields, (f, i) -> named_struct('name', f.name, 'code', f.dataTypeNumber, 'i', i, "
        f"'code_logical', {MYSQL.logical_type(_type_name('f.dataTypeNumber'), lambda n: 'NULL')})) AS field_types",
        # a name given twice (or none) would make a duplicate map key, an error that stops the job
        "size(array_distinct(fields.name)) < size(fields) OR exists(fields, f -> f.name IS NULL) AS bad_fields",
    ).selectExpr(
        "*",
        "IF(bad_fields, NULL, transform(field_types, f -> named_struct('name', coalesce(f.name, ''), 'position', f.i + 1, "
        f"'source_type', {_type_name('f.code')}, 'logical_type', {_column_logical('f.code_logical', 'f.i')}, "
        "'nullable', CAST(NULL AS BOOLEAN), 'pk_position', CAST(nullif(array_position(pk_names, f.name), 0) AS INT)))) "
        "AS columns_out",
    ).selectExpr("*", f"{_cells('before')} AS before_cells", f"{_cells('after')} AS after_cells").selectExpr(
        "*", f"{_image('before')} AS before_image", f"{_image('after')} AS after_image")


def _cells(image: str) -> str:
    """Image values zipped with the columns by index (the demo: image order is the fields' order, not the
    table's). Two passes: the value's text first, so that the converter's branches read a field."""
    element = f"try_element_at({image}_values, c.position)"
    # EmptyObject NONE: the column is not supplied; the union's null (or EmptyObject NULL): SQL NULL
    text = sql.let(element, "ct_v", f"named_struct('name', c.name, 'logical', c.logical_type, "
                                   f"'supplied', coalesce(ct_v.member11, '') != 'NONE', "
                                   f"'is_null', ct_v IS NULL OR coalesce(ct_v.member11 = 'NULL', false) "
                                   f"OR {ct.mysql_zero_date(_raw_text('ct_v', 'c.logical_type'), 'c.logical_type')}, "
                                   f"'text', {_raw_text('ct_v', 'c.logical_type')})")
    value = ("named_struct('name', x.name, 'supplied', x.supplied, 'is_null', x.is_null, "
             f"'value', {types.convert('x.text', 'x.logical', types.TEXT)})")
    return (f"IF({image}_values IS NULL OR columns_out IS NULL, NULL, "
            f"transform(transform(columns_out, c -> {text}), x -> {value}))")


def _image(image: str) -> str:
    return (f"map_from_entries(transform(filter({image}_cells, c -> c.supplied), "
            f"c -> struct(c.name, IF(c.is_null, CAST(NULL AS STRING), c.value))))")


_ROW = "kind = 'ROW'"
_RULES = [
    QuarantineRule("value IS NULL", Code.MISSING_FIELD, "'record has no value'"),
    QuarantineRule("not_utf8", Code.NOT_UTF8, "'a string of the datum (a name, a position, a text value) is not UTF-8'"),
    QuarantineRule("generation IS NULL", Code.MALFORMED_AVRO, "'value is not a Record datum of the 2019 or 2020 schema'"),
    QuarantineRule(f"r.operation IN ({', '.join(repr(o) for o in UNMAPPED)})", Code.UNMAPPED_CONTROL_EVENT,
                   "concat('operation ', r.operation, ' has no canonical kind')"),
    QuarantineRule("kind IS NULL", Code.UNKNOWN_OPERATION, "concat('operation ', coalesce(r.operation, 'null'))"),
    QuarantineRule(f"{_ROW} AND (r.objectName IS NULL OR fields IS NULL)", Code.MISSING_FIELD,
                   "'a row change needs objectName and fields'"),
    QuarantineRule(f"{_ROW} AND bad_fields", Code.SCHEMA_MISMATCH, "'fields names a column twice or without a name'"),
    QuarantineRule(f"{_ROW} AND ((before_values IS NOT NULL AND size(before_values) != size(fields)) OR "
                   "(after_values IS NOT NULL AND size(after_values) != size(fields)))", Code.SCHEMA_MISMATCH,
                   "'an image has more or fewer values than fields'"),
    QuarantineRule(f"{_ROW} AND exists(pk_names, n -> NOT array_contains(fields.name, n))", Code.SCHEMA_MISMATCH,
                   "'tags.pk_uk_info names a column fields lacks'"),
    QuarantineRule(f"{_ROW} AND exists(columns_out, c -> c.logical_type IS NULL)", Code.UNKNOWN_COLUMN_TYPE,
                   "concat('dataTypeNumber ', get(filter(field_types, f -> f.code_logical IS NULL), 0).code)"),
    QuarantineRule("(op = 'INSERT' AND r.beforeImages IS NOT NULL) OR (op = 'DELETE' AND r.afterImages IS NOT NULL)",
                   Code.UNEXPECTED_IMAGE, "concat(r.operation, ' with an image it cannot have')"),
    QuarantineRule("(op IN ('INSERT', 'UPDATE') AND after_values IS NULL) OR (op IN ('DELETE', 'UPDATE') AND before_values IS NULL)",
                   Code.MISSING_FIELD, "concat(r.operation, ' without its row image (an array)')"),
    QuarantineRule("kind IN ('DDL', 'TRUNCATE') AND r.afterImages.member0 IS NULL", Code.MISSING_FIELD,
                   "'DDL without its statement (afterImages as a string)'"),
    QuarantineRule(f"{_ROW} AND (exists(before_cells, c -> c.supplied AND NOT c.is_null AND c.value IS NULL) OR "
                   "exists(after_cells, c -> c.supplied AND NOT c.is_null AND c.value IS NULL))", Code.UNDECODABLE_VALUE,
                   "'a value does not match its column type or charset'"),
    keys.missing_old_key_rule(f"op IN ('UPDATE', 'DELETE') AND {keys.old_key_missing('pk_names', 'before_image')}"),
]


# ---------------------------------------------------------------------------------------------------
# Stage 2: canonical events (an update that changes the key becomes DELETE + INSERT)
# ---------------------------------------------------------------------------------------------------

def _events(typed: DataFrame) -> DataFrame:
    key_changed = f"op = 'UPDATE' AND {keys.key_changed('pk_names', 'before_image', 'after_image')}"
    shared = [
        "IF(r.objectName IS NULL, NULL, named_struct('system', lower(source_type), 'server', CAST(NULL AS STRING), "
        "'database', name_parts[0], 'schema', IF(size(name_parts) = 3, name_parts[1], NULL), "
        "'table', IF(size(name_parts) > 1, element_at(name_parts, -1), NULL))) AS source_out",
        f"named_struct('commit', {ct.fixed_width('CAST(r.id AS STRING)')}, 'event', CAST(NULL AS STRING), "
        f"'seq', '{keys.PLAIN_SEQ}') AS position",
        # bornTimestamp (ms, 2020 schema) when set, else sourceTimestamp (seconds)
        f"IF(r.bornTimestamp BETWEEN 1 AND {_EPOCH_SECONDS[1]}999, timestamp_millis(r.bornTimestamp), "
        f"IF(r.sourceTimestamp BETWEEN {_EPOCH_SECONDS[0]} AND {_EPOCH_SECONDS[1]}, timestamp_seconds(r.sourceTimestamp), NULL)) "
        "AS commit_ts",
    ]
    group = keys.group_sql(
        {"system": "source_out.system", "server": "''", "database": "source_out.database", "schema": "source_out.schema",
         "table": "source_out.table", "commit": "position.commit", "event": "position.event"},
        "map_filter(before_image, (k, v) -> array_contains(pk_names, k))",
        keys.new_key_map("pk_names", "before_image", "after_image"))

    def event(part: int) -> str:
        fields = keys.part_fields(part, op="op", is_row=_ROW, key_names="pk_names", before="before_image",
                                  after="after_image", position="position")
        return events.event(
            event_id=f"concat(topic, '/', partition, '/', offset, '#', {max(part - 1, 0)})",
            format=f"'{FORMAT}'", format_version="generation", kind="kind", snapshot=f"IF({_ROW}, snapshot_text = 'true', NULL)",
            source="source_out", columns=f"IF({_ROW}, columns_out, NULL)", tx_id="nullif(r.sourceTxid, '')",
            commit_ts="commit_ts", **fields,
            ddl="IF(ddl_change IS NULL, NULL, named_struct('statement', r.afterImages.member0, 'change', ddl_change))",
            origin="origin")

    event_array = keys.split_on_key_change(key_changed, group, event)
    return typed.selectExpr("*", *shared, f"{verdict(_RULES)} AS rejection").selectExpr(
        *events.record_output(event_array, "rejection", FORMAT))


def decode(raw: DataFrame) -> DataFrame:
    return _events(_typed(_parsed(raw)))


DECODER = register(FormatDecoder(FORMAT, decode=decode))
