"""Decoder for `debezium-json`: Debezium (SQL Server, PostgreSQL, MySQL) through Kafka Connect's JsonConverter.

Handles `schemas.enable` true (`{"schema","payload"}`) and false (bare payload), 1.x and 2.6+/3.x
profiles, ops c/r/u/d/t/m, tombstones, heartbeats, transaction metadata and schema-change events.
Column values are typed by the Connect schema of the record (decimals, io.debezium.time.*, ...);
without a schema, values keep their JSON text (docs/formats/debezium-json.md explains why).

Everything is one Spark SQL pipeline over the Kafka source's columns; no Python UDF.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from normalizer import canonical_text as ct
from normalizer.common import QuarantineRule, build_output, kafka_columns, quarantine_columns

FORMAT = "debezium-json"
UNAVAILABLE_PLACEHOLDER = "__debezium_unavailable_value"
ROW_OPS = ("c", "r", "u", "d")
SNAPSHOT_MARKERS = ("true", "first", "first_in_data_collection", "last_in_data_collection", "last", "incremental")

# Connect JSON schema descriptors. Every scalar is read as string: the JSON parser then keeps the raw
# token text (1005, true, 1.0E10), and hand-written fixtures that quote numbers do not break the parse.
_COLUMN = "struct<type:string,name:string,field:string,optional:string,parameters:map<string,string>>"
_ENVELOPE_FIELD = f"struct<type:string,name:string,field:string,optional:string,fields:array<{_COLUMN}>>"
_PAYLOAD_FIELDS = (
    "before:map<string,string>,after:map<string,string>,source:map<string,string>,"
    "transaction:map<string,string>,op:string,ts_ms:string,ts_us:string,ts_ns:string,"
    "message:map<string,string>,status:string,id:string,ddl:string,databaseName:string,"
    "tableChanges:array<struct<type:string,id:string>>"
)
VALUE_SCHEMA = (f"struct<schema:struct<type:string,name:string,fields:array<{_ENVELOPE_FIELD}>>,"
                f"payload:struct<{_PAYLOAD_FIELDS}>,{_PAYLOAD_FIELDS},_corrupt_record:string>")
KEY_SCHEMA = f"struct<schema:struct<type:string,name:string,fields:array<{_COLUMN}>>,payload:map<string,string>>"
_CORRUPT = "map('columnNameOfCorruptRecord', '_corrupt_record')"

_DECIMAL = "org.apache.kafka.connect.data.Decimal"
_VARIABLE_DECIMAL = "io.debezium.data.VariableScaleDecimal"


def _param(field: str, name: str) -> str:
    return f"try_element_at({field}.parameters, '{name}')"


def convert_value(raw: str, field: str) -> str:
    """Canonical text of one JSON value `raw` described by the Connect field descriptor `field`."""
    name, type_ = f"{field}.name", f"lower({field}.type)"
    return f"""CASE
      WHEN {raw} IS NULL THEN NULL
      WHEN {name} = '{_DECIMAL}' THEN {ct.decimal_from_unscaled_base64(raw, f"try_cast({_param(field, 'scale')} AS INT)")}
      WHEN {name} = '{_VARIABLE_DECIMAL}' THEN {ct.decimal_from_unscaled_base64(
          f"get_json_object({raw}, '$.value')", f"try_cast(get_json_object({raw}, '$.scale') AS INT)")}
      WHEN {name} IN ('io.debezium.time.Date', 'org.apache.kafka.connect.data.Date') THEN {ct.date_from_epoch_days(raw)}
      WHEN {name} IN ('io.debezium.time.Time', 'org.apache.kafka.connect.data.Time') THEN {ct.time_from_units(raw, 1000, 6)}
      WHEN {name} = 'io.debezium.time.MicroTime' THEN {ct.time_from_units(raw, 1_000_000, 6)}
      WHEN {name} = 'io.debezium.time.NanoTime' THEN {ct.time_from_units(raw, 1_000_000_000, 9)}
      WHEN {name} IN ('io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp')
        THEN {ct.timestamp_from_epoch_units(raw, 1000, 6)}
      WHEN {name} = 'io.debezium.time.MicroTimestamp' THEN {ct.timestamp_from_epoch_units(raw, 1_000_000, 6)}
      WHEN {name} = 'io.debezium.time.NanoTimestamp' THEN {ct.timestamp_from_epoch_units(raw, 1_000_000_000, 9)}
      WHEN {name} = 'io.debezium.time.ZonedTimestamp' THEN {ct.timestamp_tz_from_iso(raw)}
      WHEN {name} = 'io.debezium.time.ZonedTime' THEN {ct.time_tz_from_iso(raw)}
      WHEN {type_} = 'int8' THEN {ct.integer_text(raw, 'INT8')}
      WHEN {type_} = 'int16' THEN {ct.integer_text(raw, 'INT16')}
      WHEN {type_} = 'int32' THEN {ct.integer_text(raw, 'INT32')}
      WHEN {type_} = 'int64' THEN {ct.integer_text(raw, 'INT64')}
      WHEN {type_} IN ('float', 'float32') THEN {ct.float32_text(raw)}
      WHEN {type_} IN ('double', 'float64') THEN {ct.float64_text(raw)}
      WHEN {type_} = 'boolean' THEN {ct.boolean_text(raw)}
      ELSE {raw}
    END"""


def logical_type(field: str) -> str:
    name, type_ = f"{field}.name", f"lower({field}.type)"
    return f"""CASE
      WHEN {name} = '{_DECIMAL}' THEN concat('DECIMAL(', coalesce({_param(field, 'connect.decimal.precision')}, '?'),
                                            ',', coalesce({_param(field, 'scale')}, '?'), ')')
      WHEN {name} = '{_VARIABLE_DECIMAL}' THEN 'DECIMAL'
      WHEN {name} IN ('io.debezium.time.Date', 'org.apache.kafka.connect.data.Date') THEN 'DATE'
      WHEN {name} IN ('io.debezium.time.Time', 'org.apache.kafka.connect.data.Time') THEN 'TIME(3)'
      WHEN {name} = 'io.debezium.time.MicroTime' THEN 'TIME(6)'
      WHEN {name} = 'io.debezium.time.NanoTime' THEN 'TIME(9)'
      WHEN {name} IN ('io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp') THEN 'TIMESTAMP(3)'
      WHEN {name} = 'io.debezium.time.MicroTimestamp' THEN 'TIMESTAMP(6)'
      WHEN {name} = 'io.debezium.time.NanoTimestamp' THEN 'TIMESTAMP(9)'
      WHEN {name} = 'io.debezium.time.ZonedTimestamp' THEN 'TIMESTAMP_TZ'
      WHEN {name} = 'io.debezium.time.ZonedTime' THEN 'TIME_TZ'
      WHEN {name} = 'io.debezium.data.Json' THEN 'JSON'
      WHEN {name} = 'io.debezium.data.Uuid' THEN 'UUID'
      WHEN {name} = 'io.debezium.data.Xml' THEN 'XML'
      WHEN {name} = 'io.debezium.data.Enum' THEN 'ENUM'
      WHEN {name} = 'io.debezium.time.MicroDuration' THEN 'INTERVAL'
      WHEN {type_} IN ('int8', 'int16', 'int32', 'int64') THEN upper({type_})
      WHEN {type_} IN ('float', 'float32') THEN 'FLOAT32'
      WHEN {type_} IN ('double', 'float64') THEN 'FLOAT64'
      ELSE upper({type_})
    END"""


def _header(name: str) -> str:
    return f"CAST(get(filter(headers, h -> h.key = '{name}'), 0).value AS STRING)"


def _key_map(text: str) -> str:
    """A key struct as map, from either `{"schema","payload"}` or the bare object (also in headers)."""
    return (f"coalesce(from_json({text}, '{KEY_SCHEMA}').payload, "
            f"CASE WHEN from_json({text}, '{KEY_SCHEMA}').schema IS NULL THEN from_json({text}, 'map<string,string>') END)")


def _parse(raw: DataFrame) -> DataFrame:
    return kafka_columns(raw).selectExpr(
        "*",
        f"from_json(value_text, '{VALUE_SCHEMA}', {_CORRUPT}) AS v",
        f"from_json(key_text, '{KEY_SCHEMA}') AS k",
        "from_json(key_text, 'map<string,string>') AS k_bare",
    ).selectExpr(
        "*",
        "(v.schema IS NOT NULL OR v.payload IS NOT NULL) AS wrapped",
        "(k.schema IS NOT NULL AND k.payload IS NOT NULL) AS key_wrapped",
    ).selectExpr(
        "*",
        f"IF(wrapped, v.payload, named_struct({', '.join(_named(f) for f in _payload_names())})) AS p",
        "coalesce(get(filter(v.schema.fields, f -> f.field = 'after'), 0).fields,"
        " get(filter(v.schema.fields, f -> f.field = 'before'), 0).fields) AS row_fields",
        "IF(key_wrapped, k.payload, k_bare) AS key_raw",
        "IF(key_wrapped, transform(k.schema.fields, f -> f.field), json_object_keys(key_text)) AS key_names",
    )


def _payload_names() -> list[str]:
    return [part.split(":", 1)[0] for part in _split_top_level(_PAYLOAD_FIELDS)]


def _split_top_level(fields: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in fields:
        depth += char == "<"
        depth -= char == ">"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return parts + [current]


def _named(name: str) -> str:
    return f"'{name}', v.{name}"


def _convert_images(parsed: DataFrame) -> DataFrame:
    """Per-column conversion, computed once and reused for the images and the failure checks."""
    def converted(image: str) -> str:
        return (f"transform(row_fields, f -> named_struct('name', f.field, "
                f"'present', map_contains_key(p.{image}, f.field), 'raw', try_element_at(p.{image}, f.field), "
                f"'value', {convert_value(f'try_element_at(p.{image}, f.field)', 'f')}))")

    return parsed.selectExpr(
        "*",
        f"IF(p.before IS NULL OR row_fields IS NULL, NULL, {converted('before')}) AS before_cells",
        f"IF(p.after IS NULL OR row_fields IS NULL, NULL, {converted('after')}) AS after_cells",
        f"IF(key_wrapped, transform(k.schema.fields, f -> named_struct('name', f.field, "
        f"'raw', try_element_at(k.payload, f.field), 'value', {convert_value('try_element_at(k.payload, f.field)', 'f')})),"
        f" transform(key_names, n -> named_struct('name', n, 'raw', try_element_at(k_bare, n),"
        f" 'value', try_element_at(k_bare, n)))) AS key_cells",
    )


_DUPLICATE_FIELDS = "size(array_distinct(row_fields.field)) < size(row_fields)"


def _image(image: str) -> str:
    cells = f"{image}_cells"
    keep = f"c -> c.present AND coalesce(c.raw != '{UNAVAILABLE_PLACEHOLDER}', true)"
    return (f"CASE WHEN p.{image} IS NULL THEN NULL "
            f"WHEN row_fields IS NULL THEN map_filter(p.{image}, (k, v) -> coalesce(v != '{UNAVAILABLE_PLACEHOLDER}', true)) "
            f"WHEN {_DUPLICATE_FIELDS} THEN NULL "  # quarantined; a map with a repeated key would stop the job
            f"ELSE map_from_entries(transform(filter({cells}, {keep}), c -> struct(c.name, c.value))) END")


def _undecodable(cells: str) -> str:
    return (f"coalesce(exists({cells}, c -> c.raw IS NOT NULL AND c.value IS NULL"
            f" AND c.raw != '{UNAVAILABLE_PLACEHOLDER}'), false)")


def _unknown_columns(image: str) -> str:
    return (f"(row_fields IS NOT NULL AND p.{image} IS NOT NULL AND "
            f"size(array_except(map_keys(p.{image}), transform(row_fields, f -> f.field))) > 0)")


_OP = "p.op"
# Records without op that Debezium does write: transaction metadata, schema changes, heartbeats.
_IS_CONTROL_RECORD = ("coalesce(p.status IN ('BEGIN', 'END'), false) OR p.ddl IS NOT NULL OR p.tableChanges IS NOT NULL"
                      " OR (p.ts_ms IS NOT NULL AND p.source IS NULL AND p.before IS NULL AND p.after IS NULL)")
_QUARANTINE_RULES = [
    QuarantineRule("value IS NOT NULL AND NOT is_valid_utf8(value_text)", "DECODE", "NOT_UTF8", "'value is not UTF-8'"),
    QuarantineRule("key IS NOT NULL AND NOT is_valid_utf8(key_text)", "DECODE", "NOT_UTF8", "'key is not UTF-8'"),
    QuarantineRule("value IS NOT NULL AND (v IS NULL OR v._corrupt_record IS NOT NULL)", "DECODE", "MALFORMED_JSON",
                   "'value is not a JSON object'"),
    QuarantineRule("key IS NOT NULL AND k_bare IS NULL", "DECODE", "MALFORMED_KEY", "'key is not a JSON object'"),
    QuarantineRule("value IS NULL", None, None),  # a tombstone: never quarantined
    QuarantineRule("wrapped AND p IS NULL", "VALIDATE", "MISSING_FIELD", "'payload is null'"),
    QuarantineRule(f"{_OP} IS NULL AND NOT ({_IS_CONTROL_RECORD})", "VALIDATE", "UNKNOWN_MESSAGE_SHAPE",
                   "'no op and not a heartbeat, transaction or schema-change record'"),
    QuarantineRule(f"{_OP} IS NOT NULL AND {_OP} NOT IN ('c', 'r', 'u', 'd', 't', 'm')", "VALIDATE",
                   "UNKNOWN_OPERATION", f"concat('unknown op ', {_OP})"),
    QuarantineRule(f"{_OP} IS NOT NULL AND p.source IS NULL", "VALIDATE", "MISSING_FIELD", "'payload.source is missing'"),
    QuarantineRule(f"{_OP} IN ('c', 'r', 'u') AND p.after IS NULL", "VALIDATE", "MISSING_FIELD",
                   f"concat('op ', {_OP}, ' without after')"),
    QuarantineRule(f"{_OP} = 'm' AND p.message IS NULL", "VALIDATE", "MISSING_FIELD", "'op m without message'"),
    QuarantineRule(f"{_OP} IN ('c', 'r', 'u', 'd') AND ({_DUPLICATE_FIELDS} OR size(array_distinct(key_names)) < size(key_names))",
                   "VALIDATE", "SCHEMA_MISMATCH", "'the schema declares a column twice'"),
    QuarantineRule(f"{_OP} IN ('c', 'r', 'u', 'd') AND ({_unknown_columns('before')} OR {_unknown_columns('after')})",
                   "VALIDATE", "SCHEMA_MISMATCH", "'row image has columns its schema does not declare'"),
    QuarantineRule(f"{_undecodable('before_cells')} OR {_undecodable('after_cells')} OR {_undecodable('key_cells')}",
                   "CONVERT", "UNDECODABLE_VALUE", "'a column value does not match its declared type'"),
]


def _kind() -> str:
    return f"""CASE
      WHEN value IS NULL THEN 'TOMBSTONE'
      WHEN {_OP} IN ('c', 'r', 'u', 'd') THEN 'ROW'
      WHEN {_OP} = 't' THEN 'TRUNCATE'
      WHEN {_OP} = 'm' THEN 'MESSAGE'
      WHEN p.status = 'BEGIN' THEN 'TX_BEGIN'
      WHEN p.status = 'END' THEN 'TX_END'
      WHEN p.ddl IS NOT NULL OR p.tableChanges IS NOT NULL THEN 'DDL'
      ELSE 'HEARTBEAT'
    END"""


def _src(name: str) -> str:
    return f"try_element_at(p.source, '{name}')"


def _position() -> str:
    connector = f"lower({_src('connector')})"
    sequence = f"from_json({_src('sequence')}, 'array<string>')"
    return f"""CASE
      WHEN {connector} = 'sqlserver' THEN named_struct(
        'commit', upper(regexp_replace({_src('commit_lsn')}, ':', '')),
        'event', upper(regexp_replace({_src('change_lsn')}, ':', '')),
        'seq', {ct.fixed_width(_src('event_serial_no'))})
      WHEN {connector} = 'postgresql' THEN named_struct(
        'commit', {ct.fixed_width(f'get({sequence}, 0)')},
        'event', {ct.fixed_width(_src('lsn'))},
        'seq', CAST(NULL AS STRING))
      WHEN {connector} = 'mysql' THEN named_struct(
        'commit', concat({_src('file')}, ':', {ct.fixed_width(_src('pos'))}),
        'event', {ct.fixed_width(_src('row'), 10)},
        'seq', CAST(NULL AS STRING))
    END"""


def _pk_change() -> str:
    """Key change = `d` with header __debezium.newkey + `c` with __debezium.oldkey (Debezium >= 1.2).

    Both halves compute the same group from what they share: the table, the source position and the
    two keys, so the pair is found without a join (the halves may sit on different partitions).
    """
    new_key_header, old_key_header = _header("__debezium.newkey"), _header("__debezium.oldkey")

    def group(old_key: str, new_key: str) -> str:
        parts = [f"coalesce({e}, '')" for e in (
            "source_info.system", "source_info.server", "source_info.database", "source_info.schema",
            "source_info.table", "position.commit", "position.event",
            ct.sorted_map_text(old_key), ct.sorted_map_text(new_key))]
        return f"substr(sha2(concat_ws('|', {', '.join(parts)}), 256), 1, 16)"

    return f"""CASE
      WHEN {_OP} = 'd' AND {new_key_header} IS NOT NULL THEN
        named_struct('group', {group('key_raw', _key_map(new_key_header))}, 'role', 'OLD')
      WHEN {_OP} IN ('c', 'r') AND {old_key_header} IS NOT NULL THEN
        named_struct('group', {group(_key_map(old_key_header), 'key_raw')}, 'role', 'NEW')
    END"""


def _ddl_change() -> str:
    return """upper(coalesce(get(p.tableChanges, 0).type,
      CASE WHEN upper(regexp_extract(p.ddl, '^\\\\s*(\\\\w+)', 1)) IN ('CREATE', 'ALTER', 'DROP', 'RENAME', 'TRUNCATE')
           THEN upper(regexp_extract(p.ddl, '^\\\\s*(\\\\w+)', 1)) ELSE 'OTHER' END))"""


def _instant(seconds_micros: str, millis: str) -> str:
    return f"coalesce({ct.epoch_micros_to_timestamp(seconds_micros)}, {ct.epoch_millis_to_timestamp(millis)})"


def _events(converted: DataFrame) -> DataFrame:
    source_info = f"""CASE WHEN p.source IS NOT NULL THEN named_struct(
        'system', lower({_src('connector')}), 'server', {_src('name')}, 'database', {_src('db')},
        'schema', nullif({_src('schema')}, ''), 'table', nullif({_src('table')}, ''))
      WHEN kind = 'HEARTBEAT' THEN named_struct('system', CAST(NULL AS STRING),
        'server', try_element_at(key_raw, 'serverName'), 'database', CAST(NULL AS STRING),
        'schema', CAST(NULL AS STRING), 'table', CAST(NULL AS STRING)) END"""
    columns = ("transform(row_fields, (f, i) -> named_struct('name', f.field, 'position', i + 1, "
               "'source_type', coalesce(try_element_at(f.parameters, '__debezium.source.column.type'), f.name, f.type), "
               f"'logical_type', {logical_type('f')}, 'nullable', lower(f.optional) = 'true', "
               "'pk_position', CAST(nullif(array_position(key_names, f.field), 0) AS INT)))")
    return converted.selectExpr(
        "*",
        f"{_kind()} AS kind",
        *quarantine_columns(_QUARANTINE_RULES),
    ).selectExpr(
        "*",
        f"{source_info} AS source_info",
        f"{_position()} AS position",
    ).selectExpr(
        "*",
        f"""named_struct(
          'event_id', concat(topic, '/', partition, '/', offset, '#0'),
          'format', '{FORMAT}',
          'format_version', nullif(regexp_extract({_src('version')}, '^([0-9]+\\\\.[0-9]+)', 1), ''),
          'kind', kind,
          'op', CASE {_OP} WHEN 'c' THEN 'INSERT' WHEN 'r' THEN 'INSERT' WHEN 'u' THEN 'UPDATE'
                           WHEN 'd' THEN 'DELETE' END,
          'snapshot', IF(kind = 'ROW', {_OP} = 'r' OR coalesce(lower({_src('snapshot')}) IN
                         ({', '.join(repr(s) for s in SNAPSHOT_MARKERS)}), false), NULL),
          'source', source_info,
          'columns', IF(kind = 'ROW', {columns}, NULL),
          'key', IF(kind IN ('ROW', 'TOMBSTONE') AND key IS NOT NULL,
                    transform(key_cells, c -> named_struct('name', c.name, 'value', c.value)), NULL),
          'before', IF(kind = 'ROW', {_image('before')}, NULL),
          'after', IF(kind = 'ROW', {_image('after')}, NULL),
          'pk_change', IF(kind = 'ROW', {_pk_change()}, NULL),
          'position', position,
          'tx_id', CASE WHEN kind IN ('TX_BEGIN', 'TX_END') THEN p.id
                        ELSE coalesce(try_element_at(p.transaction, 'id'), {_src('txId')}) END,
          'commit_ts', CASE WHEN kind IN ('TX_BEGIN', 'TX_END') THEN {ct.epoch_millis_to_timestamp('p.ts_ms')}
                            ELSE {_instant(_src('ts_us'), _src('ts_ms'))} END,
          'emit_ts', IF(kind IN ('TX_BEGIN', 'TX_END'), NULL, {_instant('p.ts_us', 'p.ts_ms')}),
          'ddl', IF(kind = 'DDL', named_struct('statement', p.ddl, 'change', {_ddl_change()}), NULL),
          'message', IF(kind = 'MESSAGE', named_struct('prefix', try_element_at(p.message, 'prefix'),
                                                        'content', try_element_at(p.message, 'content')), NULL),
          'origin', origin) AS event""",
    )


def decode(raw: DataFrame) -> DataFrame:
    """Kafka source rows -> one row per record with exactly one of `event` / `quarantine` set."""
    return build_output(_events(_convert_images(_parse(raw))), FORMAT)
