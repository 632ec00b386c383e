"""Row-list messages: one message holds many rows of one table, as lists of row maps (canal's FlatMessage,
CloudCanal's JSON). The formats differ in field names and in how they give the before rows; from the
columns below on, they are one thing, written here once:

- `columns`: array<struct<name, position, source_type, logical_type, nullable, pk_position>>, the model's
  column struct, in the message's column order;
- `before_rows`, `after_rows`: array<map<string,string>>, parallel (row i of each is one change), values as
  MySQL's text; NULL when the operation has no such image;
- `before_numbers`, `after_numbers`: the same lists with VARIANT values (`number_lists`), NULL unless the
  message holds a JSON number with a fraction or an exponent, which Spark's string-typed reader passes
  through a double: the VARIANT keeps its exact digits (`ct.exact_number`);
- `pk_names`, `kind`, `op`, `source_out`, `commit_ts`, `emit_ts`, `commit_position` (position.commit),
  `ddl_out`, `format_version`, and the Kafka columns.

Each row becomes its own event (two for a key change), in row order: `position` is the message's
commit part, the Kafka offset (the only order between messages of one second), and the row.
"""
from __future__ import annotations

from pyspark.sql import DataFrame

from normalizer import canonical_text as ct
from normalizer import events, keys, sql, types
from normalizer.model import EVENT_SCHEMA, Code
from normalizer.verdicts import QuarantineRule

EVENT_FIELDS = EVENT_SCHEMA.fieldNames()

# canal's CanalEntry.EventType (EntryProtocol.proto): type -> (kind, op, ddl.change). DataWorks reuses it.
EVENT_TYPES: dict[str, tuple[str, str | None, str | None]] = {
    "INSERT": ("ROW", "INSERT", None), "UPDATE": ("ROW", "UPDATE", None), "DELETE": ("ROW", "DELETE", None),
    "CREATE": ("DDL", None, "CREATE"), "ALTER": ("DDL", None, "ALTER"), "ERASE": ("DDL", None, "DROP"),
    "RENAME": ("DDL", None, "RENAME"), "CINDEX": ("DDL", None, "INDEX"), "DINDEX": ("DDL", None, "INDEX"),
    "QUERY": ("DDL", None, "OTHER"), "TRUNCATE": ("TRUNCATE", None, "TRUNCATE"), "MHEARTBEAT": ("HEARTBEAT", None, None),
    "XACOMMIT": ("TX_END", None, None),
}
# documented, but the model has no kind for them: quarantined (UNMAPPED_CONTROL_EVENT), never dropped
UNMAPPED_EVENT_TYPES = ("GTID", "XAROLLBACK")


_ABOVE_A_BYTE = sql.sql_string(r"[^\x00-\xFF]")  # a character no ISO-8859-1 byte decodes to
# a member whose value is a JSON number with a fraction or an exponent (whitespace as JSON's four characters)
_FRACTIONAL_MEMBER = "'\"[ \t\n\r]*:[ \t\n\r]*-?[0-9]+[.eE]'"


def number_lists(names: tuple[str, ...]) -> str:
    """SQL struct: the message's row lists `names` again, values as VARIANTs, for a message holding a
    fractional JSON number (0.1000000000000000055511151231257827 would be read as 0.1); NULL otherwise."""
    schema = "struct<" + ",".join(f"{name}:array<map<string,variant>>" for name in names) + ">"
    return f"IF(value_text RLIKE {_FRACTIONAL_MEMBER}, from_json(value_text, '{schema}'), NULL)"

def lookup(table: dict[str, tuple], position: int, key: str) -> str:
    """SQL: part `position` of `table[key]` (NULL for a key the table lacks)."""
    entries = ", ".join(f"'{name}', {repr(parts[position]) if parts[position] else 'CAST(NULL AS STRING)'}"
                        for name, parts in table.items())
    return f"try_element_at(map({entries}), {key})"


