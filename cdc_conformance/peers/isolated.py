"""What the peers that run another engine's code share (Flink's formats, Paimon's parsers): the peer's jar, compiled
against PySpark's jars and the engine's, with the engine's jar paths written inside (java/isolated: IsolatedPeer loads
them in a class loader of their own), its Spark Java UDF registered once per session, and what the UDF returns read
back: one JSON document per record, `{"changes": [...], "error": ...}`, as the peer's changes and refusal."""
from __future__ import annotations

from pathlib import Path

from cdc_conformance import jvm_classes
from cdc_conformance.harness.suite_files import package_dir
from cdc_conformance.peers import changes

JAVA = package_dir("cdc_conformance.peers") / "java"


def peer_jar(name: str, engine: str, engine_jars: list[Path], cache_dir: Path) -> str:
    """The jar of `java/isolated` and `java/<engine>`, with `<engine>-classpath.txt` (the engine's jars) beside its
    classes; built once per change of the sources, the engine's jars or Spark's version."""
    classpath = "".join(f"{jar}\n" for jar in engine_jars).encode()
    inside = Path(f"io/cdcconformance/peers/{engine}-classpath.txt")
    return str(jvm_classes.compiled_jar(name, [JAVA / "isolated", JAVA / engine], cache_dir, {inside: classpath}, engine_jars))


def register(spark, name: str, java_class: str) -> None:
    """The UDF in `spark` (once per session; the harness has put the jar on the session's classpath)."""
    if any(f.name == name for f in spark.catalog.listFunctions()):
        return
    from pyspark.sql.types import StringType

    spark.udf.registerJavaFunction(name, java_class, StringType())


def output(rows, format_id: str, call: str) -> changes.Output:
    """`rows` (the Kafka source's columns and any the call reads) with `call`, the SQL of the peer's UDF over them,
    read back as the peer's output."""
    decoded = rows.selectExpr("*", f"from_json({call}, 'changes {changes.CHANGES_TYPE}, error string') AS peer")
    return changes.output(decoded, format_id, "peer.changes", "peer.error")
