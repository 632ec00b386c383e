#!/usr/bin/env bash
# The conformance gate of a normalizer's own repository, step by step. docs/ci/github-actions.yml and
# docs/ci/gitlab-ci.yml run it; the suite's own test of its users' workflows runs it in a throwaway repository with the
# suite's built wheel (tests/user/test_workflows.py, `make test-user`). Copy it into your repository.
#
#   bash ci/conformance.sh              every step below, one after another (one CI job)
#   bash ci/conformance.sh own          step 1 only
#   bash ci/conformance.sh shard I/N    one shard of step 2 (a job of a parallel matrix), into conformance-results/shard-I
#   bash ci/conformance.sh gate         steps 3 and 4 over the shards in conformance-results/ (the matrix's last job)
#
#   CDC_NORMALIZER  your normalizer, MODULE:FUNCTION (required)
#   CDC_SHARDS      with every step in one job: shards the suite's cases run in, one after another [1]; sharding pays
#                   only as parallel jobs (`shard I/N`), each its own machine
#   CDC_BASELINE    your last release's results (a results.jsonl or its folder); unset: this run is the first baseline
#   CDC_CERTIFY     FORMAT@VERSION to certify your normalizer for, into ./cdc-certifications/ (unset: no certification)
#   CDC_EXAMPLES    examples per generic check when certifying [2000]
#
# Your own cases, if any: cdc-cases/, their approved outputs cdc-golden/, cdc-known-failures.yaml. Everything this
# writes goes to conformance-results/ and cdc-certifications/ in the working directory; nothing into the suite:
#   conformance-results/own, shard-I, merged   the reports (results.jsonl, junit.xml, summary.md, matrix.html)
#   conformance-results/obtained               the output of each case that differs from its golden file (the suite's
#                                              cases, and yours: approve yours into cdc-golden/ from there)
#   cdc-certifications/                        the certification records (CDC_CERTIFY)
# The CI examples upload conformance-results/ and cdc-certifications/ as artifacts.
# Exit: 0 when every step passed; otherwise the failing step's code (1: a case, the gate or a check failed; 2: misuse).
set -euo pipefail
: "${CDC_NORMALIZER:?give your normalizer as CDC_NORMALIZER=MODULE:FUNCTION}"
out=conformance-results
step=${1:-all}

own() {  # 1. your own cases, inside your test run (the pytest plugin): a failing case fails the job here
  [ -d cdc-cases ] || return 0
  cdc-conformance lint --cases-dir cdc-cases $([ -f cdc-known-failures.yaml ] && echo --known-failures cdc-known-failures.yaml)
  local args=(--cdc-cases cdc-cases --cdc-golden cdc-golden)
  if [ -f cdc-known-failures.yaml ]; then args+=(--cdc-known-failures cdc-known-failures.yaml); fi
  python -m pytest -q -p no:cacheprovider --cdc-normalizer "$CDC_NORMALIZER" "${args[@]}" --cdc-reports "$out/own" \
    --cdc-obtained "$out/obtained"
}

shard() {  # 2. the suite's cases, one shard; exit 1 (a case fails) is for the gate to judge, any other code stops the job
  cdc-conformance run --normalizer "$CDC_NORMALIZER" --shard "$1" --reports "$out/shard-${1%/*}" \
    --obtained-dir "$out/obtained" || [ $? -eq 1 ]
}

gate() {  # 3. the shards merged and gated against your last release's results; 4. the certification
  cdc-conformance merge "$out"/shard-* --reports "$out/merged" || [ $? -eq 1 ]
  if [ -n "${CDC_BASELINE:-}" ]; then
    cdc-conformance gate "$out/merged" --baseline "$CDC_BASELINE"
  else
    echo "no CDC_BASELINE: keep $out/merged/results.jsonl as the baseline of your next release"
  fi
  if [ -n "${CDC_CERTIFY:-}" ]; then
    cdc-conformance certify "$CDC_CERTIFY" --normalizer "$CDC_NORMALIZER" --examples "${CDC_EXAMPLES:-2000}"
    cdc-conformance certify --check --normalizer "$CDC_NORMALIZER" --examples "${CDC_EXAMPLES:-2000}"
  fi
}

case "$step" in
  all)
    rm -rf "$out" && mkdir -p "$out"
    own
    shards=${CDC_SHARDS:-1}
    for i in $(seq 1 "$shards"); do shard "$i/$shards"; done
    gate ;;
  own) mkdir -p "$out" && own ;;
  shard) [ -n "${2:-}" ] || { echo "usage: conformance.sh shard I/N" >&2; exit 2; }; mkdir -p "$out" && shard "$2" ;;
  gate) gate ;;
  *) echo "usage: conformance.sh [all | own | shard I/N | gate]" >&2; exit 2 ;;
esac
