"""The comparison of a normalizer that expresses part of the model (harness/expressed.py): each rule of its verdict
table with a minimal fixture, the value rules, and the declaration's checks."""
import pytest

from cdc_conformance.harness.expressed import (
    FAIL,
    LOST,
    NOT_EXPRESSED,
    PASS,
    REFUSED,
    DeclarationError,
    Expectation,
    Expression,
    Output,
    on_tables_only,
    same_value,
    verdict,
)

PEER = Expression.declared({"kinds": ["ROW"], "fields": ["kind", "op", "before", "after"], "values": "text",
                            "quarantine": "refusal"})
AT = ("t", 0, 0)


def row(op="INSERT", before=None, after=None, **more):
    return {"event_id": "t/0/0#0", "kind": "ROW", "op": op, "before": before, "after": after, "origin": [
        {"topic": "t", "partition": 0, "offset": 0}], "columns": [{"name": "id", "logical_type": "INT32"}], **more}


def judged(expected_events=(), quarantine=None, got=(), refused=None, expression=PEER):
    expectation = Expectation([AT], {AT: list(expected_events)} if expected_events else {},
                              {AT: quarantine} if quarantine else {})
    output = Output({AT: list(got)} if got else {}, {AT: refused} if refused else {})
    return verdict(expectation, output, expression)


INSERT = row(after={"id": "1"})
DDL = {"event_id": "t/0/0#0", "kind": "DDL", "op": None, "origin": [{"topic": "t", "partition": 0, "offset": 0}]}
ERROR = ("DECODE", "READER_FAILURE", "Unknown op")


@pytest.mark.parametrize("case, expected_status, problem", [
    (dict(expected_events=[INSERT], got=[row(after={"id": "1.0"})]), PASS, None),
    (dict(expected_events=[INSERT], got=[row(after={"id": "2"})]), FAIL, 'wrong value after.id (INT32): expected "1", got "2"'),
    (dict(expected_events=[INSERT], got=[row(op="UPDATE", after={"id": "1"})]), FAIL, "wrong op"),
    (dict(expected_events=[INSERT], got=[INSERT, INSERT]), FAIL, "extra row"),
    (dict(expected_events=[INSERT, INSERT]), LOST, "lost without a word: expected ROW/INSERT, ROW/INSERT, got nothing"),
    (dict(expected_events=[INSERT, INSERT], got=[INSERT]), FAIL, "lost row: expected ROW/INSERT, ROW/INSERT, got ROW/INSERT"),
    (dict(expected_events=[INSERT], refused=ERROR), REFUSED, "refused (Unknown op)"),
    (dict(expected_events=[DDL]), NOT_EXPRESSED, None),
    (dict(expected_events=[DDL], got=[INSERT]), FAIL, "extra row"),
    (dict(expected_events=[DDL], refused=ERROR), REFUSED, "refused"),
    (dict(quarantine=("VALIDATE", "MISSING_FIELD"), refused=ERROR), PASS, None),
    (dict(quarantine=("VALIDATE", "MISSING_FIELD"), got=[INSERT]), FAIL, "where the reference quarantines (VALIDATE/MISSING_FIELD)"),
    (dict(quarantine=("VALIDATE", "MISSING_FIELD")), NOT_EXPRESSED, None),
])
def test_each_rule_of_the_verdict_table(case, expected_status, problem):
    status, problems = judged(**case)
    assert status == expected_status, problems
    assert (problem is None and problems == []) or any(problem in line for line in problems), problems


def test_the_whole_model_compares_codes_and_a_record_left_unquarantined():
    whole = Expression()
    assert judged(quarantine=("VALIDATE", "MISSING_FIELD"), refused=("DECODE", "MALFORMED_JSON", ""), expression=whole)[0] == FAIL
    assert judged(quarantine=("VALIDATE", "MISSING_FIELD"), expression=whole)[0] == FAIL
    assert judged(expected_events=[INSERT], got=[row(after={"id": "1"}, tx_id="7")], expression=whole)[0] == FAIL


def test_a_key_change_pair_is_one_update_to_a_normalizer_without_pk_change():
    old = row("DELETE", before={"id": "1"}, pk_change={"group": "g", "role": "OLD"})
    new = row("INSERT", after={"id": "2"}, pk_change={"group": "g", "role": "NEW"})
    assert judged([old, new], got=[row("UPDATE", before={"id": "1"}, after={"id": "2"})])[0] == PASS
    assert judged([old, new], got=[row("UPDATE", before={"id": None}, after={"id": "2"})])[0] == FAIL


def test_a_unit_is_its_worst_record_and_never_passes_on_what_is_not_expressed():
    records = [("t", 0, 0), ("t", 0, 1)]
    expectation = Expectation(records, {records[0]: [DDL], records[1]: [INSERT]})
    assert verdict(expectation, Output({records[1]: [INSERT]}), PEER)[0] == PASS
    assert verdict(expectation, Output({}, {records[0]: ERROR, records[1]: ERROR}), PEER)[0] == REFUSED
    assert verdict(Expectation(records[:1], {records[0]: [DDL]}), Output(), PEER)[0] == NOT_EXPRESSED


