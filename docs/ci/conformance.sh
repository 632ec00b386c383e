#!/usr/bin/env bash
# The conformance gate of a normalizer's own repository, step by step. docs/ci/github-actions.yml and
# docs/ci/gitlab-ci.yml run it; the suite's own test of its users' workflows runs it in a throwaway repository with the
# suite's built wheel (tests/user/test_workflows.py, `make test-user`). Copy it into your repository.
#
#   CDC_NORMALIZER  your normalizer, MODULE:FUNCTION (required)
#   CDC_SHARDS      shards the suite's cases run in, one after another here (parallel jobs: see github-actions.yml) [2]
#   CDC_BASELINE    your last release's results (a results.jsonl or its folder); unset: this run is the first baseline
#   CDC_CERTIFY     FORMAT@VERSION to certify your normalizer for, into ./cdc-certifications/ (unset: no certification)
#   CDC_EXAMPLES    examples per generic check when certifying [2000]
#
# Your own cases, if any: cdc-cases/, their approved outputs cdc-golden/, cdc-known-failures.yaml. Everything this
# writes goes to conformance-results/ and cdc-certifications/ in the working directory; nothing into the suite.
# Exit: 0 when every step passed; otherwise the failing step's code (1: a case, the gate or a check failed; 2: misuse).
set -euo pipefail
: "${CDC_NORMALIZER:?give your normalizer as CDC_NORMALIZER=MODULE:FUNCTION}"
shards=${CDC_SHARDS:-2}
out=conformance-results
rm -rf "$out"
mkdir -p "$out"

# 1. your own cases, inside your test run (the pytest plugin): a failing case fails the job here
if [ -d cdc-cases ]; then
  own=(--cdc-cases cdc-cases --cdc-golden cdc-golden)
  if [ -f cdc-known-failures.yaml ]; then own+=(--cdc-known-failures cdc-known-failures.yaml); fi
  python -m pytest -q -p no:cacheprovider --cdc-normalizer "$CDC_NORMALIZER" "${own[@]}" --cdc-reports "$out/own"
fi

# 2. the suite's cases in shards; exit 1 (a case fails) is for the gate to judge, any other code stops the job
for i in $(seq 1 "$shards"); do
  cdc-conformance run --normalizer "$CDC_NORMALIZER" --shard "$i/$shards" --reports "$out/shard-$i" || [ $? -eq 1 ]
done
cdc-conformance merge "$out"/shard-* --reports "$out/merged" || [ $? -eq 1 ]

# 3. the gate: regressions against your last release's results, the same normalizer's
if [ -n "${CDC_BASELINE:-}" ]; then
  cdc-conformance gate "$out/merged" --baseline "$CDC_BASELINE"
else
  echo "no CDC_BASELINE: keep $out/merged/results.jsonl as the baseline of your next release"
fi

# 4. your normalizer certified for a format version, and every record of yours re-checked
if [ -n "${CDC_CERTIFY:-}" ]; then
  cdc-conformance certify "$CDC_CERTIFY" --normalizer "$CDC_NORMALIZER" --examples "${CDC_EXAMPLES:-2000}"
  cdc-conformance certify --check --normalizer "$CDC_NORMALIZER" --examples "${CDC_EXAMPLES:-2000}"
fi
