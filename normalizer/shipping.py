"""The normalizer's own Python, shipped to the executors of the session that runs it.

Everything the normalizer runs on executors is Spark SQL or Java, but one thing through Spark Connect: the streaming assembly's state
function (`applyInPandasWithState`, normalizer/assembly.py), whose closure refers to functions of this package by
module and name. On a cluster whose executors' Python lacks the package (any multi-host cluster where only the driver
has it installed) that was `ModuleNotFoundError: No module named 'cdc_conformance'`. So before such a query is built, the
package's `.py` files go to the session as a Python file (`SparkContext.addPyFile`, or `addArtifacts(pyfile=True)`
through Spark Connect): once per session, from a zip made once per process.
"""
from __future__ import annotations

import tempfile
import threading
import zipfile
from functools import cache
from pathlib import Path

_lock = threading.Lock()
_shipped: set[str] = set()  # the sessions (application ids, Connect session ids) that have it


@cache
def package_zip() -> Path:
    """The package's Python files in a zip (made once per process, in a temporary directory of its own)."""
    import cdc_conformance

    root = Path(__file__).resolve().parent
    path = Path(tempfile.mkdtemp(prefix="cdc-normalizer-py-")) / "cdc_conformance_normalizer.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for source in sorted(Path(cdc_conformance.__file__).parent.glob("*.py")):  # the namespace and the model it owns
            archive.write(source, f"cdc_conformance/{source.name}")
        for source in sorted(root.rglob("*.py")):
            archive.write(source, Path("cdc_conformance/normalizer") / source.relative_to(root))
    return path


def ship_to_executors(spark) -> None:
    """Make the package importable on `spark`'s executors (a no-op for a session that has it already)."""
    classic = _classic_context(spark)
    session = classic.applicationId if classic is not None else f"connect:{spark.session_id}"
    with _lock:
        if session in _shipped:
            return
        if classic is not None:
            classic.addPyFile(str(package_zip()))
        else:
            spark.addArtifacts(str(package_zip()), pyfile=True)
        _shipped.add(session)


def _classic_context(spark):
    """The SparkContext of a classic session; None through Spark Connect, which has none."""
    try:
        return spark.sparkContext
    except Exception:  # Connect raises its own "not supported" error type, which differs between versions
        return None
