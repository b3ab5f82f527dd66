#!/usr/bin/env bash
# Create (or refresh) the project's virtual environment with the pinned requirements.
# Idempotent: does nothing when .venv already matches requirements.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    echo "setup: the bpy wheel needs Python 3.11; $PYTHON is $("$PYTHON" --version 2>&1)" >&2
    exit 2
fi
stamp="$VENV/.requirements"
if [ -x "$VENV/bin/python" ] && cmp -s requirements.txt "$stamp"; then
    exit 0
fi
echo "setup: creating $VENV with $("$PYTHON" --version)" >&2
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements.txt
cp requirements.txt "$stamp"
echo "setup: $VENV ready" >&2
