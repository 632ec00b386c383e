"""Histories a real PostgreSQL can hold: the generators' histories over the types PostgreSQL has, with the one
value it refuses (NUL in text) replaced, and keys short enough to stay in the row (docs/producers.md)."""
from __future__ import annotations

from dataclasses import replace

from generators.history import History, histories, tables
from generators.values import ALL_TYPES, KEY_TYPES
from harness.producers.statements import postgres_holds

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


# A key column PostgreSQL stores out of line (TOAST) makes it log the old key on every UPDATE, changed or not
# (heapam.c, heap_update: ExtractReplicaIdentity(..., key_changed || id_has_external)), and under REPLICA IDENTITY
# DEFAULT the connector then writes that key, with its fallbacks for the other columns, as the update's `before`.
# Whether a value goes out of line depends on how well the row compresses, which the generator cannot know; a key
# of at most 1,000 bytes never does (the row's larger values go first, and what is left is below the 2 kB threshold).
# Found by `certify debezium-json@3.2 --producer real`: a drawn key of a few kilobytes.
MAX_KEY_BYTES = 1000


def _key_inline(value):
    if not isinstance(value, str) or len(value.encode()) <= MAX_KEY_BYTES:
        return value
    while len(value.encode()) > MAX_KEY_BYTES:
        value = value[:-1]
    return value


def _keys_inline(history: History) -> History:
    keys = {c.name for c in history.table.key_columns}

    def row(values):
        return None if values is None else {name: _key_inline(value) if name in keys else value for name, value in values.items()}

    transactions = tuple(replace(tx, changes=tuple(replace(c, before=row(c.before), after=row(c.after))
                                                   for c in tx.changes)) for tx in history.transactions)
    return replace(history, transactions=transactions)


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


def postgres_histories(max_changes: int = 8, max_columns: int = 5):
    value_types = [t for t in ALL_TYPES if postgres_holds(t)]
    return histories(tables(KEY_TYPES, value_types, max_columns=max_columns), max_changes=max_changes) \
        .map(_text_safe).map(_keys_inline).filter(_keys_distinct)

