"""alibaba canal FlatMessage JSON (`canal-json`): encoder, profiles, oracle, mutators, hostile records.

Messages are written as canal's MQMessageUtils builds them (docs/formats/canal-json.md): one message per
rows event of one table (consecutive changes of one kind in a transaction are one multi-row statement
here), every value MySQL's text, `old` with only the changed columns (accumulated over the rows of the
message, as canal's `updateSet` is) or, in CloudCanal's flavour, all columns; no Kafka key, the
partition fixed or hashed by table or by primary key over the `data` rows; `es` with second precision.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import zlib
from dataclasses import dataclass

from hypothesis import strategies as st

from cdc_conformance import keys
from cdc_conformance.generators import mariadb_ddl
from cdc_conformance.generators.bench import history_bench
from cdc_conformance.generators.history import Change, History, Table, Transaction
from cdc_conformance.generators.oracle import change_events
from cdc_conformance.generators.plugin import FormatGenerator, Hostile, absorbed_json_mutator, json_mutator, profile_examples, profile_render
from cdc_conformance.generators.records import Expected, KafkaRecord
from cdc_conformance.generators.spellings import Number
from cdc_conformance.generators.values import DURATION_TYPE, LogicalType, canonical_text, java_double_text
from cdc_conformance.model import CanonicalEvent, Code, Column

FORMAT = "canal-json"
FORMAT_VERSION = "1.1"


@dataclass(frozen=True)
class Profile:
    old_columns: str = "changed"       # canal: the changed columns; CloudCanal's flavour: all columns
    partition_hash: str | None = None  # canal.mq.partitionHash: None (one partition), "table" or "pk"
    partitions: int = 1
    gtid: bool = True                  # canal >= 1.1.7 writes `gtid`
    topic: str = "canal.shop"
    database: str = "shop"
    # how canal's own server wrote MariaDB's binary log here (the real-producer tier: docs/producers.md):
    annotations: bool = False    # MariaDB's annotate-rows event before each statement's rows: a QUERY message
    per_statement: bool = False  # one message per statement, as the binary log has it (else per run of one kind)
    server_types: bool = False   # mysqlType as the server's `desc` prints the harness's columns (else drawn spellings)
    # situations a server makes only on purpose: a zero date where the oracle has NULL, key names in another case
    quirks: bool = True


def SERVER_1_1_4_ON_MARIADB(**fields) -> Profile:
    """canal 1.1.4's server reading MariaDB 10.11, as the real-producer tier runs it (docs/producers.md)."""
    return Profile(gtid=False, annotations=True, per_statement=True, server_types=True, quirks=False, **fields)


def profiles():
    return st.builds(Profile, old_columns=st.sampled_from(["changed", "all"]),
                     partition_hash=st.sampled_from([None, "table", "pk"]), partitions=st.integers(1, 3),
                     gtid=st.booleans(), annotations=st.booleans(), per_statement=st.booleans(),
                     server_types=st.booleans(), quirks=st.booleans())


# logical kind -> MySQL column type as canal writes mysqlType, java.sql.Types code, canonical logical type
MYSQL_TYPES = {"INT16": ("smallint(6)", 5, "INT16"), "INT32": ("int(11)", 4, "INT32"), "INT64": ("bigint(20)", -5, "INT64"),
               "STRING": ("varchar(255)", 12, "STRING"), "FLOAT64": ("double", 8, "FLOAT64"), "DATE": ("date", 91, "DATE"),
               "BYTES": ("varbinary(64)", -3, "BYTES")}
VALUE_TYPES = [LogicalType(k) for k in MYSQL_TYPES] + [
    LogicalType("TIME", 6), DURATION_TYPE, LogicalType("TIMESTAMP", 3), LogicalType("TIMESTAMP", 6), LogicalType("DECIMAL", 10, 2),
    LogicalType("DECIMAL", 38, 10), LogicalType("DECIMAL", 65, 30), LogicalType("DECIMAL", 5, 0)]
