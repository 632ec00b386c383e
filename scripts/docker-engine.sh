#!/usr/bin/env bash
# A Docker engine where the tests need one, and only there.
#
#   scripts/docker-engine.sh start         start an engine if none answers; prints `export DOCKER_HOST=...`
#   scripts/docker-engine.sh stop          stop the engine `start` started (never any other)
#   scripts/docker-engine.sh run -- CMD    start if needed, run CMD with DOCKER_HOST set, stop what was started
#   scripts/docker-engine.sh base-image    make the JRE base image from Debian packages (no registry needed)
#   scripts/docker-engine.sh rootfs        only its file system (debootstrap, no engine needed): what
#                                          scripts/system-packages.sh prepares while bootstrap runs
#
# When an engine already answers (DOCKER_HOST, or the default socket), nothing is installed, started or
# stopped. Otherwise, as root with apt (CI machines), Debian's docker.io is installed and dockerd runs with
# vfs storage, no iptables rules, its data under .cache/docker and its socket in a private folder; published
# ports default to 127.0.0.1 (--ip), so nothing is reachable from outside the machine.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$ROOT/.cache/docker"
STATE="$CACHE/started-engine.env"            # written only by an engine this script started
RUNDIR="/tmp/cdc-docker-$(printf '%s' "$ROOT" | md5sum | cut -c1-8)"
SOCKET="$RUNDIR/docker.sock"
BASE_IMAGE="${CDC_JRE_BASE_IMAGE:-cdc-conformance/jre-base:bookworm}"

say() { echo "docker-engine: $*" >&2; }

answers() { timeout 10 docker info >/dev/null 2>&1; }

start() {
  if command -v docker >/dev/null 2>&1 && answers; then
    say "an engine answers already (${DOCKER_HOST:-default socket}); leaving it alone"
    return 0
  fi
  if [ -f "$STATE" ]; then  # started by an earlier call of this script and still alive?
    # shellcheck disable=SC1090
    . "$STATE"
    if DOCKER_HOST="$DOCKER_HOST" answers; then echo "export DOCKER_HOST=$DOCKER_HOST"; return 0; fi
    rm -f "$STATE"
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "no Docker engine answers, and only root with apt can start one here; the testcontainers tests will say so"
    return 0
  fi
  if ! command -v dockerd >/dev/null 2>&1 && [ ! -x /usr/sbin/dockerd ]; then
    say "installing Debian's docker.io"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io >/dev/null
  fi
  clear_dead_engines
  mkdir -p "$CACHE/engine" "$RUNDIR"
  local started=$SECONDS
  # setsid: the engine outlives neither `stop` nor a killed shell's job control, and gets no terminal
  setsid /usr/sbin/dockerd --storage-driver=vfs --iptables=false --ip=127.0.0.1 \
    --data-root "$CACHE/engine" --exec-root "$RUNDIR/exec" --pidfile "$RUNDIR/dockerd.pid" \
    -H "unix://$SOCKET" >"$CACHE/dockerd.log" 2>&1 </dev/null &
  local pid=$!
  for _ in $(seq 1 120); do
    if DOCKER_HOST="unix://$SOCKET" answers; then
      printf 'DOCKER_HOST=unix://%s\nDOCKERD_PID=%s\n' "$SOCKET" "$pid" >"$STATE"
      say "started dockerd (pid $pid) in $((SECONDS - started)) s; data in $CACHE/engine"
      echo "export DOCKER_HOST=unix://$SOCKET"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.5
  done
  say "dockerd did not come up; its log:"; tail -20 "$CACHE/dockerd.log" >&2
  kill "$pid" 2>/dev/null || true
  return 1
}

