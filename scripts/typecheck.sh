#!/usr/bin/env bash
# mypy over the suite as it is imported: one package, cdc_conformance, whose subpackages are the repository's folders
# (linked into it, so mypy follows the imports by path like any tool). `make test` runs it: clean, every module.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/mypy --python-executable .venv/bin/python --ignore-missing-imports --cache-dir .cache/mypy -p cdc_conformance "$@"
