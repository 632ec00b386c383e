"""Record-level pieces every decoder shares: the Kafka columns it starts from, quarantine rules, and
the JSON record rules (UTF-8, well-formed JSON, Spark's corrupt-record option) written once."""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame

from normalizer import canonical_text as ct
from normalizer.model import CODE_PHASE, Code

# Spark's Kafka source declares every column nullable, but topic, partition and offset are always set;
# saying so here lets the output schema carry the model's NOT NULL on `origin` (the fallbacks never apply).
_KAFKA_COORDINATES = ("coalesce(topic, '') AS topic", "coalesce(partition, -1) AS partition",
                      "coalesce(offset, -1L) AS offset")
ORIGIN = "array(named_struct('topic', topic, 'partition', partition, 'offset', offset)) AS origin"
NO_HEADERS = "CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>)"
CORRUPT_RECORD = "_corrupt_record"


def kafka_columns(raw: DataFrame) -> DataFrame:
    """The Kafka source's columns plus text views of key and value (headers stay binary)."""
    headers = "headers" if "headers" in raw.columns else f"{NO_HEADERS} AS headers"
    return raw.selectExpr(*_KAFKA_COORDINATES, "key", "value", headers).selectExpr(
        "*", "CAST(key AS STRING) AS key_text", "CAST(value AS STRING) AS value_text", ORIGIN)


def parse_json(text: str, schema: str) -> str:
    """`from_json` that keeps a record it cannot parse in `_corrupt_record` instead of NULLing fields.

    `schema` must end with `,_corrupt_record:string>` (see `with_corrupt_record`).
    """
    return f"from_json({text}, '{schema}', map('columnNameOfCorruptRecord', '{CORRUPT_RECORD}'))"


def with_corrupt_record(struct_fields: str) -> str:
    return f"struct<{struct_fields},{CORRUPT_RECORD}:string>"


@dataclass(frozen=True)
class QuarantineRule:
    """When `condition` holds, the record is quarantined with `code` (None: the record is fine, stop).

    Rules are tried in order and the first match wins. A condition that evaluates to NULL counts as
    false, explicitly: in SQL, NOT (NULL IN (...)) is NULL, and a NULL must never let a record through.
    The phase comes from the code (model.CODE_PHASE), never from the decoder.
    """

    condition: str
    code: Code | None
    detail: str = "CAST(NULL AS STRING)"  # a SQL expression, so details can quote the record


def accept_when(condition: str) -> QuarantineRule:
    """Stop checking: a record for which `condition` holds is fine (a tombstone, say)."""
    return QuarantineRule(condition, None)


VERDICT_TYPE = "STRUCT<phase: STRING, code: STRING, detail: STRING>"


def verdict(rules: list[QuarantineRule] | tuple[QuarantineRule, ...]) -> str:
    """One struct<phase, code, detail> from the first rule that holds (NULL when the record is fine).

    One CASE, not one per field: each condition (some convert whole row images) is evaluated once.
    """
    def outcome(rule: QuarantineRule) -> str:
        if rule.code is None:
            return f"CAST(NULL AS {VERDICT_TYPE})"
        return (f"named_struct('phase', '{CODE_PHASE[rule.code].value}', 'code', '{rule.code.value}', "
                f"'detail', {rule.detail})")

    branches = " ".join(f"WHEN coalesce({rule.condition}, false) THEN {outcome(rule)}" for rule in rules)
    return f"CASE {branches} END"


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


# Jackson, in the guard jar (jvm/avro-guard): one streaming pass over a JSON text sees every object level
_JSON_TEXT_CLASS = "io.cdcconformance.JsonText"


def repeats_a_member(text: str) -> str:
    """SQL: whether the JSON text `text` names a member twice in any of its objects, at any depth.

    Spark's JSON reader keeps the last of two struct fields and both entries of a map (a later map
    operation then fails the job with DUPLICATED_MAP_KEY); JSON parsers disagree on which one wins, so
    the record is quarantined instead of picking one. False for a text that is not JSON, or NULL."""
    return f"java_method('{_JSON_TEXT_CLASS}', 'repeatsAMember', {text}) = 'true'"


def repeats_a_key(map_expr: str) -> str:
    """SQL: whether a map parsed by `from_json` names a key twice. Spark's JSON reader keeps both entries
    (any later map operation then fails the job with DUPLICATED_MAP_KEY, or a second entry rides along);
    JSON parsers disagree on which one wins, so the record is quarantined instead of picking one."""
    return f"coalesce(size(map_keys({map_expr})) > size(array_distinct(map_keys({map_expr}))), false)"
