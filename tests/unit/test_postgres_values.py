"""The oracle's texts of PostgreSQL's own types against what the real programs print: PostgreSQL 15's output
functions (taken from a psql session here, 2026-11-27) and JDK 17's HashMap (a jshell session). The real-producer
tier checks the same against Debezium's records; these keep each rule's known answers next to its code."""
from decimal import Decimal

import pytest

from cdc_conformance.generators.postgres_values import (
    cidr_text,
    date_range_text,
    hstore_from_text,
    hstore_input,
    int_range_text,
    interval_from_text,
    interval_iso_text,
    java_hash_map_order,
    jsonb_text,
    micro_duration,
    num_range_text,
    time_tz_text,
    ts_range_text,
    tstz_range_text,
    without_trailing_zeros,
)


def test_jsonb_orders_members_by_length_then_bytes_and_keeps_the_last_of_a_repeated_name():
    written = '{"bb": 1, "a": {"y": "\\u00e9\\u0001", "x": []}, "a": 2, "ccc": [1, "t\\tq"]}'
    assert jsonb_text(written) == '{"a": 2, "bb": 1, "ccc": [1, "t\\tq"]}'


@pytest.mark.parametrize("written, printed", [("(3,7]", "[4,8)"), ("[5,5)", "empty"), ("(,4]", "(,5)"), ("[2,)", "[2,)"),
                                              ("empty", "empty")])
def test_an_int4range_is_printed_in_its_canonical_form(written, printed):
    assert int_range_text(written) == printed


@pytest.mark.parametrize("written, printed", [("10.1/16", "10.1.0.0/16"), ("0/0", "0.0.0.0/0"),
                                              ("192.168.1.128/25", "192.168.1.128/25"),
                                              ("::ffff:1.2.3.0/120", "::ffff:1.2.3.0/120")])
def test_a_cidr_is_printed_with_four_octets_and_its_mask(written, printed):
    assert cidr_text(written) == printed


@pytest.mark.parametrize("written, printed", [
    ('["2010-01-01 14:30:00.500","infinity"]', '["2010-01-01 14:30:00.5",infinity]'),
    ('("2010-01-01 14:30:00","2010-01-01 14:30:00"]', "empty"),
    ('["2010-01-01 14:30:00","2010-01-01 14:30:00"]', '["2010-01-01 14:30:00","2010-01-01 14:30:00"]'),
    ('[,"2010-01-01 00:00:00.000001"]', '(,"2010-01-01 00:00:00.000001"]'),
    ("[-infinity,infinity)", "[-infinity,infinity)"), ('["2010-01-01 14:30:00.0",)', '["2010-01-01 14:30:00",)')])
def test_a_tsrange_keeps_its_bounds_but_an_unbounded_side_is_exclusive_and_equal_bounds_may_be_empty(written, printed):
    assert ts_range_text(written) == printed


# each printed by PostgreSQL 15's range_out (format('%s', text::type))
@pytest.mark.parametrize("written, printed", [
    ("[2020-01-01,2020-02-01]", "[2020-01-01,2020-02-02)"), ("(,9999-12-31]", "(,10000-01-01)"),
    ("(9999-12-31,)", "[10000-01-01,)"), ("(-infinity,infinity]", "(-infinity,infinity]"),  # an infinity keeps its bracket
    ("[infinity,infinity)", "empty"), ("(2020-01-01,2020-01-02)", "empty")])
def test_a_daterange_is_discrete_but_its_infinities_keep_their_brackets(written, printed):
    assert date_range_text(written) == printed


@pytest.mark.parametrize("written, printed", [
    ("(1.5,2.25]", "(1.5,2.25]"), ("[,3.000)", "(,3.000)"), ("(0,0)", "empty"), ("[-0.00,1.0]", "[0.00,1.0]"),
    ("[-inf,Infinity)", "[-Infinity,Infinity)"), ("[1.0,1.00)", "empty"), ("[1.0,1.00]", "[1.0,1.00]")])