def message_columns(commit_ms: str, emit_ms: str, statement: str, format_version: str) -> list[str]:
    """The message-level columns both formats give the same way: times (epoch ms), the commit position and
    the DDL struct (`ddl_change` must already be a column)."""
    return [f"{ct.epoch_millis_to_timestamp(commit_ms)} AS commit_ts", f"{ct.epoch_millis_to_timestamp(emit_ms)} AS emit_ts",
            f"{ct.fixed_width(commit_ms)} AS commit_position",
            f"IF(ddl_change IS NULL, NULL, named_struct('statement', {statement}, 'change', ddl_change)) AS ddl_out",
            f"'{format_version}' AS format_version"]


def _declared_names(type_texts: str, jdbc_codes: str) -> str:
    return f"array_distinct(concat(coalesce(map_keys({type_texts}), array()), coalesce(map_keys({jdbc_codes}), array())))"


def key_names(pk_names: str, type_texts: str, jdbc_codes: str) -> str:
    """The primary key's column names as the message types them. MySQL names are case-insensitive, and
    canal takes `pkNames` from its table metadata but the types from the row event: `k1` names column
    `K1`. A key name that matches no typed column stays as it is (SCHEMA_MISMATCH later)."""
    declared = _declared_names(type_texts, jdbc_codes)
    return f"transform({pk_names}, n -> coalesce(get(filter({declared}, d -> lower(d) = lower(n)), 0), n))"


def column_types(type_texts: str, jdbc_codes: str, pk_names: str) -> str:
    """The column structs from a map column -> type text (its key order is the column order), with the
    JDBC code map as the fallback where a column has no type text."""
    # the two lookups made once, then read as fields: the type parser names its input many times
    looked_up = (f"transform({_declared_names(type_texts, jdbc_codes)}, n -> named_struct('n', n, "
                 f"'text', try_element_at({type_texts}, n), 'code', CAST(try_element_at({jdbc_codes}, n) AS STRING)))")
    text, code = "t.text", "t.code"
    # a type text the table lacks is unknown, whatever the JDBC code says (that code is a fallback only)
    logical = f"IF({text} IS NOT NULL, {types.mysql_logical_type(text)}, {types.JDBC.logical_type(code, lambda n: 'NULL')})"
    column = (f"named_struct('name', coalesce(t.n, ''), 'position', i + 1, 'source_type', coalesce({text}, {code}), "
              f"'logical_type', {logical}, 'nullable', CAST(NULL AS BOOLEAN), "
              f"'pk_position', CAST(nullif(array_position({pk_names}, t.n), 0) AS INT))")
    return f"transform({looked_up}, (t, i) -> {column})"


def _cells(rows: str, numbers: str) -> str:
    """Per row, per declared column: whether the row has it, its text and its canonical text. Two passes:
    the text to convert first (binary columns arrive as ISO-8859-1 characters, one per byte, canal's
    LogEventConvert; anything above U+00FF cannot be such a byte), then the converter, whose branches
    then read a field instead of repeating the computation."""
    # the lookup made once, then read as a field (lambda bodies have no common subexpressions: see dataworks)
    looked_up = "transform(columns, c -> named_struct('name', c.name, 'logical_type', c.logical_type, " \
                "'source_type', c.source_type, 'raw', try_element_at(r, c.name)))"
    raw = "c.raw"
    exact = ct.exact_number(raw, "try_element_at(try_element_at(ct_numbers, ct_i + 1), c.name)", "c.logical_type")
    latin1 = f"encode({raw}, 'ISO-8859-1')"
    as_base64 = f"IF({raw} RLIKE {_ABOVE_A_BYTE}, NULL, {ct.base64_text(latin1)})"
    # a MySQL zero date is SQL NULL (ct.mysql_zero_date): no raw value, so nothing to call undecodable
    zero = ct.mysql_zero_date(raw, "c.logical_type")
    # ENUM and SET arrive as canal's binlog decoder writes them: an index, a bitmask (types.mysql_enum_text)
    written = (f"CASE WHEN c.logical_type = 'BYTES' THEN {as_base64} "
               f"WHEN c.logical_type = 'ENUM' THEN {types.mysql_enum_text(raw, 'c.source_type')} "
               f"WHEN lower(c.source_type) LIKE 'set(%' THEN {types.mysql_set_text(raw, 'c.source_type')} "
               f"WHEN ct_numbers IS NULL THEN {raw} ELSE {exact} END")
    text = (f"named_struct('name', c.name, 'logical', c.logical_type, 'present', {sql.has_key('r', 'c.name', raw)}, "
            f"'raw', IF({zero}, NULL, {raw}), 'text', IF({zero}, NULL, {written}))")
    value = (f"named_struct('name', x.name, 'present', x.present, 'raw', x.raw, "
             f"'value', {types.convert('x.text', 'x.logical', types.TEXT)})")
    per_row = f"transform({rows}, (r, ct_i) -> transform(transform({looked_up}, c -> {text}), x -> {value}))"
    return sql.let(numbers, "ct_numbers", per_row)


