"""What the Paimon peers share: Apache Paimon's CDC record parsers (canal-json, debezium-json, aliyun-json: the
parsers of its Kafka synchronization actions, in paimon-flink-1.20) at a declared version, resolved by the suite's Maven
bootstrap into the cache (harness/maven/paimon), and the Spark Java UDF that runs them on each record
(java/paimon: PaimonPeerUdf on Spark's side, PaimonChangelog on Paimon's, in a class loader of their own).

Paimon is the other reader of DataWorks' records (its `aliyun-json` format) and reads canal's and Debezium's as
`kafka_sync_database --kafka_conf value.format=...` does: the format's Kafka deserializer, then its record parser, with
the action's defaults (no type-mapping options, no computed columns). Its rows' columns are text until Paimon's sink
casts them to the table's types; what is compared is that text (docs/peers.md).
"""
from __future__ import annotations

from pathlib import Path

from pyspark.sql import DataFrame

from cdc_conformance.harness import jvm
from cdc_conformance.peers import changes, isolated

# the newest release that resolves here, for Flink 1.20 (the line Flink CDC 3.x and this project's Flink peers run);
# its Kafka deserializer takes the ConsumerRecord flink-sql-connector-kafka shades, at 3.2.0-1.19, the newest SQL
# connector served here (3.3.0-1.20 and 3.4.0-1.20 are not)
PAIMON_VERSION = "1.3.1"
UDF_NAME = "cdc_conformance_paimon_changelog"
UDF_CLASS = "io.cdcconformance.peers.PaimonPeerUdf"
# Paimon's name of the format each project format is read with
PAIMON_FORMATS = {"canal-json": "canal-json", "debezium-json": "debezium-json", "dataworks-json": "aliyun-json"}

# what every Paimon peer produces (harness/expressed.py): row changes, their operation and images, values as Paimon's
# parser writes them (text); an exception fails the job (a refusal). The Kafka deserializer reads the key too, but no
# parser of these three formats reads anything of it; a table is synchronized from its table's topic
EXPRESSES = {"kinds": ["ROW"], "fields": ["kind", "op", "before", "after"], "values": "text", "quarantine": "refusal",
             "reads": ["value"], "topics": "tables"}


def label(paimon_format: str) -> str:
    return f"Paimon {paimon_format} {PAIMON_VERSION}"


def artifacts() -> jvm.ArtifactSet:
    return jvm.ArtifactSet("paimon", jvm.JVM_DIR / "paimon" / "pom.xml", PAIMON_VERSION, {"paimon.version": PAIMON_VERSION})


def spark_jars(cache_dir: Path) -> list[str]:
    """The peers' door to the classpath: PaimonPeerUdf and PaimonChangelog compiled against PySpark's jars and Paimon's,
    with the Paimon and Flink jars' paths inside, which PaimonPeerUdf loads in a class loader of their own."""
    return [isolated.peer_jar(f"cdc-conformance-paimon-peer-{PAIMON_VERSION}", "paimon", jvm.ensure(artifacts()), cache_dir)]


def register(spark) -> None:
    isolated.register(spark, UDF_NAME, UDF_CLASS)


def normalize(raw: DataFrame, format_id: str) -> changes.Output:
    """Each record through Paimon's parser of the format: its rows as events, the exception that fails Paimon's job as
    the record's refusal."""
    register(raw.sparkSession)
    return isolated.output(raw, format_id, f"{UDF_NAME}('{PAIMON_FORMATS[format_id]}', topic, key, value)")
