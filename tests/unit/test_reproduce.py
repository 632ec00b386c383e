"""The pure parts of the reproduce workflow: record encoding, redaction shapes, member removal."""
import json

import pytest

from cdc_conformance.harness import reproduce
from cdc_conformance.harness.reproduce import minimizing


def test_records_keep_bytes_exactly_as_text_or_base64():
    item = reproduce.record_item("t", 1, 5, b'{"id":1}', b"\xff\x00", [("h", b"v"), ("bin", b"\x80")])
    assert item == {"topic": "t", "partition": 1, "offset": 5, "key": '{"id":1}', "value_base64": "/wA=",
                    "headers": [{"key": "h", "value": "v"}, {"key": "bin", "value_base64": "gA=="}]}
    record = reproduce.kafka_record(item, "other")
    assert (record.topic, record.key, record.value, record.headers) == ("other", b'{"id":1}', b"\xff\x00",
                                                                        (("h", b"v"), ("bin", b"\x80")))


def test_stand_ins_keep_length_and_character_classes():
    assert reproduce.stand_in("Ann+tag@Example.org 42") == "Xxx+xxx@Xxxxxxx.xxx 99"


def test_redaction_reaches_named_columns_at_any_depth_and_inside_json_strings():
    value = {"after": {"email": "a@b.c", "id": 12, "note": "keep"}, "data": json.dumps({"email": "d@e.f"})}
    (item,) = reproduce.redact([{"topic": "t", "value": json.dumps(value)}], {"email", "id"})
    redacted = json.loads(item["value"])
    assert redacted["after"] == {"email": "x@x.x", "id": 99, "note": "keep"}
    assert json.loads(redacted["data"]) == {"email": "x@x.x"}
    envelope = {"op": "c", "source": {"table": "customers"}, "after": {"name": "Ann", "n": 1}}
    (everything,) = reproduce.redact([{"topic": "t", "value": json.dumps(envelope)}], set(), every_string=True)
    assert json.loads(everything["value"]) == {"op": "c", "source": {"table": "customers"}, "after": {"name": "Xxx", "n": 1}}


def test_redaction_reaches_the_key_and_the_headers_too():
    """A table keyed by e-mail: the key held the address, a header a value derived from the id (issue 24)."""
    value = {"payload": {"after": {"id": 17, "email": "ann@example.org"}}}
    record = {"topic": "t", "key": json.dumps({"payload": {"id": 17, "email": "ann@example.org"}}), "value": json.dumps(value),
              "headers": [{"key": "trace", "value": "t17"}, {"key": "__debezium.oldkey", "value": json.dumps({"email": "ann@example.org"})},
                          {"key": "bin", "value_base64": "gA=="}]}
    (item,) = reproduce.redact([record], {"id", "email"})
    everything = json.dumps(item)
    assert "17" not in everything and "ann@example.org" not in everything, everything
    assert json.loads(item["key"]) == {"payload": {"id": 99, "email": "xxx@xxxxxxx.xxx"}}
    assert item["headers"][0] == {"key": "trace", "value": "t99"} and item["headers"][2] == record["headers"][2]


def test_a_column_no_record_has_is_an_error_not_a_silent_success():
    with pytest.raises(reproduce.ReproduceError, match="--column emial: no record has such a member"):
        reproduce.redact([{"topic": "t", "value": json.dumps({"after": {"email": "a@b.c"}})}], {"email", "emial"})


def test_member_removal_paths_and_combined_removals():
    value = {"a": {"b": 1, "c": [1, 2, 3]}, "d": 2}
    paths = list(minimizing._paths(value))
    assert ("a", "c", 1) in paths and ("d",) in paths
    records = [{"topic": "t", "value": json.dumps(value)}]
    (item,) = minimizing._apply(records, [(0, ("a", "c", 0)), (0, ("a", "c", 2)), (0, ("d",)), (0, ("a", "b")), (0, ("a",))])
    assert json.loads(item["value"]) == {}
    (item,) = minimizing._apply(records, [(0, ("a", "c", 0)), (0, ("a", "c", 2))])
    assert json.loads(item["value"]) == {"a": {"b": 1, "c": [2]}, "d": 2}


