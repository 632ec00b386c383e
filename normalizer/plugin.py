"""Format plug-ins: a decoder module declares its format id and decode functions; the pipeline finds it.

As in Flink's `flink-formats` (a factory declares its identifier, the framework discovers it), a decoder
module of this package registers a `FormatDecoder` at import time:

    DECODER = register(FormatDecoder("my-format", decode=decode))

`find(format_id)` imports every module of the `normalizer` package once, so adding a module is all it
takes; a decoder that lives elsewhere (a user's package, a test's toy format) registers the same way
when its module is imported. conformance/registry.yaml names each format's decoder module, and the
linter checks that both agree.
"""
from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module

from pyspark.sql import DataFrame

from cdc_conformance.normalizer import assembly


@dataclass(frozen=True)
class FormatDecoder:
    """What a format contributes to the pipeline.

    `decode(raw)` turns the Kafka source DataFrame into output rows (`normalizer.events.OUTPUT`: arrays
    `events` and `quarantine`). `decode_stream(raw, **options)` does the same for a streaming source and
    is needed only by formats that keep state across records (segments, update halves); stateless
    formats stream through `decode` unchanged.
    """

    format_id: str
    decode: Callable[..., DataFrame]
    decode_stream: Callable[..., DataFrame] | None = None
    # the format's options (registry.yaml `options`), each a keyword argument of `decode` and `decode_stream`, required:
    # `schema_registry` for records whose schemas are found by id (debezium-avro)
    options: tuple[str, ...] = ()
    # ... and those given only where they apply, else left to `decode`'s default: `flattened` (Debezium's records
    # through the ExtractNewRecordState SMT)
    optional: tuple[str, ...] = ()

    def batch(self, raw: DataFrame, **options) -> DataFrame:
        return self.decode(raw, **self._format_options(options))

    def stream(self, raw: DataFrame, **options) -> DataFrame:
        given, streaming = self._format_options(options), self._streaming_options(options)
        if self.decode_stream is None:
            if streaming:
                raise TypeError(f"{self.format_id} keeps no state; streaming options {sorted(streaming)} do not apply")
            return self.decode(raw, **given)
        return self.decode_stream(raw, **given, **streaming)

    def floor(self, raw: DataFrame, **options) -> DataFrame | None:
        """The streaming path without its state (the benchmark's floor: `assembly.floor_stream`); None for a format that
        keeps no state, whose streaming path is its batch one."""
        if self.decode_stream is None:
            return None
        return self.decode_stream(raw, **self._format_options(options), **self._streaming_options(options),
                                  group_stream=assembly.floor_stream)

    def _streaming_options(self, options: dict) -> dict:
        """The options that are no format option: a stateful decoder's own (timeouts, the copy window)."""
        return {name: value for name, value in options.items() if name not in self.options + self.optional}

    def _format_options(self, options: dict) -> dict:
        missing = [name for name in self.options if options.get(name) is None]
        if missing:
            raise TypeError(f"{self.format_id} needs the option {missing[0]} (docs/normalizer-contract.md, \"Format options\")")
        return {name: options[name] for name in self.options + self.optional if options.get(name) is not None}


class UnsupportedFormat(ValueError):
    """No decoder declares this format id."""


_DECODERS: dict[str, FormatDecoder] = {}
_discovered = False


def register(decoder: FormatDecoder) -> FormatDecoder:
    """Make `decoder` findable by its id; registering another decoder under a taken id is an error."""
    current = _DECODERS.get(decoder.format_id)
    if current is not None and current is not decoder:
        raise ValueError(f"format {decoder.format_id!r} is declared twice")
    _DECODERS[decoder.format_id] = decoder
    return decoder


def unregister(decoder: FormatDecoder) -> None:
    """Forget `decoder` (a plug-in that is unloaded, a test's own format): the process's decoders are the
    registry's again, and `lint` has nothing unlisted to report."""
    if _DECODERS.get(decoder.format_id) is decoder:
        del _DECODERS[decoder.format_id]


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    for module in pkgutil.iter_modules(import_module(__package__).__path__):
        import_module(f"{__package__}.{module.name}")
    _discovered = True


def decoders() -> dict[str, FormatDecoder]:
    """Every registered decoder by format id (the package's own, plus any registered from elsewhere)."""
    _discover()
    return dict(sorted(_DECODERS.items()))


def find(format_id: str) -> FormatDecoder:
    known = decoders()
    if format_id not in known:
        raise UnsupportedFormat(f"format {format_id!r} is not implemented (supported: {', '.join(known)})")
    return known[format_id]
