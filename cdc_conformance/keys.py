"""The `pk_change.group` shared by the DELETE and INSERT that a primary-key change becomes, and the position `seq`
that orders them.

Both halves (and the generators' oracle) compute the group from what they share: the table, the source position and
both keys, so a pair is found without a join even when its halves sit on different partitions. One definition, on
the JVM for the decoders (normalizer/java `Keys.group`) and here in Python for the oracle; the property tests compare
every drawn key change's group, so the two cannot drift apart.
"""
from __future__ import annotations

import hashlib

PARTS = ("system", "server", "database", "schema", "table", "commit", "event")
# Where a source gives both halves one position (CES: one record; PostgreSQL, MySQL: one log position),
# `position.seq` orders them: the DELETE of the old key strictly before the INSERT of the new key
# (invariant 4, docs/invariants.md). Fixed width like every numeric position part.
HALF_SEQ: dict[str | None, str] = {"OLD": f"{0:020d}", "NEW": f"{1:020d}"}  # a key (None: no half) -> seq
# ... and every other event of such a source has `seq` 0 too: fixed width within a source, so that ordering
# never relies on where NULLs sort
PLAIN_SEQ = HALF_SEQ["OLD"]


def group(parts: dict[str, str | None], old_key: dict, new_key: dict) -> str:
    """The first 16 hex digits of SHA-256 over the parts (None as '') and both keys as sorted `k=v` text (None as
    'null'), joined by '|'."""
    def key_text(key: dict) -> str:
        return ",".join(sorted(f"{k}={'null' if v is None else v}" for k, v in key.items()))

    texts = [parts.get(name) or "" for name in PARTS] + [key_text(old_key), key_text(new_key)]
    return hashlib.sha256("|".join(texts).encode()).hexdigest()[:16]
