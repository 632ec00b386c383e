"""The normalizer contract, enforced: output schemas must be the model's (docs/normalizer-contract.md).

Checked before anything is collected, so a normalizer that drifts from the model fails with the field
named instead of with a confusing diff. Names and types must be the model's, in order; where the model
says NOT NULL, the output must say so too (a nullable output where the model allows NULL is fine the
other way round: a stricter output is still the model).
"""
from __future__ import annotations

from pyspark.sql.types import ArrayType, DataType, MapType, StructType

from cdc_conformance.model import EVENT_SCHEMA, MODEL_VERSION, QUARANTINE_SCHEMA


class ContractViolation(AssertionError):
    """The normalizer's output does not have the model's schema; the message, one line (a run's error detail, a
    report's problem, the plugin's failure all show it whole), names every field."""


def _problems(actual: DataType, expected: DataType, path: str, nulls: bool = True) -> list[str]:
    if isinstance(expected, StructType):
        if not isinstance(actual, StructType):
            return [f"{path}: expected a struct, got {actual.simpleString()}"]
        actual_names, expected_names = actual.fieldNames(), expected.fieldNames()
        if actual_names != expected_names:
            missing = [n for n in expected_names if n not in actual_names]
            extra = [n for n in actual_names if n not in expected_names]
            detail = (f"missing {missing}" if missing else "") + (f" unexpected {extra}" if extra else "")
            return [f"{path or '(top)'}: fields {detail.strip() or 'out of order'} "
                    f"(model v{MODEL_VERSION}: {', '.join(expected_names)})"]
        problems = []
        for got, want in zip(actual.fields, expected.fields):
            where = f"{path}.{want.name}" if path else want.name
            if nulls and got.nullable and not want.nullable:
                problems.append(f"{where}: nullable, but the model says NOT NULL")
            problems += _problems(got.dataType, want.dataType, where, nulls)
        return problems
    if isinstance(expected, ArrayType):
        if not isinstance(actual, ArrayType):
            return [f"{path}: expected {expected.simpleString()}, got {actual.simpleString()}"]
        problems = []
        if nulls and actual.containsNull and not expected.containsNull:
            problems.append(f"{path}[]: elements may be NULL, but the model says NOT NULL")
        return problems + _problems(actual.elementType, expected.elementType, f"{path}[]", nulls)
    if isinstance(expected, MapType):
        if not isinstance(actual, MapType) or actual.keyType != expected.keyType:
            return [f"{path}: expected {expected.simpleString()}, got {actual.simpleString()}"]
        return _problems(actual.valueType, expected.valueType, f"{path}{{}}", nulls)
    if type(actual) is not type(expected):
        return [f"{path}: expected {expected.simpleString()}, got {actual.simpleString()}"]
    return []


def problems(events: StructType, quarantine: StructType) -> list[str]:
    return ([f"events.{p}" for p in _problems(events, EVENT_SCHEMA, "")] +
            [f"quarantine.{p}" for p in _problems(quarantine, QUARANTINE_SCHEMA, "")])


def check(result, name: str = "the normalizer") -> None:
    """Raise ContractViolation naming every field where `result.events` / `.quarantine` leave the model."""
    from pyspark.sql import DataFrame  # classic and Connect DataFrames both derive from it

    # isinstance, not hasattr: a Column answers every attribute with another Column (`col.events.schema`), and
    # a normalizer returning one failed with "TypeError: 'Column' object is not callable"
    if not all(isinstance(getattr(result, frame, None), DataFrame) for frame in ("events", "quarantine")):
        raise ContractViolation(f"{name} returned {type(result).__name__}, not an object with .events and .quarantine "
                                "DataFrames (docs/normalizer-contract.md)")
    found = problems(result.events.schema, result.quarantine.schema)
    if found:
        raise ContractViolation(f"{name}: the output is not the canonical model: " + "; ".join(found))


def check_values(events: list[dict], name: str) -> None:
    """Raise ContractViolation naming the event and field of every value outside the model's grammar
    (harness/model_grammar.py: the same definition the reference's readers enforce at their exit)."""
    from cdc_conformance.harness import model_grammar

    found = [f"{event.get('event_id')} {problem}" for event in events for problem in model_grammar.event_problems(event)]
    if found:
        more = f" (and {len(found) - 5} more)" if len(found) > 5 else ""
        raise ContractViolation(f"{name}: events leave the model's value grammar: " + "; ".join(found[:5]) + more)


def check_rows(rows, name: str) -> None:
    """A streaming entry's output rows: `events` and `quarantine` columns, arrays of the model's records."""
    schema = getattr(rows, "schema", None)
    columns = {f.name: f.dataType for f in schema.fields} if isinstance(schema, StructType) else {}
    found = []
    for column, model in (("events", EVENT_SCHEMA), ("quarantine", QUARANTINE_SCHEMA)):
        if column not in columns:
            found.append(f"{column}: missing (an array of the model's records)")
        else:
            # names and types: a stateful operator's output (applyInPandasWithState) says every field nullable,
            # and the batch entry's frames, checked with NOT NULL, come from the same decode
            found += _problems(columns[column], ArrayType(model), column, nulls=False)
    if found:
        raise ContractViolation(f"{name}: the streaming output rows are not the canonical model: " + "; ".join(found))
