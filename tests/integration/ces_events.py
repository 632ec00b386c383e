"""CES events that are all split into segments over 3 partitions: the shape that needs state across
micro-batches, restarts and crashes (tests of streaming and of faults share it)."""
from hypothesis import strategies as st

from cdc_conformance.generators import ces
from cdc_conformance.generators.history import histories, tables
from cdc_conformance.generators.records import with_coordinates
from cdc_conformance.generators.values import KEY_TYPES
from cdc_conformance.harness.property import draw_examples


def split_events(seed: int, topic: str, count: int = 3, encoding=ces):
    """Generated CES events, every one split into several segments over 3 partitions."""
    strategy = st.tuples(encoding.profiles(), histories(table_strategy=tables(key_types=KEY_TYPES, value_types=ces.VALUE_TYPES),
                                                   allow_truncate=False, allow_snapshot=False, max_changes=2))
    items = []
    for index, (profile, history) in enumerate(draw_examples(strategy, count, seed)):
        items += _split(encoding, history, ces.Profile(**{**profile.__dict__, "topic": topic, "partitions": 3,
                                                           "stream_guid": f"00000000-0000-4000-8000-{index:012d}"}))
    return with_coordinates(items)


def _split(encoding, history, profile) -> list:
    """The history's events in segments of 200 characters (JSON) / 100 bytes (Avro), at most 8 an event (every
    CES data text is longer than the smallest size, so every event is split; these tests are about state across
    micro-batches, and a 6,000-character text in 100-byte segments made one test of 2 records per batch run two
    minutes)."""
    size = 200 if encoding is ces else 100
    return encoding.encode(history, ces.Profile(**{**profile.__dict__, "segment_chars": size, "most_segments": 8}))