def test_an_output_that_differs_goes_to_the_obtained_directory_never_into_the_suites_golden_files(tmp_path):
    from cdc_conformance.harness.cases import load_cases
    from cdc_conformance.harness.golden import GOLDEN_DIR
    from cdc_conformance.harness.golden import check as check_golden

    case = load_cases()[0]
    problems = check_golden(case, {"events": [], "quarantine": []}, False, GOLDEN_DIR, obtained_root=tmp_path)
    assert problems and str(tmp_path) in problems[0]
    assert (tmp_path / case.format / f"{case.id}.obtained.json").is_file()
    assert not (GOLDEN_DIR / case.format / f"{case.id}.obtained.json").exists()


def test_a_redaction_that_loses_the_failure_is_refused():
    class FailsWhileTheIdIs17:  # stands for the reference-vs-tested round trip, which integration tests run
        def signature(self, records):
            return frozenset({"event field after.id"}) if json.loads(records[0]["value"])["after"]["id"] == 17 else frozenset()

    records = [{"topic": "t", "value": json.dumps({"op": "c", "after": {"id": 17, "name": "Ann"}})}]
    assert json.loads(reproduce.redacted(FailsWhileTheIdIs17(), records, {"name"})[0]["value"])["after"]["name"] == "Xxx"
    with pytest.raises(reproduce.ReproduceError, match="no longer fail the same way"):
        reproduce.redacted(FailsWhileTheIdIs17(), records, {"id"})  # 17 -> 99


def test_capture_reads_kcat_json_dumps_keeping_timestamps_and_names_a_bad_line(tmp_path):
    dump = tmp_path / "dump.json"
    line = {"topic": "t", "partition": 2, "offset": 7, "tstype": "create", "ts": 1700000000123, "broker": 1,
            "headers": ["h", "v"], "key": '{"id":1}', "payload": '{"op":"c"}'}
    as_map = {**line, "offset": 8, "tstype": "logappend", "headers": {"h": "w"}}  # some kcat versions write %h so
    dump.write_text(json.dumps(line) + "\n" + json.dumps(as_map) + "\n")
    records, provenance = reproduce.capture_from_kcat(dump)
    assert records == [{"topic": "t", "partition": 2, "offset": 7, "timestamp": {"type": "create", "ms": 1700000000123},
                        "key": '{"id":1}', "value": '{"op":"c"}', "headers": [{"key": "h", "value": "v"}]},
                       {"topic": "t", "partition": 2, "offset": 8, "timestamp": {"type": "log_append", "ms": 1700000000123},
                        "key": '{"id":1}', "value": '{"op":"c"}', "headers": [{"key": "h", "value": "w"}]}]
    assert provenance["coordinates"] == "t[2]@7..8"  # as a cluster capture writes them
    assert "timestamp" not in reproduce.case_document({"format": "f", "records": records}, "x", "t", [], "*", {})["records"][0]
    dump.write_text("not json\n")
    with pytest.raises(reproduce.ReproduceError, match="dump.json:1: not a kcat -J line"):
        reproduce.capture_from_kcat(dump)


def test_client_properties_as_kcat_takes_them_and_secrets_masked():
    file_text = "# cluster\nsecurity.protocol=SASL_SSL\n\nsasl.mechanism = SCRAM-SHA-512\n"
    properties = reproduce.client_properties(file_text, ["sasl.username=svc", "sasl.password=Pa=ss word"])
    assert properties == {"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "svc",
                          "sasl.password": "Pa=ss word"}
    assert reproduce.masked("auth failed for svc with Pa=ss word", properties) == "auth failed for svc with ***"
    with pytest.raises(ValueError, match="'sasl.password': expected KEY=VALUE"):
        reproduce.client_properties("", ["sasl.password"])


def test_a_failure_line_says_first_what_differed_then_the_example_and_its_seed():
    from cdc_conformance.harness.property import Example, failure_text

    example = Example(label="#7 (Profile(...), History(...))", expected=[], mutator="truncated-json")
    text = failure_text(example, ['event t/0/5#0 (t[0]@5) differs:\n  after.email: expected "a+b@c.d", got "a@c.d"'], 42)
    first, *rest = text.splitlines()
    assert first == 'example #7 mutated by truncated-json (seed 42): event t/0/5#0 (t[0]@5) differs: after.email: expected "a+b@c.d", got "a@c.d"'
    assert rest[0] == "  drawn: #7 (Profile(...), History(...))" and "--seed 42" in rest[1]
