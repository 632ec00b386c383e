"""What the Flink peers share: flink-json at a declared version, resolved by the suite's Maven bootstrap into the
cache, and the Spark Java UDF that runs its deserialization schema on each record (java/io/cdcconformance/peers:
FlinkPeerUdf on Spark's side, FlinkChangelog on Flink's, in a class loader of its own).

The version is FLINK_VERSION unless CDC_FLINK_VERSION names another flink-json release Maven Central serves (1.20.x
and 2.x share the API used here). The jar is compiled once per Flink and Spark version, in the cache, and brought
through the door like any normalizer's (`spark_jars`, which each peer module exports).
"""
from __future__ import annotations

import os
from pathlib import Path

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from cdc_conformance.harness import jvm
from cdc_conformance.peers import changes, flink_tables, isolated

# the 1.20 LTS line Flink CDC 3.x and Paimon run, at its newest patch that resolves here (issue 60, F12: 1.20.3
# before; 1.20.5's flink-table-runtime is not served); 2.1.1 and 2.3.0 gave the same results (docs/peers.md)
FLINK_VERSION = "1.20.4"
UDF_NAME = "cdc_conformance_flink_changelog"
UDF_CLASS = "io.cdcconformance.peers.FlinkPeerUdf"


def flink_version() -> str:
    return os.environ.get("CDC_FLINK_VERSION") or FLINK_VERSION


def label(flink_format: str, ignore_parse_errors: bool = False) -> str:
    return f"Flink {flink_format} {flink_version()}" + (" (ignore-parse-errors)" if ignore_parse_errors else "")


def artifacts(version: str | None = None) -> jvm.ArtifactSet:
    version = version or flink_version()
    return jvm.ArtifactSet("flink-json", jvm.JVM_DIR / "flink-json" / "pom.xml", version, {"flink.version": version})


def spark_jars(cache_dir: Path) -> list[str]:
    """The peers' door to the classpath: FlinkPeerUdf and FlinkChangelog compiled against PySpark's jars and
    flink-json's (resolved by the suite's Maven bootstrap), with the Flink jars' paths inside, which FlinkPeerUdf loads
    in a class loader of their own; once per change of the sources, Flink version or Spark version."""
    version = flink_version()
    return [isolated.peer_jar(f"cdc-conformance-flink-peer-{version}", "flink", jvm.ensure(artifacts(version)), cache_dir)]


def register(spark) -> None:
    isolated.register(spark, UDF_NAME, UDF_CLASS)


def normalize(raw: DataFrame, format_id: str, flink_format: str, ignore_parse_errors: bool = False) -> changes.Output:
    """Each record through Flink's `flink_format` schema: its changelog rows as events, Flink's exception as the
    record's refusal; with `ignore_parse_errors` (the format's option) Flink skips such a record without a word."""
    register(raw.sparkSession)
    return isolated.output(_with_tables(raw, format_id), format_id,
                           f"{UDF_NAME}('{flink_format}', {str(ignore_parse_errors).lower()}, flink_table, value)")


def _with_tables(raw: DataFrame, format_id: str) -> DataFrame:
    """The records with `flink_table`: the row type of the DDL a user declared for the record's table
    (flink_tables.py), NULL for a record of no table. The tables are declared on the driver, from one pass over the
    records: a peer run reads a few thousand."""
    spark = raw.sparkSession
    records = [(r.topic, r.partition, r.offset, r.value) for r in raw.select("topic", "partition", "offset", "value").collect()]
    declared = flink_tables.declared_tables(format_id, records)
    tables = spark.createDataFrame([(*coordinates, ddl) for coordinates, ddl in declared.items()],
                                   "topic string, partition int, offset bigint, flink_table string")
    return raw.join(F.broadcast(tables), ["topic", "partition", "offset"], "left")


# what every Flink peer produces (harness/expressed.py): row changes, their operation and images, values as text (the
# table's typed values, each in the spelling the comparison reads: FlinkChangelog.text); no positions, keys, sources
# or quarantine codes (an exception is a refusal)
# a value format: a Flink table's format reads the record's value, never its key or headers; a table reads its table's
# topic, never the heartbeat, transaction or schema-change topics
EXPRESSES = {"kinds": ["ROW"], "fields": ["kind", "op", "before", "after"], "values": "text", "quarantine": "refusal",
             "reads": ["value"], "topics": "tables"}
