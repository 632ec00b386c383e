"""The generic checks every decoded format gets, driven only by its plug-in declarations.

Each returns a result whose `failures` (or a list of problems) must be empty; tests/integration/
test_formats.py runs them for every decoded format of the registry, a toy format under tests/ runs
them too, and `certify` can run them at a certification example count.
"""
from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import strategies as st

from cdc_conformance.generators.history import histories, tables
from cdc_conformance.generators.plugin import VALID_NEIGHBOUR, FormatGenerator
from cdc_conformance.generators.records import KafkaRecord, predict_offsets
from cdc_conformance.generators.values import KEY_TYPES
from cdc_conformance.harness.accounting import coordinate
from cdc_conformance.harness.property import BatchResult, Example, draw_examples, events_of, placed, run_batch, session_seed
from cdc_conformance.harness.roundtrip import RoundTrip, format_options
from cdc_conformance.harness.schema_registry import RegistryClient, registered
from cdc_conformance.harness.under_test import NormalizerUnderTest
from cdc_conformance.model import CODE_PHASE, Code, Phase

_runs = itertools.count()


def _topic(kind: str, format_id: str, partitions: int) -> str:
    return f"{kind}-{format_id}-{os.getpid()}-{next(_runs)}-p{partitions}"


def render_examples(generator: FormatGenerator, drawn: list, kind: str, first_index: int = 0) -> list[Example]:
    """Drawn examples rendered, each with its own index (which generators put in ids) from `first_index`."""
    topics: dict[int, str] = {}
    examples = []
    for index, example in enumerate(drawn, start=first_index):
        partitions = generator.partitions(example)
        topic = topics.setdefault(partitions, _topic(kind, generator.format_id, partitions))
        examples.append(Example(label=f"#{index} {example}", expected=generator.render(example, topic, index),
                                partitions={topic: partitions}))
    return examples


def check_property(roundtrip: RoundTrip, generator: FormatGenerator, count: int, seed: int | None = None) -> BatchResult:
    """Generated examples through Kafka and Spark equal the oracle, and exercise what the format says."""
    seed = session_seed() if seed is None else seed
    examples = render_examples(generator, draw_examples(generator.examples(), count, seed), "property")
    result = run_batch(roundtrip, generator.format_id, examples, seed, generator.ordered_within_partition)
    undrawn = generator.coverage(result.output.events, result.output.quarantine)
    # too few examples to hold every kind of event is the count's fault, not the normalizer's: say what helps
    result.failures += undrawn + ([f"({count} examples drew too little of the format to certify it: draw more with "
                                   f"--examples, 2000 by default)"] if undrawn else [])
    return result


def check_spellings(roundtrip: RoundTrip, generator: FormatGenerator, count: int, seed: int | None = None) -> BatchResult:
    """The metamorphic property: generated examples with every record respelled (generators.spellings: pretty
    printing, spaces, member order, escapes; one spelling per example, so re-sent copies stay copies) still
    normalize to the oracle. A decoder that reads the text instead of the JSON fails it."""
    from dataclasses import replace

    from cdc_conformance.generators.spellings import SPELLINGS, respelled

    seed = session_seed() if seed is None else seed
    spellings = sorted(SPELLINGS)
    examples = render_examples(generator, draw_examples(generator.examples(), count, seed), "spelling")
    for index, example in enumerate(examples):
        spelling = spellings[index % len(spellings)]
        example.label = f"{example.label} spelled {spelling}"
        example.expected = [item if item.record.value is None else
                            replace(item, record=replace(item.record, value=respelled(item.record.value, spelling,
                                                                                     generator.ordered_members)))
                            for item in example.expected]
    return run_batch(roundtrip, generator.format_id, examples, seed, generator.ordered_within_partition)


def check_mutators(roundtrip: RoundTrip, generator: FormatGenerator, count: int, seed: int | None = None) -> BatchResult:
    """Each example gets one mutator (all of them in turn): changed records get their code, the rest still
    normalizes to the oracle, every record is accounted for, and every mutator's code is seen."""
    seed = session_seed() if seed is None else seed
    names = sorted(generator.mutators)
    examples, applied = mutated_examples(generator, count, seed)
    result = run_batch(roundtrip, generator.format_id, examples, seed, generator.ordered_within_partition)
    codes = {q["code"] for q in result.output.quarantine}
    for name in names:
        code = generator.mutators[name].code
        if name not in applied:
            result.failures.append(f"mutator {name} applied to no example")
        elif code is not None and code.value not in codes:
            result.failures.append(f"mutator {name} applied, but no record got {code.value}")
    return result