# An engine of this script that died without stopping (a killed machine session) leaves its containers'
# network namespaces mounted under its exec root, their veths still on docker0 with the addresses the next
# engine hands out again: the same IP and MAC twice on one bridge, and connections to the new container reset
# at random (seen: a suite passing one format, then every Kafka connection reset). Unmounting frees them.
clear_dead_engines() {
  local dir pid ns
  for dir in /tmp/cdc-docker-*; do
    [ -d "$dir" ] || continue
    pid=$(cat "$dir/dockerd.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then continue; fi  # alive
    for ns in "$dir"/exec/netns/*; do
      [ -e "$ns" ] || continue
      umount "$ns" 2>/dev/null && say "released a network namespace of a dead engine: $ns"
    done
  done
}

stop() {
  [ -f "$STATE" ] || return 0
  # shellcheck disable=SC1090
  . "$STATE"
  rm -f "$STATE"
  # containers first (a test that failed mid-way may have left one), then the engine and its children
  local left
  left=$(DOCKER_HOST="$DOCKER_HOST" timeout 20 docker ps -aq 2>/dev/null || true)
  if [ -n "$left" ]; then
    say "removing $(echo "$left" | wc -l) container(s) left behind"
    DOCKER_HOST="$DOCKER_HOST" docker rm -f $left >/dev/null 2>&1 || true
  fi
  kill "$DOCKERD_PID" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$DOCKERD_PID" 2>/dev/null || true
  pkill -f "containerd.*$RUNDIR" 2>/dev/null || true
  rm -rf "$RUNDIR"
  say "stopped the dockerd this run started (pid $DOCKERD_PID)"
}

ROOTFS="$CACHE/rootfs"
ROOTFS_DONE="$CACHE/rootfs.complete"

rootfs() {
  # The base image's file system: a minimal Debian with a Java 17 runtime. It needs no engine, so a fresh machine
  # makes it while bootstrap installs Python packages (scripts/system-packages.sh), not while the tests run.
  [ -f "$ROOTFS_DONE" ] && return 0
  command -v debootstrap >/dev/null 2>&1 || {
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  }
  mkdir -p "$CACHE"
  rm -rf "$ROOTFS"
  debootstrap --variant=minbase --include=openjdk-17-jre-headless bookworm "$ROOTFS" \
    "${CDC_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$CACHE/debootstrap.log" 2>&1 \
    || { tail -20 "$CACHE/debootstrap.log" >&2; rm -rf "$ROOTFS"; return 1; }
  touch "$ROOTFS_DONE"
}

base_image() {
  # A JRE base image from Debian's packages, for machines that reach no image registry.
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then return 0; fi
  local started=$SECONDS made="made"
  [ -f "$ROOTFS_DONE" ] && made="imported"
  rootfs
  tar -C "$ROOTFS" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$ROOTFS" "$ROOTFS_DONE"
  say "$made $BASE_IMAGE from Debian packages in $((SECONDS - started)) s"
}

# The base image, then the broker image (python -m cdc_conformance.harness.images), in the background; its output goes to
# $CACHE/images.log. The lock is taken here, before anything else runs, so no test can find it free and the
# images missing; the build of the broker image takes it again itself.
images_in_background() {
  local log="$CACHE/images.log" python="$ROOT/.venv/bin/python"
  mkdir -p "$CACHE"
  exec 9>>"$CACHE/images.lock"
  flock 9
  set -m  # its own process group: stop_images ends debootstrap's children too
  ( set +e
    base_image >"$log" 2>&1 || exit 1
    exec 9>&-
    if [ -x "$python" ]; then cd "$ROOT" && exec "$python" -m cdc_conformance.harness.images >>"$log" 2>&1; fi
  ) &
  IMAGES_PID=$!
  set +m
  exec 9>&-
}

stop_images() {  # the command ended first (it failed early, or needed no image): no build outlives it
  [ -n "${IMAGES_PID:-}" ] || return 0
  kill -- "-$IMAGES_PID" 2>/dev/null || true
  wait "$IMAGES_PID" 2>/dev/null || true
  sed 's/^/images: /' "$CACHE/images.log" >&2 || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  base-image) base_image ;;
  rootfs) rootfs ;;
  run)
    shift; [ "${1:-}" = "--" ] && shift
    already=0; [ -f "$STATE" ] && already=1
    exports=$(start) || say "no engine could be started; the testcontainers tests will say why"
    eval "$exports"
    stop_engine=$((1 - already))
    trap 'stop_images; [ "$stop_engine" = 0 ] || stop' EXIT   # stop only what this call started
    status=0
    if [ -f "$STATE" ]; then
      # an engine started here reaches no registry: the broker image is built here, on a base from Debian packages,
      # in the background while the command's first tests run (they need no image); the first test that needs it
      # waits for it (harness/images.py, same lock)
      export CDC_KAFKA_BASE_IMAGE="$BASE_IMAGE" CDC_KAFKA_IMAGE="${CDC_KAFKA_IMAGE:-local}"
      images_in_background
    fi
    if [ "$status" = 0 ]; then "$@" || status=$?; fi
    exit "$status" ;;
  *) echo "usage: $0 start|stop|base-image|rootfs|run -- COMMAND" >&2; exit 2 ;;
esac
