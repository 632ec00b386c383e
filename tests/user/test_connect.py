"""The suite through Spark Connect, as users with a Connect endpoint run it: a Connect server from PySpark's own
distribution holding the normalizer's jars (`cdc-conformance jvm --spark-jars`), and the installed suite, in a
virtualenv with PySpark's Connect client, running every case with `run --remote sc://...` (no local JVM of Spark's:
the Java UDFs are registered by name through the session)."""
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pyspark
import pytest

from cdc_conformance.harness.broker.base import free_port
from cdc_conformance.harness.spark import normalizer_jars
from tests import installed

SPARK_HOME = Path(pyspark.__file__).parent


@pytest.fixture
def connect_server(tmp_path):
    port = free_port()
    log = tmp_path / "connect.log"
    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    command = [str(SPARK_HOME / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
               "--master", "local[2]", "--jars", ",".join(normalizer_jars()), "--driver-memory", "3g",
               "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
               "--conf", "spark.sql.session.timeZone=UTC", "--conf", "spark.ui.enabled=false",
               "--conf", "spark.driver.extraJavaOptions=-Duser.timezone=UTC", "spark-internal"]
    server = subprocess.Popen(command, env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while not re.search(r"Spark Connect server started|SparkConnectServer.*started", log.read_text()):
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_every_case_through_a_spark_connect_session(connect_server, tmp_path):
    from importlib import metadata

    wheel = installed.build_wheel(tmp_path / "dist")
    python = installed.fresh_venv(tmp_path / "venv", wheel, f"pyspark[connect]=={metadata.version('pyspark')}")
    work = tmp_path / "repo"
    work.mkdir()
    result = subprocess.run([str(python.parent / "cdc-conformance"), "run", "--remote", connect_server], capture_output=True,
                            text=True, cwd=work, timeout=1200, env=installed.user_env(python, installed.INSTALLED_CACHE))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert re.search(r"^total\s+(\d+)\s+\1\s+0\s+0\s+0\s+0\s", result.stdout, re.M), result.stdout
    facts = json.loads((work / "reports" / "latest" / "results.jsonl").read_text().splitlines()[0])
    assert facts["spark_connectors"] == f"the Connect server's ({connect_server})", facts
