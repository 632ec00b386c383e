"""Reproducing a production parsing bug: capture the records, shrink them, redact them, promote them to a case.

A **capture** is a YAML document with the exact records (key and value bytes, headers, partition, offset)
and where they came from. Whether it **fails**, and how, is decided by running it through the normalizer
under test and the reference normalizer on the real broker and Spark: the failure's *signature* is the set
of event fields that differ (list positions dropped) and quarantine codes that differ, so "fails the same
way" survives removing records. `minimize` shrinks like Hypothesis does: first the records the difference
touches, then delta debugging over records, then members inside JSON values; every round's candidates run
side by side on topics of their own in one Spark job. `redact` replaces values with stand-ins of the same
shape and refuses a result that no longer fails the same way. `promote` turns a capture into a case file.
"""
from __future__ import annotations

import base64
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml
from deepdiff import DeepDiff

from generators.records import KafkaRecord
from harness.diff import readable_path
from harness.progress import Progress, quiet
from harness.roundtrip import RoundTrip

CAPTURE_VERSION = 1


class ReproduceError(ValueError):
    """A capture that cannot be read, or a step whose result would not reproduce the failure."""


# ---------------------------------------------------------------------------------------------------
# Captures: reading and writing
# ---------------------------------------------------------------------------------------------------

def record_item(topic: str, partition: int, offset: int | None, key: bytes | None, value: bytes | None,
                headers: list[tuple[str, bytes | None]]) -> dict:
    """A record as case files write one: text where the bytes are UTF-8, base64 otherwise."""
    item: dict = {"topic": topic, "partition": partition}
    if offset is not None:
        item["offset"] = offset
    for name, data in (("key", key), ("value", value)):
        item.update(_bytes_field(name, data))
    if headers:
        item["headers"] = [{"key": k, **_bytes_field("value", v)} for k, v in headers]
    return item


def _bytes_field(name: str, data: bytes | None) -> dict:
    if data is None:
        return {name: None}
    try:
        return {name: data.decode("utf-8")}
    except UnicodeDecodeError:
        return {f"{name}_base64": base64.b64encode(data).decode()}


def _bytes(item: dict, name: str) -> bytes | None:
    if f"{name}_base64" in item:
        return base64.b64decode(item[f"{name}_base64"], validate=True)
    return None if item.get(name) is None else item[name].encode("utf-8")


def kafka_record(item: dict, topic: str | None = None) -> KafkaRecord:
    return KafkaRecord(topic or item["topic"], item.get("partition", 0), _bytes(item, "key"), _bytes(item, "value"),
                       tuple((h["key"], _bytes(h, "value")) for h in item.get("headers", [])))


def capture_document(format_id: str, records: list[dict], provenance: dict) -> dict:
    return {"capture": CAPTURE_VERSION, "format": format_id,
            "provenance": {**provenance, "captured_at": datetime.now(UTC).isoformat(timespec="seconds"),
                           "tool": f"cdc-conformance {_tool_version()}"},
            "records": records}


def _tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cdc-conformance")
    except PackageNotFoundError:
        return "unknown"


def load(path: Path) -> dict:
    try:
        document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise ReproduceError(f"{path}: cannot read the capture: {str(error).splitlines()[0]}") from error
    if not isinstance(document, dict) or document.get("capture") != CAPTURE_VERSION or not document.get("records"):
        raise ReproduceError(f"{path}: not a cdc-conformance capture (capture: {CAPTURE_VERSION}, format, records)")
    return document


