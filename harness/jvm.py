"""JVM artifacts resolved by Maven from the poms under jvm/ into a gitignored cache.

Two classpaths are needed and they must never mix: the Apache Kafka broker (its own JVM process) and
Spark's Kafka source + Avro support (added to PySpark's JVM). Spark's connector version is derived from
the installed ``pyspark.__version__``; the Kafka version lives only in jvm/kafka-broker/pom.xml.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
JVM_DIR = REPO_ROOT / "jvm"
CACHE_DIR = Path(os.environ.get("CDC_CONFORMANCE_JVM_CACHE", REPO_ROOT / ".cache" / "jvm"))
_COMPLETE_MARKER = ".complete"


class ArtifactError(RuntimeError):
    """Maven could not resolve a JVM artifact set."""


@dataclass(frozen=True)
class ArtifactSet:
    name: str
    pom: Path
    version: str
    properties: dict[str, str]

    @property
    def directory(self) -> Path:
        return CACHE_DIR / f"{self.name}-{self.version}"

    def jars(self) -> list[Path]:
        return sorted(self.directory.glob("*.jar"))


def kafka_version() -> str:
    pom = (JVM_DIR / "kafka-broker" / "pom.xml").read_text()
    match = re.search(r"<kafka\.version>([^<]+)</kafka\.version>", pom)
    if not match:
        raise ArtifactError("jvm/kafka-broker/pom.xml has no <kafka.version> property")
    return match.group(1)


def spark_version() -> str:
    import pyspark

    return pyspark.__version__


def kafka_broker_artifacts() -> ArtifactSet:
    return ArtifactSet("kafka", JVM_DIR / "kafka-broker" / "pom.xml", kafka_version(), {})


def spark_connector_artifacts() -> ArtifactSet:
    version = spark_version()
    return ArtifactSet("spark", JVM_DIR / "spark-connectors" / "pom.xml", version, {"spark.version": version})


# the connector release the real-producer tier runs by default (harness/producers; others: `producers --debezium`)
DEFAULT_DEBEZIUM_VERSION = "3.3.2.Final"


def kafka_connect_artifacts(debezium_version: str = DEFAULT_DEBEZIUM_VERSION) -> ArtifactSet:
    """Kafka Connect at the broker's version with Debezium's PostgreSQL connector of `debezium_version`."""
    return ArtifactSet("connect", JVM_DIR / "kafka-connect" / "pom.xml", debezium_version,
                       {"debezium.version": debezium_version, "kafka.version": kafka_version()})


def ensure(artifacts: ArtifactSet) -> list[Path]:
    """Resolve the set once; later calls only check the completion marker (idempotent, offline). The marker
    holds a digest of the pom and properties: an edited dependency list resolves again into a clean folder."""
    digest = hashlib.sha256(artifacts.pom.read_bytes() + repr(sorted(artifacts.properties.items())).encode()).hexdigest()
    marker = artifacts.directory / _COMPLETE_MARKER
    if marker.exists() and marker.read_text().startswith(digest):
        return artifacts.jars()
    shutil.rmtree(artifacts.directory, ignore_errors=True)
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ArtifactError("Maven (mvn) is not on PATH; it is needed once to resolve the JVM artifacts")
    artifacts.directory.mkdir(parents=True, exist_ok=True)
    command = [
        mvn, "-q", "-B", "-s", str(JVM_DIR / "settings.xml"), "-f", str(artifacts.pom),
        *[f"-D{key}={value}" for key, value in artifacts.properties.items()],
        "dependency:copy-dependencies", f"-DoutputDirectory={artifacts.directory}", "-DincludeScope=runtime",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise ArtifactError(f"mvn failed for {artifacts.name} {artifacts.version}:\n{result.stdout[-4000:]}")
    marker.write_text(f"{digest} {' '.join(command)}")
    return artifacts.jars()


GUARD_DIR = JVM_DIR / "avro-guard"


def avro_guard_jar() -> Path:
    """The normalizer's Avro guard (jvm/avro-guard), built by Maven once per change of its pom or source;
    the build happens in the cache, never in the tree."""
    sources = sorted(GUARD_DIR.rglob("*.java")) + [GUARD_DIR / "pom.xml"]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()
    directory = CACHE_DIR / "avro-guard"
    jar, marker = directory / "cdc-conformance-avro-guard.jar", directory / _COMPLETE_MARKER
    if jar.exists() and marker.exists() and marker.read_text() == digest:
        return jar
    shutil.rmtree(directory, ignore_errors=True)
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ArtifactError("Maven (mvn) is not on PATH; it is needed once to build the Avro guard")
    build = directory / "build"
    command = [mvn, "-q", "-B", "-s", str(JVM_DIR / "settings.xml"), "-f", str(GUARD_DIR / "pom.xml"), "package",
               f"-Dguard.build.dir={build}"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise ArtifactError(f"mvn failed to build the Avro guard:\n{result.stdout[-4000:]}{result.stderr[-2000:]}")
    shutil.copy(next(build.glob("*.jar")), jar)
    marker.write_text(digest)
    return jar


def _artifact_id(jar: Path) -> str:
    """`kafka-clients-3.9.0.jar` -> `kafka-clients` (the version is whatever follows the last '-<digit>')."""
    return re.sub(r"-\d[^-]*$", "", jar.stem)


def spark_connector_jars() -> list[Path]:
    """The connector jars minus anything PySpark already ships (two scala-library jars would clash)."""
    import pyspark

    bundled = {_artifact_id(jar) for jar in (Path(pyspark.__file__).parent / "jars").glob("*.jar")}
    connectors = [jar for jar in ensure(spark_connector_artifacts()) if _artifact_id(jar) not in bundled]
    return [*connectors, avro_guard_jar()]


def kafka_broker_classpath() -> str:
    return os.pathsep.join(str(jar) for jar in ensure(kafka_broker_artifacts()))


def java_executable() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return str(Path(java_home) / "bin" / "java")
    java = shutil.which("java")
    if java is None:
        raise ArtifactError("no java on PATH and JAVA_HOME is not set; Java 17 is required")
    return java


def main() -> None:
    """`python -m harness.jvm`: resolve the artifact sets (used by `make` bootstrap)."""
    for artifacts in (kafka_broker_artifacts(), spark_connector_artifacts(), kafka_connect_artifacts()):
        jars = ensure(artifacts)
        print(f"{artifacts.name} {artifacts.version}: {len(jars)} jars in {artifacts.directory}")
    print(f"avro guard: {avro_guard_jar()}")


if __name__ == "__main__":
    main()
