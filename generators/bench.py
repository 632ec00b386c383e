"""Benchmark data from a format's own encoder, for formats that keep no state across records.

The docs' 8-column purchase row (the shape CES and DataWorks benchmark with), one INSERT per record,
rendered by the format's `shared_history` encoder for `templates` distinct rows and then sent again in turn:
a stateless decoder normalizes every record it reads, copies included (docs/canonical-model.md, "Input at
the edges"), so the copies cost what new rows cost, and the Python encoder is not what is measured. The
plain pass parses the value with the decoder's own envelope schema: what any job reading the topic does.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal

from cdc_conformance.generators.history import Change, ColumnSpec, History, Table, Transaction
from cdc_conformance.generators.plugin import Bench
from cdc_conformance.generators.records import Expected, KafkaRecord, default_partition
from cdc_conformance.generators.values import LogicalType

# types every format of this kind can carry (cloudcanal-debezium's list is the shortest)
PURCHASES = Table("public", "purchases", (
    ColumnSpec("purchase_id", LogicalType("INT64"), False, 1),
    ColumnSpec("customer_name", LogicalType("STRING"), True),
    ColumnSpec("product_id", LogicalType("INT32"), True),
    ColumnSpec("product_name", LogicalType("STRING"), True),
    ColumnSpec("price_per_item", LogicalType("DECIMAL", 10, 2), True),
    ColumnSpec("quantity", LogicalType("INT32"), True),
    ColumnSpec("purchase_date", LogicalType("DATE"), True),
    ColumnSpec("payment_method", LogicalType("STRING"), True)))
_COMMITTED = dt.datetime(2025, 3, 14, 16, 45, 20, 650000, tzinfo=dt.UTC)


def purchase(n: int) -> History:
    row = {"purchase_id": n, "customer_name": f"Customer {n}", "product_id": n % 977, "product_name": "Game",
           "price_per_item": Decimal(n % 100) + Decimal("0.50"), "quantity": n % 7 + 1,
           "purchase_date": dt.date(2025, 3, 14), "payment_method": "Credit Card"}
    commit = _COMMITTED + dt.timedelta(milliseconds=n)
    return History(PURCHASES, (Transaction((Change("INSERT", after=row),), commit, emit_lag_us=15000),))


def history_bench(render: Callable[[History, str, int], list[Expected]], plain_schema: Callable[[], str],
                  label: str = "plain from_json (1 level)", templates: int = 2000) -> Bench:
    """`render`: the generator's shared-history encoder; `plain_schema()`: the DDL the plain pass parses with."""

    def records(topic: str, messages: int, partitions: int):
        rendered = [item.record for n in range(min(templates, messages)) for item in render(purchase(n), topic, n)
                    if item.record.value is not None]
        for n in range(messages):
            record = rendered[n % len(rendered)]
            # keyless records (canal) go round the partitions, as a producer without a key spreads them
            partition = default_partition(record.key, partitions) if record.key else n % partitions
            yield KafkaRecord(topic, partition, record.key, record.value, record.headers, registrations=record.registrations)

    return Bench(records=records, plain_label=label,
                 plain=lambda raw: raw.selectExpr(f"from_json(CAST(value AS STRING), '{plain_schema()}') AS d"))
