#!/usr/bin/env bash
# mypy over the suite as it is imported: one package, cdc_conformance, whose subpackages are the repository's folders
# (pyproject.toml maps them at build time; mypy knows no such mapping, so it reads a tree of links that has the
# installed layout, in .cache/typecheck). `make test` runs it: clean, every module.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=.cache/typecheck
rm -rf "$tree" && mkdir -p "$tree/cdc_conformance"
for folder in harness generators normalizer conformance golden; do ln -s "$PWD/$folder" "$tree/cdc_conformance/$folder"; done
for module in cdc_conformance/*.py cdc_conformance/*/__init__.py; do
  entry=${module%/__init__.py}  # a module, or a subpackage of the real folder (peers)
  ln -s "$PWD/$entry" "$tree/$entry"
done
cd "$tree" && exec "$OLDPWD/.venv/bin/mypy" --python-executable "$OLDPWD/.venv/bin/python" --ignore-missing-imports \
  --cache-dir "$OLDPWD/.cache/mypy" -p cdc_conformance "$@"