def test_a_numrange_keeps_each_bounds_scale_and_compares_them_as_numbers(written, printed):
    assert num_range_text(written) == printed


@pytest.mark.parametrize("written, printed", [
    ("[-9223372036854775807,9223372036854775806]", "[-9223372036854775807,9223372036854775807)"),
    ("(5,5]", "empty"), ("(5,6)", "empty")])
def test_an_int8range_is_canonical_like_an_int4range(written, printed):
    assert int_range_text(written) == printed


@pytest.mark.parametrize("written, printed", [
    ('["2010-01-01 14:30:00.500000+02:00",infinity)', '["2010-01-01 12:30:00.5+00",infinity)'),
    ('("2010-01-01 00:00:00+00:00","2010-01-01 05:30:00+05:30"]', "empty"),  # one instant: not both inclusive
    ('["2010-01-01 00:00:00-15:59",]', '["2010-01-01 15:59:00+00",)')])
def test_a_tstzrange_prints_its_bounds_in_utc(written, printed):
    assert tstz_range_text(written) == printed


def test_a_timetz_is_the_same_instant_of_the_day_in_utc():
    assert time_tz_text("23:30:00.5-05:30") == "05:00:00.500000Z"  # past midnight in UTC
    assert time_tz_text("00:00:00+00") == "00:00:00.000000Z"


@pytest.mark.parametrize("printed, value", [("1 year 2 mons 3 days 04:05:06.78", (14, 3, 14_706_780_000)),
                                            ("-1 mons +1 day -00:00:00.000001", (-1, 1, -1)), ("00:00:00", (0, 0, 0))])
def test_an_interval_is_read_from_what_postgresql_prints(printed, value):
    assert interval_from_text(printed) == value


def test_an_interval_as_the_connector_writes_it():
    # MicroDuration.durationMicros: 14 months of 30.4375 days, 3 days, 4:05:06.78
    assert micro_duration((14, 3, 14_706_780_000)) == 37_091_106_780_000
    assert micro_duration((0, 0, -1)) == -1
    assert interval_iso_text((14, 3, 14_706_780_000)) == "P1Y2M3DT4H5M6.78S"
    assert interval_iso_text((-1, 1, -1)) == "P0Y-1M1DT0H0M-0.000001S"
    assert interval_iso_text((0, 0, 60_000_000)) == "P0Y0M0DT0H1M0S"


def test_java_hash_map_iterates_as_jdk_17_does():
    assert java_hash_map_order(["a", "b", "c", "aa", "key1", "zz", "\u00e9"]) == ["aa", "key1", "zz", "a", "b", "c", "\u00e9"]
    # past 12 entries the table doubles; "Aa" and "BB" share a hash
    keys = [f"k{i}" for i in range(13)] + ["\U0001f600"]
    assert "|".join(java_hash_map_order(keys)) == "k0|k1|k2|k3|k4|k5|k11|k6|k10|k7|k8|k12|k9|\U0001f600"
    assert java_hash_map_order(["", "Aa", "BB", "z"]) == ["", "Aa", "BB", "z"]


def test_an_hstore_is_written_and_read_back():
    value = {"b": "1", "a": None, 'q"x': "\\"}
    assert hstore_from_text('"a"=>NULL, "b"=>"1", "q\\"x"=>"\\\\"') == value
    assert hstore_from_text(hstore_input(value)) == value


@pytest.mark.parametrize("value, trimmed", [("1500.00", "1500"), ("0.00000080", "0.0000008"), ("0.000", "0"),
                                            ("-12.50", "-12.5"), ("1E-30", "0.000000000000000000000000000001")])
def test_a_numeric_loses_its_trailing_zeros_as_the_connector_writes_it(value, trimmed):
    assert f"{without_trailing_zeros(Decimal(value)):f}" == trimmed
