"""`cdc-conformance peers`: the reference and the ecosystem's consumers (cdc_conformance/peers, or any normalizer) over
the same records, each judged on what it expresses (harness/expressed.py), in one report.

Per format, every case (its golden file is the expectation) and `examples` drawn examples (the generator's oracle is
the expectation) are produced to the broker once; then each normalizer that reads the format runs over exactly
those offsets, through the harness's one door (harness/under_test.py). A normalizer that fails the whole job errors
every unit of the format. Rows are results.jsonl's, one per unit and normalizer, its `normalizer` the peer's label.
"""
from __future__ import annotations

import itertools
import time
import traceback
import uuid
from dataclasses import dataclass

from cdc_conformance.generators.records import KafkaRecord
from cdc_conformance.harness import golden, peer_classes
from cdc_conformance.harness.cases import Case
from cdc_conformance.harness.expressed import NOT_EXPRESSED, Expectation, Output, by_first_record, on_tables_only, verdict
from cdc_conformance.harness.registry import Registry
from cdc_conformance.harness.roundtrip import RoundTrip, RunOutput
from cdc_conformance.harness.under_test import DEFAULT_NORMALIZER, NormalizerUnderTest
from cdc_conformance.model import event_to_json

# each Flink format in both of its `ignore-parse-errors` modes, as its users run it (issue 60: a refusal in one, a silent
# skip in the other), and in a real Flink SQL job over each topic (errors ignored, as such a job runs)
SHIPPED_PEERS = ("cdc_conformance.peers.flink_debezium:normalize", "cdc_conformance.peers.flink_debezium_ignore_errors:normalize",
                 "cdc_conformance.peers.flink_canal:normalize", "cdc_conformance.peers.flink_canal_ignore_errors:normalize",
                 "cdc_conformance.peers.flink_sql_debezium:normalize", "cdc_conformance.peers.flink_sql_canal:normalize",
                 "cdc_conformance.peers.paimon_debezium:normalize", "cdc_conformance.peers.paimon_canal:normalize",
                 "cdc_conformance.peers.paimon_aliyun:normalize", "cdc_conformance.peers.connect_json:normalize",
                 "cdc_conformance.peers.dts_sdk:normalize",
                 "cdc_conformance.peers.naive_spark:normalize", "cdc_conformance.peers.naive_avro:normalize")
DRAWN_FEATURE = "drawn"  # the matrix's row for the drawn examples


@dataclass
class Unit:
    """A case or a drawn example: its records, where they go, and what the reference's expectation says of them."""

    id: str
    format: str
    features: list[str]
    source: str             # the case file, or the seed that draws the example
    records: list[KafkaRecord]
    partitions: dict[str, int]
    prefix: str             # stripped from topic names to give the expectation's (a case's own topics)
    expectation: Expectation
    again: str = ""         # the `peers` options that run it again (a drawn example: its format, seed and count)
    options: dict | None = None  # the format options its records are read with (a case's `options`)


def case_units(cases: list[Case], golden_root=golden.GOLDEN_DIR) -> tuple[list[Unit], list[str]]:
    """The cases with golden files as units, and a line for each case without one (never approved: not compared)."""
    run_id, units, missing = uuid.uuid4().hex[:8], [], []
    for index, case in enumerate(cases):
        approved = golden.read(golden.golden_path(case.format, case.id, golden_root))
        if approved is None:
            missing.append(f"case {case.id} has no golden file: not compared")
            continue
        prefix = f"cc.{run_id}.peers.{index}."
        units.append(Unit(case.id, case.format, case.features, case.relative_path,
                          case.kafka_records(lambda topic, prefix=prefix: prefix + topic),
                          {prefix + topic: count for topic, count in case.partitions().items()}, prefix,
                          Expectation.of(case.coordinates(), approved), f"--case {case.id}", case.options))
    return units, missing