def _images(cells: str) -> str:
    return f"transform({cells}, r -> map_from_entries(transform(filter(r, c -> c.present), c -> struct(c.name, c.value))))"


def typed(messages: DataFrame) -> DataFrame:
    return messages.selectExpr("*", f"{_cells('before_rows', 'before_numbers')} AS before_cells",
                               f"{_cells('after_rows', 'after_numbers')} AS after_cells") \
        .selectExpr("*", f"{_images('before_cells')} AS before_images", f"{_images('after_cells')} AS after_images")


def _undeclared(rows: str) -> str:
    return f"exists({rows}, r -> size(array_except(map_keys(r), columns.name)) > 0)"


def _undecodable(cells: str) -> str:
    return f"exists({cells}, r -> exists(r, c -> c.raw IS NOT NULL AND c.value IS NULL))"


ROW_RULES = [
    QuarantineRule("kind = 'ROW' AND size(coalesce(after_rows, before_rows)) = 0", Code.MISSING_FIELD,
                   "concat(op, ' without rows')"),
    QuarantineRule("(op IN ('INSERT', 'UPDATE') AND after_rows IS NULL) OR (op = 'DELETE' AND before_rows IS NULL)",
                   Code.MISSING_FIELD, "concat(op, ' without its row list')"),
    QuarantineRule("before_rows IS NOT NULL AND after_rows IS NOT NULL AND size(before_rows) != size(after_rows)",
                   Code.SCHEMA_MISMATCH, "'the before and after row lists have different lengths'"),
    QuarantineRule("kind = 'ROW' AND size(columns) = 0", Code.MISSING_FIELD, "'no column types'"),
    QuarantineRule(f"kind = 'ROW' AND ({_undeclared('before_rows')} OR {_undeclared('after_rows')})", Code.SCHEMA_MISMATCH,
                   "'a row has a column the message does not type'"),
    QuarantineRule("kind = 'ROW' AND size(array_distinct(transform(columns.name, n -> lower(n)))) < size(columns)",
                   Code.SCHEMA_MISMATCH, "'two columns whose names differ only in case (one MySQL column)'"),
    QuarantineRule("kind = 'ROW' AND exists(pk_names, n -> NOT array_contains(columns.name, n))", Code.SCHEMA_MISMATCH,
                   "'the primary key names a column the message does not type'"),
    QuarantineRule("kind = 'ROW' AND exists(columns, c -> c.logical_type IS NULL)", Code.UNKNOWN_COLUMN_TYPE,
                   "concat('column type ', get(filter(columns, c -> c.logical_type IS NULL), 0).source_type)"),
    QuarantineRule(f"kind = 'ROW' AND ({_undecodable('before_cells')} OR {_undecodable('after_cells')})",
                   Code.UNDECODABLE_VALUE, "'a value does not match its column type'"),
    keys.missing_old_key_rule(f"op IN ('UPDATE', 'DELETE') AND exists(before_rows, r -> {keys.old_key_missing('pk_names', 'r')})"),
]