# ENUM and SET labels (mysql_type writes them as `desc` prints them, quotes doubled): words that are also
# type words, quotes, spaces, non-BMP text; a SET at MySQL's 64-member limit, so its bitmask fills an unsigned long
# labels that are numbers (a flag column's enum('0','1'), enum('2','1'), set('2','1')): canal's digits are the index
# and the bitmask all the same; a reader that took a digit text for a label read '1' for both flags (issue 49)
ENUM_SET_TYPES = [LogicalType("ENUM", labels=("small", "unsigned", "it's", "a b", "\u00e9t\u00e9", "\U0001f600")),
                  LogicalType("ENUM", labels=("0", "1")), LogicalType("ENUM", labels=("2", "1", "10")),
                  LogicalType("SET", labels=("x", "y z", "o'k", "(", "\u4e16")), LogicalType("SET", labels=("2", "1")),
                  LogicalType("SET", labels=tuple(f"m{i}" for i in range(64)))]


# Every spelling of the same type that MySQL 8 accepts in DDL, which canal keeps verbatim in mysqlType
# (MySQL 8.0 Reference Manual 13.1 and "Using Data Types from Other Database Engines"). The first is the
# one `SHOW CREATE TABLE` prints.
SPELLINGS = {
    "INT16": ("smallint(6)", "SMALLINT", "int2"), "INT32": ("int(11)", "INTEGER", "int4", "INT"),
    "INT64": ("bigint(20)", "BIGINT", "int8"), "FLOAT64": ("double", "DOUBLE PRECISION", "REAL", "float8"),
    "STRING": ("varchar(255)", "CHARACTER VARYING(255)", "NATIONAL VARCHAR(255)", "nvarchar(255)", "text", "LONG VARCHAR"),
    "BYTES": ("varbinary(64)", "blob", "LONG VARBINARY", "longblob", "VARBINARY(4096)"), "DATE": ("date", "DATE"),
    "DECIMAL": ("decimal", "DEC", "NUMERIC", "FIXED"),
    # DDL takes a space before the labels and any case (`SET ('a','b')`): the SET reader once looked for `set(` only
    "ENUM": ("enum", "ENUM", "enum "), "SET": ("set", "SET", "set "),
}


def _spelling(kind: str, name: str) -> str:
    """One of the type's spellings, picked by the column name (stable: a seed draws the same records)."""
    spellings = SPELLINGS[kind]
    return spellings[zlib.crc32(name.encode()) % len(spellings)]


def mysql_type(logical: LogicalType, name: str = "") -> tuple[str, int, str]:
    """(type text, JDBC code, logical type) of a column; `name` picks among the type's spellings."""
    if logical.kind in ("ENUM", "SET"):
        # canal's RowsLogBuffer: ENUM is Types.INTEGER, SET is Types.BIT (a NULL's: _sql_types)
        labels = mariadb_ddl.labels_text(logical.labels)
        return f"{_spelling(logical.kind, name)}({labels})", 4 if logical.kind == "ENUM" else -7, logical.name
    if logical.kind == "DECIMAL":
        return f"{_spelling('DECIMAL', name)}({logical.precision},{logical.scale})", 3, logical.name
    if logical.kind in ("TIME", "DURATION"):  # MySQL's TIME is a duration: RowsLogBuffer prints a sign, 2+ hour digits
        return "time(6)", 92, "TIME(6)"
    if logical.kind == "TIMESTAMP":
        return f"datetime({logical.precision})", 93, "TIMESTAMP(6)"
    text, code, canonical = MYSQL_TYPES[logical.kind]
    return _spelling(logical.kind, name), code, canonical


# the JDBC code canal 1.1.4 gave MariaDB's LOB columns (seen on the run: longtext 2005, CLOB; longblob 2004, BLOB)
_SERVER_LOB_CODES = {"STRING": 2005, "BYTES": 2004}
_LOB_CODES = tuple(_SERVER_LOB_CODES.values())  # a text key is a varchar there


def server_type(logical: LogicalType, key: bool) -> tuple[str, int, str]:
    """(type text, JDBC code, logical type) of a column as MariaDB's `desc` prints the real-producer tier's."""
    text = mariadb_ddl.column_type(logical, key)
    if logical.kind == "STRING" and key:
        return text, 12, "STRING"
    _, code, canonical = mysql_type(logical)
    return text, _SERVER_LOB_CODES.get(logical.kind, code), canonical


