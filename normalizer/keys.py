"""The `pk_change.group` shared by the DELETE and INSERT that a primary-key change becomes.

Both halves (and the generators' oracle) compute it from what they share: the table, the source
position and both keys, so a pair is found without a join even when its halves sit on different
partitions. One definition, in SQL for the decoders and in Python for the oracle, kept equal by a test.
"""
from __future__ import annotations

import hashlib

from normalizer import canonical_text as ct
from normalizer import sql
from normalizer.model import Code
from normalizer.verdicts import QuarantineRule

PARTS = ("system", "server", "database", "schema", "table", "commit", "event")
# Where a source gives both halves one position (CES: one record; PostgreSQL, MySQL: one log position),
# `position.seq` orders them: the DELETE of the old key strictly before the INSERT of the new key
# (invariant 4, docs/invariants.md). Fixed width like every numeric position part.
HALF_SEQ = {"OLD": f"{0:020d}", "NEW": f"{1:020d}"}
# ... and every other event of such a source has `seq` 0 too: fixed width within a source, so that ordering
# never relies on where NULLs sort
PLAIN_SEQ = HALF_SEQ["OLD"]


def group_sql(parts: dict[str, str], old_key: str, new_key: str) -> str:
    """`parts`: SQL for each of PARTS (NULL reads as ''); `old_key`/`new_key`: map<string,string> of the
    key columns' values as the record wrote them."""
    texts = [f"coalesce({parts[name]}, '')" for name in PARTS]
    texts += [ct.sorted_map_text(old_key), ct.sorted_map_text(new_key)]
    return f"substr(sha2(concat_ws('|', {', '.join(texts)}), 256), 1, 16)"


def group(parts: dict[str, str | None], old_key: dict, new_key: dict) -> str:
    """The same group in Python; key values are rendered with str() (None as 'null')."""
    def key_text(key: dict) -> str:
        return ",".join(sorted(f"{k}={'null' if v is None else v}" for k, v in key.items()))

    texts = [parts.get(name) or "" for name in PARTS] + [key_text(old_key), key_text(new_key)]
    return hashlib.sha256("|".join(texts).encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------------
# Building the two events, for decoders whose record holds both halves (one position for both)
# ---------------------------------------------------------------------------------------------------

ROLES = {1: "OLD", 2: "NEW"}  # event parts: 0 the change as it is, 1 the DELETE of the old key, 2 the INSERT


def half_position(position: str, part: int) -> str:
    """`position` (SQL struct) with `seq` set for part 1 or 2, so that the DELETE sorts first."""
    return (f"named_struct('commit', {position}.commit, 'event', {position}.event, "
            f"'seq', '{HALF_SEQ[ROLES[part]]}')")


def pk_change_sql(part: int) -> str:
    """The pk_change of part 1 or 2; `ct_group` is bound by `split_on_key_change`."""
    return f"named_struct('group', ct_group, 'role', '{ROLES[part]}')"


def part_fields(part: int, *, op: str, is_row: str, key_names: str, before: str, after: str, position: str) -> dict:
    """The event fields that differ between the change as it is (part 0) and the DELETE (1) and INSERT (2) it
    becomes when an update changed the key, for decoders holding images as maps (`before`, `after`) and the key's
    column names as an array (`key_names`); `is_row` is the condition for a row change."""
    value = {0: key_value(op, before, after), 1: f"try_element_at({before}, n)", 2: key_value("'INSERT'", before, after)}[part]
    return {
        "op": {0: op, 1: "'DELETE'", 2: "'INSERT'"}[part],
        "key": (f"IF({is_row} AND {key_names} IS NOT NULL, transform({key_names}, n -> named_struct('name', coalesce(n, ''), "
                f"'value', {value})), NULL)"),
        "before": None if part == 2 else f"IF({is_row} AND {op} != 'INSERT', {before}, NULL)",
        "after": None if part == 1 else f"IF({is_row} AND {op} != 'DELETE', {after}, NULL)",
        "pk_change": None if part == 0 else pk_change_sql(part),
        "position": position if part == 0 else half_position(position, part),
    }


def key_changed(key_names: str, before: str, after: str) -> str:
    """SQL: the update changed its key. The before image must hold every key column, non-NULL; a key column
    the after image does not hold was not supplied, so it did not change (MySQL's MINIMAL row image leaves
    unchanged columns, the key among them, out of the after image); one the after image holds must be
    non-NULL, and one of those must differ. Anything less is an update with partial images, never a DELETE
    of a NULL key or an INSERT without one (issue 18 B16). `key_names` array<string>, images map<string,string>."""
    old, new, supplied = f"try_element_at({before}, n)", f"try_element_at({after}, n)", f"map_contains_key({after}, n)"
    known = f"{old} IS NOT NULL AND (NOT {supplied} OR {new} IS NOT NULL)"
    return (f"(size({key_names}) > 0 AND forall({key_names}, n -> {known}) "
            f"AND exists({key_names}, n -> {supplied} AND {new} != {old}))")


def old_key_missing(key_names: str, before: str, keyed_elsewhere: bool = False) -> str:
    """SQL: a before image (map) that is there but lacks a key column or holds NULL for one. Which row an
    UPDATE or DELETE changed is then unknown: it is quarantined (MISSING_OLD_KEY), never a DELETE of a NULL
    key nor a key change from NULL (issue 19 A). A before image that is not there at all (Debezium's
    PostgreSQL UPDATE under REPLICA IDENTITY DEFAULT) is no claim about the key: the after image keys it.
    `keyed_elsewhere`: the record names the key apart from its images (CES's pkkey), so a key column the
    before image leaves out was not supplied; only one it holds as NULL makes the row unknown."""
    unknown = (f"(map_contains_key({before}, n) AND try_element_at({before}, n) IS NULL)" if keyed_elsewhere
               else f"try_element_at({before}, n) IS NULL")
    return f"coalesce(size({key_names}) > 0 AND {before} IS NOT NULL AND exists({key_names}, n -> {unknown}), false)"


def missing_old_key_rule(condition: str) -> QuarantineRule:
    """The MISSING_OLD_KEY quarantine rule, one detail for every format; `condition`: an UPDATE or DELETE
    for which `old_key_missing` holds (of its before image, or of one of its rows)."""
    return QuarantineRule(condition, Code.MISSING_OLD_KEY,
                          "'the before image lacks a key column or holds NULL for one: which row changed is unknown'")


def key_value(op: str, before: str, after: str) -> str:
    """SQL: the value of key column `n` (a lambda variable) of a change (or of a key change's INSERT): the
    after image's, or the before image's where the after image does not supply it (a DELETE; a MINIMAL after
    image, whose key columns are there only when they changed)."""
    return (f"IF({op} != 'DELETE' AND coalesce(map_contains_key({after}, n), false), try_element_at({after}, n), "
            f"try_element_at({before}, n))")


def new_key_map(key_names: str, before: str, after: str) -> str:
    """SQL map of the key after a key change, key columns the after image lacks taken from the before one."""
    value = key_value("'INSERT'", before, after)
    return f"map_from_arrays(array_distinct({key_names}), transform(array_distinct({key_names}), n -> {value}))"


def split_on_key_change(changed: str, group: str, event) -> str:
    """SQL array of events: `event(0)`, or `event(1)` + `event(2)` sharing `group` when `changed` holds.

    `event(part)` gives the SQL of one event; parts 1 and 2 may use `pk_change_sql` and `half_position`."""
    pair = sql.let(group, "ct_group", f"array({event(1)}, {event(2)})")
    return f"IF(coalesce({changed}, false), {pair}, array({event(0)}))"
