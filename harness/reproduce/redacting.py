"""Redacting a capture: values replaced by stand-ins of the same shape; a result that no longer fails the
same way is refused."""
from __future__ import annotations

import json
import re

from harness.reproduce.captures import ReproduceError, json_value, parsed_container, with_value
from harness.reproduce.signature import Reproducer


def stand_in(text: str) -> str:
    """Same length and character classes: letters -> x/X, digits -> 9, the rest kept (@ . - : keep shapes)."""
    return "".join("X" if c.isupper() else "x" if c.isalpha() else "9" if c.isdigit() else c for c in text)


def redact(records: list[dict], columns: set[str], every_string: bool = False) -> list[dict]:
    """Values of members named in `columns` (any depth, also inside JSON held in strings), or every string."""
    def scrub(value, named: bool):
        if isinstance(value, dict):
            return {k: scrub(v, named or k in columns) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v, named) for v in value]
        if isinstance(value, str):
            nested = parsed_container(value)
            if nested is not None:
                return json.dumps(scrub(nested, named), ensure_ascii=False, separators=(",", ":"))
            return stand_in(value) if named or every_string else value
        if named and isinstance(value, (int, float)) and not isinstance(value, bool):
            return json.loads(re.sub(r"[0-9]", "9", json.dumps(value)))  # as many digits, all 9
        return value

    out = []
    for item in records:
        value = json_value(item)
        out.append(with_value(item, scrub(value, False)) if value is not None else item)
    return out


def redacted(reproducer: Reproducer, records: list[dict], columns: set[str], every_string: bool = False) -> list[dict]:
    """Redacted records that still fail the same way; otherwise ReproduceError (nothing is written)."""
    target = reproducer.signature(records)
    if not target:
        raise ReproduceError("the capture does not fail: nothing to keep while redacting")
    result = redact(records, columns, every_string)
    after = reproducer.signature(result)
    if after != target:
        raise ReproduceError("the redacted records no longer fail the same way (before: "
                             f"{sorted(target)}; after: {sorted(after) or 'no failure'}); not written")
    return result