def value_text(logical: LogicalType, value) -> str | None:
    """MySQL's text of a value, as canal's LogEventConvert writes it."""
    if value is None:
        return None
    kind = logical.kind
    if kind == "FLOAT64":
        return java_double_text(value)  # String.valueOf(double)
    if kind == "BYTES":
        return value.decode("latin-1")  # new String(bytes, "ISO-8859-1")
    if kind == "ENUM":  # RowsLogBuffer reads the 1-based index (0: the invalid-value '')
        return str(logical.labels.index(value) + 1 if value else 0)
    if kind == "SET":  # ... and the members' bitmask, unsigned
        return str(sum(1 << logical.labels.index(member) for member in value.split(",")) if value else 0)
    if kind == "TIMESTAMP":
        digits = 3 if logical.precision == 3 else 6
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[: 20 + digits]
    return canonical_text(logical, value)


_STATEMENT_WORDS = {"INSERT": "INSERT INTO", "UPDATE": "UPDATE", "DELETE": "DELETE FROM"}


_DIGITS_PER_GROUP = 9  # MySQL's binary DECIMAL: nine digits in four bytes, the rest in a shorter group


def binlog_decimal_text(text: str) -> str:
    """A DECIMAL as canal's LogBuffer.getDecimal0 writes it (then BigDecimal.toPlainString): every full group of nine
    fraction digits, the last shorter group only if it is not zero, and `0` if no fraction digit is left
    (decimal(10,2) 5.00 is `5.0`, decimal(65,30) 0 is 27 zeros; seen on 1.1.4, unchanged in canal's later source).
    `text` is the value at its column's scale."""
    whole, point, fraction = text.partition(".")
    if not point:
        return text
    full = len(fraction) // _DIGITS_PER_GROUP * _DIGITS_PER_GROUP
    kept = fraction if fraction[full:].strip("0") else fraction[:full]
    return f"{whole}.{kept or '0'}"


def _partition(text: str, partitions: int) -> int:
    return hashlib.md5(text.encode()).digest()[0] % partitions


