"""Redacting a capture: values replaced by stand-ins of the same shape; a result that no longer fails the
same way is refused."""
from __future__ import annotations

import json
import re

from cdc_conformance.harness.reproduce.captures import ReproduceError, json_value, parsed_container, with_value
from cdc_conformance.harness.reproduce.signature import Reproducer


def stand_in(text: str) -> str:
    """Same length and character classes: letters -> x/X, digits -> 9, the rest kept (@ . - : keep shapes)."""
    return "".join("X" if c.isupper() else "x" if c.isalpha() else "9" if c.isdigit() else c for c in text)


# Members that hold row data in the formats' envelopes (Debezium before/after, canal data/old, DataWorks
# dataColumn, CES data/current/old): `--all-strings` redacts the strings under them, never the envelope
# (`"op":"c"` rewritten to `"x"` is another record, and the failure would vanish).
ROW_MEMBERS = frozenset({"before", "after", "data", "old", "current", "dataColumn", "afterImages", "beforeImages"})


class _Scrubber:
    """Scrubs JSON values, remembering what it replaced (to find the same values in plain keys and headers)
    and which named columns it met."""

    def __init__(self, columns: set[str], every_string: bool):
        self.columns, self.every_string = columns, every_string
        self.found: set[str] = set()
        self.replaced: dict[str, str] = {}

    def json(self, value, named: bool = False, in_row: bool = False):
        if isinstance(value, dict):
            self.found |= self.columns & value.keys()
            return {k: self.json(v, named or k in self.columns, in_row or k in ROW_MEMBERS) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json(v, named, in_row) for v in value]
        if isinstance(value, str):
            nested = parsed_container(value)
            if nested is not None:
                return json.dumps(self.json(nested, named, in_row), ensure_ascii=False, separators=(",", ":"))
            return self._replace(value, stand_in(value)) if named or (self.every_string and in_row) else value
        if named and isinstance(value, (int, float)) and not isinstance(value, bool):
            text = json.dumps(value)
            return json.loads(self._replace(text, re.sub(r"[0-9]", "9", text)))  # as many digits, all 9
        return value

    def _replace(self, original: str, replacement: str) -> str:
        if len(original) > 1:  # a one-character value would rewrite every such character of a plain header
            self.replaced[original] = replacement
        return replacement

    def text(self, text: str | None) -> str | None:
        """A key or header value: JSON scrubbed like a value; plain text with the replaced values replaced."""
        if text is None:
            return None
        if parsed_container(text) is not None:
            return self.json(text)  # a JSON text, scrubbed as one held in a value's string
        for original in sorted(self.replaced, key=len, reverse=True):
            text = text.replace(original, self.replaced[original])
        return text


def redact(records: list[dict], columns: set[str], every_string: bool = False) -> list[dict]:
    """Values of members named in `columns` (any depth, also inside JSON held in strings) wherever a record holds
    them: value, key and headers (a header or plain key holding a redacted value gets its stand-in too); or with
    `every_string`, every string of the row data. A named column that no record has is an error."""
    scrubber = _Scrubber(columns, every_string)
    values = [(item, json_value(item)) for item in records]
    scrubbed = [with_value(item, scrubber.json(value)) if value is not None else item for item, value in values]
    out = []
    for item in scrubbed:  # keys and headers after every value: their plain texts need the values' replacements
        item = {**item, "key": scrubber.text(item.get("key"))} if isinstance(item.get("key"), str) else item
        if item.get("headers"):
            item = {**item, "headers": [{**h, "value": scrubber.text(h["value"])} if isinstance(h.get("value"), str) else h
                                        for h in item["headers"]]}
        out.append(item)
    missing = sorted(columns - scrubber.found)
    if missing:
        raise ReproduceError(f"--column {', '.join(missing)}: no record has such a member (nothing redacted)")
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
