"""Kafka Connect's `JsonConverter` as a normalizer under test: each debezium-json record as a Kafka Connect sink reads
it (Debezium's JDBC sink, say): the converter turns the value into Connect data, `schemas.enable` set as the producer
wrote the topic, and the sink takes the event's `op`, `before` and `after` (java/connect: ConnectChangelog). Values are
Connect's: its own logical types decoded (Decimal, Date, Time, Timestamp), Debezium's semantic types left the numbers
they are. A converter's exception fails the sink task: a refusal (docs/peers.md).
"""
from __future__ import annotations

from pathlib import Path

from pyspark.sql import DataFrame

from cdc_conformance.harness import jvm
from cdc_conformance.peers import changes, isolated

# the Kafka version the broker and the real-producer tier's Connect worker run (harness/maven/kafka-connect)
KAFKA_VERSION = "4.1.1"
UDF_NAME = "cdc_conformance_connect_changelog"
UDF_CLASS = "io.cdcconformance.peers.ConnectPeerUdf"


def artifacts() -> jvm.ArtifactSet:
    return jvm.ArtifactSet("connect-json", jvm.JVM_DIR / "connect-json" / "pom.xml", KAFKA_VERSION, {"kafka.version": KAFKA_VERSION})


def spark_jars(cache_dir: Path) -> list[str]:
    """The peer's door to the classpath: ConnectPeerUdf and ConnectChangelog compiled against PySpark's jars and
    Kafka Connect's, whose paths are inside, loaded by a class loader of their own."""
    return [isolated.peer_jar(f"cdc-conformance-connect-peer-{KAFKA_VERSION}", "connect", jvm.ensure(artifacts()), cache_dir)]


def normalize(raw: DataFrame, format_id: str) -> changes.Output:
    isolated.register(raw.sparkSession, UDF_NAME, UDF_CLASS)
    return isolated.output(raw, format_id, f"{UDF_NAME}(topic, value)")


def supported_formats() -> list[str]:
    return ["debezium-json"]


def expresses() -> dict:
    # row changes, their operation and images, values as Connect's text; a failed sink task is a refusal. A sink's value
    # converter reads the value only (its key converter is another setting), of the table topics it is pointed at
    return {"kinds": ["ROW"], "fields": ["kind", "op", "before", "after"], "values": "text", "quarantine": "refusal",
            "reads": ["value"], "topics": "tables"}


def label() -> str:
    return f"Kafka Connect JsonConverter {KAFKA_VERSION}"
