"""The Spark session factory: local[2], UTC, no UI, Spark's Kafka source and Avro support on the classpath."""
from __future__ import annotations

import functools
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from cdc_conformance.harness import jvm

DEFAULT_MASTER = "local[2]"
LOG_CONFIG = Path(__file__).with_name("spark-log4j2.properties")


# `make run`'s jobs are few and short: they end before the optimizing compiler (C2) pays off, and on two cores
# its compiler threads take the cores the jobs need. The quick compiler alone: the suite's 143 cases 21.0 s ->
# 17.1 s (measured, same machine). Not for a long-lived session: streaming tests ran 2.7x slower with it (a
# stateful query's Arrow batches are hot loops only C2 makes fast), and benchmarks measure steady state. The code
# cache at 240 MB: the quick compiler's default, 48 MB, filled up in a whole `peers` run, and the JVM then stops
# compiling ("CodeCache is full. Compiler has been disabled").
QUICK_START_JIT = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"


def normalizer_jars() -> list[str]:
    """What a Spark session needs on `spark.jars` to run the reference normalizer (and read Kafka): Spark's Kafka source
    and Avro support for the installed PySpark, and the jar the normalizer brings through its door, compiled for it.
    For a session of your own (`.config("spark.jars", ",".join(normalizer_jars()))`), spark-submit (`--jars`) or a
    cluster's library list; `cdc-conformance jvm --spark-jars` prints the same list. Resolved and compiled on first use."""
    from cdc_conformance.harness.under_test import NormalizerUnderTest

    return session_jars(NormalizerUnderTest.load())


def session_jars(*normalizers) -> list[str]:
    """Spark's connectors (the harness reads Kafka with them) and the jars each of `normalizers` brings (its
    `spark_jars`), each once."""
    jars = [str(jar) for jar in jvm.spark_connector_jars()]
    return list(dict.fromkeys([*jars, *(jar for normalizer in normalizers for jar in normalizer.jars)]))


def spark_session(master: str | None = None, app_name: str = "cdc-conformance", extra_conf: dict | None = None,
                  quick_start: bool = False, under_test=None):
    """Return the (singleton) session, creating it with the project's settings on first use (`quick_start`: for
    a process that runs a few short jobs and exits, with the quick JIT), its classpath Spark's connectors and the jars
    of the normalizer under test (`under_test`, a NormalizerUnderTest or several; the reference when none is named).
    With CDC_SPARK_REMOTE (or Spark's own SPARK_REMOTE) set to `sc://host:port`, a Spark Connect session instead
    (`remote_session`)."""
    from pyspark.sql import SparkSession

    remote = remote_url()
    if remote:
        return remote_session(remote, extra_conf)
    # Workers must run the same interpreter as the driver (the project's virtualenv).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # a local job binds to loopback only
    if under_test is None:
        jars = ",".join(normalizer_jars())
    else:
        jars = ",".join(session_jars(*(under_test if isinstance(under_test, list | tuple) else [under_test])))
    java_options = f"-Duser.timezone=UTC -Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}"
    if quick_start:
        java_options += " " + QUICK_START_JIT
    builder = (
        SparkSession.builder.master(master or os.environ.get("CDC_SPARK_MASTER", DEFAULT_MASTER))
        .appName(app_name)
        .config("spark.jars", jars)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # one shuffle partition per core: a stateful micro-batch runs one state-store task (and one Python
        # worker call) per partition, and small test batches pay for each (measured: 1.5 s -> 1.1 s per batch)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", os.environ.get("CDC_SPARK_DRIVER_MEMORY", "3g"))
        .config("spark.sql.adaptive.enabled", "true")
        # an idle query reports progress every 10 s by default, and a run that waits for one more batch after the
        # end offsets (harness.streaming.run_until_caught_up) waited for that report: 8-10 s per streaming run
        .config("spark.sql.streaming.noDataProgressEventInterval", "200ms")
        .config("spark.driver.extraJavaOptions", java_options)
        .config("spark.executor.extraJavaOptions", java_options)
    )
    for key, value in (extra_conf or {}).items():
        builder = builder.config(key, value)
    _leave_no_artifacts_directory()
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(os.environ.get("CDC_SPARK_LOG_LEVEL", "ERROR"))
    return session


