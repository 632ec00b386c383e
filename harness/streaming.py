"""Driving Structured Streaming queries in tests and runs.

A stateful query with processing-time state timeouts (CES segment groups) schedules a micro-batch on
every trigger to fire timeouts, so neither `availableNow` nor `processAllAvailable()` ever sees the
query idle. `run_until_caught_up` waits for the committed progress to reach the topic's end offsets.
"""
from __future__ import annotations

import json
import time


def _reached(progress: dict | None, end_offsets: dict[str, dict[int, int]]) -> bool:
    if not progress:
        return False
    for source in progress.get("sources", []):
        offsets = source.get("endOffset")
        offsets = json.loads(offsets) if isinstance(offsets, str) else offsets
        if not offsets:
            return False
        for topic, partitions in end_offsets.items():
            for partition, end in partitions.items():
                if int(offsets.get(topic, {}).get(str(partition), -1)) < end:
                    return False
    return True


def run_until_caught_up(query, end_offsets: dict[str, dict[int, int]], timeout: float = 300.0,
                        settle_batches: int = 1) -> None:
    """Block until the query has committed every offset below `end_offsets` (+ `settle_batches` more batches)."""
    deadline = time.monotonic() + timeout
    caught_up_at = None
    while time.monotonic() < deadline:
        if query.exception() is not None:
            raise query.exception()
        progress = query.lastProgress
        if _reached(progress, end_offsets):
            caught_up_at = caught_up_at if caught_up_at is not None else progress["batchId"]
            if progress["batchId"] >= caught_up_at + settle_batches:
                return
        time.sleep(0.2)
    raise TimeoutError(f"streaming query did not reach {end_offsets} within {timeout}s: {query.lastProgress}")
