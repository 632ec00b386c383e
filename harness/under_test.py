"""The normalizer under test: the one door through which every check, command and tier runs it.

A normalizer is named `module:function`. `function(raw, format_id)` is its batch entry; its streaming entry,
when it has one, is the function of the same module named `<function>_stream`, and its combined entry, when it has
one, `<function>_combined`: the batch output as one frame of output rows (`events` and `quarantine` arrays, the
streaming entry's rows), which the harness then collects in one job instead of two that each run the whole decode
(the reference: `cdc_conformance.normalizer.pipeline:normalize`, `normalize_stream` and `normalize_combined`); its
module may say which formats it reads (`supported_formats()`), what it expresses of the model (`expresses()`,
harness/expressed.py), its name in reports (`label()`) and the jars its session needs beside Spark's own connectors
(`spark_jars(cache_dir)`: the harness starts its sessions with them, and adds them to a running session that lacks
them; nothing else of a normalizer's reaches the classpath), whether it reads the broker itself (a batch entry that
takes `kafka_bootstrap_servers`: a peer running another engine's Kafka source), and, for the benchmark alone, what its stateful streaming
path costs without its state (`<function>_stream_floor`). docs/normalizer-contract.md says what each takes and
returns. A normalizer without a streaming entry is checked and certified for batch only, and its results say so.
Nothing in the harness or the generators imports the reference normalizer (tests/unit/test_who_imports_whom.py).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module

from cdc_conformance.harness import accounting, contract

DEFAULT_NORMALIZER = "cdc_conformance.normalizer.pipeline:normalize"


class NormalizerNotLoadable(ValueError):
    """The named normalizer cannot be had: a malformed name, a module that does not import (whatever it raised:
    ImportError, SyntaxError, NameError, ...), no such function, or not a callable. One line, naming it."""


class NoStreamingEntry(RuntimeError):
    """The normalizer under test has no streaming entry: a streaming check cannot run it."""


@dataclass(frozen=True)
class NormalizerUnderTest:
    spec: str                               # module:function, as given
    normalize: Callable                     # (raw, format_id) -> .events, .quarantine
    normalize_stream: Callable | None = None  # (raw_stream, format_id, **options) -> streaming output rows
    normalize_combined: Callable | None = None  # (raw, format_id) -> output rows, the batch output in one frame
    supported_formats: Callable | None = None  # () -> the format ids it reads: its module's `supported_formats`, optional
    expresses: Callable | None = None  # () -> what it expresses of the model (harness/expressed.py); none: all of it
    label: Callable | None = None      # () -> its name in reports ("Flink canal-json 1.20.4"); none: the spec
    spark_jars: Callable | None = None  # (cache_dir) -> jar paths its session needs; none: Spark's connectors suffice
    # (raw_stream, format_id, **options) -> its streaming path without state, or None (bench --streaming's floor only)
    normalize_stream_floor: Callable | None = None

    @classmethod
    def load(cls, spec: str = DEFAULT_NORMALIZER) -> NormalizerUnderTest:
        module_name, _, function_name = spec.partition(":")
        if not module_name or not function_name:
            raise NormalizerNotLoadable(f"{spec}: give the normalizer as MODULE:FUNCTION")
        try:
            module = import_module(module_name)
        except (Exception, SystemExit) as error:  # anything the user's module raises at import is the user's to fix
            where = f" ({error.filename}:{error.lineno})" if isinstance(error, SyntaxError) else ""
            raise NormalizerNotLoadable(f"{spec}: module {module_name} does not import: "
                                        f"{type(error).__name__}: {_first_line(error)}{where}") from error
        function = getattr(module, function_name, None)
        if function is None:
            raise NormalizerNotLoadable(f"{spec}: module {module_name} has no {function_name}")
        if not callable(function):
            raise NormalizerNotLoadable(f"{spec}: {function_name} is a {type(function).__name__}, not a function")
        optional = [getattr(module, name, None) for name in (f"{function_name}_stream", f"{function_name}_combined",
                                                             "supported_formats", "expresses", "label", "spark_jars",
                                                             f"{function_name}_stream_floor")]
        return cls(spec, function, *(entry if callable(entry) else None for entry in optional))

    @property
    def expression(self):
        """What it expresses of the model (`expresses()` of its module, checked; the whole model without one)."""
        from cdc_conformance.harness.expressed import Expression

        return Expression.declared(self.expresses() if self.expresses is not None else None)

    @functools.cached_property
    def jars(self) -> tuple[str, ...]:
        """The jars it brings (built on first use, into the suite's JVM cache)."""
        from cdc_conformance.harness import jvm

        return tuple(map(str, self.spark_jars(jvm.cache_dir()))) if self.spark_jars is not None else ()

    def _attached(self, spark) -> None:
        """Its jars in `spark` before it runs there: a session the harness started for it has them; one started for
        another normalizer gets them added (`ADD JAR`, classic sessions; a Connect server's jars are the server's)."""
        _attach_jars(spark, self.jars)

    @property
    def name(self) -> str:
        return str(self.label()) if self.label is not None else self.spec

    @classmethod
    def of(cls, normalizer: NormalizerUnderTest | Callable) -> NormalizerUnderTest:
        """`normalizer` itself, or a bare batch function (a test's own normalizer) as one without streaming."""
        if isinstance(normalizer, NormalizerUnderTest):
            return normalizer
        return cls(f"{normalizer.__module__}:{normalizer.__qualname__}", normalizer)

    @property
    def version(self) -> str:
        """The version of the installed distribution that provides the normalizer's top-level package (a user's
        package, or this suite for the reference), not the suite's own version."""
        from importlib import metadata

        top = self.spec.partition(":")[0].split(".")[0]
        distributions = metadata.packages_distributions().get(top, [])
        if not distributions:
            module = __import__(top)
            return str(getattr(module, "__version__", f"unknown ({top} is not from an installed distribution)"))
        return f"{distributions[0]} {metadata.version(distributions[0])}"

    @property
    def reads_broker(self) -> bool:
        """Whether it reads the broker itself (a Flink job's own Kafka source): its batch entry takes
        `kafka_bootstrap_servers`, the broker's address, which the harness then gives it; `raw` still says which
        records (topics, partitions, offsets) it is to read."""
        import inspect

        return "kafka_bootstrap_servers" in inspect.signature(self.normalize).parameters

    @property
    def stream_spec(self) -> str:
        return f"{self.spec}_stream"

    @property
    def modes(self) -> list[str]:
        return ["batch", "streaming"] if self.normalize_stream is not None else ["batch"]

    def frames(self, raw, format_id: str, **options) -> list:
        """The batch output as the frames to run, its contract checked first: the combined entry's output rows
        alone when the normalizer has one (one job; the reference's split of the same rows is checked in
        tests/integration/test_plans.py), else the batch entry's events and quarantine."""
        self._attached(raw.sparkSession)
        if self.normalize_combined is not None:
            rows = self.normalize_combined(raw, format_id, **options)
            contract.check_rows(rows, f"{self.spec}_combined")
            return [rows]
        result = self.normalize(raw, format_id, **options)
        contract.check(result, self.spec)
        return [result.events, result.quarantine]

    def batch(self, raw, format_id: str, **options) -> tuple[list[dict], list[dict]]:
        """Events and quarantine records of `raw` as canonical JSON, each in origin order (`options`: the format's,
        registry.yaml: a format that declares none gets none, so a normalizer need not take any)."""
        frames = self.frames(raw, format_id, **options)
        if len(frames) == 1:
            rows = frames[0].collect()
            events, quarantine = [e for r in rows for e in r.events], [q for r in rows for q in r.quarantine]
        else:
            events, quarantine = (frame.collect() for frame in frames)
        events, quarantine = _canonical(events, quarantine)
        if self.expression.values == "canonical":  # the grammar is the canonical text's; a text-valued peer claims none
            contract.check_values(events, self.spec)
        return events, quarantine

    def stream_floor(self, raw_stream, format_id: str, **options):
        """Its streaming path without state, for the benchmark (`<function>_stream_floor`), or None: the normalizer has
        no such entry, or the format keeps no state. Not checked: its rows are no normalizer's output."""
        if self.normalize_stream_floor is None:
            return None
        self._attached(raw_stream.sparkSession)
        return self.normalize_stream_floor(raw_stream, format_id, **options)

    def stream(self, raw_stream, format_id: str, **options):
        """The streaming entry's output rows (`events` and `quarantine` arrays), their contract checked."""
        if self.normalize_stream is None:
            raise NoStreamingEntry(f"{self.spec} has no streaming entry (no {self.stream_spec})")
        self._attached(raw_stream.sparkSession)
        rows = self.normalize_stream(raw_stream, format_id, **options)
        contract.check_rows(rows, self.stream_spec)
        return rows


_ATTACHED: set[tuple[int, str]] = set()


def _attach_jars(spark, jars) -> None:
    """`jars` added to a running classic session that did not start with them (`ADD JAR`, once each); a Spark Connect
    server's classpath is the server's own (its `--jars`)."""
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        return
    started_with = set(spark.conf.get("spark.jars", "").split(","))
    for jar in jars:
        if jar not in started_with and (id(spark), jar) not in _ATTACHED:
            spark.sql(f"ADD JAR '{jar}'")
            _ATTACHED.add((id(spark), jar))


def _first_line(error: BaseException) -> str:
    text = str(error)
    return text.splitlines()[0] if text else ""


def _canonical(events, quarantine) -> tuple[list[dict], list[dict]]:
    from cdc_conformance.model import event_to_json, quarantine_to_json

    return (sorted(map(event_to_json, events), key=accounting.origin_order),
            sorted(map(quarantine_to_json, quarantine), key=accounting.origin_order))

