#!/usr/bin/env bash
# Debian packages the test tier needs (chromium for the report test; docker.io and debootstrap for the
# Testcontainers backend; mariadb-server for the real-producer tier, which runs its binaries, never its service),
# installed in the background while bootstrap installs Python packages and resolves JVM artifacts, so that a
# fresh machine pays for apt and pip at the same time instead of one after the other.
#
#   scripts/system-packages.sh start   install what is missing, in the background (root with apt only)
#   scripts/system-packages.sh wait    wait for it; its log on failure
#
# Where a package is installed already, or the machine has no root or no apt, nothing happens: the tests that
# need a package say so themselves (scripts/docker-engine.sh, the report test, the real-producer tests).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$ROOT/.cache"
PID_FILE="$CACHE/system-packages.pid"
LOG="$CACHE/system-packages.log"
WITH_RECOMMENDS=(chromium)                  # a browser wants its fonts
WITHOUT_RECOMMENDS=(docker.io debootstrap mariadb-server)  # as scripts/docker-engine.sh installs the first two

say() { echo "system-packages: $*" >&2; }

missing() {
  local package
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || echo "$package"
  done
}

install() {
  local with without rootfs_pid=""
  with=$(missing "${WITH_RECOMMENDS[@]}")
  without=$(missing "${WITHOUT_RECOMMENDS[@]}")
  [ -n "$with$without" ] || return 0
  apt-get update -qq
  # shellcheck disable=SC2086
  [ -z "$without" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $without
  # debootstrap is here now: the Testcontainers base image's file system is made beside Chromium's install, while
  # bootstrap runs, instead of beside the first tests (where it took 76 s of two busy cores). Best effort: where it
  # fails, scripts/docker-engine.sh makes it again when the tests need it.
  if [ -n "$without" ] && command -v debootstrap >/dev/null 2>&1; then
    "$ROOT/scripts/docker-engine.sh" rootfs >"$CACHE/rootfs.log" 2>&1 &
    rootfs_pid=$!
  fi
  # shellcheck disable=SC2086
  [ -z "$with" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $with
  [ -z "$rootfs_pid" ] || wait "$rootfs_pid" || echo "the base image's file system was not made (see $CACHE/rootfs.log)"
}

start() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    return 0
  fi
  if [ -z "$(missing "${WITH_RECOMMENDS[@]}" "${WITHOUT_RECOMMENDS[@]}")" ]; then
    return 0
  fi
  mkdir -p "$CACHE"
  say "installing $(missing "${WITH_RECOMMENDS[@]}" "${WITHOUT_RECOMMENDS[@]}" | tr '\n' ' ')in the background"
  ( install >"$LOG" 2>&1; echo "exit $?" >>"$LOG" ) &
  echo $! >"$PID_FILE"
}

wait_done() {
  [ -f "$PID_FILE" ] || return 0
  local pid started=$SECONDS
  pid=$(cat "$PID_FILE")
  while kill -0 "$pid" 2>/dev/null; do sleep 0.5; done
  rm -f "$PID_FILE"
  if ! tail -1 "$LOG" | grep -qx "exit 0"; then
    say "apt failed; its log:"; tail -20 "$LOG" >&2
    return 1
  fi
  say "done (waited $((SECONDS - started)) s for it)"
}

case "${1:-}" in
  start) start ;;
  wait) wait_done ;;
  *) echo "usage: $0 start|wait" >&2; exit 2 ;;
esac
