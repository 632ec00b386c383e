"""Peer normalizers: the ecosystem's own consumers of CDC topics, each behind the normalizer contract, so the suite
measures them beside its reference (docs/peers.md). Flink's `debezium-json` and `canal-json` formats
(`flink_debezium`, `flink_canal`: flink-json's deserialization schemas in a Spark Java UDF) and an afternoon's
PySpark (`naive_spark`: `from_json` and the textbook op mapping).

A peer expresses less than the model: each module's `expresses()` says what it produces, and the harness compares
only that (harness/expressed.py). Nothing here imports the reference normalizer: a peer is another implementation.
"""