def drawn_units(generator, count: int, seed: int) -> list[Unit]:
    """`count` examples of the format's generator, drawn with `seed`, placed where they will land."""
    from cdc_conformance.harness.generic import render_examples
    from cdc_conformance.harness.property import draw_examples, placed

    # each example a table's history on a topic of its own, as a user points a table at one topic: examples sharing
    # a topic (as the property runs batch them) would give the first example's table DDL to the others'
    drawn = draw_examples(generator.examples(), count, seed)
    examples = placed([example for index, one in enumerate(drawn)
                       for example in render_examples(generator, [one], "peers", first_index=index)])
    units = []
    for number, example in enumerate(examples):
        events = [event_to_json(event) for item in example.expected for event in item.events]
        units.append(Unit(f"drawn/{generator.format_id}/{seed}/{number}", generator.format_id, [DRAWN_FEATURE],
                          f"drawn: {example.label[:200]}", [item.record for item in example.expected], example.partitions, "",
                          Expectation([item.placed_at for item in example.expected], by_first_record(events),
                                      {item.placed_at: item.quarantine for item in example.expected if item.quarantine}),
                          f"--format {generator.format_id} --seed {seed} --examples {count}"))
    return units


def _output_of(unit: Unit, run: RunOutput) -> Output:
    """The unit's part of the run, its topics as the expectation names them (a case's own, without the prefix)."""
    own = set(unit.partitions)

    def logical(item: dict) -> dict:
        item = {**item, "origin": [{**o, "topic": o["topic"].removeprefix(unit.prefix)} for o in item["origin"]]}
        if "event_id" in item:
            item["event_id"] = item["event_id"].removeprefix(unit.prefix)
        return item

    return Output.of({"events": [logical(e) for e in run.events if e["origin"][0]["topic"] in own],
                      "quarantine": [logical(q) for q in run.quarantine if q["origin"][0]["topic"] in own]})


def run_format(spark, broker, format_id: str, units: list[Unit], normalizers: list[NormalizerUnderTest],
               known_failures: dict[str, str], schema_registry=None) -> list[dict]:
    """Every unit of one format through each normalizer: one results row per unit and normalizer (`schema_registry`:
    for the formats whose records name schemas, each normalizer gets its URL as the format's option). Units read with
    the same format options run together, by the normalizers that take those options."""
    groups: dict[tuple, list[Unit]] = {}
    for unit in units:
        groups.setdefault(tuple(sorted((unit.options or {}).items())), []).append(unit)
    rows = []
    for options, group in groups.items():
        reading = [n for n in normalizers if n.expression.takes(dict(options))]
        rows += _run_group(spark, broker, format_id, group, reading, known_failures, schema_registry, dict(options))
        rows += [_row(unit, format_id, NOT_EXPRESSED, [f"reads no format option {', '.join(sorted(dict(options)))}: its users "
                                                        "read such a topic with another format"], 0.0, None, n)
                 for n in normalizers if n not in reading for unit in group]
    order = {(unit.id, n.name): i for i, (n, unit) in enumerate(itertools.product(normalizers, units))}
    return sorted(rows, key=lambda row: order.get((row["case"], row["normalizer"]), 0))


def _run_group(spark, broker, format_id: str, units: list[Unit], normalizers: list[NormalizerUnderTest],
               known_failures: dict[str, str], schema_registry, options: dict) -> list[dict]:
    """The units through the normalizers, each set of them that reads the same parts of a record over those parts."""
    by_reading: dict[tuple[str, ...], list[NormalizerUnderTest]] = {}
    for normalizer in normalizers:
        by_reading.setdefault(normalizer.expression.unread, []).append(normalizer)
    rows = []
    for unread, reading in by_reading.items():
        judged, produced = _as_read(spark, broker, format_id, units, unread, schema_registry, options) if unread else (units, None)
        rows += _run_units(spark, broker, format_id, judged, reading, known_failures, schema_registry, options, produced)
    return rows


def _as_read(spark, broker, format_id: str, units: list[Unit], unread: tuple[str, ...], schema_registry,
             options: dict) -> tuple[list[Unit], tuple]:
    """The units as a normalizer that does not read `unread` (a value format: the key and headers) gets them: those
    parts left out of every record, on topics of their own, and the expectation the reference's reading of what is
    left. A problem that lives only in the key (a malformed key, a before image that lacks the key's columns) is
    then no failure of a peer that never sees the key: issue 60, "judge only what a peer reads"."""
    from dataclasses import replace

    tag = f"without-{'-'.join(unread)}."
    stripped = []
    for unit in units:
        prefix = tag + unit.prefix
        records = [_without(r, unread, prefix + r.topic.removeprefix(unit.prefix)) for r in unit.records]
        stripped.append(replace(unit, records=records, prefix=prefix,
                                partitions={prefix + t.removeprefix(unit.prefix): n for t, n in unit.partitions.items()}))
    roundtrip = RoundTrip(spark, broker, NormalizerUnderTest.load(DEFAULT_NORMALIZER), schema_registry=schema_registry)
    produced = roundtrip.produce([r for unit in stripped for r in unit.records],
                                 {t: n for unit in stripped for t, n in unit.partitions.items()})
    ranges, coordinates = produced
    run = roundtrip.normalize_ranges(ranges, format_id, coordinates, options)
    judged = []
    for unit in stripped:
        read = _output_of(unit, run)
        judged.append(replace(unit, expectation=Expectation(unit.expectation.records, read.events,
                                                            {c: refusal[:2] for c, refusal in read.refusals.items()})))
    return judged, produced


