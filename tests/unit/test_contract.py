"""The normalizer contract: an output schema that drifts from the model fails, naming the field."""
from pyspark.sql.types import ArrayType, IntegerType, StringType, StructField, StructType

from cdc_conformance.harness.contract import problems
from cdc_conformance.model import EVENT_SCHEMA, QUARANTINE_SCHEMA


def _replace(schema: StructType, name: str, field: StructField) -> StructType:
    return StructType([field if f.name == name else f for f in schema.fields])


def test_the_model_itself_passes():
    assert problems(EVENT_SCHEMA, QUARANTINE_SCHEMA) == []


def test_a_renamed_field_is_named():
    drifted = _replace(EVENT_SCHEMA, "tx_id", StructField("transaction_id", StringType(), True))
    [problem] = problems(drifted, QUARANTINE_SCHEMA)
    assert "missing ['tx_id']" in problem and "unexpected ['transaction_id']" in problem


def test_a_changed_type_is_named():
    drifted = _replace(EVENT_SCHEMA, "event_id", StructField("event_id", IntegerType(), False))
    assert problems(drifted, QUARANTINE_SCHEMA) == ["events.event_id: expected string, got int"]


def test_a_nullable_field_the_model_says_is_not_null_is_named():
    drifted = _replace(QUARANTINE_SCHEMA, "code", StructField("code", StringType(), True))
    assert problems(EVENT_SCHEMA, drifted) == ["quarantine.code: nullable, but the model says NOT NULL"]


def test_nested_nullability_is_checked_too():
    origin = EVENT_SCHEMA["origin"].dataType
    loose = ArrayType(StructType([StructField(f.name, f.dataType, True) for f in origin.elementType.fields]), True)
    drifted = _replace(EVENT_SCHEMA, "origin", StructField("origin", loose, False))
    assert problems(drifted, QUARANTINE_SCHEMA) == [
        "events.origin[]: elements may be NULL, but the model says NOT NULL",
        "events.origin[].topic: nullable, but the model says NOT NULL",
        "events.origin[].partition: nullable, but the model says NOT NULL",
        "events.origin[].offset: nullable, but the model says NOT NULL"]


def test_a_stricter_output_is_still_the_model():
    strict = _replace(EVENT_SCHEMA, "tx_id", StructField("tx_id", StringType(), False))
    assert problems(strict, QUARANTINE_SCHEMA) == []


def test_a_result_of_the_wrong_type_gets_the_contract_message_naming_the_normalizer():
    import pytest

    from cdc_conformance.harness.contract import ContractViolation, check

    with pytest.raises(ContractViolation, match=r"mypkg.job:normalize returned tuple, not an object with .events and .quarantine"):
        check(("events", "quarantine"), "mypkg.job:normalize")

    class LikeAColumn:  # a Column answers every attribute with another Column (`col.events.schema`): it once
        def __getattr__(self, name):  # passed the check and failed with "'Column' object is not callable"
            return self

    with pytest.raises(ContractViolation, match=r"mypkg.job:normalize returned LikeAColumn, not an object"):
        check(LikeAColumn(), "mypkg.job:normalize")


def test_the_version_recorded_is_the_normalizers_own_distributions():
    from cdc_conformance.harness.under_test import NormalizerUnderTest

    assert NormalizerUnderTest.load().version.startswith("cdc-conformance ")  # the reference ships with the suite
    assert NormalizerUnderTest.load("tests.broken_normalizer:normalize").version.startswith("unknown (tests is not")
