"""The streaming state releases a segment group under exactly the batch assembly's rule. (Records rejected on
their own form groups of their own, released at once by normalizer.assembly whatever the format.)"""
from normalizer.ces import segments_ready as ready


def seg(index, final, data="x", id_=None, offset=0):
    return {"seg_index": index, "seg_final": final, "data": data, "source": "/", "id": id_ or f"id{index}-{data}",
            "topic": "t", "partition": 0, "offset": offset}


def test_complete_groups_are_released():
    assert ready([seg(1, True)])                                   # unsplit, 1-based
    assert ready([seg(0, True)])                                   # legacy unsplit (splitindex 0)
    assert ready([seg(2, True, "b", offset=1), seg(1, False, "a")])  # out of order


def test_incomplete_groups_are_held():
    assert not ready([seg(1, False)])
    assert not ready([seg(1, False), seg(3, True)])                # a gap
    assert not ready([seg(2, True)])                               # no first segment
    assert not ready([seg(1, True), seg(2, True, "b")])            # final before the last


def test_copies_are_ignored_and_conflicts_released():
    assert not ready([seg(1, False, "a"), seg(1, False, "a", id_="id1-a", offset=1)])  # a re-send: still incomplete
    assert ready([seg(1, True, "a"), seg(1, True, "b", offset=1)])                   # same index, other data