def _numbered(array: str) -> str:
    """Events built with a placeholder id -> ids `<topic>/<partition>/<offset>#<n>`, n counting every event of
    the message in order (a row that changed its key gave two). One pass: no running count per row."""
    fields = {f: f"e.{f}" for f in EVENT_FIELDS}
    fields["event_id"] = "concat(topic, '/', partition, '/', offset, '#', n)"
    return f"transform({array}, (e, n) -> {events.event(**fields)})"


def event_array(format_id: str) -> str:
    """Every row's events, in row order: one event, or DELETE + INSERT when the row changed its key."""
    def position(seq: str) -> str:
        return (f"named_struct('commit', commit_position, 'event', lpad(CAST(offset AS STRING), 20, '0'), "
                f"'seq', lpad(CAST({seq} AS STRING), 20, '0'))")

    def event(op: str, before: str | None, after: str | None, key_value: str, seq: str, pk_change: str | None = None) -> str:
        key = (f"IF(size(pk_names) > 0, transform(pk_names, n -> named_struct('name', coalesce(n, ''), "
               f"'value', {key_value})), NULL)")
        return events.event(
            event_id="''", format=f"'{format_id}'", format_version="format_version", kind="'ROW'", op=op,
            snapshot="false", source="source_out", columns="columns", key=key, before=before, after=after,
            pk_change=pk_change, position=position(seq), commit_ts="commit_ts", emit_ts="emit_ts", origin="origin")

    before, after = "try_element_at(before_images, i + 1)", "try_element_at(after_images, i + 1)"
    changed = f"op = 'UPDATE' AND {keys.key_changed('pk_names', before, after)}"
    group = keys.group_sql(
        {"system": "source_out.system", "server": "''", "database": "source_out.database", "schema": "source_out.schema",
         "table": "source_out.table", "commit": "commit_position", "event": "lpad(CAST(offset AS STRING), 20, '0')"},
        f"map_filter({before}, (k, v) -> array_contains(pk_names, k))",
        keys.new_key_map("pk_names", before, after))
    # the DELETE of the old key sorts before the INSERT of the new one: seq 2i and 2i + 1
    old_key, new_key = f"try_element_at({before}, n)", keys.key_value("'INSERT'", before, after)
    pair = sql.let(group, "ct_group", f"""array(
        {event("'DELETE'", before, None, old_key, 'i * 2', "named_struct('group', ct_group, 'role', 'OLD')")},
        {event("'INSERT'", None, after, new_key, 'i * 2 + 1', "named_struct('group', ct_group, 'role', 'NEW')")})""")
    single = event("op", f"IF(op = 'INSERT', NULL, {before})", f"IF(op = 'DELETE', NULL, {after})",
                   keys.key_value("op", before, after), "i * 2")
    count = "size(coalesce(after_images, before_images))"
    rows = f"IF({count} > 0, sequence(0, {count} - 1), array())"
    return _numbered(f"flatten(transform({rows}, i -> IF(coalesce({changed}, false), {pair}, array({single}))))")


def control_event(format_id: str) -> str:
    """A message that is no row change: DDL, TRUNCATE, HEARTBEAT or a transaction mark."""
    return events.event(
        event_id="concat(topic, '/', partition, '/', offset, '#0')", format=f"'{format_id}'",
        format_version="format_version", kind="kind", source="source_out",
        position=("named_struct('commit', commit_position, 'event', lpad(CAST(offset AS STRING), 20, '0'), "
                  f"'seq', '{keys.PLAIN_SEQ}')"),
        commit_ts="commit_ts", emit_ts="emit_ts", ddl="ddl_out", origin="origin")


def outputs(messages: DataFrame, format_id: str, rules: list[QuarantineRule]) -> DataFrame:
    """Typed messages -> output rows: `rules` (the format's own, first) then the shared row rules."""
    from normalizer.verdicts import verdict

    all_events = f"IF(kind = 'ROW', {event_array(format_id)}, array({control_event(format_id)}))"
    return messages.selectExpr("*", f"{verdict([*rules, *ROW_RULES])} AS rejection").selectExpr(
        *events.record_output(all_events, "rejection", format_id))