def mutated_examples(generator: FormatGenerator, count: int, seed: int) -> tuple[list[Example], set[str]]:
    """`count` drawn examples, each with one mutator applied where one applies (all of them in turn), and, for
    a mutator that needs what none of them drew (a non-null double in a schema-wrapped record), up to
    `_TOP_UP_DRAWS` more draws that try only such mutators; returns the examples and the mutators applied."""
    names = sorted(generator.mutators)
    examples, applied = _mutate(generator, count, seed, names, set(), 0)
    for draw in range(1, _TOP_UP_DRAWS + 1):
        missing = [n for n in names if n not in applied]
        if not missing:
            break
        more, applied = _mutate(generator, _TOP_UP_EXAMPLES, seed + draw, missing, applied, count + draw * _TOP_UP_EXAMPLES)
        examples += [example for example in more if example.mutator is not None]
    return examples, applied


# a non-null double in a schema-wrapped record: 36 of 600 drawn Debezium examples, fewer among the first and
# smallest draws of a run (seed 3264415683 found none in 5 top-ups once PostgreSQL tables held 5 more types)
_TOP_UP_DRAWS, _TOP_UP_EXAMPLES = 10, 20


def _mutate(generator: FormatGenerator, count: int, seed: int, names: list[str], applied: set[str],
            first_index: int) -> tuple[list[Example], set[str]]:
    drawn = draw_examples(st.tuples(generator.examples(), st.integers(0, 1000)), count, seed)
    examples = render_examples(generator, [example for example, _ in drawn], "mutated", first_index)
    applied = set(applied)
    for index, (example, (_, where)) in enumerate(zip(examples, drawn)):
        # mutators in turn, those not yet applied first: some need a column type an example may lack
        turn = names[index % len(names):] + names[:index % len(names)]
        mutated = _first_mutation(generator, example.expected, where,
                                  [n for n in turn if n not in applied] + [n for n in turn if n in applied])
        if mutated is not None:
            name, records = mutated
            examples[index] = replace(example, expected=records, mutator=name)
            applied.add(name)
    return examples, applied


def _first_mutation(generator: FormatGenerator, items: list, where: int, names: list[str]):
    """(name, records) of the first mutator in `names` that applies, at the drawn position or the next
    one it applies to; None when none applies to this example."""
    for name in names:
        for offset in range(len(items)):
            mutated = generator.mutators[name].apply(items, (where + offset) % len(items))
            if mutated is not None:
                return name, mutated
    return None


def check_hostile(roundtrip: RoundTrip, generator: FormatGenerator) -> list[str]:
    """Every hostile record gets exactly its code (or becomes events when its code is None), none
    stops the job, and every record is accounted for."""
    topic = _topic("hostile", generator.format_id, 1)
    names = list(generator.hostile)
    records = [KafkaRecord(topic, 0, h.key, h.value, h.headers, registrations=h.registrations) for h in generator.hostile.values()]
    output = roundtrip.run(records, generator.format_id, {topic: 1})
    got = {q["origin"][0]["offset"]: q["code"] for q in output.quarantine}
    emitted = {o["offset"] for e in output.events for o in e["origin"]}
    problems = output.accounting_problems()
    for offset, name in enumerate(names):
        want = generator.hostile[name].code
        if want is None and offset not in emitted:
            problems.append(f"{name}: expected events, got {got.get(offset)}")
        elif want is not None and got.get(offset) != want.value:
            problems.append(f"{name}: expected {CODE_PHASE[want].value}/{want.value}, got {got.get(offset)}")
    return problems


