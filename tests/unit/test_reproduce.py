"""The pure parts of the reproduce workflow: record encoding, redaction shapes, member removal."""
import json

from harness import reproduce
from harness.reproduce import minimizing


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
    (everything,) = reproduce.redact([{"topic": "t", "value": json.dumps({"op": "c", "n": 1})}], set(), every_string=True)
    assert json.loads(everything["value"]) == {"op": "x", "n": 1}


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
    from harness.cases import load_cases
    from harness.golden import GOLDEN_DIR
    from harness.runner import check_golden

    case = load_cases()[0]
    problems = check_golden(case, {"events": [], "quarantine": []}, False, GOLDEN_DIR, obtained_root=tmp_path)
    assert problems and str(tmp_path) in problems[0]
    assert (tmp_path / case.format / f"{case.id}.obtained.json").is_file()
    assert not (GOLDEN_DIR / case.format / f"{case.id}.obtained.json").exists()
