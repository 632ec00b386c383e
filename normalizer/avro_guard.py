"""The check every Avro decoder makes before Spark's `from_avro`: sizes that fit, strings that are UTF-8.

`from_avro` allocates what a block declares before reading it, so a record of a few bytes declaring
2,147,483,639 array items ends the executor JVM with OutOfMemoryError, which no parse mode can catch;
and it passes a string's bytes on unchecked, so invalid UTF-8 reaches the output as U+FFFD. The guard
(jvm/avro-guard, `io.cdcconformance.AvroGuard`) walks the datum by its schema over the bytes themselves,
allocating nothing for declared sizes, and says what is wrong: nothing (`OK`), `MALFORMED` (not exactly
one datum) or `NOT_UTF8`. Only a datum with nothing wrong is read. Its jar must be on the session's
classpath (docs/normalizer-contract.md); `cdc-conformance jvm` builds it.
"""
from __future__ import annotations

import json

from normalizer.canonical_text import base64_text

GUARD_CLASS = "io.cdcconformance.AvroGuard"
OK, MALFORMED, NOT_UTF8 = "OK", "MALFORMED", "NOT_UTF8"


def problem(binary: str, schema: dict) -> str:
    """SQL: what is wrong with the bytes `binary` as a datum of `schema` (OK: nothing)."""
    return f"java_method('{GUARD_CLASS}', 'problem', {base64_text(binary)}, '{json.dumps(schema)}')"


def read(binary: str, schema: dict, found: str) -> str:
    """`from_avro` in PERMISSIVE mode, only where the guard found nothing wrong (`found`: its result, SQL)."""
    return f"IF({found} = '{OK}', from_avro({binary}, '{json.dumps(schema)}', map('mode', 'PERMISSIVE')), NULL)"
