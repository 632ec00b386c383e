"""Decoder for `canal-json`: alibaba canal's FlatMessage (and CloudCanal's flavour of it).

One message is one binlog rows event of one table: `data` holds the rows (the new rows; a DELETE's old
rows), `old` for an UPDATE the previous values of the changed columns only, parallel to `data`. Values
are MySQL's text typed by `mysqlType` (`sqlType`, the JDBC code, where a column has no type text).
Everything after the parse is shared with CloudCanal's JSON (normalizer.rows). docs/formats/canal-json.md.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from normalizer import rows
from normalizer.json_text import json_record_rules, parse_json, repeats_a_key, with_corrupt_record
from normalizer.kafka_source import kafka_columns
from normalizer.model import Code
from normalizer.plugin import FormatDecoder, register
from normalizer.verdicts import QuarantineRule

FORMAT = "canal-json"
FORMAT_VERSION = "1.1"  # canal writes no version; the FlatMessage layout is canal 1.1's
VALUE_SCHEMA = with_corrupt_record(
    "data:array<map<string,string>>,old:array<map<string,string>>,database:string,table:string,pkNames:array<string>,"
    "isDdl:string,type:string,es:string,ts:string,sql:string,sqlType:map<string,string>,mysqlType:map<string,string>,"
    "id:string,gtid:string")
_TYPE = "m.type"

_RULES = [
    QuarantineRule("value IS NULL", Code.MISSING_FIELD, "'record has no value'"),
    *json_record_rules("m"),
    QuarantineRule(f"{_TYPE} IS NULL", Code.MISSING_FIELD, "'type is required'"),
    QuarantineRule(f"{_TYPE} IN {rows.UNMAPPED_EVENT_TYPES}", Code.UNMAPPED_CONTROL_EVENT,
                   f"concat('type ', {_TYPE}, ' has no canonical kind')"),
    QuarantineRule("kind IS NULL", Code.UNKNOWN_OPERATION, f"concat('type ', {_TYPE})"),
    QuarantineRule("m.es IS NULL", Code.MISSING_FIELD, "'es is required'"),
    QuarantineRule("commit_ts IS NULL OR (m.ts IS NOT NULL AND emit_ts IS NULL)", Code.UNDECODABLE_VALUE,
                   "'es and ts must be epoch milliseconds'"),
    QuarantineRule("kind = 'ROW' AND m.table IS NULL", Code.MISSING_FIELD, "'a row change needs table'"),
    QuarantineRule("op = 'UPDATE' AND m.old IS NOT NULL AND size(m.old) != size(m.data)", Code.SCHEMA_MISMATCH,
                   "'old and data have different lengths'"),
    QuarantineRule("kind = 'ROW' AND m.data IS NULL", Code.MISSING_FIELD, "concat(op, ' with data null')"),
]


def _before_rows(data: str = "m.data", old: str = "m.old") -> str:
    """UPDATE: `old` (changed columns) over `data`; canal's `old` may hold all columns (CloudCanal), which
    merges the same. Without `old` the before rows are unknown. DELETE: `data` holds the old rows."""
    merged = f"zip_with({data}, {old}, (d, o) -> map_concat(map_filter(d, (k, v) -> NOT map_contains_key(o, k)), o))"
    # map_concat fails the job on a key named twice (quarantined as DUPLICATE_KEY): not merged then
    repeats = f"exists(m.old, o -> {repeats_a_key('o')})"
    return (f"CASE WHEN op = 'DELETE' THEN {data} "
            f"WHEN op = 'UPDATE' AND m.old IS NOT NULL AND size(m.old) = size(m.data) AND NOT {repeats} THEN {merged} END")


def _messages(raw: DataFrame) -> DataFrame:
    parsed = kafka_columns(raw).selectExpr("*", f"{parse_json('value_text', VALUE_SCHEMA)} AS m").selectExpr(
        "*", f"{rows.lookup(rows.EVENT_TYPES, 0, _TYPE)} AS kind", f"{rows.lookup(rows.EVENT_TYPES, 1, _TYPE)} AS op",
        f"{rows.lookup(rows.EVENT_TYPES, 2, _TYPE)} AS ddl_change",
        f"IF(size(m.pkNames) > 0, {rows.key_names('m.pkNames', 'm.mysqlType', 'm.sqlType')}, NULL) AS pk_names",
        f"{rows.number_lists(('data', 'old'))} AS numbers")
    return parsed.selectExpr(
        "*",
        f"{rows.column_types('m.mysqlType', 'm.sqlType', 'pk_names')} AS columns",
        "IF(op IN ('INSERT', 'UPDATE'), m.data, NULL) AS after_rows", f"{_before_rows()} AS before_rows",
        "IF(op IN ('INSERT', 'UPDATE'), numbers.data, NULL) AS after_numbers",
        f"{_before_rows('numbers.data', 'numbers.old')} AS before_numbers",
        "named_struct('system', 'mysql', 'server', CAST(NULL AS STRING), 'database', m.database, "
        "'schema', CAST(NULL AS STRING), 'table', nullif(m.table, '')) AS source_out",
        *rows.message_columns("m.es", "m.ts", "m.sql", FORMAT_VERSION),
    )


def decode(raw: DataFrame) -> DataFrame:
    return rows.outputs(rows.typed(_messages(raw)), FORMAT, _RULES)


DECODER = register(FormatDecoder(FORMAT, decode=decode))
