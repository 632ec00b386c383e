"""The normalizer on a Spark cluster as users run it: a standalone master and worker (PySpark's own `spark-class`,
executors in JVMs of their own) whose executors' Python has PySpark but not this project, as on any multi-host
cluster where only the driver has it. Every case passes in batch, and the stateful streaming formats stream as they
batch: their state function is on the JVM (shared.GroupAssembly), in the normalizer's jar the executors load (its
Python twin, for Spark Connect, once failed here with `ModuleNotFoundError: No module named 'normalizer'` until
normalizer/shipping.py sent the package)."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pyspark
import pytest

from cdc_conformance.harness.broker.base import free_port
from tests import installed

SPARK_HOME = Path(pyspark.__file__).parent


def _executor_python(directory: Path) -> Path:
    """A virtualenv with the driver's PySpark, pandas and pyarrow, and nothing of this project."""
    from importlib import metadata

    pins = [f"{name}=={metadata.version(name)}" for name in ("pyspark", "pandas", "pyarrow", "numpy")]
    installed._uv("venv", "-q", "--python", sys.executable, str(directory))
    python = directory / "bin" / "python"
    installed._uv("pip", "install", "-q", "--python", str(python), *pins)
    probe = subprocess.run([str(python), "-c", "import cdc_conformance"], capture_output=True, text=True, cwd=directory)
    assert probe.returncode != 0 and "No module named 'cdc_conformance'" in probe.stderr
    return python


@pytest.fixture
def cluster(tmp_path):
    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(tmp_path),
           "SPARK_WORKER_DIR": str(tmp_path / "work")}
    port = free_port()
    master = f"spark://127.0.0.1:{port}"
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    processes = [subprocess.Popen([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                                   str(port), "--webui-port", str(free_port())], env=env, stdout=open(tmp_path / "master.log", "w"),
                                  stderr=subprocess.STDOUT)]
    time.sleep(3)
    processes.append(subprocess.Popen([spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "2",
                                       "--memory", "4g", "--webui-port", str(free_port()), master], env=env,
                                      stdout=open(tmp_path / "worker.log", "w"), stderr=subprocess.STDOUT))
    try:
        deadline = time.monotonic() + 60
        while "Successfully registered with master" not in (tmp_path / "worker.log").read_text():
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.5)
        yield master
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=30)


def test_every_case_and_stateful_streaming_on_a_standalone_cluster_whose_executors_lack_the_project(cluster, tmp_path):
    executor_python = _executor_python(tmp_path / "executor-venv")
    env = {**os.environ, "CDC_SPARK_MASTER": cluster, "PYSPARK_PYTHON": str(executor_python),
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    result = subprocess.run([sys.executable, "-m", "tests.user.cluster_driver"], capture_output=True, text=True, timeout=1500,
                            cwd=installed.SUITE_ROOT, env=env)
    print(result.stdout)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert f"master {cluster}, executors' Python {executor_python}" in result.stdout
    assert "streaming = batch, ces-json: yes" in result.stdout and "streaming = batch, dataworks-json: yes" in result.stdout