@pytest.mark.parametrize("expected, actual, logical_type, same", [
    ("15000000000", "1.5E10", "INT64", True),
    ("12.30", "12.3", "DECIMAL(4,2)", True),
    ("0.1000000000000000055511151231257827", "0.1", "DECIMAL(38,34)", False),  # a double's digits are not the value's
    ("6.688162584851366E16", "6.6881625848513664E16", "FLOAT64", True),  # JDK 17's longer digits of the same double
    ("1.5", "1.5000001", "FLOAT32", False),
    ("true", "1", "BOOLEAN", True),
    ("2018-06-20T15:13:16.945100", "2018-06-20 15:13:16.9451", "TIMESTAMP(6)", True),
    ("2025-03-14T16:45:01.000000Z", "2025-03-14T16:45:01Z", "TIMESTAMP_TZ", True),
    ("2025-03-14T16:45:01.000000Z", "2025-03-14T16:45:01", "TIMESTAMP_TZ", False),  # a wall clock is not an instant
    ("2018-06-20T15:13:16.945104", "1529507596945104", "TIMESTAMP(6)", False),  # Debezium's MicroTimestamp encodes it
    ("00:00:00.000000", "-00:00:00", "TIME(6)", True),
    ("3q2+7w==", "\u00de\u00ad\u00be\u00ef", "BYTES", True),  # canal's ISO-8859-1 text of the bytes
    ('{"a":1,"b":[2]}', '{"b": [2], "a": 1}', None, True),
    ("b", "2", "ENUM", False),
    ("x", None, "STRING", False),
    ("-2.8554196902806474E17", "-2.85541969028064736E17", None, True),  # a schemaless double: the same double
    ("9999999999999999999999999999.9999999999", "1.0E28", None, False),  # a schemaless decimal rounded to one
])
def test_a_value_as_text_is_judged_by_what_it_denotes(expected, actual, logical_type, same):
    assert same_value(expected, actual, logical_type) is same


@pytest.mark.parametrize("declaration, complaint", [
    ({"kinds": ["ROWS"]}, "kind 'ROWS' is not the model's"),
    ({"fields": ["payload"]}, "field 'payload' is not an event field"),
    ({"values": "typed"}, "values must be one of"),
    ({"quarantine": "maybe"}, "quarantine must be one of"),
    ({"extra": 1}, "unknown entries ['extra']"),
])
def test_a_declaration_the_harness_cannot_read_is_named(declaration, complaint):
    with pytest.raises(DeclarationError, match=None) as raised:
        Expression.declared(declaration)
    assert complaint in str(raised.value)


def test_the_reports_say_what_a_peer_does_not_express():
    assert Expression().not_expressed() == [] and Expression().whole_model
    unsaid = PEER.not_expressed()
    assert "position" in unsaid and "quarantine codes" in unsaid and "canonical value text" in unsaid


def test_a_record_whose_every_problem_is_excused_is_not_expressed_and_others_still_fail():
    expectation = Expectation([AT], {AT: [INSERT]})
    wrong = Output({AT: [row(after={"id": "2"})]})
    assert verdict(expectation, wrong, PEER, excused=lambda line: "after.id" in line) == (NOT_EXPRESSED, [])
    assert verdict(expectation, wrong, PEER, excused=lambda line: "before" in line)[0] == FAIL
    assert verdict(expectation, Output(), PEER, excused=lambda line: True)[0] == LOST  # a silent loss is never excused


def test_a_table_reader_is_not_judged_on_the_topics_a_producer_writes_apart():
    heartbeat = {**DDL, "kind": "HEARTBEAT"}
    table, beat, hostile, own_beat = ("t", 0, 0), ("t", 0, 1), ("hb", 0, 0), ("hb", 0, 1)
    expectation = Expectation([table, beat, hostile, own_beat], {table: [INSERT], beat: [heartbeat], own_beat: [heartbeat]},
                              {hostile: ("PARSE", "MALFORMED_JSON")})
    read = on_tables_only(expectation, frozenset({"HEARTBEAT"}))
    assert read.records == [table]  # a heartbeat on a table's topic too (batched drawn examples share one)
    assert on_tables_only(expectation, frozenset({"DDL"})).records == expectation.records  # no heartbeat topic of its own
    assert verdict(on_tables_only(Expectation([beat], {beat: [heartbeat]}), frozenset({"HEARTBEAT"})),
                   Output({}, {beat: ERROR}), PEER)[0] == NOT_EXPRESSED


def test_json_with_a_null_member_is_the_json_without_it():
    assert same_value('{"srid":null,"wkb":"AQ=="}', '{"wkb":"AQ=="}', "GEOMETRY")
    assert not same_value('{"srid":4326,"wkb":"AQ=="}', '{"wkb":"AQ=="}', "GEOMETRY")
