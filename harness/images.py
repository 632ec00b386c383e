"""The Kafka broker image for the testcontainers backend.

Users run the official `apache/kafka` image (pulled by Testcontainers like any image). Where no registry
is reachable (CI here), `local` builds docker/kafka/Dockerfile from the Maven-resolved broker jars on a
base given by CDC_KAFKA_BASE_IMAGE (scripts/docker-engine.sh makes one from Debian packages). The tag
carries a hash of everything that goes in, so an unchanged image is built once and then reused.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from harness import jvm

IMAGE_DIR = jvm.REPO_ROOT / "docker" / "kafka"
OFFICIAL = "official"
LOCAL = "local"
DEFAULT_BASE = "eclipse-temurin:17-jre"


def official_image() -> str:
    return f"apache/kafka:{jvm.kafka_version()}"


def resolve(spec: str | None = None) -> str:
    """`official` (the default), `local`, or any image name; CDC_KAFKA_IMAGE sets the default."""
    spec = spec or os.environ.get("CDC_KAFKA_IMAGE") or OFFICIAL
    if spec == OFFICIAL:
        return official_image()
    if spec == LOCAL:
        return ensure_local_image()
    return spec


def _context_files(base: str) -> list[tuple[str, Path]]:
    files = [(str(path.relative_to(IMAGE_DIR)), path) for path in sorted(IMAGE_DIR.rglob("*")) if path.is_file()]
    return files + [(f"rootfs/opt/kafka/libs/{jar.name}", jar) for jar in jvm.ensure(jvm.kafka_broker_artifacts())]


def local_tag(base: str) -> str:
    digest = hashlib.sha256(base.encode())
    for name, path in _context_files(base):
        digest.update(name.encode())
        digest.update(path.read_bytes())
    return f"cdc-conformance/kafka:{jvm.kafka_version()}-{digest.hexdigest()[:12]}"


def ensure_local_image(base: str | None = None) -> str:
    """The locally built broker image, built now if this exact content has no image yet."""
    import docker

    base = base or os.environ.get("CDC_KAFKA_BASE_IMAGE") or DEFAULT_BASE
    tag = local_tag(base)
    client = docker.from_env()
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cdc-kafka-image-") as context:
        for name, path in _context_files(base):
            target = Path(context) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)  # keeps the run script's mode: the Dockerfile has no RUN
        client.images.build(path=context, tag=tag, buildargs={"BASE": base}, rm=True, pull=False)
    print(f"built {tag} on {base} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    for image in client.images.list(name=tag.split(":")[0]):  # older builds: a full copy each under vfs
        if tag not in image.tags:
            client.images.remove(image.id, force=True)
    return tag