def save(document: dict, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------------
# Capturing: a live cluster or kcat's JSON dump
# ---------------------------------------------------------------------------------------------------

def capture_from_cluster(bootstrap_servers: str, topic: str, partitions: list[int] | None, offsets: tuple[int, int] | None,
                         since_ms: int | None = None, until_ms: int | None = None,
                         group: str | None = None, count: int | None = None) -> tuple[list[dict], dict]:
    """Records of `topic` in [start, end) per partition; the bounds come from offsets (the same in every
    partition), timestamps or a consumer group's committed offsets (from there, `count` records); without
    any, the whole topic. Returns (records, provenance)."""
    from confluent_kafka import OFFSET_END, Consumer, KafkaError, TopicPartition

    from harness.broker import client_config

    consumer = Consumer({**client_config(bootstrap_servers), "group.id": group or f"cdc-conformance-capture-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    try:
        metadata = consumer.list_topics(topic, timeout=10)
        if metadata.topics[topic].error is not None:
            raise ReproduceError(f"topic {topic!r}: {metadata.topics[topic].error.str()}")
        chosen = sorted(partitions or metadata.topics[topic].partitions)
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in chosen}
        lows = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[0] for p in chosen}
        start = end = None
        if offsets:
            start, end = dict.fromkeys(chosen, offsets[0]), dict.fromkeys(chosen, offsets[1])
        elif group:
            committed = consumer.committed([TopicPartition(topic, p) for p in chosen], timeout=10)
            start = {tp.partition: (tp.offset if tp.offset >= 0 else lows[tp.partition]) for tp in committed}
            end = {p: min(ends[p], start[p] + count) if count else ends[p] for p in chosen}
        elif since_ms is not None:
            found = consumer.offsets_for_times([TopicPartition(topic, p, since_ms) for p in chosen], timeout=10)
            start = {tp.partition: (tp.offset if tp.offset >= 0 else ends[tp.partition]) for tp in found}
            if until_ms is not None:
                found = consumer.offsets_for_times([TopicPartition(topic, p, until_ms) for p in chosen], timeout=10)
                end = {tp.partition: (tp.offset if tp.offset >= 0 else ends[tp.partition]) for tp in found}
        start = {p: max((start or {}).get(p, lows[p]), lows[p]) for p in chosen}
        end = {p: min((end or {}).get(p, ends[p]), ends[p]) for p in chosen}
        wanted = {p: (start[p], end[p]) for p in chosen if start[p] < end[p]}
        records: list[dict] = []
        if wanted:
            consumer.assign([TopicPartition(topic, p, s) for p, (s, _) in wanted.items()])
            remaining = set(wanted)
            while remaining:
                message = consumer.poll(10)
                if message is None:
                    raise ReproduceError(f"no records from {topic} within 10 s; still waiting for partitions {sorted(remaining)}")
                if message.error() is not None:
                    if message.error().code() == KafkaError._PARTITION_EOF:  # nothing more in that partition
                        remaining.discard(message.partition())
                        continue
                    raise ReproduceError(f"reading {topic}: {message.error().str()}")
                partition, offset = message.partition(), message.offset()
                if partition not in remaining or offset >= wanted[partition][1]:
                    continue
                records.append(record_item(message.topic(), partition, offset, message.key(), message.value(),
                                           list(message.headers() or [])))
                if offset + 1 >= wanted[partition][1]:
                    remaining.discard(partition)
                    consumer.pause([TopicPartition(topic, partition, OFFSET_END)])
        cluster_id = consumer.list_topics(timeout=10).cluster_id
    finally:
        consumer.close()
    records.sort(key=lambda r: (r["partition"], r["offset"]))
    coordinates = ", ".join(f"{topic}[{p}]@{s}..{e - 1}" for p, (s, e) in sorted(wanted.items()))
    return records, {"source": f"capture from cluster {cluster_id}", "cluster_id": cluster_id, "topic": topic,
                     "coordinates": coordinates or "(no records in range)", "bootstrap_servers": bootstrap_servers,
                     **({"group": group} if group else {})}


def capture_from_kcat(path: Path) -> tuple[list[dict], dict]:
    """kcat's `-J` output: one JSON object per line with topic, partition, offset, key, payload and headers
    (a flat list: name, value, name, value, ...)."""
    records = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            headers = message.get("headers") or []
            pairs = [(headers[i], None if headers[i + 1] is None else str(headers[i + 1]).encode()) for i in range(0, len(headers), 2)]
            records.append(record_item(message["topic"], int(message["partition"]), int(message["offset"]),
                                       None if message.get("key") is None else message["key"].encode(),
                                       None if message.get("payload") is None else message["payload"].encode(), pairs))
        except (ValueError, KeyError, TypeError, IndexError) as error:
            raise ReproduceError(f"{path}:{number}: not a kcat -J line ({type(error).__name__}: {error})") from error
    if not records:
        raise ReproduceError(f"{path}: no records")
    topics = sorted({r["topic"] for r in records})
    return records, {"source": f"capture from kcat dump {Path(path).name}", "topic": ", ".join(topics),
                     "coordinates": ", ".join(f"{r['topic']}[{r['partition']}]@{r['offset']}" for r in records[:3])
                     + (" ..." if len(records) > 3 else "")}


# ---------------------------------------------------------------------------------------------------
# Failing, and how: the signature
# ---------------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    """How one variant fails (empty: it does not), and which of its records the difference touches."""

    signature: frozenset[str]
    touched: list[int]


@dataclass
class Reproducer:
    """The normalizer under test next to the reference one, on the same broker and Spark."""

    under_test: RoundTrip
    reference: RoundTrip
    format_id: str

    def outcomes(self, variants: list[list[dict]]) -> list[Outcome]:
        """Each variant (a list of capture records) on topics of its own; one produce and one Spark job per normalizer."""
        run = uuid.uuid4().hex[:8]
        records, partitions, owner = [], {}, {}
        for index, items in enumerate(variants):
            prefix = f"repro.{run}.{index}."
            for item in items:
                topic = prefix + item["topic"]
                partitions[topic] = max(partitions.get(topic, 1), item.get("partition", 0) + 1)
                owner[topic] = index
                records.append(kafka_record(item, topic))
        broker = self.under_test.broker
        broker.create_topics(partitions)
        coordinates = broker.produce(records)
        position: dict[tuple, int] = {}  # coordinate -> index of the record in its variant (produce order)
        seen: dict[int, int] = {}
        for c in coordinates:
            variant = owner[c.topic]
            position[(c.topic, c.partition, c.offset)] = seen.get(variant, 0)
            seen[variant] = seen.get(variant, 0) + 1
        ranges: dict = {t: {p: (0, 0) for p in range(n)} for t, n in partitions.items()}
        for c in coordinates:
            ranges[c.topic][c.partition] = (0, max(ranges[c.topic][c.partition][1], c.offset + 1))
        reference = self.reference.normalize_ranges(ranges, self.format_id, coordinates)
        try:
            tested = self.under_test.normalize_ranges(ranges, self.format_id, coordinates)
        except Exception as error:  # the normalizer under test stopping is a failure like any other
            return [Outcome(frozenset({f"normalizer failed: {type(error).__name__}"}), []) for _ in variants]
        found: list[set[str]] = [set() for _ in variants]
        touched: list[list[int]] = [[] for _ in variants]
        for where, items in _differences(reference, tested):
            found[owner[where[0]]].update(items)
            touched[owner[where[0]]].append(position[where])
        for problem in tested.accounting_problems():
            topic = re.search(r"\('([^']+)'", problem)
            if topic and topic.group(1) in owner:
                found[owner[topic.group(1)]].add("accounting: a record lost or counted twice")
        return [Outcome(frozenset(f), sorted(t)) for f, t in zip(found, touched)]

    def signatures(self, variants: list[list[dict]]) -> list[frozenset[str]]:
        return [outcome.signature for outcome in self.outcomes(variants)]

    def signature(self, records: list[dict]) -> frozenset[str]:
        return self.signatures([records])[0]


def _by_coordinate(items: list[dict], render: Callable) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for item in items:
        origin = item["origin"][0]
        out.setdefault((origin["topic"], origin["partition"], origin["offset"]), []).append(render(item))
    return out


def _differences(reference, tested):
    """(topic, items) per record whose outputs differ: event field paths without list positions, and codes."""
    ref_events, test_events = _by_coordinate(reference.events, dict), _by_coordinate(tested.events, dict)
    ref_codes = {k: sorted(q["code"] for q in v) for k, v in _by_coordinate(reference.quarantine, dict).items()}
    test_codes = {k: sorted(q["code"] for q in v) for k, v in _by_coordinate(tested.quarantine, dict).items()}
    for where in sorted(set(ref_events) | set(test_events) | set(ref_codes) | set(test_codes)):
        items = set()
        want, got = ref_events.get(where, []), test_events.get(where, [])
        if len(want) != len(got):
            items.add(f"events: {len(want)} expected per record, {len(got)} emitted")
        for a, b in zip(want, got):
            for paths in DeepDiff(a, b).affected_paths:
                items.add("event field " + re.sub(r"\[\d+\]", "[]", readable_path(paths)))
        if ref_codes.get(where) != test_codes.get(where):
            items.add(f"quarantine: {ref_codes.get(where) or 'none'} expected, {test_codes.get(where) or 'none'} given")
        if items:
            yield where, items


# ---------------------------------------------------------------------------------------------------
# Minimize
# ---------------------------------------------------------------------------------------------------

def minimize(reproducer: Reproducer, records: list[dict], max_rounds: int = 12,
             progress: Progress | None = None) -> tuple[list[dict], frozenset[str]]:
    """The smallest records that still fail with the same signature (a subset of records, then of members)."""
    progress = progress or quiet()
    with progress.phase(f"minimizing {len(records)} records: the failure of them all"):
        return _minimize(reproducer, records, max_rounds, progress)


def _minimize(reproducer: Reproducer, records: list[dict], max_rounds: int, progress: Progress) -> tuple[list[dict], frozenset[str]]:
    outcome = reproducer.outcomes([records])[0]
    target = outcome.signature
    if not target:
        raise ReproduceError("the capture does not fail: the normalizer under test agrees with the reference")
    touched = [records[i] for i in outcome.touched]
    if touched and len(touched) < len(records) and reproducer.signature(touched) == target:
        records = touched  # usually all that matters: the records whose own output differs
    progress.note(f"delta debugging from {len(records)} records")
    records = _ddmin(reproducer, records, target, progress)
    for round_number in range(1, max_rounds + 1):
        progress.note(f"{len(records)} record(s) left; removing members, round {round_number}")
        records, shrunk = _shrink_members(reproducer, records, target)
        if not shrunk:
            break
    return records, target


def _ddmin(reproducer: Reproducer, records: list[dict], target: frozenset[str], progress: Progress) -> list[dict]:
    """Zeller's delta debugging; each granularity's subsets and complements are tried in one job."""
    granularity = 2
    while len(records) >= 2:
        progress.note(f"{len(records)} records, trying {granularity} parts and their complements")
        size = max(1, len(records) // granularity)
        chunks = [records[i:i + size] for i in range(0, len(records), size)]
        complements = [[r for j, chunk in enumerate(chunks) if j != i for r in chunk] for i in range(len(chunks))]
        candidates = chunks + [c for c in complements if c]
        signatures = reproducer.signatures(candidates)
        passing = [c for c, s in zip(candidates, signatures) if s == target]
        if passing:
            best = min(passing, key=len)
            granularity = 2 if best in chunks else max(granularity - 1, 2)
            records = best
        elif granularity >= len(records):
            break
        else:
            granularity = min(len(records), granularity * 2)
    return records


def _shrink_members(reproducer: Reproducer, records: list[dict], target: frozenset[str]) -> tuple[list[dict], bool]:
    """One round: every single member removal side by side; then all that kept the failure at once, or else
    the largest of them. Returns (records, whether anything was removed)."""
    removals = [(index, path) for index, item in enumerate(records) if (value := _json_value(item)) is not None
                for path in _paths(value)]
    if not removals:
        return records, False
    variants = [_apply(records, [removal]) for removal in removals]
    kept = [r for r, s in zip(removals, reproducer.signatures(variants)) if s == target]
    if not kept:
        return records, False
    together = _apply(records, kept)
    if len(kept) > 1 and reproducer.signature(together) == target:
        return together, True
    return min((_apply(records, [r]) for r in kept), key=lambda v: len(json.dumps(v))), True


def _paths(value, prefix: tuple = (), depth: int = 0):
    """Paths of the members and list elements of a JSON value, to depth 3 (schemas, rows, row images)."""
    if depth > 3:
        return
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield (*prefix, key)
        yield from _paths(inner, (*prefix, key), depth + 1)


def _apply(records: list[dict], removals: list[tuple[int, tuple]]) -> list[dict]:
    """`records` without the members at `removals`; a path under another removed path is already gone, and list
    elements go last-first so earlier indices stay right."""
    out = list(records)
    for index in sorted({i for i, _ in removals}):
        paths = sorted({p for i, p in removals if i == index}, key=lambda p: (len(p), p), reverse=True)
        paths = [p for p in paths if not any(q != p and p[:len(q)] == q for q in paths)]
        value = json.loads(out[index]["value"])
        for path in sorted(paths, key=lambda p: [(-k if isinstance(k, int) else 0) for k in p]):
            parent = value
            for key in path[:-1]:
                parent = parent[key]
            del parent[path[-1]]
        out[index] = _with_value(out[index], value)
    return out


def _json_value(item: dict):
    """The record's value as a JSON object or list, when it is one."""
    text = item.get("value")
    return _parsed_container(text) if isinstance(text, str) else None


def _with_value(item: dict, value) -> dict:
    return {**item, "value": json.dumps(value, ensure_ascii=False, separators=(",", ":"))}


# ---------------------------------------------------------------------------------------------------
# Redact
# ---------------------------------------------------------------------------------------------------

def stand_in(text: str) -> str:
    """Same length and character classes: letters -> x/X, digits -> 9, the rest kept (@ . - : keep shapes)."""
    return "".join("X" if c.isupper() else "x" if c.isalpha() else "9" if c.isdigit() else c for c in text)


def redact(records: list[dict], columns: set[str], every_string: bool = False) -> list[dict]:
    """Values of members named in `columns` (any depth, also inside JSON held in strings), or every string."""
    def scrub(value, named: bool):
        if isinstance(value, dict):
            return {k: scrub(v, named or k in columns) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v, named) for v in value]
        if isinstance(value, str):
            nested = _parsed_container(value)
            if nested is not None:
                return json.dumps(scrub(nested, named), ensure_ascii=False, separators=(",", ":"))
            return stand_in(value) if named or every_string else value
        if named and isinstance(value, (int, float)) and not isinstance(value, bool):
            return json.loads(re.sub(r"[0-9]", "9", json.dumps(value)))  # as many digits, all 9
        return value

    out = []
    for item in records:
        value = _json_value(item)
        out.append(_with_value(item, scrub(value, False)) if value is not None else item)
    return out


def _parsed_container(text: str):
    if text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


def redacted(reproducer: Reproducer, records: list[dict], columns: set[str], every_string: bool = False) -> list[dict]:
    """Redacted records that still fail the same way; otherwise ReproduceError (nothing is written)."""
    target = reproducer.signature(records)
    if not target:
        raise ReproduceError("the capture does not fail: nothing to keep while redacting")
    result = redact(records, columns, every_string)
    after = reproducer.signature(result)
    if after != target:
        raise ReproduceError("the redacted records no longer fail the same way (before: "
                             f"{sorted(target)}; after: {sorted(after) or 'no failure'}); not written")
    return result


# ---------------------------------------------------------------------------------------------------
# Promote
# ---------------------------------------------------------------------------------------------------

def case_document(document: dict, case_id: str, title: str, features: list[str], versions: str, expect: dict,
                  notes: str = "") -> dict:
    """A case file from a capture and the expectation it must meet."""
    records = [{k: v for k, v in item.items() if k != "offset"} for item in document["records"]]
    provenance = document.get("provenance", {})
    source = "; ".join(f"{k}: {v}" for k, v in provenance.items() if k != "source")
    return {"id": case_id, "title": title, "format": document["format"], "versions": versions, "features": features,
            "provenance": {"source": f"{provenance.get('source', 'capture')} ({source})"},
            **({"notes": notes} if notes else {}), "records": records, "expect": expect}


def expectation_from(reference_output) -> dict:
    """The approved expectation: what the reference normalizer made of the records (the golden file holds all)."""
    index = {(c.topic, c.partition, c.offset): i for i, c in enumerate(reference_output.coordinates)}
    expect: dict = {}
    events = [_expected_event(e) for e in reference_output.events]
    if events:
        expect["events"] = events
    quarantine = [{"record": index[(o["topic"], o["partition"], o["offset"])], "phase": q["phase"], "code": q["code"]}
                  for q in reference_output.quarantine for o in q["origin"][:1]]
    if quarantine:
        expect["quarantine"] = quarantine
    return expect


def _expected_event(event: dict) -> dict:
    """The fields a reader checks first; the golden file holds the rest."""
    return {k: event[k] for k in ("kind", "op", "key", "before", "after") if event.get(k) is not None}


@dataclass(frozen=True)
class KnownFailure:
    """Behaviour not approved yet: the expectation the case must meet once the bug is fixed, why it fails today,
    and the bug's link. The case is listed in known_failures.yaml, so the run fails once it starts passing."""
    expect: dict
    reason: str
    bug: str | None = None


def promote(roundtrip: RoundTrip, document: dict, case_id: str, features: list[str], versions: str, title: str | None,
            cases_root: Path, golden_root: Path, known_failure: KnownFailure | None = None,
            known_failures_file: Path | None = None) -> Path:
    """Write the case file and lint it. Approved behaviour (no `known_failure`): the expectation and golden file come
    from the reference normalizer and the case must pass. A known failure: the given expectation, an entry in
    known_failures.yaml, and the case must fail. Any problem removes what was written and raises ReproduceError."""
    from harness.cases import CaseError, load_case, load_cases
    from harness.lint import lint
    from harness.registry import Registry
    from harness.runner import KNOWN_FAILURES_FILE, PASS, XFAIL, Runner, add_known_failure, load_known_failures, remove_known_failure

    known_failures_file = known_failures_file or KNOWN_FAILURES_FILE
    if known_failure is None:
        expect, notes = expectation_from(_reference_output(roundtrip, document)), ""
    else:
        expect, notes = known_failure.expect, f"Known failure: {known_failure.reason}" + (
            f" ({known_failure.bug})" if known_failure.bug else "")
    data = case_document(document, case_id, title or f"captured: {document.get('provenance', {}).get('source', 'capture')}",
                         features, versions, expect, notes)
    path = cases_root / document["format"] / f"{case_id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8")
    if known_failure is not None:
        add_known_failure(case_id, known_failure.reason, known_failure.bug, known_failures_file)
    registry, known = Registry.load(), load_known_failures(known_failures_file)
    try:
        case, all_cases = load_case(path), load_cases(cases_root)
        problems = [str(p) for p in lint(all_cases, registry, known) if case_id in str(p)]
    except CaseError as error:
        problems = [str(error)]
    if not problems:
        runner = Runner(roundtrip, registry, known, update_golden=known_failure is None, keep_orphans=True, golden_root=golden_root)
        result = runner.run([case], all_cases).results[0]
        if known_failure is None and result.status != PASS:
            problems = [f"it does not pass with the reference normalizer: {p}" for p in result.problems[:3]]
        elif known_failure is not None and result.status != XFAIL:
            problems = ["it meets the given expectation already: promote it as approved behaviour (without --known-failure)"]
    if problems:
        path.unlink()
        if known_failure is not None:
            remove_known_failure(case_id, known_failures_file)
        raise ReproduceError("the promoted case is not written:\n" + "\n".join(problems))
    return path


def _reference_output(roundtrip: RoundTrip, document: dict):
    """The records through the broker (on fresh topics) and the normalizer, with the capture's own topic names."""
    partitions: dict[str, int] = {}
    for item in document["records"]:
        partitions[item["topic"]] = max(partitions.get(item["topic"], 1), item.get("partition", 0) + 1)
    prefix = f"promote.{uuid.uuid4().hex[:8]}."
    output = roundtrip.run([kafka_record(item, prefix + item["topic"]) for item in document["records"]], document["format"],
                           {prefix + t: n for t, n in partitions.items()})
    for item in (*output.events, *output.quarantine):
        for origin in item["origin"]:
            origin["topic"] = origin["topic"][len(prefix):]
    output.coordinates = [type(c)(c.topic[len(prefix):], c.partition, c.offset) for c in output.coordinates]
    return output
