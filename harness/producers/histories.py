"""Histories a real PostgreSQL can hold: the generators' histories over the types PostgreSQL has, with the one
value it refuses (NUL in text) replaced."""
from __future__ import annotations

from dataclasses import replace

from generators.history import History, histories, tables
from generators.values import ALL_TYPES, KEY_TYPES
from harness.producers.statements import POSTGRES_KINDS

# PostgreSQL's text cannot hold U+0000 ("invalid byte sequence for encoding UTF8: 0x00"); bytea can
_NUL_STANDIN = "\ufffd"


def _text_safe(history: History) -> History:
    strings = {c.name for c in history.table.columns if c.logical.kind == "STRING"}

    def row(values):
        return None if values is None else {
            name: value.replace("\x00", _NUL_STANDIN) if name in strings and isinstance(value, str) else value
            for name, value in values.items()}

    transactions = tuple(replace(tx, changes=tuple(replace(c, before=row(c.before), after=row(c.after))
                                                   for c in tx.changes)) for tx in history.transactions)
    return replace(history, transactions=transactions)


def _keys_distinct(history: History) -> bool:
    """Replacing NUL could make two drawn keys one; such a history is drawn again."""
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


def postgres_histories(max_changes: int = 8, max_columns: int = 5):
    value_types = [t for t in ALL_TYPES if t.kind in POSTGRES_KINDS]
    return histories(tables(KEY_TYPES, value_types, max_columns=max_columns), max_changes=max_changes) \
        .map(_text_safe).filter(_keys_distinct)

