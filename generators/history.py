"""Database histories: typed tables and the changes applied to them, as Hypothesis strategies.

A history is the single truth that every format encoder renders; the same history also yields the
expected canonical events (each encoder module knows how its format maps onto the canonical model).
"""
from __future__ import annotations

import datetime as dt
import functools
import string
import struct
from dataclasses import dataclass, field, replace

from hypothesis import strategies as st

from cdc_conformance.generators.values import ALL_TYPES, KEY_TYPES, LogicalType, value_strategy

Row = dict  # column name -> Python value (None = SQL NULL)


@dataclass(frozen=True)
class ColumnSpec:
    name: str
    logical: LogicalType
    nullable: bool
    pk_position: int | None = None  # 1-based position in the primary key


@dataclass(frozen=True)
class Table:
    schema: str
    name: str
    columns: tuple[ColumnSpec, ...]

    @property
    def key_columns(self) -> list[ColumnSpec]:
        return sorted((c for c in self.columns if c.pk_position), key=lambda c: c.pk_position or 0)

    def key_of(self, row: Row) -> tuple:
        return tuple(row[c.name] for c in self.key_columns)


def _stored_alike(before: Row, after: Row) -> bool:
    """Whether two row images are stored alike: equal values of one type, doubles bit for bit (0.0 is not -0.0)."""
    def stored(value):
        return (type(value), struct.pack(">d", value)) if isinstance(value, float) else (type(value), value)

    return all(stored(before[name]) == stored(after[name]) for name in before)


@dataclass(frozen=True)
class Change:
    """One row-level change or table-level event inside a transaction."""

    kind: str                      # READ (snapshot), INSERT, UPDATE, DELETE, TRUNCATE
    before: Row | None = None
    after: Row | None = None
    # UPDATE: the columns the statement set, whether or not their value changed (SQL Server's update mask,
    # MySQL's MINIMAL after image); a key column set to the value it had is among them and is no key change.
    # None: every column whose value changed
    set_columns: frozenset[str] | None = None

    @property
    def old(self) -> Row:
        """The before image of a change that has one (UPDATE, DELETE)."""
        if self.before is None:
            raise ValueError(f"a {self.kind} has no before image")
        return self.before

    @property
    def new(self) -> Row:
        """The after image of a change that has one (READ, INSERT, UPDATE)."""
        if self.after is None:
            raise ValueError(f"a {self.kind} has no after image")
        return self.after

    def columns_set(self, table: Table) -> frozenset[str]:
        if self.set_columns is not None:
            return self.set_columns
        return frozenset(c.name for c in table.columns if self.old[c.name] != self.new[c.name])

    @property
    def binlogged(self) -> bool:
        """Whether MySQL or MariaDB logs a row for it: an UPDATE that leaves its row as it was writes no row event
        (handler::ha_update_row logs only rows whose image changed, compare_record; seen with Debezium and canal)."""
        return not (self.kind == "UPDATE" and _stored_alike(self.old, self.new))


@dataclass(frozen=True)
class Transaction:
    changes: tuple[Change, ...]
    commit_time: dt.datetime       # UTC, millisecond precision (what databases report)
    emit_lag_us: int               # capture tool's processing delay, microseconds
    snapshot: bool = False
    # consecutive INSERTs ran as one multi-row INSERT: a binlog holds them in one Rows event (one position, rows 0, 1,
    # ...) while the event stays below the server's binlog_row_event_max_size (8 KiB by default; past it the server
    # starts another event, which no generator draws: the real-producer tier's server takes 64 MiB)
    multi_row_inserts: bool = False
    multi_row_updates: bool = False  # its UPDATEs are one statement (a generator's update run: histories(update_runs=))

    def statements(self) -> list[tuple[Change, ...]]:
        """The changes as the statements that made them: one each, or a run of INSERTs (UPDATEs) together."""
        groups: list[list[Change]] = []
        for change in self.changes:
            if groups and change.kind == groups[-1][-1].kind and (
                    (self.multi_row_inserts and change.kind == "INSERT") or (self.multi_row_updates and change.kind == "UPDATE")):
                groups[-1].append(change)
            else:
                groups.append([change])
        return [tuple(group) for group in groups]


@dataclass(frozen=True)
class History:
    table: Table
    transactions: tuple[Transaction, ...] = field(default_factory=tuple)

    def changes(self):
        for tx in self.transactions:
            yield from tx.changes


# [a-z][a-z0-9_]{0,11}, drawn as its two parts: st.from_regex drew it four times slower (a quarter of a table's time)
_IDENT = st.builds(str.__add__, st.sampled_from(string.ascii_lowercase),
                   st.text(string.ascii_lowercase + string.digits + "_", max_size=11))


@st.composite
def tables(draw, key_types=KEY_TYPES, value_types=ALL_TYPES, max_columns: int = 6, required_types=()) -> Table:
    """Key columns are named k_*, value columns c_*: names never collide, whatever is drawn. `required_types`: value
    columns the table has whatever else is drawn (a tier that runs few tables chooses which types they cover)."""
    key_count = draw(st.integers(1, 2))
    size = key_count + max_columns + len(required_types)
    names = draw(st.lists(_IDENT, min_size=size, max_size=size, unique=True))
    keys = [ColumnSpec(f"k_{names[i]}", draw(st.sampled_from(key_types)), False, i + 1) for i in range(key_count)]
    value_count = draw(st.integers(0, max_columns))
    values = [ColumnSpec(f"c_{names[key_count + i]}", draw(st.sampled_from(value_types)), draw(st.booleans()))
              for i in range(value_count)]
    values += [ColumnSpec(f"c_{names[key_count + value_count + i]}", logical, draw(st.booleans()))
               for i, logical in enumerate(required_types)]
    ordered = draw(st.permutations(keys + values))
    return Table(schema=draw(st.sampled_from(["dbo", "public", "sales"])), name=draw(_IDENT),
                 columns=tuple(ordered))


