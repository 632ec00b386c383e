"""Capture files: the exact records (bytes, headers, partition, offset) and their provenance, as YAML."""
from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import yaml

from cdc_conformance.generators.records import KafkaRecord

CAPTURE_VERSION = 1


class ReproduceError(ValueError):
    """A capture that cannot be read, or a step whose result would not reproduce the failure."""


def record_item(topic: str, partition: int, offset: int | None, key: bytes | None, value: bytes | None,
                headers: list[tuple[str, bytes | None]], timestamp: dict | None = None) -> dict:
    """A record as case files write one: text where the bytes are UTF-8, base64 otherwise. `timestamp`
    ({"type": "create" | "log_append", "ms": ...}) is kept in captures (part of a bug report), not in cases."""
    item: dict = {"topic": topic, "partition": partition}
    if offset is not None:
        item["offset"] = offset
    if timestamp is not None:
        item["timestamp"] = timestamp
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


def coordinates_text(records: list[dict]) -> str:
    """Where the records sit, one range per topic-partition (`t[0]@13..14`), whatever they were captured from."""
    spans: dict[tuple[str, int], list[int]] = {}
    for record in records:
        spans.setdefault((record["topic"], record.get("partition", 0)), []).append(record.get("offset", -1))
    return ", ".join(f"{topic}[{p}]@{min(o)}..{max(o)}" for (topic, p), o in sorted(spans.items())) or "(no records in range)"


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


def json_value(item: dict):
    """The record's value as a JSON object or list, when it is one."""
    text = item.get("value")
    return parsed_container(text) if isinstance(text, str) else None


def with_value(item: dict, value) -> dict:
    """The record with this JSON value, written compactly."""
    return {**item, "value": json.dumps(value, ensure_ascii=False, separators=(",", ":"))}


def parsed_container(text: str):
    """The text as a JSON object or list, when it is one (None otherwise)."""
    if text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None
