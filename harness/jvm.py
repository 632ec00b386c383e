"""JVM artifacts resolved by Maven from the poms under harness/maven/ into the cache (harness.suite_files.cache_dir:
the checkout's .cache/, or the user's cache directory for an installed suite; never site-packages).

Two classpaths are needed and they must never mix: the Apache Kafka broker (its own JVM process) and
Spark's Kafka source + Avro support (added to PySpark's JVM). Spark's connector version is derived from
the installed ``pyspark.__version__``; the Kafka version lives only in harness/maven/kafka-broker/pom.xml.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cdc_conformance import jvm_classes
from cdc_conformance.harness import suite_files

JVM_DIR = suite_files.MAVEN_DIR
_COMPLETE_MARKER = ".complete"


def cache_dir() -> Path:
    """Resolved and compiled JVM artifacts [env: CDC_CONFORMANCE_JVM_CACHE]."""
    given = os.environ.get("CDC_CONFORMANCE_JVM_CACHE")
    return Path(given) if given else suite_files.cache_dir() / "jvm"


class ArtifactError(RuntimeError):
    """Maven could not resolve a JVM artifact set."""


@dataclass(frozen=True)
class ArtifactSet:
    name: str
    pom: Path
    version: str
    properties: dict[str, str]
    # an application the pom builds (`mvn package` in a copy of its folder: a Quarkus application's runner jar, its
    # libraries in lib/ beside it), not a list of dependencies to copy
    application: bool = False

    @property
    def directory(self) -> Path:
        return cache_dir() / f"{self.name}-{self.version}"

    def jars(self) -> list[Path]:
        return sorted(self.directory.glob("*.jar"))


def kafka_version() -> str:
    pom = (JVM_DIR / "kafka-broker" / "pom.xml").read_text()
    match = re.search(r"<kafka\.version>([^<]+)</kafka\.version>", pom)
    if not match:
        raise ArtifactError(f"{JVM_DIR / 'kafka-broker' / 'pom.xml'} has no <kafka.version> property")
    return match.group(1)



def kafka_broker_artifacts(version: str | None = None) -> ArtifactSet:
    """The broker of the pom's Kafka version, or of `version` (the canal run's older broker: CANAL_KAFKA_VERSION)."""
    if version is None or version == kafka_version():
        return ArtifactSet("kafka", JVM_DIR / "kafka-broker" / "pom.xml", kafka_version(), {})
    return ArtifactSet("kafka", JVM_DIR / "kafka-broker" / "pom.xml", version, {"kafka.version": version})


def scala_binary_version() -> str:
    """The Scala line of the installed PySpark (2.12 for Spark 3.5, 2.13 for Spark 4), read from its own jars: the
    connectors must be built for the same line."""
    for jar in sorted(pyspark_jars().glob("spark-core_*.jar")):
        match = re.match(r"spark-core_(\d+\.\d+)-", jar.name)
        if match:
            return match.group(1)
    raise ArtifactError(f"no spark-core_<scala>-*.jar in {pyspark_jars()}: is PySpark installed whole?")


# Spark's connectors lag PySpark on Maven Central (PySpark 4.3.0 is on PyPI; `spark-sql-kafka-0-10` stops at 4.2.0 on
# Maven Central as reached here, 2026-11-26). Maven's version ranges cannot stand in: its metadata lists releases whose
# POMs are not served here, and a range picks them. So: the exact release, else its minor line's first, else the
# newest release of its major line this suite has resolved, never above the installed PySpark.
NEWEST_CONNECTORS = {"4": "4.2.0", "3": "3.5.0"}


def spark_connector_candidates() -> list[ArtifactSet]:
    """Spark's Kafka source and Avro support for the installed PySpark, in the order tried (the first that resolves is
    kept: docs/normalizer-contract.md, "Spark versions")."""
    from packaging.version import Version

    version, scala = spark_version(), scala_binary_version()
    release = Version(version)
    tried = [version, f"{release.major}.{release.minor}.0", NEWEST_CONNECTORS.get(str(release.major), version)]
    connectors = [v for v in dict.fromkeys(tried) if Version(v) <= release]
    return [ArtifactSet("spark", JVM_DIR / "spark-connectors" / "pom.xml", f"{version}-scala{scala}",
                        {"spark.version": v, "scala.binary.version": scala}) for v in connectors]


def connector_version(jars: list[Path]) -> str | None:
    """The version of the resolved `spark-sql-kafka-0-10` jar (the PySpark version, or the fallback's)."""
    for jar in jars:
        match = re.match(r"spark-sql-kafka-0-10_[\d.]+-(.+)\.jar$", jar.name)
        if match:
            return match.group(1)
    return None


# the connector release the real-producer tier runs by default (harness/producers; others: `producers --debezium`)
DEFAULT_DEBEZIUM_VERSION = "3.3.2.Final"
# Debezium's MariaDB connector (its own since 2.7) has no 3.3.2 on Maven Central: 3.3.0 is the nearest (docs/producers.md)
DEFAULT_MARIADB_DEBEZIUM_VERSION = "3.3.0.Final"


# canal's server as Maven Central serves it (harness/maven/canal), and the broker it can write to: 1.1.4 sends with
# Kafka's 1.1.1 client, whose requests Kafka 4 no longer accepts (KIP-896 removed them) and 3.9, the last 3.x, does
CANAL_VERSION = "1.1.4"
CANAL_KAFKA_VERSION = "3.9.1"


def canal_artifacts() -> ArtifactSet:
    return ArtifactSet("canal", JVM_DIR / "canal" / "pom.xml", CANAL_VERSION, {"canal.version": CANAL_VERSION})


# Flink CDC's MySQL source and a local Flink (harness/maven/flink-cdc): the real-producer tier's Flink CDC run
FLINK_CDC_VERSION = "3.1.1"


def flink_cdc_artifacts() -> ArtifactSet:
    return ArtifactSet("flink-cdc", JVM_DIR / "flink-cdc" / "pom.xml", FLINK_CDC_VERSION, {"flink.cdc.version": FLINK_CDC_VERSION})


def kafka_connect_artifacts(debezium_version: str = DEFAULT_DEBEZIUM_VERSION, connector: str = "postgres") -> ArtifactSet:
    """Kafka Connect at the broker's version with Debezium's `connector` (debezium-connector-<connector>) of
    `debezium_version`."""
    return ArtifactSet("connect" if connector == "postgres" else f"connect-{connector}", JVM_DIR / "kafka-connect" / "pom.xml",
                       debezium_version, {"debezium.version": debezium_version, "debezium.connector": connector,
                                          "kafka.version": kafka_version()})


# Apicurio Registry's application (harness/maven/schema-registry): the schema registry of the formats that need one
SCHEMA_REGISTRY_VERSION = "2.4.2.Final"


def schema_registry_artifacts() -> ArtifactSet:
    return ArtifactSet("schema-registry", JVM_DIR / "schema-registry" / "pom.xml", SCHEMA_REGISTRY_VERSION,
                       {"apicurio.version": SCHEMA_REGISTRY_VERSION}, application=True)


# Apicurio's Kafka Connect converter (harness/maven/avro-converter): Avro in the Confluent wire format, from Connect
AVRO_CONVERTER_VERSION = "2.6.13.Final"


def avro_converter_artifacts() -> ArtifactSet:
    return ArtifactSet("avro-converter", JVM_DIR / "avro-converter" / "pom.xml", AVRO_CONVERTER_VERSION,
                       {"apicurio.converter.version": AVRO_CONVERTER_VERSION})


# async-profiler (harness/maven/async-profiler): `bench --profile`'s flame graphs, loaded into the driver it profiles
ASYNC_PROFILER_VERSION = "4.2"


def async_profiler_artifacts() -> ArtifactSet:
    return ArtifactSet("async-profiler", JVM_DIR / "async-profiler" / "pom.xml", ASYNC_PROFILER_VERSION,
                       {"async.profiler.version": ASYNC_PROFILER_VERSION})


def _complete(artifacts: ArtifactSet) -> tuple[Path, str, bool]:
    sources = sorted(path for path in artifacts.pom.parent.rglob("*") if path.is_file()) if artifacts.application else [artifacts.pom]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources)
                            + repr(sorted(artifacts.properties.items())).encode()).hexdigest()
    marker = artifacts.directory / _COMPLETE_MARKER
    return marker, digest, marker.exists() and marker.read_text().startswith(digest)


