"""`bench --profile DIR` (make profile): where a record's time goes, from async-profiler's samples of a batch pass.

async-profiler (harness/maven/async-profiler) is loaded through its Java API into the local Spark driver, whose task
threads run the passes (local mode: the executors are the driver's threads), by a class loader of its own: a session
needs no setting for it, and a running one (the test process's) can be profiled. One more pass of each side, after the
measured ones and not counted in them, runs with the profiler on: a flame graph (`<format>-<side>.html`) and its
collapsed stacks (`.collapsed`) are written to DIR, and `summary` sorts the task threads' samples into the parts of a
pass (the Kafka source, the readers, Spark's conversion of their rows, ...) for docs/performance.md.

CPU samples come from perf events (`event=cpu`, every millisecond of CPU); where the kernel refuses them (a container
without perf), from the interval timer (`itimer`: its resolution is the kernel's tick, 4 ms here, so fewer samples).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cdc_conformance.harness import jvm

TASK_FRAME = "Executor$TaskRunner.run"
# A sample's part of the pass. A stack with a reader's frame is the readers' (whatever library the reader called: Avro,
# Jackson); any other is the part of its innermost frame that matches one of these (Spark's generated code calls the
# Kafka source, a shuffle's writer calls the stage below it: the innermost is where the time went)
READERS = "readers (io.cdcconformance)"
# the readers' rows made Spark's internal rows: by Spark after a UDF, by the normalizer's own converter after a
# Catalyst expression's call (issue 61); a stack with the latter holds no reading, only converting
CONVERSION = "conversion of the readers' Row to Spark's rows (CatalystTypeConverters, InternalRows)"
OWN_CONVERSION = "io/cdcconformance/shared/InternalRows"
PARTS = (
    (CONVERSION, "CatalystTypeConverters"),
    ("Spark's Kafka source", r"kafka010|org/apache/kafka/"),
    ("Spark's Avro (from_avro)", r"spark/sql/avro|org/apache/avro/"),
    ("Spark's JSON (from_json)", r"catalyst/json|com/fasterxml/jackson"),
    ("Python (the plain pass's or a Python UDF's)", r"api/python|PythonRunner"),
    ("Spark's shuffle and grouping (exchange, collect_list, state store)",
     r"[Ss]huffle|ObjectAggregat|SortAggregat|UnsafeExternalSorter|GroupsWithState|[Ss]tateStore|RocksDB"),
    ("generated code: projections and output rows", r"GeneratedClass|UnsafeRow|UnsafeWriter|codegen"),
)
OTHER = "other"


_LOADED: dict[int, Any] = {}  # the profiler's API per driver JVM (its native library loads once per process)


def _api(spark) -> Any:
    """`one.profiler.AsyncProfiler.getInstance()` in the session's driver, from the resolved jar (it extracts and loads
    its native library itself), through a class loader of its own."""
    gateway = spark.sparkContext._gateway
    key = id(gateway)
    if key not in _LOADED:
        jvm_view = spark._jvm
        urls = gateway.new_array(jvm_view.java.net.URL, 1)
        urls[0] = jvm_view.java.io.File(str(jvm.ensure(jvm.async_profiler_artifacts())[0])).toURI().toURL()
        loader = jvm_view.java.net.URLClassLoader(urls, jvm_view.java.lang.ClassLoader.getSystemClassLoader())
        api = jvm_view.java.lang.Class.forName("one.profiler.AsyncProfiler", True, loader)
        no_types, no_arguments = gateway.new_array(jvm_view.java.lang.Class, 0), gateway.new_array(jvm_view.java.lang.Object, 0)
        _LOADED[key] = api.getMethod("getInstance", no_types).invoke(None, no_arguments)
    return _LOADED[key]


class Profiler:
    """async-profiler in the session's driver: `with Profiler(spark).recording(path):` samples the block into path's
    `.html` and `.collapsed`."""

    def __init__(self, spark):
        self._api = _api(spark)
        self.event = "cpu"

    @contextmanager
    def recording(self, path: Path) -> Iterator[Profiler]:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.start()
        try:
            yield self
        finally:
            self.stop(path)

    def start(self) -> None:
        try:
            self._api.execute(f"start,event={self.event},interval=1ms")
        except Exception:  # noqa: BLE001 - py4j's error: perf events refused here; the timer works everywhere
            self.event = "itimer"
            self._api.execute("start,event=itimer,interval=1ms")

    def stop(self, path: Path) -> None:
        self._api.execute("stop")
        self._api.execute(f"collapsed,file={path.with_suffix('.collapsed')}")
        self._api.execute(f"flamegraph,title={path.stem},file={path.with_suffix('.html')}")


@dataclass
class Breakdown:
    """One profiled pass: its task threads' samples by part of the pass, and the frames they were in."""

    samples: int = 0
    parts: Counter = field(default_factory=Counter)
    own_frames: Counter = field(default_factory=Counter)   # the frame a sample was in (self time)
    reader_frames: Counter = field(default_factory=Counter)  # every io.cdcconformance frame on the stack (inclusive)

    def share(self, part: str) -> float:
        return self.parts[part] / self.samples if self.samples else 0.0


