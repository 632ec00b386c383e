"""What the Flink peers share: flink-json at a declared version, resolved by the suite's Maven bootstrap into the
cache, and the Spark Java UDF that runs its deserialization schema on each record (java/io/cdcconformance/peers:
FlinkPeerUdf on Spark's side, FlinkChangelog on Flink's, in a class loader of its own).

The version is FLINK_VERSION unless CDC_FLINK_VERSION names another flink-json release Maven Central serves (1.20.x
and 2.x share the API used here). The jar is compiled once per Flink and Spark version, in the cache, and added to the
session that runs the peer (`ADD JAR`), so no session needs it at its start.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from pyspark.sql import DataFrame

from cdc_conformance.harness import jvm
from cdc_conformance.harness.suite_files import package_dir
from cdc_conformance.peers import changes

FLINK_VERSION = "1.20.3"  # the LTS line Flink CDC 3.x and Paimon run; 2.1.1 and 2.3.0 give the same results (docs/peers.md)
UDF_NAME = "cdc_conformance_flink_changelog"
UDF_CLASS = "io.cdcconformance.peers.FlinkPeerUdf"
SOURCES = package_dir("cdc_conformance.peers") / "java"
_CLASSPATH_FILE = Path("io/cdcconformance/peers/flink-classpath.txt")


def flink_version() -> str:
    return os.environ.get("CDC_FLINK_VERSION") or FLINK_VERSION


def artifacts(version: str | None = None) -> jvm.ArtifactSet:
    version = version or flink_version()
    return jvm.ArtifactSet("flink-json", jvm.JVM_DIR / "flink-json" / "pom.xml", version, {"flink.version": version})


def peer_jar(version: str | None = None) -> Path:
    """FlinkPeerUdf and FlinkChangelog compiled against PySpark's jars and flink-json's, with the Flink jars' paths
    inside; once per change of the sources, Flink version or Spark version, one process at a time."""
    version = version or flink_version()
    flink_jars = jvm.ensure(artifacts(version))
    jvm.cache_dir().mkdir(parents=True, exist_ok=True)
    with open(jvm.cache_dir() / "flink-peer.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(version, flink_jars)


def _build(version: str, flink_jars: list[Path]) -> Path:
    sources = sorted(SOURCES.rglob("*.java"))
    classpath = "\n".join(str(jar) for jar in flink_jars)
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources) + classpath.encode()
                            + jvm.spark_jars_digest()).hexdigest()
    directory = jvm.cache_dir() / f"flink-peer-{version}-spark-{jvm.spark_version()}"
    jar, marker = directory / "cdc-conformance-flink-peer.jar", directory / ".complete"
    if jar.exists() and marker.exists() and marker.read_text() == digest:
        return jar
    shutil.rmtree(directory, ignore_errors=True)
    classes = directory / "classes"
    (classes / _CLASSPATH_FILE).parent.mkdir(parents=True)
    (classes / _CLASSPATH_FILE).write_text(classpath + "\n", encoding="utf-8")
    compile_ = [jvm.jvm_tool("javac"), "--release", "17", "-encoding", "UTF-8", "-nowarn", "-d", str(classes),
                "-cp", f"{jvm.pyspark_jars() / '*'}:{':'.join(map(str, flink_jars))}", *map(str, sources)]
    package = [jvm.jvm_tool("jar"), "--create", "--file", str(jar), "-C", str(classes), "."]
    for command in (compile_, package):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise jvm.ArtifactError(f"{Path(command[0]).name} failed for the Flink peer:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    marker.write_text(digest)
    return jar


def register(spark) -> None:
    """The UDF in `spark`, its jar added to the session first (once per session)."""
    if any(f.name == UDF_NAME for f in spark.catalog.listFunctions()):
        return
    spark.sql(f"ADD JAR '{peer_jar()}'")
    from pyspark.sql.types import StringType

    spark.udf.registerJavaFunction(UDF_NAME, UDF_CLASS, StringType())


def normalize(raw: DataFrame, format_id: str, flink_format: str) -> changes.Output:
    """Each record through Flink's `flink_format` schema: its changelog rows as events, Flink's exception as the
    record's refusal."""
    register(raw.sparkSession)
    decoded = raw.selectExpr("*", f"from_json({UDF_NAME}('{flink_format}', value), "
                                  f"'changes {changes.CHANGES_TYPE}, error string') AS flink")
    return changes.output(decoded, format_id, "flink.changes", "flink.error")


# what every Flink peer produces (harness/expressed.py): row changes, their operation and images, values as the text
# Flink's STRING columns give; no positions, keys, sources or quarantine codes (an exception is a refusal)
EXPRESSES = {"kinds": ["ROW"], "fields": ["kind", "op", "before", "after"], "values": "text", "quarantine": "refusal"}