def ensure_first(candidates: list[ArtifactSet]) -> tuple[ArtifactSet, list[Path]]:
    """The first candidate already resolved, else the first that resolves (in order); the first one's error if none."""
    for artifacts in candidates:
        if _complete(artifacts)[2]:
            return artifacts, artifacts.jars()
    errors = []
    for artifacts in candidates:
        try:
            return artifacts, ensure(artifacts)
        except ArtifactError as error:
            errors.append(error)
    raise errors[0]


def ensure(artifacts: ArtifactSet) -> list[Path]:
    """Resolve the set once; later calls only check the completion marker (idempotent, offline). The marker
    holds a digest of the pom and properties: an edited dependency list resolves again into a clean folder."""
    marker, digest, complete = _complete(artifacts)
    if complete:
        return artifacts.jars()
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / f"{artifacts.name}-{artifacts.version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one resolution at a time per set; a second caller finds it done
        if marker.exists() and marker.read_text().startswith(digest):
            return artifacts.jars()
        return _resolve(artifacts, marker, digest)


def _resolve(artifacts: ArtifactSet, marker: Path, digest: str) -> list[Path]:
    shutil.rmtree(artifacts.directory, ignore_errors=True)
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ArtifactError("Maven (mvn) is not on PATH; it is needed once to resolve the JVM artifacts")
    artifacts.directory.mkdir(parents=True, exist_ok=True)
    settings = [mvn, "-q", "-B", "-s", str(JVM_DIR / "settings.xml"), *[f"-D{key}={value}" for key, value in artifacts.properties.items()]]
    if artifacts.application:
        command = _build_application(artifacts, settings)
    else:
        command = [*settings, "-f", str(artifacts.pom), "dependency:copy-dependencies",
                   f"-DoutputDirectory={artifacts.directory}", "-DincludeScope=runtime"]
        _maven(command, artifacts)
    marker.write_text(f"{digest} {' '.join(command)}")
    return artifacts.jars()


