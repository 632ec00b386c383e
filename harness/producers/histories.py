"""Histories a real database can hold: the generators' histories over the types it has, with the values it refuses
replaced, and keys short enough to stay in the row (docs/producers.md)."""
from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import replace

from hypothesis import strategies as st

from cdc_conformance.generators import canal
from cdc_conformance.generators.canal import ENUM_SET_TYPES
from cdc_conformance.generators.history import ColumnSpec, History, histories, tables
from cdc_conformance.generators.mariadb_ddl import KEY_CHARS as MARIADB_KEY_CHARS
from cdc_conformance.generators.values import (
    ALL_TYPES,
    BITS_TYPES,
    DURATION_TYPE,
    KEY_TYPES,
    PG_TIMESTAMP_TYPES,
    POSTGRES_TYPES,
    TIME_24_TYPE,
    VARBIT_TYPES,
    LogicalType,
)
from cdc_conformance.harness.producers.statements import MARIADB, POSTGRES

# PostgreSQL's text cannot hold U+0000 ("invalid byte sequence for encoding UTF8: 0x00"); bytea can
_NUL_STANDIN = "\ufffd"

# A key column PostgreSQL stores out of line (TOAST) makes it log the old key on every UPDATE, changed or not
# (heapam.c, heap_update: ExtractReplicaIdentity(..., key_changed || id_has_external)), and under REPLICA IDENTITY
# DEFAULT the connector then writes that key, with its fallbacks for the other columns, as the update's `before`.
# Whether a value goes out of line depends on how well the row compresses, which the generator cannot know; a key
# of at most 1,000 bytes never does (the row's larger values go first, and what is left is below the 2 kB threshold).
# Found by `certify debezium-json@3.2 --producer real`: a drawn key of a few kilobytes.
MAX_KEY_BYTES = 1000

# MariaDB's TIMESTAMP holds instants from 1970-01-01 00:00:01 to 2038-01-19 03:14:07.999999 UTC (10.11)
_MARIADB_INSTANTS = (dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.UTC), dt.datetime(2038, 1, 19, 3, 14, 7, 999999, tzinfo=dt.UTC))


def _with_values(history: History, value: Callable[[ColumnSpec, object], object]) -> History:
    """The history with every non-null value `v` of column `c` in every image replaced by `value(c, v)`."""
    columns = {c.name: c for c in history.table.columns}

    def row(values):
        return None if values is None else {
            name: v if v is None else value(columns[name], v) for name, v in values.items()}

    transactions = tuple(replace(tx, changes=tuple(replace(c, before=row(c.before), after=row(c.after))
                                                   for c in tx.changes)) for tx in history.transactions)
    return replace(history, transactions=transactions)


def _postgres_value(column: ColumnSpec, value):
    if column.logical.kind == "TEXT_ARRAY":
        return [item if item is None else item.replace("\x00", _NUL_STANDIN) for item in value]
    if column.logical.kind == "STRING":
        value = value.replace("\x00", _NUL_STANDIN)
        if column.pk_position:
            while len(value.encode()) > MAX_KEY_BYTES:
                value = value[:-1]
    return value


def _mariadb_value(column: ColumnSpec, value):
    """MariaDB has no NaN or infinity in DOUBLE (`Infinity` is refused), and its TIMESTAMP ends in 2038: such values
    become the nearest it holds. A text key is a VARCHAR of 250 characters. YEAR 0000 breaks the connector (the
    fidelity table): it becomes 1901, and a BIGINT UNSIGNED past 2^63 - 1, which the connector writes negative,
    loses its top bit."""
    kind = column.logical.kind
    if kind == "FLOAT64" and not math.isfinite(value):
        return 0.0 if math.isnan(value) else math.copysign(1.7976931348623157e308, value)
    if kind == "TIMESTAMP_TZ":
        return min(max(value, _MARIADB_INSTANTS[0]), _MARIADB_INSTANTS[1])
    if kind == "STRING" and column.pk_position:
        return value[:MARIADB_KEY_CHARS]
    if kind == "YEAR" and value == 0:  # YEAR 0000: the connector fails its snapshot on it, and streams it as 1900
        return 1901
    if kind == "UINT64" and value >= 2 ** 63:  # the connector's `long` mode writes it as a negative int64
        return value - 2 ** 63
    return value


def _keys_distinct(history: History) -> bool:
    """Replacing NUL or shortening a key could make two drawn keys one; such a history is drawn again."""
    live: set = set()
    for change in history.changes():
        if change.kind == "TRUNCATE":
            live.clear()
            continue
        if change.before is not None:
            live.discard(history.table.key_of(change.before))
        if change.after is not None:
            key = history.table.key_of(change.after)
            if key in live:
                return False
            live.add(key)
    return True


