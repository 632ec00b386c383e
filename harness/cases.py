"""Case files (conformance/cases/**/*.yaml): loading and schema validation (harness.lint checks the rest)."""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml
from jsonschema import Draft202012Validator

from cdc_conformance.generators.records import KafkaRecord, predict_offsets
from cdc_conformance.harness import suite_files
from cdc_conformance.harness.suite_files import CONFORMANCE_DIR

CASES_DIR = CONFORMANCE_DIR / "cases"
SCHEMA_FILE = CONFORMANCE_DIR / "case.schema.json"


class CaseError(ValueError):
    """A case file that is invalid; the message names the file."""


class EmptySelection(ValueError):
    """A selection (case ids, formats) that names what does not exist or matches no case: a usage error, never a
    run of nothing that passes."""


@dataclass
class Case:
    id: str
    title: str
    format: str
    versions: str
    features: list[str]
    records: list[dict]
    expect: dict
    path: Path
    provenance: dict = field(default_factory=dict)
    notes: str = ""
    options: dict = field(default_factory=dict)  # format options the records are read with (registry.yaml `options`)

    def kafka_records(self, topic_of=lambda topic: topic) -> list[KafkaRecord]:
        return [_connect_avro(r, KafkaRecord(topic_of(r["topic"]), r.get("partition", 0), _bytes(r, "key"), _bytes(r, "value"),
                                             tuple((h["key"], _bytes(h, "value")) for h in r.get("headers", []))))
                for r in self.records]

    def coordinates(self) -> list[tuple[str, int, int]]:
        """Where each record lands when the case is produced to fresh topics (the case's own topic names)."""
        records = self.kafka_records()
        return [(r.topic, r.partition, offset) for r, offset in zip(records, predict_offsets(records))]

    def partitions(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.records:
            counts[r["topic"]] = max(counts.get(r["topic"], 1), r.get("partition", 0) + 1)
        return counts

    @property
    def relative_path(self) -> str:
        return suite_files.shown(self.path)


def _bytes(item: dict, name: str) -> bytes | None:
    if f"{name}_base64" in item:
        return base64.b64decode(item[f"{name}_base64"], validate=True)
    text = item.get(name)
    return None if text is None else text.encode("utf-8")


def _connect_avro(item: dict, record: KafkaRecord) -> KafkaRecord:
    """A record whose key or value a case gives as JsonConverter's document of the Connect record, written as Kafka
    Connect's Avro converter writes it (the wire format, its schema registered as the case is produced)."""
    from cdc_conformance.generators import debezium_avro  # here: loading cases needs no generator otherwise

    for part in ("key", "value"):
        document = item.get(f"{part}_connect_avro")
        if document is not None:
            written, registration = debezium_avro.wire(document.encode("utf-8"), f"{record.topic}-{part}", "topic")
            record = replace(record, **{part: written}, registrations=(*record.registrations, (part, registration)))  # type: ignore[arg-type]
    return record


def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))


def load_case(path: Path, validator: Draft202012Validator | None = None) -> Case:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise CaseError(f"{path}: not YAML: {error}") from error
    errors = sorted((validator or _validator()).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top)"
        raise CaseError(f"{path}: {where}: {first.message}")
    return Case(path=path, **{k: data.get(k) for k in (
        "id", "title", "format", "versions", "features", "records", "expect")},
        provenance=data.get("provenance", {}), notes=data.get("notes", ""), options=data.get("options") or {})


def load_cases(directory: Path = CASES_DIR) -> list[Case]:
    validator = _validator()
    return [load_case(path, validator) for path in sorted(directory.rglob("*.yaml"))]


def select(cases: list[Case], case_ids=(), formats=(), known_formats=()) -> list[Case]:
    """The cases a run is asked for, in their order; EmptySelection naming an unknown case or format, or a selection
    that matches no case (the CLI's `run` and the pytest plugin alike)."""
    case_ids, formats = set(case_ids), set(formats)
    unknown = sorted(c for c in case_ids if c not in {case.id for case in cases})
    if unknown:
        raise EmptySelection(f"no such case: {', '.join(unknown)}")
    unknown = sorted(f for f in formats if f not in set(known_formats))
    if known_formats and unknown:
        raise EmptySelection(f"no such format: {', '.join(unknown)} (one of {', '.join(sorted(known_formats))})")
    selected = [c for c in cases if (not case_ids or c.id in case_ids) and (not formats or c.format in formats)]
    if not selected:
        raise EmptySelection("the selection matches no case" + (f" (formats: {', '.join(sorted(formats))})" if formats else ""))
    return selected


def parse_shard(text: str) -> tuple[int, int]:
    """`I/N` (1-based) -> (I, N); ValueError naming the expected form."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise ValueError(f"--shard {text}: expected I/N with 1 <= I <= N, e.g. 2/4")
    return int(index), int(count)


def shard_cases(cases: list[Case], index: int, count: int) -> list[Case]:
    """Shard `index` of `count`: every count-th case in id order, so shards never overlap and always cover
    the selection, on any machine. The golden-orphan check needs the whole selection and is left to merge."""
    ordered = sorted(cases, key=lambda c: c.id)
    return [c for position, c in enumerate(ordered) if position % count == index - 1]
