#!/usr/bin/env bash
# The whole check: set up, lint, then every test on each Blender version.
#   bash scripts/test.sh                 # Blender 5.0 (.venv), then 4.2 and 4.5 (.venv-4.2, .venv-4.5)
#   IO_MSH_BLENDERS="5.0" bash scripts/test.sh -x   # only some versions; extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
for version in ${IO_MSH_BLENDERS:-5.0 4.2 4.5}; do
    if [ "$version" = "5.0" ]; then venv=.venv; else bash scripts/setup.sh "$version"; venv=".venv-$version"; fi
    echo "== tests on Blender $version ($venv)"
    "$venv/bin/python" -m pytest "$@"
done
