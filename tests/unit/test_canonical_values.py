"""The oracle's canonical text and the Debezium encodings, against values worked out by hand from
Debezium's documented encodings (docs/formats/debezium-json.md)."""
import base64
import datetime as dt
from decimal import Decimal

import pytest

from cdc_conformance.generators.debezium_connect import encode_value, unscaled_base64
from cdc_conformance.generators.values import LogicalType, canonical_text, exact_decimal, java_double_text


@pytest.mark.parametrize("value, scale, expected", [
    ("12.34", 2, "BNI="), ("-12.34", 2, "+y4="), ("0.00", 2, "AA=="), ("2.55", 2, "AP8="), ("3.14159", 5, "BMsv"),
])
def test_unscaled_base64_matches_the_spec_table(value, scale, expected):
    assert unscaled_base64(Decimal(value)) == expected


@pytest.mark.parametrize("value, expected", [
    (100.0, "100.0"), (0.001, "0.001"), (1234.5, "1234.5"), (1e7, "1.0E7"), (1.5e-5, "1.5E-5"), (-2.5, "-2.5"),
    (9999999.0, "9999999.0"), (0.1 + 0.2, "0.30000000000000004"), (float("nan"), "NaN"), (float("-inf"), "-Infinity"),
    (0.0, "0.0"), (-0.0, "-0.0"), (1e-4, "1.0E-4"), (123456789012.0, "1.23456789012E11"),
])
def test_java_double_text_follows_double_to_string(value, expected):
    assert java_double_text(value) == expected


def test_decimal_text_has_exactly_scale_digits_even_beyond_28_digits():
    value = exact_decimal(-12468213931535030490684395300000000000, 10)
    assert canonical_text(LogicalType("DECIMAL", 38, 10), value) == "-1246821393153503049068439530.0000000000"
    assert canonical_text(LogicalType("DECIMAL", 10, 2), Decimal("5")) == "5.00"


def test_temporal_canonical_text():
    ts = dt.datetime(1969, 12, 31, 23, 59, 59, 999999)
    assert canonical_text(LogicalType("TIMESTAMP", 6), ts) == "1969-12-31T23:59:59.999999"
    assert encode_value(LogicalType("TIMESTAMP", 6), ts, True) == -1
    aware = dt.datetime(2025, 3, 14, 18, 45, 1, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert canonical_text(LogicalType("TIMESTAMP_TZ"), aware) == "2025-03-14T16:45:01.000000Z"
    assert encode_value(LogicalType("DATE"), dt.date(2025, 3, 14), True) == 20161  # spec: 2025-03-14 -> 20161
    assert encode_value(LogicalType("TIMESTAMP_TZ"), aware, False) == "2025-03-14T16:45:01Z"
    assert canonical_text(LogicalType("BYTES"), bytes.fromhex("deadbeef")) == base64.b64encode(b"\xde\xad\xbe\xef").decode()


def test_string_values_draw_what_real_data_holds_tagged_addresses_among_them():
    """A normalizer that dropped '+tag' from e-mail addresses was certified once (issue 24): no drawn string had one."""
    import re

    from cdc_conformance.generators.values import LogicalType, value_strategy
    from cdc_conformance.harness.property import draw_examples

    drawn = draw_examples(value_strategy(LogicalType("STRING")), 300, 1)
    assert any(re.search(r"\+[^@]*@", text) for text in drawn)
    assert any(text != text.strip() for text in drawn) and any(ord(c) > 0xFFFF for text in drawn for c in text)


def test_a_member_named_like_a_private_attribute_is_still_compared():
    """DeepDiff skips members starting with `__` by default: a column `__x` or the header `__debezium.newkey`
    would never differ (found comparing the real connector's headers, issue 22)."""
    from cdc_conformance.harness.diff import diff_events

    event = {"event_id": "t/0/0#0", "origin": [{"topic": "t", "partition": 0, "offset": 0}], "after": {"__x": "1"}}
    changed = {**event, "after": {"__x": "2"}}
    assert diff_events([event], [changed]) and not diff_events([event], [event])


def test_bit_strings_read_as_the_database_prints_them_from_either_connectors_bytes():
    """BIT(n): a little-endian BitSet's bytes (the real MariaDB 3.3.0 connector wrote b'1010101010' as qgI=, AA 02;
    PostgreSQL's 3.3.2 wrote 178 in a BIT(9) as sg==, unpadded); the canonical text is the database's digits."""
    bit10, bit9 = LogicalType("BITS", 10), LogicalType("BITS", 9)
    assert encode_value(bit10, 0b1010101010, True) == "qgI=" and canonical_text(bit10, 0b1010101010) == "1010101010"
    assert encode_value(bit9, 178, True, padded_bits=False) == "sg==" and encode_value(bit9, 178, True) == "sgA="
    assert encode_value(bit9, 0, True, padded_bits=False) == "" and canonical_text(bit9, 0) == "000000000"
    assert bit9.name == "BITS(9)"
