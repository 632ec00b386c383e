"""The Kafka broker image for the testcontainers backend.

Users run the official `apache/kafka` image (pulled by Testcontainers like any image). Where no registry
is reachable (CI here), `local` builds harness/docker/kafka/Dockerfile from the Maven-resolved broker jars on a
base given by CDC_KAFKA_BASE_IMAGE (scripts/docker-engine.sh makes one from Debian packages). The tag
carries a hash of everything that goes in, so an unchanged image is built once and then reused.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from cdc_conformance.harness import jvm, suite_files
from cdc_conformance.harness.processes import log_tail

IMAGE_DIR = suite_files.package_dir("cdc_conformance.harness") / "docker" / "kafka"
OFFICIAL = "official"
LOCAL = "local"
DEFAULT_BASE = "eclipse-temurin:17-jre"
# scripts/docker-engine.sh builds the images in the background while the first tests run, holding this lock;
# a test that needs the image waits on it instead of building a second copy
BUILD_LOCK = suite_files.cache_dir() / "docker" / "images.lock"
BUILD_LOG = BUILD_LOCK.with_name("images.log")


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
    """The locally built broker image, built now if this exact content has no image yet (after any build that
    scripts/docker-engine.sh started in the background has ended)."""
    import docker

    base = base or os.environ.get("CDC_KAFKA_BASE_IMAGE") or DEFAULT_BASE
    tag = local_tag(base)
    client = docker.from_env()
    with _build_lock():
        if _has_image(client, tag):
            return tag
        if not (_has_image(client, base) or base == DEFAULT_BASE):  # a public base: the build pulls it
            raise RuntimeError(f"no base image {base} for the broker image: {_build_log_tail()}")
        _build(client, base, tag)
    return tag


def _build(client, base: str, tag: str) -> None:
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


def _has_image(client, name: str) -> bool:
    import docker

    try:
        client.images.get(name)
        return True
    except docker.errors.ImageNotFound:
        return False


@contextmanager
def _build_lock():
    """The images' build lock (see BUILD_LOCK), held for a build and while checking for its result."""
    BUILD_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(BUILD_LOCK, "a") as lock:  # closing it releases the lock
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("waiting for the broker image another process is building", file=sys.stderr)
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _build_log_tail() -> str:
    tail = log_tail(BUILD_LOG, 15, "")
    return (f"its build failed; the end of {BUILD_LOG}:\n{tail}" if tail
            else "it was not made (scripts/docker-engine.sh base-image makes one from Debian packages)")


if __name__ == "__main__":  # scripts/docker-engine.sh: build the broker image ahead of the tests
    print(ensure_local_image(), file=sys.stderr)
