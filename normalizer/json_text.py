"""JSON records: parsing with Spark's corrupt-record option, and the rules every JSON record meets (UTF-8, one
well-formed object, no member named twice) written once."""
from __future__ import annotations

from cdc_conformance.model import Code
from cdc_conformance.normalizer import canonical_text as ct
from cdc_conformance.normalizer.verdicts import QuarantineRule

CORRUPT_RECORD = "_corrupt_record"


def parse_json(text: str, schema: str) -> str:
    """`from_json` that keeps a record it cannot parse in `_corrupt_record` instead of NULLing fields.

    `schema` must end with `,_corrupt_record:string>` (see `with_corrupt_record`).
    """
    return f"from_json({text}, '{schema}', map('columnNameOfCorruptRecord', '{CORRUPT_RECORD}'))"


def with_corrupt_record(struct_fields: str) -> str:
    return f"struct<{struct_fields},{CORRUPT_RECORD}:string>"


def json_record_rules(parsed: str, what: str = "value") -> list[QuarantineRule]:
    """The JSON record rules for `what` (value or key): UTF-8 text holding one JSON object, naming no
    member twice in any of its objects.

    `parsed` is the `parse_json` result of `{what}_text`. A NULL `what` passes every rule (whether a
    record may lack a value or key is the format's own rule).
    """
    code = Code.MALFORMED_JSON if what == "value" else Code.MALFORMED_KEY
    return [
        QuarantineRule(f"{what} IS NOT NULL AND (NOT is_valid_utf8({what}_text) OR {ct.escapes_lone_surrogate(f'{what}_text')})",
                       Code.NOT_UTF8, f"'{what} is not UTF-8, or escapes a lone surrogate (no UTF-8 text holds one)'"),
        QuarantineRule(f"{what} IS NOT NULL AND ({parsed} IS NULL OR {parsed}.{CORRUPT_RECORD} IS NOT NULL)", code,
                       f"'{what} is not a JSON object'"),
        QuarantineRule(repeats_a_member(f"{what}_text"), Code.DUPLICATE_KEY, f"'an object in the {what} names a member twice'"),
    ]


# Jackson, in the normalizer's jar (normalizer/java): one streaming pass over a JSON text sees every object level
_JSON_TEXT_CLASS = "io.cdcconformance.shared.JsonText"


def repeats_a_member(text: str) -> str:
    """SQL: whether the JSON text `text` names a member twice in any of its objects, at any depth.

    Spark's JSON reader keeps the last of two struct fields and both entries of a map (a later map
    operation then fails the job with DUPLICATED_MAP_KEY); JSON parsers disagree on which one wins, so
    the record is quarantined instead of picking one. False for a text that is not JSON, or NULL."""
    return f"java_method('{_JSON_TEXT_CLASS}', 'repeatsAMember', {text}) = 'true'"