def _without(record: KafkaRecord, unread: tuple[str, ...], topic: str) -> KafkaRecord:
    """The record on `topic` without the parts `unread`; a schema it names under its topic's subject (the topic
    naming strategy) is named under the new topic's."""
    from dataclasses import replace

    registrations = tuple((part, replace(registration, subject=topic + registration.subject.removeprefix(record.topic))
                           if registration.subject.startswith(record.topic + "-") else registration)
                          for part, registration in record.registrations if part not in unread)
    return replace(record, topic=topic, key=None if "key" in unread else record.key,
                   headers=() if "headers" in unread else record.headers, registrations=registrations)


def _run_units(spark, broker, format_id: str, units: list[Unit], normalizers: list[NormalizerUnderTest],
               known_failures: dict[str, str], schema_registry, options: dict, produced: tuple | None = None) -> list[dict]:
    """`produced`: the units' records already on the broker (their ranges and coordinates)."""
    if produced is None:
        records = list(itertools.chain.from_iterable(unit.records for unit in units))
        partitions = {topic: count for unit in units for topic, count in unit.partitions.items()}
        produced = RoundTrip(spark, broker, normalizers[0], schema_registry=schema_registry).produce(records, partitions)
    ranges, coordinates = produced
    own_topic_kinds = Registry.load().own_topic_kinds(format_id)  # read once: what a table's reader never reads
    rows = []
    for under_test in normalizers:
        started = time.monotonic()
        try:
            run = RoundTrip(spark, broker, under_test, schema_registry=schema_registry).normalize_ranges(
                ranges, format_id, coordinates, options)
            failure = None
        except Exception as error:  # the normalizer failed the whole job: every unit of the format errors
            run, failure = None, [f"job failed: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}",
                                  traceback.format_exc(limit=2).strip().splitlines()[-1]]
        seconds = (time.monotonic() - started) / max(len(units), 1)
        expression = under_test.expression
        tables_only = expression.topics == "tables" and own_topic_kinds
        for unit in units:
            expectation = on_tables_only(unit.expectation, own_topic_kinds) if tables_only else unit.expectation
            if run is None:
                status, problems = "ERROR", failure or []
            else:
                context = f"{under_test.name} / {format_id} / {unit.id}"
                status, problems = verdict(expectation, _output_of(unit, run), expression,
                                           (lambda line: peer_classes.excused(line, context))
                                           if under_test.spec != DEFAULT_NORMALIZER else lambda line: False)
            known = known_failures.get(unit.id) if under_test.spec == DEFAULT_NORMALIZER else None
            if known:
                status = "XFAIL" if status != "PASS" else "XPASS"
            rows.append(_row(unit, format_id, status, problems, seconds, known, under_test))
    return rows


def _row(unit: Unit, format_id: str, status: str, problems: list[str], seconds: float, known: str | None,
         under_test: NormalizerUnderTest) -> dict:
    return {"type": "case", "case": unit.id, "format": format_id, "version": None, "format_version": format_id,
            "mode": "batch", "status": status, "features": unit.features,
            "events": sum(len(v) for v in unit.expectation.events.values()),
            "quarantined": len(unit.expectation.quarantine), "seconds": round(seconds, 3),
            "problems": problems, "replay": f"cdc-conformance peers {unit.again} --peer {under_test.spec}",
            "known_failure": known, "case_file": unit.source, "normalizer": under_test.name,
            # the disagreement classes of its problem lines (docs/peers.md); a peer's only: the reference has none
            "classes": peer_classes.counted(problems, f"{under_test.name} / {format_id} / {unit.id}")
            if under_test.spec != DEFAULT_NORMALIZER and status not in ("PASS", NOT_EXPRESSED) else {}}
