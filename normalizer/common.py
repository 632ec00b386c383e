"""Pieces every decoder shares: the Kafka columns it starts from and the event/quarantine split."""
from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame

ORIGIN = "array(named_struct('topic', topic, 'partition', partition, 'offset', offset)) AS origin"


def kafka_columns(raw: DataFrame) -> DataFrame:
    """The Kafka source's columns plus text views of key and value (headers stay binary)."""
    headers = "headers" if "headers" in raw.columns else "CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers"
    return raw.selectExpr(
        "topic", "partition", "offset", "key", "value", headers,
        "CAST(key AS STRING) AS key_text", "CAST(value AS STRING) AS value_text", ORIGIN,
    )


def build_output(decoded: DataFrame, format_id: str) -> DataFrame:
    """Keep `event` when no quarantine rule matched, else a quarantine record with the raw record."""
    return decoded.selectExpr(
        "IF(q IS NULL, event, NULL) AS event",
        f"""IF(q IS NULL, NULL, named_struct(
              'origin', origin, 'format', '{format_id}', 'phase', q.phase, 'code', q.code, 'detail', q.detail,
              'raw_key', key, 'raw_value', value, 'raw_headers', headers)) AS quarantine""",
    )


@dataclass(frozen=True)
class QuarantineRule:
    """When `condition` holds, the record is quarantined with `phase`/`code` (None: it is fine, stop).

    Rules are tried in order and the first match wins. A condition that evaluates to NULL counts as
    false, explicitly: in SQL, NOT (NULL IN (...)) is NULL, and a NULL must never let a record through.
    """

    condition: str
    phase: str | None
    code: str | None
    detail: str = "CAST(NULL AS STRING)"  # a SQL expression, so details can quote the record


def quarantine_columns(rules: list[QuarantineRule]) -> list[str]:
    """The `q` column (struct<phase, code, detail>, NULL when fine) that `build_output` reads."""
    return [f"{quarantine_verdict(rules)} AS q"]


def quarantine_verdict(rules: list[QuarantineRule]) -> str:
    """One struct<phase, code, detail> from the first rule that holds (NULL when the record is fine).

    One CASE, not one per field: each condition (some convert whole row images) is evaluated once.
    """
    def verdict(rule: QuarantineRule) -> str:
        if rule.code is None:
            return "CAST(NULL AS STRUCT<phase: STRING, code: STRING, detail: STRING>)"
        return f"named_struct('phase', '{rule.phase}', 'code', '{rule.code}', 'detail', {rule.detail})"

    branches = " ".join(f"WHEN coalesce({rule.condition}, false) THEN {verdict(rule)}" for rule in rules)
    return f"CASE {branches} END"
