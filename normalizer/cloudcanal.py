"""Decoder for `cloudcanal-json`: CloudCanal's default "CloudCanal Json" MQ format.

One message holds rows of one table: `data` (the new rows) and `before` (CloudCanal sends full before
rows) are lists paired by index; `dbValType` types the columns (`jdbcType` where a column has none).
`entryType` `TRANSACTIONEND` is a transaction end, never a row; the DDL flag is `isDdl` or, in the older
doc revision, `ddl`. Everything after the parse is shared with canal (normalizer.rows).
docs/formats/cloudcanal-json.md.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from normalizer import rows
from normalizer.json_text import json_record_rules, parse_json, with_corrupt_record
from normalizer.kafka_source import kafka_columns
from normalizer.model import Code
from normalizer.plugin import FormatDecoder, register
from normalizer.verdicts import QuarantineRule

FORMAT = "cloudcanal-json"
FORMAT_VERSION = "1"  # CloudCanal writes no version
VALUE_SCHEMA = with_corrupt_record(
    "action:string,bid:string,before:array<map<string,string>>,data:array<map<string,string>>,db:string,schema:string,"
    "table:string,dbValType:map<string,string>,jdbcType:map<string,string>,entryType:string,isDdl:string,ddl:string,"
    "pks:array<string>,execTs:string,sendTs:string,sql:string,tableChanges:string")
# action -> (kind, op, ddl.change) for row changes and for DDL (action is then the DDL's kind)
ACTIONS = {"INSERT": ("ROW", "INSERT", None), "UPDATE": ("ROW", "UPDATE", None), "DELETE": ("ROW", "DELETE", None)}
DDL_CHANGES = ("CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE")

_RULES = [
    QuarantineRule("value IS NULL", Code.MISSING_FIELD, "'record has no value'"),
    *json_record_rules("m"),
    QuarantineRule("m.entryType IS NOT NULL AND m.entryType NOT IN ('ROWDATA', 'TRANSACTIONEND')", Code.UNKNOWN_OPERATION,
                   "concat('entryType ', m.entryType)"),
    QuarantineRule("kind IS NULL AND m.action IS NULL", Code.MISSING_FIELD, "'action is required'"),
    QuarantineRule("kind IS NULL", Code.UNKNOWN_OPERATION, "concat('action ', m.action)"),
    QuarantineRule("m.execTs IS NULL", Code.MISSING_FIELD, "'execTs is required'"),
    QuarantineRule("commit_ts IS NULL OR (m.sendTs IS NOT NULL AND emit_ts IS NULL)", Code.UNDECODABLE_VALUE,
                   "'execTs and sendTs must be epoch milliseconds'"),
    QuarantineRule("kind = 'ROW' AND m.table IS NULL", Code.MISSING_FIELD, "'a row change needs table'"),
]


def _nonempty(rows_list: str) -> str:
    """An empty list is no image (the DDL example's `before: []`, an INSERT's)."""
    return f"IF(size({rows_list}) > 0, {rows_list}, NULL)"


def _messages(raw: DataFrame) -> DataFrame:
    is_ddl = "coalesce(lower(m.isDdl), lower(m.ddl)) = 'true'"
    ddl_change = "coalesce(get_json_object(m.tableChanges, '$.type'), m.action)"
    kind = (f"CASE WHEN m.entryType = 'TRANSACTIONEND' THEN 'TX_END' "
            f"WHEN {is_ddl} THEN IF(upper({ddl_change}) = 'TRUNCATE', 'TRUNCATE', 'DDL') "
            f"ELSE {rows.lookup(ACTIONS, 0, 'm.action')} END")
    parsed = kafka_columns(raw).selectExpr("*", f"{parse_json('value_text', VALUE_SCHEMA)} AS m").selectExpr(
        "*", f"{kind} AS kind", f"{rows.lookup(ACTIONS, 1, 'm.action')} AS op",
        f"IF({is_ddl}, IF(upper({ddl_change}) IN {DDL_CHANGES}, upper({ddl_change}), 'OTHER'), NULL) AS ddl_change",
        f"IF(size(m.pks) > 0, {rows.key_names('m.pks', 'm.dbValType', 'm.jdbcType')}, NULL) AS pk_names",
        f"{rows.number_lists(('before', 'data'))} AS numbers")
    return parsed.selectExpr(
        "*",
        f"{rows.column_types('m.dbValType', 'm.jdbcType', 'pk_names')} AS columns",
        *(f"IF(op IN ('INSERT', 'UPDATE'), {_nonempty(f'{m}.data')}, NULL) AS after_{kind}"
          for m, kind in (("m", "rows"), ("numbers", "numbers"))),
        # DELETE: the old row, in `before` or (as the doc's field table reads) in `data`
        *(f"CASE op WHEN 'UPDATE' THEN {_nonempty(f'{m}.before')} "
          f"WHEN 'DELETE' THEN coalesce({_nonempty(f'{m}.before')}, {_nonempty(f'{m}.data')}) END AS before_{kind}"
          for m, kind in (("m", "rows"), ("numbers", "numbers"))),
        "named_struct('system', CAST(NULL AS STRING), 'server', CAST(NULL AS STRING), 'database', m.db, "
        "'schema', m.schema, 'table', nullif(m.table, '')) AS source_out",
        *rows.message_columns("m.execTs", "m.sendTs", "m.sql", FORMAT_VERSION),
    )


def decode(raw: DataFrame) -> DataFrame:
    return rows.outputs(rows.typed(_messages(raw)), FORMAT, _RULES)


DECODER = register(FormatDecoder(FORMAT, decode=decode))
