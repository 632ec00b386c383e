"""Quarantine rules and the verdict they give a record: the first rule that holds names its code (and phase)."""
from __future__ import annotations

from dataclasses import dataclass

from cdc_conformance.model import CODE_PHASE, Code


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


def from_code(code: str, detail: str) -> str:
    """The verdict struct for a quarantine `code` (SQL, NULL: the record is fine) and its `detail`, the phase taken
    from the model (for decoders whose rules run on the JVM and name only the code)."""
    phases = "map(" + ", ".join(f"'{c.value}', '{p.value}'" for c, p in CODE_PHASE.items()) + ")"
    return (f"IF({code} IS NULL, CAST(NULL AS {VERDICT_TYPE}), named_struct('phase', coalesce(try_element_at({phases}, {code}), ''), "
            f"'code', {code}, 'detail', {detail}))")