def row_values(table: Table, columns=None):
    return _row_values(tuple(columns if columns is not None else table.columns))


@functools.lru_cache(maxsize=4096)  # built once per column list: Hypothesis validates every new strategy object it draws
def _row_values(columns: tuple[ColumnSpec, ...]):
    return st.fixed_dictionaries({
        c.name: (st.one_of(st.none(), value_strategy(c.logical)) if c.nullable else value_strategy(c.logical))
        for c in columns
    })


def _fresh_key(draw, table: Table, taken: set) -> dict:
    key = draw(row_values(table, table.key_columns).filter(lambda k: tuple(k.values()) not in taken))
    return key


@st.composite
def histories(draw, table_strategy=None, allow_truncate: bool = True, max_changes: int = 12,
              allow_snapshot: bool = True, allow_key_change: bool = True, update_runs: bool = False) -> History:
    table = draw(table_strategy if table_strategy is not None else tables())
    value_columns = [c for c in table.columns if not c.pk_position]
    state: dict[tuple, Row] = {}
    clock = draw(st.datetimes(dt.datetime(2015, 1, 1), dt.datetime(2030, 1, 1))).replace(microsecond=0)
    clock = clock.replace(tzinfo=dt.UTC)

    def new_row() -> Row:
        key = _fresh_key(draw, table, set(state))
        return {**key, **draw(row_values(table, value_columns))}

    def tick() -> dt.datetime:
        nonlocal clock
        clock += dt.timedelta(milliseconds=draw(st.integers(1, 5_000)))
        return clock

    transactions: list[Transaction] = []
    if allow_snapshot and draw(st.booleans()):
        reads = []
        for _ in range(draw(st.integers(1, 3))):
            row = new_row()
            state[table.key_of(row)] = row
            reads.append(Change("READ", after=row))
        transactions.append(Transaction(tuple(reads), tick(), draw(st.integers(0, 10 ** 6)), snapshot=True))

    remaining = draw(st.integers(1, max_changes))
    while remaining > 0:
        changes = []
        for _ in range(min(remaining, draw(st.integers(1, 3)))):
            remaining -= 1
            choices = ["INSERT"] + (["UPDATE", "DELETE"] + (["KEY_CHANGE"] if allow_key_change else []) if state else [])
            choices += ["TRUNCATE"] if allow_truncate and state else []
            choice = draw(st.sampled_from(choices))
            if choice == "INSERT":
                row = new_row()
                state[table.key_of(row)] = row
                changes.append(Change("INSERT", after=row))
            elif choice in ("UPDATE", "KEY_CHANGE"):
                old = state.pop(draw(st.sampled_from(sorted(state, key=repr))))
                key = _fresh_key(draw, table, set(state) | {table.key_of(old)}) if choice == "KEY_CHANGE" \
                    else {c.name: old[c.name] for c in table.key_columns}
                # real updates often leave columns as they were (what TOAST placeholders are about); a statement
                # may set a column, the key among them, to the value it had (`SET k = k`): no key change
                changed = draw(st.sets(st.sampled_from([c.name for c in value_columns]))) if value_columns else set()
                new = {**old, **key, **draw(row_values(table, [c for c in value_columns if c.name in changed]))}
                key_set = choice == "KEY_CHANGE" or not changed or draw(st.booleans())  # SET names a column
                state[table.key_of(new)] = new
                changes.append(Change("UPDATE", before=old, after=new, set_columns=frozenset(
                    changed | ({c.name for c in table.key_columns} if key_set else set()))))
            elif choice == "DELETE":
                old = state.pop(draw(st.sampled_from(sorted(state, key=repr))))
                changes.append(Change("DELETE", before=old))
            else:
                state.clear()
                changes.append(Change("TRUNCATE"))
        transaction = Transaction(tuple(changes), tick(), draw(st.integers(0, 10 ** 6)))
        if _insert_run(changes):
            transaction = replace(transaction, multi_row_inserts=draw(st.booleans()))
        transactions.append(transaction)
    if update_runs and len(state) >= 2 and len(value_columns) >= 2 and draw(st.booleans()):
        transactions.append(Transaction(_update_run(draw, table, state), tick(), draw(st.integers(0, 10 ** 6)),
                                        multi_row_updates=True))
    return History(table, tuple(transactions))


def _update_run(draw, table: Table, state: dict) -> tuple[Change, ...]:
    """One statement's UPDATE of several rows, each changing its own columns (`UPDATE t SET a = .., b = ..` where one
    row's `a` already had the value): what a multi-row message's per-row images are about (canal's `old` names a
    column only from the row that changed it; Flink's canal-json looked it up in every row, docs/peers.md C1)."""
    value_columns = [c.name for c in table.columns if not c.pk_position]
    changes = []
    for key in draw(st.lists(st.sampled_from(sorted(state, key=repr)), min_size=2, max_size=3, unique=True)):
        old = state[key]
        changed = draw(st.sets(st.sampled_from(value_columns), min_size=1))
        new = {**old, **draw(row_values(table, [c for c in table.columns if c.name in changed]))}
        state[key] = new
        changes.append(Change("UPDATE", before=old, after=new, set_columns=frozenset(changed)))
    return tuple(changes)


def _insert_run(changes: list[Change]) -> bool:
    return any(a.kind == b.kind == "INSERT" for a, b in zip(changes, changes[1:]))
