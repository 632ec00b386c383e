"""The `pk_change.group` shared by the DELETE and INSERT that a primary-key change becomes.

Both halves (and the generators' oracle) compute it from what they share: the table, the source
position and both keys, so a pair is found without a join even when its halves sit on different
partitions. One definition, in SQL for the decoders and in Python for the oracle, kept equal by a test.
"""
from __future__ import annotations

import hashlib

from normalizer import canonical_text as ct

PARTS = ("system", "server", "database", "schema", "table", "commit", "event")
# Where a source gives both halves one position (CES: one record; PostgreSQL, MySQL: one log position),
# `position.seq` orders them: the DELETE of the old key strictly before the INSERT of the new key
# (DESIGN invariant 4). Fixed width like every numeric position part.
HALF_SEQ = {"OLD": f"{0:020d}", "NEW": f"{1:020d}"}


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