def _build_application(artifacts: ArtifactSet, settings: list[str]) -> list[str]:
    """`mvn package` in a copy of the pom's folder inside the cache (the suite's files are read-only), then the runner
    jar and its lib/ kept in the set's directory, the build's other output removed."""
    build = artifacts.directory / "build"
    shutil.copytree(artifacts.pom.parent, build)
    command = [*settings, "-f", str(build / "pom.xml"), "package", "-DskipTests"]
    _maven(command, artifacts)
    for runner in (build / "target").glob("*-runner.jar"):
        runner.rename(artifacts.directory / runner.name)
    (build / "target" / "lib").rename(artifacts.directory / "lib")
    shutil.rmtree(build)
    return command


def _maven(command: list[str], artifacts: ArtifactSet) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise ArtifactError(f"mvn failed for {artifacts.name} {artifacts.version}:\n{result.stdout[-4000:]}")


# PySpark's jars and the JDK's tools: the same for the suite's Maven artifacts as for a normalizer's own classes
pyspark_jars = jvm_classes.pyspark_jars
spark_version = jvm_classes.spark_version
spark_jars_digest = jvm_classes.spark_jars_digest
jvm_tool = jvm_classes.jvm_tool


def _artifact_id(jar: Path) -> str:
    """`kafka-clients-3.9.0.jar` -> `kafka-clients` (the version is whatever follows the last '-<digit>')."""
    return re.sub(r"-\d[^-]*$", "", jar.stem)


def spark_connector_jars() -> list[Path]:
    """Spark's Kafka source and Avro support at the installed PySpark's version, minus anything PySpark already ships
    (two scala-library jars would clash): the session's, whatever normalizer runs in it."""
    bundled = {_artifact_id(jar) for jar in pyspark_jars().glob("*.jar")}
    return [jar for jar in ensure_first(spark_connector_candidates())[1] if _artifact_id(jar) not in bundled]


def kafka_broker_classpath(version: str | None = None) -> str:
    return os.pathsep.join(str(jar) for jar in ensure(kafka_broker_artifacts(version)))


def java_executable() -> str:
    return jvm_tool("java")


def main() -> None:
    """Resolve the artifact sets every run needs (`cdc-conformance jvm`, which `make` bootstrap runs). Kafka Connect
    with a Debezium connector resolves on first use (the real-producer tier): while the tests run, its download
    overlaps their computing, instead of adding to bootstrap."""
    jars = ensure(kafka_broker_artifacts())
    print(f"kafka {kafka_version()}: {len(jars)} jars in {kafka_broker_artifacts().directory}")
    connectors, jars = ensure_first(spark_connector_candidates())
    print(f"spark {spark_version()} (Scala {scala_binary_version()}): connectors {connector_version(jars)}, "
          f"{len(jars)} jars in {connectors.directory}")



if __name__ == "__main__":
    main()