def postgres_types() -> list[LogicalType]:
    """... with its bit varying(n), its time that runs to 24:00:00, and the types of its own users hold
    (generators.postgres_values)."""
    return [t for t in ALL_TYPES + BITS_TYPES if POSTGRES.holds(t)] + VARBIT_TYPES + [TIME_24_TYPE] + PG_TIMESTAMP_TYPES + POSTGRES_TYPES


def _histories(value_types, value: Callable[[ColumnSpec, object], object], max_changes: int, max_columns: int,
               required_types, allow_truncate: bool = True, lost_kinds=(), allow_key_change: bool = True) -> st.SearchStrategy:
    """Histories over `value_types` with every value passed through `value`; `required_types`: value columns every
    drawn table has (generators.history.tables); `lost_kinds`: kinds the run's connector loses, drawn in none."""
    value_types = [t for t in value_types if t.kind not in lost_kinds]
    required_types = tuple(t for t in required_types if t.kind not in lost_kinds)
    return histories(tables(KEY_TYPES, value_types, max_columns, required_types), max_changes=max_changes,
                     allow_truncate=allow_truncate, allow_key_change=allow_key_change) \
        .map(lambda history: _with_values(history, value)).filter(_keys_distinct)


def postgres_histories(max_changes: int = 8, max_columns: int = 5, required_types=(), allow_truncate: bool = True,
                       lost_kinds=()):
    return _histories(postgres_types(), _postgres_value, max_changes, max_columns, required_types, allow_truncate,
                      lost_kinds)


def _bmp_labels(logical):
    """An ENUM or SET whose labels outside the Basic Multilingual Plane are U+FFFD: MariaDB's metadata is utf8mb3
    (character_set_system), so the table definition the connector reads (SHOW CREATE TABLE) has '?' for such a
    character, and so has every value the connector writes for that label (seen on 3.3.0: docs/producers.md)."""
    labels = tuple("".join(c if ord(c) <= 0xFFFF else "\ufffd" for c in label) for label in logical.labels)
    return replace(logical, labels=labels)


def mariadb_types() -> list[LogicalType]:
    """... with MySQL's ENUM and SET (canal's labels: quotes, spaces, accents, a SET of 64 members), YEAR, JSON,
    INT UNSIGNED, BIGINT UNSIGNED and GEOMETRY (points and line strings)."""
    return [t for t in ALL_TYPES + BITS_TYPES if MARIADB.holds(t)] + [_bmp_labels(t) for t in ENUM_SET_TYPES] \
        + [LogicalType("YEAR"), LogicalType("JSON"), LogicalType("UINT32"), LogicalType("UINT64"), LogicalType("GEOMETRY"),
           DURATION_TYPE]


def mariadb_histories(max_changes: int = 8, max_columns: int = 5, required_types=(), allow_truncate: bool = True,
                      lost_kinds=(), allow_key_change: bool = True):
    return _histories(mariadb_types(), _mariadb_value, max_changes, max_columns, required_types, allow_truncate,
                      lost_kinds, allow_key_change)



def mariadb_canal_types() -> list[LogicalType]:
    """The canal generator's types that MariaDB holds, ENUM and SET labels as its metadata keeps them (canal reads a
    table's definition from the server, as Debezium does)."""
    return [t for t in canal.VALUE_TYPES if MARIADB.holds(t)] + [_bmp_labels(t) for t in ENUM_SET_TYPES]


_HOUR = dt.timedelta(hours=1)


def _canal_value(column: ColumnSpec, value):
    """What MariaDB holds (`_mariadb_value`), but for a duration of exactly 100 hours, which canal 1.1.4 writes as
    `00:...` (RowsLogBuffer, TIME2: `if (d > 100)`, later `d >= 100`): it becomes 99 hours (docs/producers.md)."""
    value = _mariadb_value(column, value)
    if column.logical.kind == "DURATION" and int(abs(value.total_seconds())) // 3600 == 100:
        return value - _HOUR if value > dt.timedelta(0) else value + _HOUR
    return value


def mariadb_canal_histories(index: int, types_per_history: int = 4, max_changes: int = 8):
    """History `index` of a canal run: `types_per_history` of mariadb_canal_types() for sure, the next ones in turn."""
    types = mariadb_canal_types()
    required = tuple(types[(index * types_per_history + i) % len(types)] for i in range(types_per_history))
    return _histories(types, _canal_value, max_changes, 5, required)
