"""Capturing records: from a live cluster (offsets, times or a consumer group) or from kcat's JSON dump."""
from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

from cdc_conformance.harness.progress import Progress, quiet
from cdc_conformance.harness.reproduce.captures import ReproduceError, coordinates_text, record_item


def capture_from_cluster(bootstrap_servers: str, topic: str, partitions: list[int] | None, offsets: tuple[int, int] | None,
                         since_ms: int | None = None, until_ms: int | None = None,
                         group: str | None = None, count: int | None = None,
                         progress: Progress | None = None, client: dict[str, str] | None = None) -> tuple[list[dict], dict]:
    """Records of `topic` in [start, end) per partition; the bounds come from offsets (the same in every
    partition), timestamps or a consumer group's committed offsets (from there, `count` records); without
    any, the whole topic. `client`: librdkafka properties (TLS, SASL); their values are never written, and
    error messages have the secret ones masked. Returns (records, provenance)."""
    client = client or {}
    try:
        return _capture(bootstrap_servers, topic, partitions, offsets, since_ms, until_ms, group, count, progress, client)
    except ReproduceError as error:
        raise ReproduceError(masked(str(error), client)) from None
    except Exception as error:  # a client error (a wrong property, say): one line, secrets masked
        raise ReproduceError(masked(f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}", client)) from None


def _capture(bootstrap_servers, topic, partitions, offsets, since_ms, until_ms, group, count, progress, client):
    from confluent_kafka import Consumer, KafkaException, TopicPartition

    from cdc_conformance.harness.broker import client_config

    client_errors: list[str] = []  # librdkafka says why (an authentication failure, a certificate) only here
    consumer = Consumer({**client_config(bootstrap_servers), **client, "error_cb": lambda error: client_errors.append(error.str()),
                         "group.id": group or f"cdc-conformance-capture-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    try:
        try:
            metadata = consumer.list_topics(topic, timeout=10)
        except KafkaException as error:  # nothing answered: one line, not librdkafka's traceback
            consumer.poll(0.5)  # serves the callbacks queued meanwhile
            why = next((e for e in reversed(client_errors) if "authentication" in e.lower() or "ssl" in e.lower()),
                       error.args[0].str() if error.args else str(error))
            raise ReproduceError(f"cannot reach {bootstrap_servers}: {why}") from error
        if metadata.topics[topic].error is not None:
            raise ReproduceError(f"topic {topic!r}: {metadata.topics[topic].error.str()}")
        existing = sorted(metadata.topics[topic].partitions)
        missing = sorted(set(partitions or []) - set(existing))
        if missing:
            raise ReproduceError(f"topic {topic!r} has no partition {', '.join(map(str, missing))} "
                                 f"(its partitions: {', '.join(map(str, existing))})")
        chosen = sorted(partitions or existing)
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in chosen}
        lows = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[0] for p in chosen}
        start = end = None
        if offsets:
            start, end = dict.fromkeys(chosen, offsets[0]), dict.fromkeys(chosen, offsets[1])
        elif group:
            committed = consumer.committed([TopicPartition(topic, p) for p in chosen], timeout=10)
            if all(tp.offset < 0 for tp in committed):  # reading from the start instead would capture the wrong records
                raise ReproduceError(f"consumer group {group!r} has no committed offset on {topic!r}: give --offsets or --since")
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
        with (progress or quiet()).phase(f"capturing {sum(e - s for s, e in wanted.values())} records from {topic}",
                                         total=sum(e - s for s, e in wanted.values())) as step:
            _read(consumer, topic, wanted, records, step)
        cluster_id = consumer.list_topics(timeout=10).cluster_id
    finally:
        consumer.close()
    records.sort(key=lambda r: (r["partition"], r["offset"]))
    return records, {"source": f"capture from cluster {cluster_id}", "cluster_id": cluster_id, "topic": topic,
                     "coordinates": coordinates_text(records),
                     "bootstrap_servers": bootstrap_servers,
                     **({"client_properties": sorted(client)} if client else {}),  # names only: values may be secrets
                     **({"group": group} if group else {})}


def _read(consumer, topic: str, wanted: dict[int, tuple[int, int]], records: list[dict], step) -> None:
    """The records of `wanted` (partition -> [start, end)), in order per partition, into `records`."""
    from confluent_kafka import OFFSET_END, KafkaError, TopicPartition

    if not wanted:
        return
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
                                   list(message.headers() or []), _timestamp(*message.timestamp())))
        step()
        if offset + 1 >= wanted[partition][1]:
            remaining.discard(partition)
            consumer.pause([TopicPartition(topic, partition, OFFSET_END)])