def check_copies(roundtrip: RoundTrip, generator: FormatGenerator, count: int, seed: int | None = None) -> list[str]:
    """Invariant 3 for re-delivered records (a consumer that re-reads a topic after a restart gets at-least-once
    copies): drawn examples' records are all sent again after them. A format that groups records (CES segments,
    DataWorks halves) folds each copy into its event's `origin`, so no event comes from copies alone; a stateless
    format emits one event per record read, so the copies' events are the originals' again, same position and all
    (a sink's MERGE on key and position makes them one), except where the position is the Kafka offset (canal,
    CloudCanal), which a copy has of its own. Either way every record is accounted for."""
    seed = session_seed() if seed is None else seed
    examples = render_examples(generator, draw_examples(generator.examples(), count, seed), "copies")
    records = [item.record for example in examples for item in example.expected]
    partitions = {topic: n for example in examples for topic, n in example.partitions.items()}
    output = roundtrip.run(records + records, generator.format_id, partitions)
    originals: dict[tuple[str, int], int] = {}
    for record in records:
        originals[(record.topic, record.partition)] = originals.get((record.topic, record.partition), 0) + 1

    def from_copies(event: dict) -> bool:
        return all(o["offset"] >= originals[(o["topic"], o["partition"])] for o in event["origin"])

    # where the position is the Kafka offset (canal, CloudCanal: the message has no log position), a copy's is its own,
    # and so is a key change's group, which is built from it
    offset_positions = generator.ordered_within_partition

    def projected(events: list[dict]) -> list[str]:
        def said(e: dict) -> dict:
            kept = {k: v for k, v in e.items() if k not in ("event_id", "origin")}
            if offset_positions:
                kept.pop("position")
                kept["pk_change"] = e["pk_change"] and e["pk_change"]["role"]
            return kept
        return sorted(repr(sorted((k, repr(v)) for k, v in said(e).items())) for e in events)

    problems = output.accounting_problems()
    copied = [e for e in output.events if from_copies(e)]
    first = [e for e in output.events if not from_copies(e)]
    if generator.groups_across_records:
        problems += [f"an event from copies alone: {e['event_id']}" for e in copied]
    elif projected(copied) != projected(first):
        unmatched = sorted(set(projected(copied)) ^ set(projected(first)))
        problems.append(f"the copies' {len(copied)} events are not the originals' {len(first)} again: "
                        f"{unmatched[0][-600:] if unmatched else 'as many of each, in other numbers'}")
    return problems


def check_extremes(roundtrip: RoundTrip, generator: FormatGenerator) -> tuple[int, list[str]]:
    """The envelope-extremes tier: every integer of the valid neighbour at each of its type's extremes, and
    (JSON formats) every text of it holding a lone surrogate and every object of it naming a member twice,
    all in one job. The job must finish and account for every record; collecting the output proves that no
    event carries a time outside years 0001-9999; a lone surrogate is never an event (it would be `?`) but
    NOT_UTF8, and a member named twice is DUPLICATE_KEY. Returns (records sent, problems)."""
    topic = _topic("extremes", generator.format_id, 1)
    variants = generator.extreme_records()
    must_quarantine = ([(label, value, Code.NOT_UTF8) for label, value in generator.lone_surrogate_records()]
                       + [(label, value, Code.DUPLICATE_KEY) for label, value in generator.duplicate_member_records()])
    # the valid neighbour's value schema, where the format's records name theirs (a registry's wire format)
    named = tuple((part, registration) for part, registration in generator.hostile[VALID_NEIGHBOUR].registrations
                  if part == "value")
    records = [KafkaRecord(topic, 0, None, value, (), registrations=named) for _, value in variants]
    records += [KafkaRecord(topic, 0, None, value, (), registrations=named) for _, value, _ in must_quarantine]
    try:
        output = roundtrip.run(records, generator.format_id, {topic: 1})
    except Exception as error:  # noqa: BLE001 - the job failing on input is the finding itself
        return len(records), [f"the job failed on the extremes: {str(error).splitlines()[0][:300]}"]
    codes = {q["origin"][0]["offset"]: q["code"] for q in output.quarantine}
    # records of one multi-record group (CES segments sharing a logicalid) share its fate: an ASSEMBLE code
    # there is the group's; the curated cases pin each code for each level of such a format
    shared_fate = {code.value for code, phase in CODE_PHASE.items() if phase == Phase.ASSEMBLE}
    wrong = [f"{label}: expected {code.value}, got {codes.get(offset, 'events')}"
             for offset, (label, _, code) in enumerate(must_quarantine, start=len(variants))
             if codes.get(offset) != code.value and codes.get(offset) not in shared_fate]
    return len(records), output.accounting_problems() + wrong


