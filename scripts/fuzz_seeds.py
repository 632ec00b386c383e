"""Seeds for the readers' fuzz targets (normalizer/java/src/test/java/io/cdcconformance/ReadersFuzzTest.java): the
value of every conformance case's record and every hand-made hostile and extreme record of each format's generator,
one file each in Jazzer's inputs directory (ReadersFuzzTestInputs/<target>/), which Jazzer reads in regression mode
(make test) and starts from in fuzzing mode (make fuzz). Written on each run, never committed: the cases and the
generators are their source.

    python scripts/fuzz_seeds.py            # write the seeds (normalizer/java's build runs it before its tests)
    python scripts/fuzz_seeds.py --targets  # the fuzz targets, one per decoded format
"""
from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cdc_conformance.harness.cases import load_cases  # noqa: E402
from cdc_conformance.harness.registry import Registry  # noqa: E402

INPUTS = ROOT / "normalizer/java/src/test/resources/io/cdcconformance/ReadersFuzzTestInputs"
# each format's hand-made hostile records with the code each must get, the tables of its package's JUnit class
# (HostileRecords.java): the generators are their source, so they are written here too, never committed
HOSTILE_TABLES = ROOT / "normalizer/java/src/test/resources/io/cdcconformance/hostile"


def target(format_id: str) -> str:
    """The fuzz target of a format: its id in lower camel case (`debezium-json`: `debeziumJson`)."""
    first, *rest = format_id.split("-")
    return first + "".join(word.capitalize() for word in rest)


def seeds() -> dict[str, set[bytes]]:
    registry = Registry.load()
    found: dict[str, set[bytes]] = {target(f): set() for f in registry.decoded_formats()}
    for case in load_cases():
        found[target(case.format)] |= {r.value for r in case.kafka_records() if r.value}
    for format_id in registry.decoded_formats():
        generator = registry.generator(format_id)
        found[target(format_id)] |= {h.value for h in generator.hostile.values() if h.value}
        found[target(format_id)] |= {value for _, value in generator.extreme_records() + generator.lone_surrogate_records()}
    return found


def hostile_tables() -> dict[str, list[dict]]:
    """format id -> [{name, key, value (base64), code}] for every hostile record that has a value and no headers (a
    header's record is read through Spark, by tests/integration/test_formats.py, as every hostile record is)."""
    def text(data: bytes | None) -> str | None:
        return None if data is None else base64.b64encode(data).decode()

    registry = Registry.load()
    return {format_id: [{"name": name, "key": text(h.key), "value": text(h.value), "code": h.code.value if h.code else None}
                        for name, h in sorted(registry.generator(format_id).hostile.items()) if h.value and not h.headers]
            for format_id in registry.decoded_formats()}


def main() -> None:
    if sys.argv[1:] == ["--targets"]:  # make fuzz's default list
        print(" ".join(target(f) for f in Registry.load().decoded_formats()))
        return
    shutil.rmtree(INPUTS, ignore_errors=True)
    for name, values in seeds().items():
        directory = INPUTS / name
        directory.mkdir(parents=True)
        for value in values:
            (directory / hashlib.sha1(value).hexdigest()).write_bytes(value)
    print(f"fuzz seeds: {sum(1 for _ in INPUTS.rglob('*') if _.is_file())} in {INPUTS.relative_to(ROOT)}")
    shutil.rmtree(HOSTILE_TABLES, ignore_errors=True)
    HOSTILE_TABLES.mkdir(parents=True)
    for format_id, rows in hostile_tables().items():
        (HOSTILE_TABLES / f"{format_id}.json").write_text(json.dumps(rows, indent=1) + "\n")
    # the schema the fuzz target's registry answers for the seeds' placeholder id: the valid neighbour's value schema
    neighbour = Registry.load().generator("debezium-avro").hostile["valid neighbour"]
    (HOSTILE_TABLES / "debezium-avro-value-schema.json").write_text(dict(neighbour.registrations)["value"].schema + "\n")


if __name__ == "__main__":
    main()