def capture_from_kcat(path: Path) -> tuple[list[dict], dict]:
    """kcat's `-J` output: one JSON object per line with topic, partition, offset, tstype/ts, key, payload and
    headers (a flat list, name, value, ...; or an object, as some kcat versions write `%h`)."""
    records = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            records.append(record_item(message["topic"], int(message["partition"]), int(message["offset"]),
                                       None if message.get("key") is None else message["key"].encode(),
                                       None if message.get("payload") is None else message["payload"].encode(),
                                       _kcat_headers(message.get("headers") or []), _kcat_timestamp(message)))
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as error:
            raise ReproduceError(f"{path}:{number}: not a kcat -J line ({type(error).__name__}: {error})") from error
    if not records:
        raise ReproduceError(f"{path}: no records")
    topics = sorted({r["topic"] for r in records})
    return records, {"source": f"capture from kcat dump {Path(path).name}", "topic": ", ".join(topics),
                     "coordinates": coordinates_text(records)}


def _kcat_headers(headers) -> list[tuple[str, bytes | None]]:
    pairs = headers.items() if isinstance(headers, dict) else zip(headers[0::2], headers[1::2], strict=True)
    return [(str(name), None if value is None else str(value).encode()) for name, value in pairs]


# kcat's tstype names (create, logappend) and librdkafka's timestamp types (1: create, 2: log append time)
_TIMESTAMP_TYPES = {"create": "create", "logappend": "log_append", 1: "create", 2: "log_append"}


def _kcat_timestamp(message: dict) -> dict | None:
    return _timestamp(message.get("tstype"), message.get("ts"))


def _timestamp(kind, ms) -> dict | None:
    """A record's timestamp as a capture keeps it; None where the record has none."""
    if kind not in _TIMESTAMP_TYPES or ms is None or int(ms) < 0:
        return None
    return {"type": _TIMESTAMP_TYPES[kind], "ms": int(ms)}


# librdkafka properties whose values are secrets (SASL passwords, OAuth client secrets, private keys)
_SECRET = ("password", "secret", "sasl.oauthbearer.config", "ssl.key.pem", "ssl.keystore", "ssl_key")


def client_properties(file_text: str, options) -> dict[str, str]:
    """KEY=VALUE lines of a properties file (blank lines and # comments skipped), then -X options, as kcat reads
    them; ValueError naming the first malformed one (by its key: a value may be a secret)."""
    properties: dict[str, str] = {}
    lines = [line.strip() for line in file_text.splitlines()]
    for entry in [line for line in lines if line and not line.startswith("#")] + list(options):
        key, sep, value = entry.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"client property {key.strip() or '(empty)'!r}: expected KEY=VALUE")
        properties[key.strip()] = value.strip()
    return properties


def masked(text: str, client: dict[str, str]) -> str:
    """`text` with the value of every secret client property replaced by ***."""
    for key, value in client.items():
        if value and any(word in key for word in _SECRET):
            text = text.replace(value, "***")
    return text


def parse_offsets(text: str) -> tuple[int, int]:
    """`START:END` -> (START, END), START < END; ValueError naming the expected form."""
    first, _, last = text.partition(":")
    if not (first.isdigit() and last.isdigit() and int(first) < int(last)):
        raise ValueError(f"--offsets {text}: expected START:END with START < END")
    return int(first), int(last)


def epoch_ms(text: str | None) -> int | None:
    """ISO 8601 (UTC when it names no zone) or epoch milliseconds -> epoch milliseconds; ValueError otherwise."""
    if text is None:
        return None
    if text.isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as error:
        raise ValueError(f"not a time: {text!r} (ISO 8601, or epoch milliseconds)") from error
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp() * 1000)