def check_streaming(spark, broker, generator: FormatGenerator, workdir: Path, count: int, seed: int | None = None,
                    micro_batches: int = 6, under_test: NormalizerUnderTest | None = None,
                    schema_registry: RegistryClient | None = None) -> list[str]:
    """Structured Streaming over Spark's Kafka source, cut into about `micro_batches` micro-batches (so
    that events of several records straddle them), gives exactly the batch output over the same records.
    A fixed small maxOffsetsPerTrigger would make a drawn example of 400 one-byte segments take minutes."""
    from cdc_conformance.harness import streaming

    seed = session_seed() if seed is None else seed
    examples = render_examples(generator, draw_examples(generator.examples(), count, seed), "stream")
    partitions = {topic: n for example in examples for topic, n in example.partitions.items()}
    records = [item.record for example in examples for item in example.expected]
    broker.create_topics(partitions)
    broker.produce(registered(records, schema_registry))
    options = format_options(generator.format_id, schema_registry)
    # a format whose events are one record each streams like its batch: a few micro-batches show it;
    # boundaries matter where events are built from several records (segments, update halves). Asked of the
    # format, not of the reference normalizer: another normalizer under test may keep state differently
    if not generator.groups_across_records:
        micro_batches = min(micro_batches, 2)
    streamed = streaming.stream_until_caught_up(spark, broker, generator.format_id, list(partitions), workdir,
                                                max(2, len(records) // micro_batches), under_test, **options)
    batch = streaming.batch_rows(spark, broker, generator.format_id, list(partitions), under_test, **options)
    if streamed == batch:
        return [] if streamed else ["nothing was normalized"]
    return [f"streaming differs from batch (seed {seed}): {len(streamed)} vs {len(batch)} outputs; first difference: "
            f"{_first_difference(streamed, batch)}"]


def _first_difference(rows: list, expected: list) -> tuple:
    """(row, expected row) at the first position where the two lists differ (None past the shorter's end)."""
    return next((a, b) for a, b in itertools.zip_longest(rows, expected) if a != b)


def _with_late_records(generator: FormatGenerator, count: int, seed: int, draws: int = 5) -> tuple[int, list[Example]]:
    """(seed, examples): `count` examples of which some group has late records, from `seed` or the next seeds that
    draw one (the oracle says so before anything runs). Some seeds draw no group at all (DataWorks examples all in
    one-record mode, say: seed 1154590801 at 8 examples), and the property would have nothing to check."""
    for attempt in range(draws):
        examples = placed(render_examples(generator, draw_examples(generator.examples(), count, seed + attempt), "late"))
        if any(generator.late_of(members) for members in _emitted_groups(examples)):
            return seed + attempt, examples
    return seed, examples


def _emitted_groups(examples: list[Example]) -> list[list]:
    """The members of every group (records sharing `logical`) that the oracle says became events."""
    groups: dict[str, list] = {}
    for example in examples:
        for item in example.expected:
            if item.logical is not None:
                groups.setdefault(item.logical, []).append(item)
    return [sorted(members, key=lambda m: m.segment) for members in groups.values()
            if all(m.quarantine is None for m in members) and any(m.events for m in members)]


def check_late_arrivals(spark, broker, generator: FormatGenerator, workdir: Path, count: int,
                        seed: int | None = None, under_test: NormalizerUnderTest | None = None) -> list[str]:
    """After a stateful stream emitted a group, the records that still arrive for it (the format's
    `late_records`: true copies, conflicting copies, reused ids), read after a restart from the checkpoint:
    each gets exactly the code the format's doc gives it, and nothing else changes — every output of the
    earlier records is the batch output over them (an emitted event is never retracted nor emitted again)."""
    from cdc_conformance.harness import streaming

    seed, examples = _with_late_records(generator, count, session_seed() if seed is None else seed)
    partitions = {topic: n for example in examples for topic, n in example.partitions.items()}
    records = [item.record for example in examples for item in example.expected]
    broker.create_topics(partitions)
    broker.produce(records)
    # the late records' event time: just after the originals', however long the first run takes (the copy window is
    # event time: docs/formats/ces.md)
    produced_at = int(time.time() * 1000)
    batch = streaming.batch_rows(spark, broker, generator.format_id, list(partitions), under_test)
    out, checkpoint = workdir / "out", workdir / "checkpoint"
    streaming.stream_once(spark, broker, generator.format_id, list(partitions), out, checkpoint, max(2, len(records) // 3), under_test)

    late = [(replace(record, timestamp_ms=produced_at), code)
            for members in _emitted_groups(examples) for record, code in generator.late_of(members)]
    if not late:
        return [f"no group was emitted (seed {seed}): nothing arrived late"]
    ends = {(topic, p): end for topic in partitions for p, end in broker.end_offsets(topic).items()}
    offsets = predict_offsets([record for record, _ in late], ends)
    expected = sorted(((record.topic, record.partition, offset), code.value) for (record, code), offset in zip(late, offsets))
    broker.produce([record for record, _ in late])
    streaming.stream_once(spark, broker, generator.format_id, list(partitions), out, checkpoint, max(2, len(late) // 2), under_test)
    streamed = streaming.rendered(spark.read.parquet(str(out)).collect())

    late_at = {coordinates for coordinates, _ in expected}
    got = sorted((coordinate(row["origin"][0]), row["code"]) for kind, row in streamed
                 if kind == "Q" and coordinate(row["origin"][0]) in late_at)
    rest = [(kind, row) for kind, row in streamed if not any(coordinate(o) in late_at for o in row["origin"])]
    problems = [] if got == expected else [f"late records (seed {seed}): expected {expected}, got {got}"]
    if rest != batch:
        problems.append(f"the earlier records' outputs changed after late records (seed {seed}): first difference "
                        f"{_first_difference(rest, batch)}")
    return problems


@dataclass
class CrossFormatResult:
    formats: list[str]
    histories: int
    failures: list[str]


def _projection(event: dict) -> dict:
    """What every format carries of an event (no tombstones: they are Debezium's own control events). The key's
    columns in name order: canal writes them in the table's column order, not the key's (docs/formats/canal-json.md)."""
    key = None if event["key"] is None else sorted(event["key"], key=lambda part: part["name"])
    return {"kind": event["kind"], "op": event["op"], "table": (event["source"] or {}).get("table"),
            "key": key, "before": event["before"], "after": event["after"],
            "pk_change": (event["pk_change"] or {}).get("role")}


def check_cross_format(roundtrip: RoundTrip, generators: dict[str, FormatGenerator], count: int,
                       seed: int | None = None) -> CrossFormatResult:
    """One generated history, rendered by every format that can express it, normalizes to the same
    canonical events in every format (modulo what some format cannot carry: columns, positions, ids)."""
    seed = session_seed() if seed is None else seed
    shared = {f: g.shared_history for f, g in sorted(generators.items()) if g.shared_history is not None}
    chosen = {f: generators[f] for f in shared}
    value_types = [t for t in next(iter(chosen.values())).value_types if all(t in g.value_types for g in chosen.values())]
    features = frozenset.intersection(*(g.history_features for g in chosen.values()))
    strategy = histories(table_strategy=tables(key_types=KEY_TYPES, value_types=value_types),
                         allow_truncate="truncate" in features, allow_snapshot="snapshot" in features, max_changes=8)
    drawn = draw_examples(strategy, count, seed)
    projected: dict[str, list[list[dict]]] = {}
    failures = []
    for format_id, generator in chosen.items():
        topic = _topic("cross", format_id, 1)
        examples = [Example(f"#{i}", shared[format_id](history, topic, i), {topic: 1})
                    for i, history in enumerate(drawn)]
        result = run_batch(roundtrip, format_id, examples, seed, generator.ordered_within_partition)
        failures += [f"{format_id}: {failure}" for failure in result.failures[:3]]
        projected[format_id] = [[_projection(e) for e in events_of(example, result.output) if e["kind"] != "TOMBSTONE"]
                                for example in result.examples]
    reference, *others = chosen
    for format_id in others:
        for index, (want, got) in enumerate(zip(projected[reference], projected[format_id])):
            if want != got:
                failures.append(f"history #{index} (seed {seed}): {format_id} differs from {reference}:\n"
                                f"  {reference}: {want}\n  {format_id}: {got}")
                break
    return CrossFormatResult(list(chosen), len(drawn), failures)
