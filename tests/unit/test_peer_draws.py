"""The peers' drawn examples (harness/peers.py, `drawn_units`) are a function of the format and the seed: drawing
other formats first changes nothing but the topics' names (which carry the process and a run counter, so that runs
sharing a broker never share a topic), so a row of one `peers` run is comparable with the same row of another."""
import re

from cdc_conformance.harness.peers import drawn_units
from cdc_conformance.harness.registry import Registry


def _drawn(format_id: str) -> list:
    units = drawn_units(Registry.load().generator(format_id), 8, 1)
    unnamed = [(unit.id, [(r.key, r.value, r.headers, r.partition) for r in unit.records]) for unit in units]
    return [re.sub(r"peers-[a-z-]+-\d+-\d+-p", "peers-p", repr(unit)) for unit in unnamed]


def test_a_format_s_drawn_examples_do_not_depend_on_the_formats_drawn_before_it():
    alone = _drawn("debezium-json")
    _drawn("canal-json")
    assert _drawn("debezium-json") == alone
