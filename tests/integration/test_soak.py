"""The soak tier under pytest: every decoded format, at least CDC_SOAK_RECORDS mutated records each (CI's
slice; `make soak` runs 10,000 per format), in one run each through Kafka and Spark. The figures are printed."""
import os

import pytest

from cdc_conformance.harness import soak
from cdc_conformance.harness.property import session_seed
from cdc_conformance.harness.registry import Registry
from conftest import show

pytestmark = [pytest.mark.integration, pytest.mark.long]
RECORDS = int(os.environ.get("CDC_SOAK_RECORDS", "500"))
REGISTRY = Registry.load()


def test_soak_every_format_without_crash_wrong_event_or_unaccounted_record(roundtrip, request):
    seed = session_seed()
    rows = [soak.soak(roundtrip, REGISTRY.generator(f), RECORDS, seed, extremes=False) for f in REGISTRY.decoded_formats()]
    show(request, f"soak, at least {RECORDS:,} mutated records per format:\n{soak.table(rows)}")
    assert all(row.records >= RECORDS for row in rows)
    assert [row.format_id for row in rows if not row.clean] == [], soak.table(rows)
