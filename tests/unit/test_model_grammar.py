"""The model's value grammar (model-grammar.json) as the harness applies it to any normalizer's output: every
fixture of the file, and the check's paths. The JVM readers' validator is tested against the same fixtures
(normalizer/java/src/test/java/io/cdcconformance/shared/ModelGrammarTest.java)."""
import pytest

from cdc_conformance.harness import contract, model_grammar

FIXTURES = [(f["type"], text, valid) for f in model_grammar.document()["fixtures"]
            for valid, texts in ((True, f["valid"]), (False, f["invalid"])) for text in texts]


@pytest.mark.parametrize(("logical_type", "text", "valid"), FIXTURES, ids=lambda v: repr(v)[:40])
def test_each_fixture_is_judged_as_the_file_says(logical_type, text, valid):
    assert (model_grammar.problem(logical_type, text) is None) is valid


POSITION_FIXTURES = [(f["part"], text, valid) for f in model_grammar.document()["position"]["fixtures"]
                     for valid, texts in ((True, f["valid"]), (False, f["invalid"])) for text in texts]


@pytest.mark.parametrize(("part", "text", "valid"), POSITION_FIXTURES, ids=lambda v: repr(v)[:40])
def test_each_position_fixture_is_judged_as_the_file_says(part, text, valid):
    assert (model_grammar.position_problem(part, text) is None) is valid


def test_every_type_and_rule_of_the_file_has_a_fixture_and_every_rule_code():
    document = model_grammar.document()
    fixtures = {f["type"] for f in document["fixtures"]}
    for entry in document["types"]:
        name = entry["type"].partition("(")[0]
        assert any(t and t.partition("(")[0] == name for t in fixtures), entry["type"]
        assert set(entry["rules"]) <= set(model_grammar._RULES), entry["type"]
    assert set(document["rules"]) == set(model_grammar._RULES)


def _event(**fields):
    return {"event_id": "t/0/0#0", "format": "f", "kind": "ROW", "columns": [
        {"name": "id", "logical_type": "INT32"}, {"name": "at", "logical_type": "TIMESTAMP_TZ"}], **fields}


def test_an_out_of_range_instant_and_a_lone_surrogate_fail_the_contract_with_their_paths():
    events = [_event(after={"id": "1", "at": "+10000-01-01T00:30:00.000000Z"}),
              _event(key=[{"name": "id", "value": "1"}], source={"table": "t\ud800"})]
    with pytest.raises(contract.ContractViolation) as failure:
        contract.check_values(events, "mypkg:normalize")
    message = str(failure.value)
    assert "after.at: not TIMESTAMP_TZ text" in message and "source.table: not well-formed Unicode" in message
    assert "\n" not in message


def test_key_names_must_be_there_and_unique():
    assert model_grammar.event_problems(_event(key=[{"name": "", "value": "1"}])) == ["key[0].name: empty or not well-formed"]
    twice = [{"name": "id", "value": "1"}, {"name": "id", "value": "2"}]
    assert model_grammar.event_problems(_event(key=twice)) == ["key[1].name: 'id' named twice"]
    assert model_grammar.event_problems(_event(key=[{"name": "id", "value": "2147483648"}])) == [
        "key.id: not INT32 text (integer_range)"]


def test_a_valid_event_passes():
    assert model_grammar.event_problems(_event(after={"id": "-2147483648", "at": "0001-01-01T00:00:00.000000Z"})) == []


def test_the_closed_lists_are_the_models_and_the_docs():
    """kind, op and pk_change.role are the model's enums, ddl.change the list docs/canonical-model.md gives: one
    definition the exits of both sides read (issue 49: a table change typed EXPLODE left the JVM readers)."""
    import re
    from pathlib import Path

    from cdc_conformance.model import Kind, Op

    lists = model_grammar.enumerations()
    assert lists["kind"] == [k.value for k in Kind] and lists["op"] == [o.value for o in Op]
    assert lists["pk_change.role"] == ["OLD", "NEW"]
    doc = (Path(__file__).parents[2] / "docs" / "canonical-model.md").read_text()
    written = re.search(r"`statement`, `change` \(([A-Z, ]+)\)", doc).group(1)
    assert written.split(", ") == lists["ddl.change"]


def test_a_word_outside_a_closed_list_leaves_the_model():
    event = {**_event(), "kind": "DDL", "ddl": {"statement": "CREATE TABLE t (id int)", "change": "EXPLODE"}}
    assert model_grammar.event_problems(event) == [f"ddl.change: not one of {', '.join(model_grammar.enumerations()['ddl.change'])}"]
    assert model_grammar.event_problems({**_event(), "op": "MERGE"}) == ["op: not one of INSERT, UPDATE, DELETE, UPSERT"]
