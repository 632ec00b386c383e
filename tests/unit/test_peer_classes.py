"""The disagreement classes (harness/peer_classes.py): each rule takes its fixture and no earlier rule takes it (a
fixture shows the class it is for), each class's section is a heading of docs/peers.md, and only the model's own
choice is excused."""
import re
from pathlib import Path

import pytest

from cdc_conformance.harness import peer_classes
from cdc_conformance.harness.peer_classes import CLASSES, KINDS, UNCLASSIFIED, anchor, classify, counted, excused

DOC = Path(__file__).resolve().parents[2] / peer_classes.DOC
# "<normalizer> / <format>" of the shipped peers, the context a class's `where` selects
CONTEXTS = ("Flink canal-json 1.20.4 / canal-json / c", "Flink debezium-json 1.20.4 / debezium-json / c",
            "naive Spark from_json / canal-json / c", "naive Spark from_avro (latest schema) / debezium-avro / c",
            "Flink canal-json 1.20.4 / canal-json / canal-json-values-as-json-numbers",
            "Paimon aliyun-json 1.3.1 / dataworks-json / c", "Paimon canal-json 1.3.1 / canal-json / c",
            "Paimon debezium-json 1.3.1 / debezium-json / c", "Kafka Connect JsonConverter 4.1.1 / debezium-json / c",
            "DTS subscribe SDK 2.0.0 / dts-avro / c")


@pytest.mark.parametrize("peer_class", CLASSES, ids=lambda c: c.id)
def test_each_class_takes_its_fixture_first(peer_class):
    context = next(c for c in CONTEXTS if re.search(peer_class.where, c))
    assert classify(peer_class.fixture, context) == peer_class.id
    assert peer_class.kind in KINDS


@pytest.mark.parametrize("peer_class", CLASSES, ids=lambda c: c.id)
def test_each_class_has_its_section_in_the_peers_page(peer_class):
    headings = {re.sub(r"[^\w\- ]", "", line[4:].strip().lower()).replace(" ", "-")
                for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("### ")}
    assert anchor(peer_class.id) in headings


def test_a_line_no_rule_takes_is_unclassified_and_only_choices_are_excused():
    assert classify("record t[0]@0: something new") == UNCLASSIFIED
    assert [c.id for c in CLASSES if excused(c.fixture)] == [c.id for c in CLASSES if c.kind == "choice" and not c.where] == ["C6"]
    folded = next(c for c in CLASSES if c.id == "PA6")  # a choice of one peer's: excused there alone
    assert excused(folded.fixture, "Paimon aliyun-json 1.3.1 / dataworks-json / c") and not excused(folded.fixture, CONTEXTS[0])
    u1 = next(c for c in CLASSES if c.kind == "unproduced")
    assert excused(u1.fixture, CONTEXTS[4]) and not excused(u1.fixture, CONTEXTS[0])
    c1 = next(c for c in CLASSES if c.id == "C1")
    assert classify(c1.fixture, "Flink debezium-json 1.20.4 / debezium-json / c") != "C1"  # a class of canal's format only
    anywhere = next(c for c in CLASSES if not c.where)
    assert counted([anywhere.fixture, "new", anywhere.fixture]) == {anywhere.id: 2, UNCLASSIFIED: 1}


def test_the_pages_tables_are_printed_from_a_run():
    """scripts/peer_classes.py --tables: docs/peers.md's Results (the reference first in each format) and
    Disagreements tables, from a run's results.jsonl, never pasted by hand."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("peer_classes_script", DOC.parents[1] / "scripts" / "peer_classes.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    c2 = next(c for c in CLASSES if c.id == "C2")
    rows = [{"normalizer": "Flink canal-json 1.20.4", "format": "canal-json", "case": "a", "status": "REFUSED",
             "problems": [c2.fixture, c2.fixture]},
            {"normalizer": "Flink canal-json 1.20.4", "format": "canal-json", "case": "drawn/canal-json/1/0",
             "status": "FAIL", "problems": ["record t[0]@0: something new"]},
            {"normalizer": "reference (cdc_conformance.normalizer)", "format": "canal-json", "case": "a", "status": "PASS",
             "problems": []}]
    results = script.results_table(rows).splitlines()
    assert results[2] == "| canal-json / reference (cdc_conformance.normalizer) | 1 | 1 | 0 | 0 | 0 | 0 | 0 |"
    assert results[3] == "| canal-json / Flink canal-json 1.20.4 | 2 | 0 | 1 | 0 | 1 | 0 | 0 |"
    classes = script.classes_table(rows).splitlines()
    assert classes[0] == "| class | finding | kind | Flink canal-json 1.20.4 | e.g. |"
    assert classes[2] == f"| C2 | {c2.title} | refuses | 1 / 2 | `a` |"
    assert classes[3] == "| unclassified | not triaged | - | 1 / 1 | `drawn/canal-json/1/0` |"
