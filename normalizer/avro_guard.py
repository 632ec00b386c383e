"""The check every Avro decoder makes before Spark's `from_avro`: declared sizes must fit the bytes.

`from_avro` allocates what a block declares before reading it, so a record of a few bytes declaring
2,147,483,639 array items ends the executor JVM with OutOfMemoryError, which no parse mode can catch.
The guard (jvm/avro-guard, `io.cdcconformance.AvroGuard`) skips the datum instead, which allocates
nothing, and says whether it is exactly one datum of the schema; only then is it read. Its jar must be on
the session's classpath (docs/normalizer-contract.md says how); `cdc-conformance jvm` builds it.
"""
from __future__ import annotations

import json

from normalizer.canonical_text import base64_text

GUARD_CLASS = "io.cdcconformance.AvroGuard"


def fits(binary: str, schema: dict) -> str:
    """SQL: whether the bytes `binary` are exactly one datum of `schema` (false for NULL)."""
    return f"coalesce(java_method('{GUARD_CLASS}', 'fits', {base64_text(binary)}, '{json.dumps(schema)}'), false)"


def from_avro(binary: str, schema: dict) -> str:
    """`from_avro` in PERMISSIVE mode, called only for bytes the guard accepts (NULL otherwise)."""
    read = f"from_avro({binary}, '{json.dumps(schema)}', map('mode', 'PERMISSIVE'))"
    return f"IF({fits(binary, schema)}, {read}, NULL)"
