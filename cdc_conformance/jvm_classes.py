"""Java sources compiled against the installed PySpark's own jars into one cached jar: for a normalizer (or a peer) that
brings JVM classes through its door, `spark_jars(cache_dir)` (docs/normalizer-contract.md). The reference normalizer's
jar is built with it (normalizer/jvm_functions.py), and so is the Flink peer's (cdc_conformance/peers/flink.py).

Like the model beside it, this module is the suite's and imports nothing of it: any normalizer may use it. javac and
jar come with the JDK; the classpath is PySpark's own jars (plus any the caller names), so the classes are compiled
against exactly the Spark, Jackson and Avro that run them, and nothing is downloaded.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

_COMPLETE_MARKER = ".complete"


class JvmBuildError(RuntimeError):
    """javac or jar failed, or no JDK: what the tool said."""


def pyspark_jars() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def spark_version() -> str:
    import pyspark

    return pyspark.__version__


def spark_jars_digest() -> bytes:
    """What the classes are compiled against: the names of PySpark's jars (their versions), not where they lie, so
    that two installs of one PySpark share the jar and another Spark compiles its own."""
    return "\n".join(sorted(jar.name for jar in pyspark_jars().glob("*.jar"))).encode()


def jvm_tool(name: str) -> str:
    """A JDK command (java, javac, jar): JAVA_HOME's, else the one on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / name).exists():
        return str(Path(java_home) / "bin" / name)
    tool = shutil.which(name)
    if tool is None:
        raise JvmBuildError(f"no {name} on PATH and JAVA_HOME is not set; a Java 17 JDK is required")
    return tool


def compiled_jar(name: str, sources: Path | list[Path], cache_dir: Path, resources: dict[Path, bytes] | None = None,
                 classpath: list[Path] | None = None) -> Path:
    """`<cache_dir>/<name>-<spark version>/<name>.jar`: every .java file under `sources` (a folder, or several source
    roots: a peer's code and the code its peers share) compiled against PySpark's jars and `classpath`, with `resources`
    (path inside the jar -> content) beside the classes. Built again only when a source, a resource, the classpath,
    javac or PySpark's jars change; one process at a time (two test workers starting after an edit would each remove
    the other's build)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        roots = sources if isinstance(sources, list) else [sources]
        return _build(name, sorted(path for root in roots for path in root.rglob("*.java")), cache_dir, resources or {},
                      classpath or [])


def _build(name: str, sources: list[Path], cache_dir: Path, resources: dict[Path, bytes], classpath: list[Path]) -> Path:
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources)
                            + b"".join(str(inside).encode() + content for inside, content in sorted(resources.items()))
                            + "\n".join(map(str, classpath)).encode() + jvm_tool("javac").encode()
                            + spark_jars_digest()).hexdigest()
    # one jar per Spark version: classes compiled against one Spark's jars are not reused under another's
    directory = cache_dir / f"{name}-{spark_version()}"
    jar, marker = directory / f"{name}.jar", directory / _COMPLETE_MARKER
    if jar.exists() and marker.exists() and marker.read_text() == digest:
        return jar
    shutil.rmtree(directory, ignore_errors=True)
    classes = directory / "classes"
    classes.mkdir(parents=True)
    for inside, content in resources.items():
        (classes / inside).parent.mkdir(parents=True, exist_ok=True)
        (classes / inside).write_bytes(content)
    compile_ = [jvm_tool("javac"), "--release", "17", "-encoding", "UTF-8", "-Xlint:-options", "-nowarn", "-d", str(classes),
                "-cp", os.pathsep.join([str(pyspark_jars() / "*"), *map(str, classpath)]), *map(str, sources)]
    package = [jvm_tool("jar"), "--create", "--file", str(jar), "-C", str(classes), "."]
    for command in (compile_, package):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise JvmBuildError(f"{Path(command[0]).name} failed for {name}:\n{result.stdout[-4000:]}{result.stderr[-4000:]}")
    marker.write_text(digest)
    return jar
