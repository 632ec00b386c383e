"""Format plug-ins, generator side: what the suite needs of a format to test it without knowing it.

A generator module declares `GENERATOR = FormatGenerator(...)`; conformance/registry.yaml names the
module. The generic tests (harness.generic, run for every decoded format of the registry) draw examples,
render them as the producer would, mutate them, send hostile records and compare streaming with batch.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import strategies as st

from cdc_conformance.generators.history import History
from cdc_conformance.generators.records import Expected, KafkaRecord
from cdc_conformance.generators.spellings import Number, dumps
from cdc_conformance.generators.values import LogicalType
from cdc_conformance.model import Code


@dataclass(frozen=True)
class Mutator:
    """Derives adversarial records from valid ones: `apply(items, index)` returns the example's records
    with the change made at or near `index` (each changed record expecting its quarantine), or None
    when the change does not apply there. `code` is what the changed records must produce; None for a
    change the normalizer must absorb (a re-sent copy)."""

    apply: Callable[[list[Expected], int], list[Expected] | None]
    code: Code | None


def record_mutator(change: Callable[[Expected], Expected | None], code: Code | None) -> Mutator:
    """A Mutator from a change of one record (the record at `index`)."""
    def apply(items: list[Expected], index: int) -> list[Expected] | None:
        changed = change(items[index])
        return None if changed is None else items[:index] + [changed] + items[index + 1:]
    return Mutator(apply, code)


def json_mutator(change: Callable[[dict], bool], code: Code) -> Mutator:
    """A Mutator for JSON formats from `change(document) -> bool`, which edits the record's value in place
    (False: the change does not apply to this record); the changed record expects `code`. A
    generators.spellings.Number in the document is written as the number token it holds."""
    def apply(items: list[Expected], index: int) -> list[Expected] | None:
        target = items[index]
        if target.record.value is None:
            return None
        document = json.loads(target.record.written_value)
        if not change(document):
            return None
        changed = target.now_quarantined(code, record=replace(target.record, value=dumps(document)))
        return items[:index] + [changed] + items[index + 1:]
    return Mutator(apply, code)


def absorbed_json_mutator(change: Callable[[dict], bool]) -> Mutator:
    """A Mutator for an equivalent JSON form a producer may write (values as JSON numbers, say): `change`
    edits the parsed record (generators.spellings.Number for a number token); the record keeps its events."""
    def apply(items: list[Expected], index: int) -> list[Expected] | None:
        target = items[index]
        if target.record.value is None:
            return None
        document = json.loads(target.record.written_value, parse_int=Number, parse_float=Number)
        if not change(document):
            return None
        changed = replace(target, record=replace(target.record, value=dumps(document)))
        return items[:index] + [changed] + items[index + 1:]
    return Mutator(apply, None)


@dataclass(frozen=True)
class Hostile:
    """One hand-made hostile record and the code it must get (None: it is odd but valid, and must become
    events, not fail the job)."""

    value: bytes | None
    code: Code | None
    key: bytes | None = None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    registrations: tuple = ()  # the schemas its key and value name (KafkaRecord.registrations)


def profile_examples(profiles: Callable[[], st.SearchStrategy], value_types, **history_options):
    """`examples` for a format whose example is (profile, history): a drawn profile and a history over
    tables of `value_types` (`history_options`: generators.history.histories's)."""
    from cdc_conformance.generators.history import histories, tables
    from cdc_conformance.generators.values import KEY_TYPES

    def examples() -> st.SearchStrategy:
        history = histories(table_strategy=tables(key_types=KEY_TYPES, value_types=value_types), **history_options)
        return st.tuples(profiles(), history)
    return examples


def profile_render(encode: Callable[..., list[Expected]]):
    """`render` for (profile, history) examples: the profile's `topic` replaced, `encode(history, profile, index)`."""
    from dataclasses import replace

    def render(example, topic: str, index: int) -> list[Expected]:
        profile, history = example
        return encode(history, replace(profile, topic=topic), index)
    return render


@dataclass(frozen=True)
class Bench:
    """Data for `cdc-conformance bench`: `records(topic, messages, partitions)` yields distinct valid records
    of a typical size; `plain(raw)` is the plain parsing pass over the same Kafka DataFrame (what the
    normalizer's throughput is compared with)."""

    records: Callable[[str, int, int], Any]
    plain: Callable[[Any], Any]
    plain_label: str


NOT_EVERY_VERSION = "not every version drawn"
VALID_NEIGHBOUR = "valid neighbour"  # the hostile record every format declares: a valid one among the rest


@dataclass(frozen=True)
class FormatGenerator:
    """What a format contributes to the generic tests.

    `examples()`: a strategy drawing one example (a profile and a history, say). `render(example, topic,
    index)`: its Kafka records with what each must become, all on `topic` (index: unique per batch, for
    ids that must not collide). `partitions(example)`: the partition count `render` assumes.
    `coverage(events, quarantine)`: problems when a property run missed what it must exercise (a format's
    own assertions about its examples). `shared_history(history, topic, index)`: the history rendered by the
    format's fullest profile, for the cross-format property; `value_types` and `history_features`
    (snapshot, truncate, key-change) say which histories it can express. `bench`: data for the benchmark.
    The hostile record named "valid neighbour" is the record the envelope-extremes tier varies.
    """

    format_id: str
    examples: Callable[[], st.SearchStrategy]
    render: Callable[[Any, str, int], list[Expected]]
    partitions: Callable[[Any], int]
    mutators: dict[str, Mutator] = field(default_factory=dict)
    hostile: dict[str, Hostile] = field(default_factory=dict)
    coverage: Callable[[list[dict], list[dict]], list[str]] = lambda events, quarantine: []
    shared_history: Callable[[History, str, int], list[Expected]] | None = None
    value_types: tuple[LogicalType, ...] = ()
    history_features: frozenset[str] = frozenset()
    bench: Bench | None = None
    # True when `position` orders only the records of one partition (canal: the Kafka offset breaks ties
    # within a second); the property tests then check the oracle's order per partition
    ordered_within_partition: bool = False
    # registry version -> the profile fields its producer fixes (Debezium "3.2": version "3.2.0.Final"), for
    # examples that are (profile, history); None when the format's versions are drawn alike
    version_profile: Callable[[str], dict] | None = None
    # examples drawn with those profile fields pinned before the producer's own rules apply (which connectors and
    # pipelines ran a version); None when pinning them afterwards draws only what ran
    examples_pinned: Callable[[dict], st.SearchStrategy] | None = None
    # the envelope-extremes variants of a valid record (generators.extremes): every integer it carries at its
    # type's edges; None for a JSON format (json_variants walks any JSON), the reader/writer pair for Avro
    extremes: Callable[[bytes], list[tuple[str, bytes]]] | None = None
    # "json" when every record value is one JSON object (the equivalent-spellings property applies), "avro"
    encoding: str = "json"
    # members whose object value's member order is data (canal's mysqlType: the column order), kept as they are
    # by the equivalent-spellings property
    ordered_members: frozenset[str] = frozenset()
    # a format whose stream keeps groups in state (CES segments, DataWorks update halves): given the members of
    # a group it emitted, the records that may still arrive for it (a true copy, a conflicting one, another
    # event reusing its id) with the code each gets in streaming after the release (the format's doc,
    # "Streaming"); checked by the late-arrival property across a restart
    late_records: Callable[[list[Expected]], list[tuple[KafkaRecord, Code]]] | None = None

    @property
    def groups_across_records(self) -> bool:
        """Whether an event of this format can be built from several records (so a stream keeps state, and
        micro-batch boundaries matter): exactly the formats that declare late records."""
        return self.late_records is not None

    def late_of(self, members: list[Expected]) -> list[tuple[KafkaRecord, Code]]:
        """The late records of an emitted group (a stateful format's `late_records`; none for the others)."""
        return self.late_records(members) if self.late_records is not None else []

    def benchmark(self) -> Bench:
        """The format's benchmark data (every decoded format declares it: tests/unit/test_bench_data.py)."""
        if self.bench is None:
            raise ValueError(f"{self.format_id} declares no benchmark data")
        return self.bench

    def extreme_records(self) -> list[tuple[str, bytes]]:
        """(label, value): the valid neighbour with one integer at a time at an extreme (generators.extremes)."""
        from cdc_conformance.generators.extremes import json_variants

        return (self.extremes or json_variants)(self._neighbour())

    def lone_surrogate_records(self) -> list[tuple[str, bytes]]:
        """(label, value): the valid neighbour of a JSON format with one text at a time holding a lone
        surrogate escape (generators.extremes); none for Avro formats (their strings are UTF-8 bytes)."""
        from cdc_conformance.generators.extremes import lone_surrogate_variants

        return lone_surrogate_variants(self._neighbour()) if self.encoding == "json" else []

    def duplicate_member_records(self) -> list[tuple[str, bytes]]:
        """(label, value): the valid neighbour of a JSON format with one object at a time naming a member
        twice (generators.extremes); none for Avro formats (a record's fields are its schema's)."""
        from cdc_conformance.generators.extremes import duplicate_member_variants

        return duplicate_member_variants(self._neighbour()) if self.encoding == "json" else []

    def _neighbour(self) -> bytes:
        """The valid neighbour's value (a record, never a tombstone: the variants edit its value)."""
        value = self.hostile[VALID_NEIGHBOUR].value
        if value is None:
            raise ValueError(f"{self.format_id}: the valid neighbour is a tombstone")
        return value

    def for_version(self, version: str) -> FormatGenerator:
        """This generator drawing only what `version`'s producer writes (certify runs a version under it); a
        coverage problem about drawing every version no longer applies."""
        if self.version_profile is None:
            return self
        fixed = self.version_profile(version)
        pinned = ((lambda: self.examples_pinned(fixed)) if self.examples_pinned else
                  lambda: self.examples().map(lambda example: (replace(example[0], **fixed), example[1])))
        return replace(self, examples=pinned,
                       coverage=lambda events, quarantine: [p for p in self.coverage(events, quarantine)
                                                            if not p.startswith(NOT_EVERY_VERSION)])