# What a Connect client may set on its session for the harness's own runs (the server's static settings, its jars
# among them, are the server's): UTC, and the grouping's shuffle partitions (a server's default 200 made a CES streaming
# check 296 s instead of 22 s: each stateful micro-batch runs one state-store task per partition)
REMOTE_SESSION = {"spark.sql.session.timeZone": "UTC", "spark.sql.shuffle.partitions": "2",
                  "spark.sql.streaming.noDataProgressEventInterval": "200ms"}


def remote_url() -> str | None:
    """The Spark Connect server the harness's sessions go to, if any (CDC_SPARK_REMOTE, or Spark's own SPARK_REMOTE)."""
    return os.environ.get("CDC_SPARK_REMOTE") or os.environ.get("SPARK_REMOTE")


def remote_problem(url: str) -> str | None:
    """Why `url` cannot give a Spark Connect session here, in one line, before anything starts (the CLI's `--remote`
    and the pytest plugin's `--cdc-remote` alike); None when it can."""
    if not url.startswith("sc://"):
        return f"{url}: a Spark Connect URL, sc://HOST:PORT"
    try:
        from pyspark.sql.connect.utils import check_dependencies

        check_dependencies("pyspark.sql.connect.session")
    except ImportError as error:  # pandas, pyarrow, grpcio, grpcio-status or googleapis-common-protos
        return f"{url}: PySpark's Spark Connect client is not installed (pip install \"pyspark[connect]\"): {str(error).splitlines()[0]}"
    return None


def remote_session(url: str, extra_conf: dict | None = None):
    """A Spark Connect session at `url`, whose server holds the normalizer's jars (`cdc-conformance jvm --spark-jars`
    on its `--jars`). Needs PySpark's Connect client (`pip install "pyspark[connect]"`)."""
    from pyspark.sql import SparkSession

    os.environ.pop("SPARK_REMOTE", None)  # the builder refuses a remote URL given twice
    os.environ["CDC_SPARK_REMOTE"] = url  # remote_url() still names it (the run's facts)
    builder = SparkSession.builder.remote(url)
    for key, value in {**REMOTE_SESSION, **(extra_conf or {})}.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


@functools.cache  # once per process: spark_session() is called for every use of the singleton
def _leave_no_artifacts_directory() -> None:
    """Spark 4's artifact manager makes `artifacts/` in the working directory (a user's repository, when the
    pytest plugin runs there); remove it at exit when this process made it and left it empty."""
    import atexit
    from pathlib import Path

    directory = Path.cwd() / "artifacts"
    if directory.exists():
        return

    def remove_if_empty() -> None:
        for path in sorted(directory.glob("**/*"), reverse=True):  # empty session directories inside it too
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()

    atexit.register(remove_if_empty)


# Session settings the normalizer must not depend on, each away from its default (the normalizer runs in
# users' sessions). The conformance suite's run of every case uses them (conformance/test_cases.py). The session
# time zone is not here: the normalizer refuses any but UTC, loudly (normalizer/pipeline.py).
HOSTILE_SESSION = {
    "spark.sql.ansi.enabled": "false",                    # subscripts and casts give NULL instead of raising
    "spark.sql.parser.escapedStringLiterals": "true",     # backslashes in SQL literals are kept
    "spark.sql.chunkBase64String.enabled": "true",        # base64() breaks lines every 76 characters
    "spark.sql.mapKeyDedupPolicy": "LAST_WIN",            # duplicate map keys are dropped instead of raising
    "spark.sql.caseSensitive": "true",
    "spark.sql.legacy.timeParserPolicy": "LEGACY",
    "spark.sql.legacy.javaCharsets": "true",
    "spark.sql.jsonGenerator.ignoreNullFields": "false",
    "spark.sql.storeAssignmentPolicy": "LEGACY",
}


@contextmanager
def session_settings(spark, settings: dict[str, str]):
    """`settings` applied to `spark` for the block, the previous values restored after."""
    previous = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in previous.items():
            spark.conf.unset(key) if value is None else spark.conf.set(key, value)
