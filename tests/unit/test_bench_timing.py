"""How `bench --streaming` times a query: by the query's own reports, not by the poll that noticed them."""
from cdc_conformance.harness.bench import _caught_up_at

END = {"t": {0: 100, 1: 50}}


def _report(started: str, trigger_ms: int, offsets: dict) -> dict:
    return {"timestamp": started, "durationMs": {"triggerExecution": trigger_ms},
            "sources": [{"endOffset": {"t": {str(p): o for p, o in offsets.items()}}}]}


def test_the_pass_ends_when_the_batch_that_reached_the_end_offsets_ended():
    progress = [_report("2026-11-28T10:00:00.000Z", 1500, {0: 60, 1: 50}),
                _report("2026-11-28T10:00:01.500Z", 750, {0: 100, 1: 50}),
                _report("2026-11-28T10:00:02.450Z", 5, {0: 100, 1: 50})]  # an idle report after it
    started = 1795860000.0  # 2026-11-28T10:00:00Z
    assert _caught_up_at(progress, END, fallback=-1.0) - started == 2.25


def test_without_a_report_past_the_end_the_caller_keeps_its_own_clock():
    progress = [_report("2026-11-28T10:00:00.000Z", 1500, {0: 60, 1: 50})]
    assert _caught_up_at(progress, END, fallback=42.0) == 42.0


def test_a_stateful_format_is_set_beside_its_floor_and_a_stateless_one_has_none():
    from cdc_conformance.harness.bench import StreamRow, stream_summary

    stateful = StreamRow("dataworks-json", 1000, 100, 2000.0, 900.0, float("nan"), 10, 1000, floor_rate=1000.0)
    stateless = StreamRow("canal-json", 1000, 100, 2000.0, 1500.0, float("nan"), 0, 0)
    assert stateful.floor_ratio == 0.9 and stateless.floor_ratio is None
    table = stream_summary([stateful, stateless]).splitlines()
    assert table[0].split()[8:12] == ["ratio", "floor", "msg/s", "/floor"]
    assert table[1].split()[5:8] == ["0.45", "1,000", "0.90"]
    assert table[2].split()[5:8] == ["0.75", "-", "-"]
    assert stateful.as_json()["ratio_to_floor"] == 0.9 and stateless.as_json()["floor_msg_s"] is None