@dataclass
class CanalEncoder:
    """canal's messages; CloudCanal's JSON (generators.cloudcanal) writes the same statements its own way."""

    profile: Profile
    table: Table
    index: int = 0
    batches: int = 0
    format_id = FORMAT
    format_version = FORMAT_VERSION
    binlog_decimals = True  # decimals as canal's LogBuffer reads them (binlog_decimal_text)

    def _source(self) -> dict:
        return {"system": "mysql", "server": None, "database": self.profile.database, "schema": None,
                "table": self.table.name}

    def _key_columns(self) -> list:
        """The key the message names (pkNames), in the table's column order: what the normalizer can know of it."""
        return [c for c in self.table.columns if c.pk_position]

    def encode(self, history: History) -> list[Expected]:
        out = []
        for tx in history.transactions:
            self.batches += 1
            for statement in self._statements(tx):
                out += self._statement(statement, tx)
        return out

    def _statements(self, tx: Transaction) -> list[list[Change]]:
        """The transaction's rows events: its statements as the binary log keeps them (an UPDATE that changes nothing
        logs no row), or (drawn) a run of changes of one kind as one multi-row statement."""
        if self.profile.per_statement:
            return [rows for rows in ([c for c in statement if c.binlogged] for statement in tx.statements()) if rows]
        statements: list[list[Change]] = []
        for change in tx.changes:
            if statements and change.kind == statements[-1][0].kind != "TRUNCATE":
                statements[-1].append(change)
            else:
                statements.append([change])
        return statements

    def _es(self, tx: Transaction) -> int:
        """The binlog header's time, in milliseconds of whole seconds: when the statement started, not when it
        committed. A transaction of a multiple of three changes stands for a long one, started 2 s before its commit,
        so `es` goes backwards within a partition as it does on a real server (issue 39 A10)."""
        started = 2 if len(tx.changes) % 3 == 0 else 0
        return (int(tx.commit_time.timestamp()) - started) * 1000

    def _message(self, tx: Transaction, type_: str, rows: list[Change] | None, sql: str = "") -> dict:
        columns = self.table.columns
        ddl = rows is None
        message = {
            "data": None if rows is None else [self._row(c.old if type_ == "DELETE" else c.new) for c in rows],
            "database": self.profile.database, "es": self._es(tx), "id": self.batches, "isDdl": ddl,
            "mysqlType": None if ddl else {c.name: self._type(c)[0] for c in columns},
            "old": self._old(rows) if rows is not None and type_ == "UPDATE" else None,
            "pkNames": None if ddl else self._key_names(), "sql": sql,
            "sqlType": None if rows is None else self._sql_types(rows, type_),
            "table": self.table.name, "ts": self._es(tx) + tx.emit_lag_us // 1000, "type": type_}
        if self.profile.gtid:
            message["gtid"] = f"3e11fa47-71ca-11e1-9e33-c80aa9429562:{self.index * 1000 + self.batches}"
        return message

    def _sql_types(self, rows: list[Change], type_: str) -> dict[str, int]:
        """sqlType: MQMessageUtils puts each row's codes into one map, so the last row's stand; and a NULL's code is
        RowsLogBuffer.mysqlToJavaType's, which differs from a value's for two kinds (seen on 1.1.4): a text or blob
        column is LONGVARBINARY (a value: CLOB or BLOB, set by LogEventConvert), a SET is BINARY (a value: BIT)."""
        last = rows[-1].old if type_ == "DELETE" else rows[-1].new

        def code(column) -> int:
            value_code = self._type(column)[1]
            if last[column.name] is not None:
                return value_code
            return -2 if column.logical.kind == "SET" else -4 if value_code in _LOB_CODES else value_code

        return {c.name: code(c) for c in self.table.columns}

    def _type(self, column) -> tuple[str, int, str]:
        if self.profile.server_types:
            return server_type(column.logical, bool(column.pk_position))
        return mysql_type(column.logical, column.name)

    def _row(self, row) -> dict:
        return {c.name: self._text(c, row[c.name]) for c in self.table.columns}

    def _text(self, column, value) -> str | None:
        """value_text, except that some DATE and DATETIME columns hold MySQL's zero date where the oracle has
        NULL: where NO_ZERO_DATE is off MySQL stores '0000-00-00', and it means no date (Debezium: NULL)."""
        if value is None and self._quirks and zlib.crc32(column.name.encode()) % 2 == 0:
            return {"DATE": "0000-00-00", "TIMESTAMP": "0000-00-00 00:00:00"}.get(column.logical.kind)
        if value is not None and column.logical.kind == "DECIMAL" and self.binlog_decimals:
            return binlog_decimal_text(canonical_text(column.logical, value) or "")
        return value_text(column.logical, value)

    @property
    def _quirks(self) -> bool:
        return self.profile.quirks

    def _key_names(self) -> list[str]:
        """pkNames: the key columns in the table's column order (MQMessageUtils walks a row's columns and takes those
        marked as key: the key's own order is not written). canal reads them from its table metadata, whose case may
        differ from the row event's (MySQL names are case-insensitive): some tables' keys are named in the other case."""
        names = [c.name for c in self._key_columns()]
        if self._quirks and zlib.crc32(self.table.name.encode()) % 3 == 0:
            return [n.swapcase() if n.isascii() and n.swapcase().lower() == n.lower() else n for n in names]
        return names

    def _old(self, rows: list[Change]) -> list[dict]:
        """canal: the before values of the columns updated so far in this message (its updateSet grows over
        the rows and is never reset); CloudCanal's flavour: every column. Updated as canal decides it
        (LogEventConvert.isUpdate): the column's text before and after differ, not the values (a double's 0.0 and -0.0
        are equal, their texts are not: found by a drawn history, the oracle said unchanged where canal says updated)."""
        changed: set[str] = set()
        out = []
        for change in rows:
            changed |= {c.name for c in self.table.columns
                        if self._text(c, change.old[c.name]) != self._text(c, change.new[c.name])}
            names = [c.name for c in self.table.columns if self.profile.old_columns == "all" or c.name in changed]
            out.append({n: self._text(self._column(n), change.old[n]) for n in names})
        return out

    def _column(self, name: str):
        return next(c for c in self.table.columns if c.name == name)

    def _statement(self, changes: list[Change], tx: Transaction) -> list[Expected]:
        if not changes:
            return []
        kind = changes[0].kind
        if kind == "TRUNCATE":
            sql = f"TRUNCATE TABLE `{self.table.name}`"
            message = self._message(tx, "TRUNCATE", None, sql)
            return [self._expected(message, 0, lambda offset: [self._control(tx, offset, sql)])]
        if self.profile.partition_hash != "pk":
            partition = 0 if self.profile.partition_hash is None else _partition(self.table.name, self.profile.partitions)
            return self._rows_message(changes, tx, partition)
        # one message per partition, each with its rows (canal's messagePartition), in partition order
        by_partition: dict[int, list[Change]] = {}
        for change in changes:
            row = change.old if kind == "DELETE" else change.new
            key = "|".join(str(row[c.name]) for c in self.table.key_columns)
            by_partition.setdefault(_partition(key, self.profile.partitions), []).append(change)
        return [item for p, rows in sorted(by_partition.items()) for item in self._rows_message(rows, tx, p)]

    def _rows_message(self, changes: list[Change], tx: Transaction, partition: int) -> list[Expected]:
        type_ = changes[0].kind
        message = self._message(tx, type_, changes)
        rows = self._expected(message, partition, lambda offset: self._oracle(changes, tx, offset))
        return [self._annotation(changes, tx, partition), rows] if self.profile.annotations else [rows]

    def _annotation(self, changes: list[Change], tx: Transaction, partition: int) -> Expected:
        """MariaDB logs the statement's text before its rows (binlog_annotate_row_events, on by default) and canal
        writes it as a QUERY message, which canal's own default (canal.instance.filter.query.dml=false) keeps, with
        `database` and `table` empty (LogEventConvert.parseAnnotateRowsEvent, buildQueryEntry)."""
        sql = f"{_STATEMENT_WORDS[changes[0].kind]} `{self.profile.database}`.`{self.table.name}`"
        message = {"data": None, "database": "", "es": self._es(tx), "id": self.batches, "isDdl": False,
                   "mysqlType": None, "old": None, "pkNames": None, "sql": sql, "sqlType": None, "table": "",
                   "ts": self._es(tx) + tx.emit_lag_us // 1000, "type": "QUERY"}
        return self._expected(message, partition, lambda offset: [self._statement_text(tx, offset, sql)])

    def _expected(self, message: dict, partition: int, events_at) -> Expected:
        value = json.dumps(message, ensure_ascii=False).encode()
        return Expected(KafkaRecord(self.profile.topic, partition, None, value), events_at=events_at)

    # -- oracle --------------------------------------------------------------------------------------
    def _base(self, tx: Transaction, offset: int, seq: int | None) -> dict:
        es = dt.datetime.fromtimestamp(self._es(tx) / 1000, dt.UTC)
        return dict(event_id="", format=self.format_id, format_version=self.format_version, origin=[],
                    source=self._source(),
                    position={"commit": f"{offset:020d}", "event": f"{self._es(tx):020d}",
                              "seq": keys.PLAIN_SEQ if seq is None else f"{seq:020d}"},
                    commit_ts=es, emit_ts=es + dt.timedelta(milliseconds=tx.emit_lag_us // 1000))

    def _control(self, tx: Transaction, offset: int, sql: str) -> CanonicalEvent:
        return CanonicalEvent(kind="TRUNCATE", ddl={"statement": sql, "change": "TRUNCATE"}, **self._base(tx, offset, None))

    def _statement_text(self, tx: Transaction, offset: int, sql: str) -> CanonicalEvent:
        """A QUERY message: a DDL event of change OTHER with the statement (docs/formats/canal-json.md)."""
        source = {**self._source(), "database": None, "table": None}
        return CanonicalEvent(kind="DDL", ddl={"statement": sql, "change": "OTHER"},
                              **{**self._base(tx, offset, None), "source": source})

    def _oracle(self, changes: list[Change], tx: Transaction, offset: int) -> list[CanonicalEvent]:
        table, key_columns = self.table, self._key_columns()
        positions = {c.name: index + 1 for index, c in enumerate(key_columns)}
        columns = [Column(c.name, i + 1, self._type(c)[0], self._type(c)[2], None, positions.get(c.name))
                   for i, c in enumerate(table.columns)]

        def image(values):
            return {c.name: canonical_text(c.logical, values[c.name]) for c in table.columns}

        def key(values):
            return [(c.name, canonical_text(c.logical, values[c.name])) for c in key_columns] or None

        source = self._source()
        group_parts = {"system": source["system"], "server": "", "database": source["database"], "schema": source["schema"],
                       "table": table.name}
        out = []
        for i, change in enumerate(changes):  # a message's rows are numbered: an update's halves take 2i and 2i+1
            row = dict(kind="ROW", snapshot=False, columns=columns, **self._base(tx, offset, 2 * i))
            out += change_events(change, row, key, image, group_parts, half_seq={"OLD": f"{2 * i:020d}", "NEW": f"{2 * i + 1:020d}"})
        return out


def encode(history: History, profile: Profile, index: int = 0) -> list[Expected]:
    return CanalEncoder(profile, history.table, index).encode(history)


# ------------------------------------------------------------------------------------------------
# Mutators
# ------------------------------------------------------------------------------------------------

def longer_list(rows: str, operation: str):
    """A change that repeats the last row of the update's `rows` list (canal `old`, CloudCanal `before`)."""
    def change(message: dict) -> bool:
        if message.get(operation) != "UPDATE" or not message.get(rows):
            return False
        message[rows].append(message[rows][-1])
        return True
    return change


def undeclared_column(message: dict) -> bool:
    if not message.get("data"):
        return False
    message["data"][-1]["undeclared_column"] = "x"
    return True


_JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_FLOATING_TYPES = ("double", "real", "float")
_NUMERIC_TYPE = re.compile(r"((tiny|small|medium|big)?int|integer|dec|decimal|numeric|fixed|double|real|float)[0-9]?", re.IGNORECASE)


def numbers_unquoted(row_lists: tuple[str, ...], types: str):
    """A change writing the row values of numeric columns as JSON numbers, digits as they were: what canal
    flavours built on FlatMessage with typed values (Flink's and Paimon's test data) write; same events.
    Up to 38 digits: a number past a Spark decimal's is UNDECODABLE_VALUE (docs/formats/canal-json.md)."""
    def change(message: dict) -> bool:
        numeric = {name for name, text in (message.get(types) or {}).items()
                   if _NUMERIC_TYPE.fullmatch(re.split(r"[ (]", text, maxsplit=1)[0])}
        changed = False
        for row in (row for member in row_lists for row in message.get(member) or []):
            for name, value in row.items():
                if (name in numeric and isinstance(value, str) and _JSON_NUMBER.fullmatch(value)
                        and sum(c.isdigit() for c in re.split("[eE]", value)[0]) <= 38):
                    row[name], changed = Number(value), True
        return changed
    return change


def float_beyond_double(row_lists: tuple[str, ...], types: str):
    """A change writing one double column's value as 1e400 or 1e-400 (text or number token): only a double
    could read it, as Infinity or 0.0, so the record is UNDECODABLE_VALUE (docs/formats/canal-json.md)."""
    def change(message: dict) -> bool:
        doubles = [name for name, text in (message.get(types) or {}).items() if text.lower().startswith(_FLOATING_TYPES)]
        rows = [row for member in row_lists for row in message.get(member) or [] if any(row.get(d) is not None for d in doubles)]
        if not rows:
            return False
        name = next(d for d in doubles if rows[0].get(d) is not None)
        rows[0][name] = ("1e400", Number("-1e-400"))[len(message.get(row_lists[0]) or []) % 2]
        return True
    return change


def _unknown_type(message: dict) -> bool:
    if not message.get("mysqlType"):
        return False
    name = next(iter(message["mysqlType"]))
    message["mysqlType"][name] = "geography"
    message["sqlType"][name] = 10000  # CloudCanal's private "unknown"
    return True


def _delete_without_data(message: dict) -> bool:
    if message["type"] != "DELETE":
        return False
    message["data"] = None
    return True


def _delete_of_null_key(message: dict) -> bool:
    """A DELETE whose row holds NULL for a key column: which row was deleted is unknown (MISSING_OLD_KEY),
    never a DELETE of key NULL (issue 19 A)."""
    key_names, rows = message.get("pkNames") or [], message.get("data") or []
    if message.get("type") != "DELETE" or not key_names or not rows or rows[0].get(key_names[0]) is None:
        return False
    rows[0][key_names[0]] = None
    return True


MUTATORS = {
    "delete-of-null-key": json_mutator(_delete_of_null_key, Code.MISSING_OLD_KEY),
    "old-longer-than-data": json_mutator(longer_list("old", "type"), Code.SCHEMA_MISMATCH),
    "row-names-undeclared-column": json_mutator(undeclared_column, Code.SCHEMA_MISMATCH),
    "unknown-mysql-type": json_mutator(_unknown_type, Code.UNKNOWN_COLUMN_TYPE),
    "delete-with-data-null": json_mutator(_delete_without_data, Code.MISSING_FIELD),
    "values-as-json-numbers": absorbed_json_mutator(numbers_unquoted(("data", "old"), "mysqlType")),
    "float-beyond-double": json_mutator(float_beyond_double(("data", "old"), "mysqlType"), Code.UNDECODABLE_VALUE),
}


# ------------------------------------------------------------------------------------------------
# Hostile records
# ------------------------------------------------------------------------------------------------

def hostile_message(n: int, type_: str = "INSERT", data="default", old=None, mysql_type=None, **fields) -> bytes:
    message = {"data": [{"id": str(n), "v": "x"}] if data == "default" else data, "database": "shop",
               "es": 1700000000000 + n * 1000, "id": n, "isDdl": False,
               "mysqlType": mysql_type or {"id": "int(11)", "v": "varchar(32)"}, "old": old, "pkNames": ["id"],
               "sql": "", "sqlType": {"id": 4, "v": 12}, "table": "t", "ts": 1700000000123 + n * 1000, "type": type_}
    message.update(fields)
    return json.dumps({k: v for k, v in message.items() if v != "<absent>"}).encode()


def _many_rows(count: int) -> bytes:
    return hostile_message(40, data=[{"id": str(i), "v": f"row {i}"} for i in range(count)])


HOSTILE: dict[str, Hostile] = {name: Hostile(value, code) for name, (value, code) in {
    "no value": (None, Code.MISSING_FIELD),
    "not JSON": (b'{"type": "INSERT", ', Code.MALFORMED_JSON),
    "not UTF-8": (b'{"type": "\xff"}', Code.NOT_UTF8),
    "no type": (hostile_message(1, type_="<absent>"), Code.MISSING_FIELD),
    "unknown type": (hostile_message(2, type_="UPSERT"), Code.UNKNOWN_OPERATION),
    "GTID": (hostile_message(3, type_="GTID", data=None), Code.UNMAPPED_CONTROL_EVENT),
    "DELETE with data null": (hostile_message(4, type_="DELETE", data=None), Code.MISSING_FIELD),
    "old longer than data": (hostile_message(5, type_="UPDATE", old=[{"v": "a"}, {"v": "b"}]), Code.SCHEMA_MISMATCH),
    "lists of different lengths": (hostile_message(6, type_="UPDATE", data=[{"id": "6", "v": "x"}, {"id": "7", "v": "y"}],
                                                   old=[{"v": "a"}]), Code.SCHEMA_MISMATCH),
    "row names an undeclared column": (hostile_message(7, data=[{"id": "7", "v": "x", "w": "y"}]), Code.SCHEMA_MISMATCH),
    "unknown mysqlType": (hostile_message(8, mysql_type={"id": "int(11)", "v": "geography"}), Code.UNKNOWN_COLUMN_TYPE),
    "int value not a number": (hostile_message(9, data=[{"id": "nine", "v": "x"}]), Code.UNDECODABLE_VALUE),
    "binary above U+00FF": (hostile_message(10, mysql_type={"id": "int(11)", "v": "varbinary(8)"},
                                            data=[{"id": "10", "v": "\u4e2d"}]), Code.UNDECODABLE_VALUE),
    "unsigned bigint beyond INT64": (hostile_message(11, mysql_type={"id": "bigint(20) unsigned", "v": "varchar(8)"},
                                                     data=[{"id": "18446744073709551615", "v": "x"}]), None),
    "pkNames null": (hostile_message(12, pkNames=None), None),
    "primary key not typed": (hostile_message(13, pkNames=["nope"]), Code.SCHEMA_MISMATCH),
    "es not a number": (hostile_message(14, es="yesterday"), Code.UNDECODABLE_VALUE),
    "10,000 rows in one message": (_many_rows(10_000), None),
    # issue 18: what a message may say that must never fail the job or give a wrong value
    "decimal scale 2147483647": (hostile_message(15, mysql_type={"id": "int(11)", "v": "decimal(10,2147483647)"},
                                                 data=[{"id": "15", "v": "1.5"}]), Code.UNKNOWN_COLUMN_TYPE),
    "old names a member twice": (b'{"data":[{"id":"16","v":"b"}],"old":[{"v":"a","v":"b"}],"database":"shop",'
                                 b'"es":1700000016000,"ts":1700000016000,"table":"t","pkNames":["id"],"type":"UPDATE",'
                                 b'"mysqlType":{"id":"int(11)","v":"varchar(3)"}}', Code.DUPLICATE_KEY),
    "data row names the key twice": (b'{"data":[{"id":"17","id":"18"}],"database":"shop","es":1700000017000,'
                                     b'"ts":1700000017000,"table":"t","pkNames":["id"],"type":"INSERT",'
                                     b'"mysqlType":{"id":"int(11)"}}', Code.DUPLICATE_KEY),
    "es int64 max": (hostile_message(18, es=2 ** 63 - 1), Code.UNDECODABLE_VALUE),
    "es int64 min": (hostile_message(19, es=-2 ** 63), Code.UNDECODABLE_VALUE),
    "double 1e400": (hostile_message(20, mysql_type={"id": "int(11)", "v": "double"}, data=[{"id": "20", "v": "1e400"}]),
                     Code.UNDECODABLE_VALUE),
    "double 1e-400": (hostile_message(21, mysql_type={"id": "int(11)", "v": "double"}, data=[{"id": "21", "v": "1e-400"}]),
                      Code.UNDECODABLE_VALUE),
    "valid neighbour": (hostile_message(100), None),
}.items()}


# ------------------------------------------------------------------------------------------------
# The plug-in declaration
# ------------------------------------------------------------------------------------------------

examples = profile_examples(profiles, VALUE_TYPES + ENUM_SET_TYPES, allow_snapshot=False, max_changes=10, update_runs=True)
render = profile_render(encode)


def coverage(events: list[dict], quarantine: list[dict]) -> list[str]:
    multi_row = any(e["position"] and e["position"]["seq"] not in (None, f"{0:020d}", f"{1:020d}") for e in events)
    problems = [] if multi_row else ["no message with several rows"]
    return problems + ([] if any(e["pk_change"] for e in events) else ["no key change drawn"])


def shared_history(history, topic: str, index: int):
    return render((Profile(), history), topic, index)


# The FlatMessage as Spark DDL, the way a job that only parses the topic reads it (the benchmark's plain pass)
PLAIN_SCHEMA = ("struct<data:array<map<string,string>>,old:array<map<string,string>>,database:string,table:string,"
                "pkNames:array<string>,isDdl:string,type:string,es:string,ts:string,sql:string,sqlType:map<string,string>,"
                "mysqlType:map<string,string>,id:string,gtid:string>")


def _plain_schema() -> str:
    return PLAIN_SCHEMA


GENERATOR = FormatGenerator(
    format_id=FORMAT,
    examples=examples,
    render=render,
    partitions=lambda example: example[0].partitions if example[0].partition_hash else 1,
    mutators=MUTATORS,
    hostile=HOSTILE,
    coverage=coverage,
    shared_history=shared_history,
    bench=history_bench(shared_history, _plain_schema),
    value_types=tuple(VALUE_TYPES + ENUM_SET_TYPES),
    history_features=frozenset({"key-change", "truncate"}),
    ordered_within_partition=True,
    ordered_members=frozenset({"mysqlType", "sqlType"}),  # LinkedHashMaps in column order: the column positions
)