def _frame(frame: str) -> str:
    """`io/cdcconformance/shared/Json.read_[j]` -> `io.cdcconformance.shared.Json.read` (async-profiler's frame types
    and a lambda's generated class name dropped)."""
    frame = re.sub(r"_\[[a-z0-9]\]$", "", frame)
    frame = re.sub(r"\$\$Lambda[^.;]*", "$$Lambda", frame)
    return frame.replace("/", ".")


def _is_lambda(frame: str) -> bool:
    """A lambda's frame (`$$Lambda.get`, `lambda$call$0`): the method that holds it is the frame worth naming."""
    return "$$Lambda" in frame or ".lambda$" in frame


def part_of(stack: str) -> str:
    if OWN_CONVERSION in stack:
        return CONVERSION
    if "io/cdcconformance/" in stack:
        return READERS
    for frame in reversed(stack.split(";")):
        for name, pattern in PARTS:
            if re.search(pattern, frame):
                return name
    return OTHER


# the developers' tools that call the readers (scripts/java): on every stack of theirs, so no reader's frame
TOOLS_PACKAGE = "io.cdcconformance.bench."


def breakdown(collapsed: Path, thread_frame: str = TASK_FRAME) -> Breakdown:
    """The samples of a `.collapsed` file (a line per distinct stack: frames joined by `;`, its count) taken in the
    threads whose stacks hold `thread_frame`: Spark's task threads, or a tool's own (`make readers --profile`)."""
    result = Breakdown()
    for line in collapsed.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if thread_frame not in stack or not count.isdigit():
            continue
        n = int(count)
        frames = [_frame(f) for f in stack.split(";")]
        result.samples += n
        result.parts[part_of(stack)] += n
        result.own_frames[frames[-1]] += n
        for reader_frame in {f for f in frames if f.startswith("io.cdcconformance.") and not f.startswith(TOOLS_PACKAGE)
                             and not _is_lambda(f)}:
            result.reader_frames[reader_frame] += n
    return result


def heaviest_frames(profiled: Breakdown, column: str, top: int = 15) -> list[str]:
    """Markdown: a pass's heaviest frames, the readers' own (inclusive), then where samples were taken (self), each as
    a share of the samples."""
    lines = [f"| the readers' frames (inclusive) | {column} |", "|---|---:|"]
    lines += [f"| `{frame}` | {n / profiled.samples:.0%} |" for frame, n in profiled.reader_frames.most_common(top)]
    lines += ["", f"| frames where samples were taken (self) | {column} |", "|---|---:|"]
    lines += [f"| `{frame}` | {n / profiled.samples:.0%} |" for frame, n in profiled.own_frames.most_common(top)]
    return lines


def summary(format_id: str, plain: Breakdown, normalizer: Breakdown, plain_rate: float, normalizer_rate: float,
            top: int = 15) -> str:
    """Markdown: the pass's parts side by side, then the normalizer's heaviest frames (inclusive, the readers' own)."""
    lines = [f"### {format_id}", "",
             f"Profiled passes: plain {plain_rate:,.0f} msg/s, normalizer {normalizer_rate:,.0f} msg/s "
             f"({plain.samples:,} and {normalizer.samples:,} task samples).", "",
             "| part of the pass | plain | normalizer |", "|---|---:|---:|"]
    for name in [READERS] + [name for name, _ in PARTS] + [OTHER]:
        if plain.parts[name] or normalizer.parts[name]:
            lines.append(f"| {name} | {plain.share(name):.0%} | {normalizer.share(name):.0%} |")
    lines += ["", *heaviest_frames(normalizer, "normalizer", top)]
    return "\n".join(lines) + "\n"
