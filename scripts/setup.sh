#!/usr/bin/env bash
# Create (or refresh) a virtual environment with the pinned requirements.
#   scripts/setup.sh          -> .venv      with bpy for Blender 5.0 (the default)
#   scripts/setup.sh 4.2      -> .venv-4.2  with bpy for Blender 4.2 LTS (likewise 4.5; 5.0 is the default .venv)
# Idempotent: does nothing when the environment already matches its pins.
set -euo pipefail
cd "$(dirname "$0")/.."
BLENDER="${1:-default}"
case "$BLENDER" in
    default) VENV=.venv;      BPY="bpy==5.0.1" ;;
    5.0)     VENV=.venv;      BPY="bpy==5.0.1" ;;
    4.5)     VENV=.venv-4.5;  BPY="bpy==4.5.15" ;;
    4.2)     VENV=.venv-4.2;  BPY="bpy==4.2.23" ;;
    *) echo "setup: unknown Blender version '$BLENDER' (4.2, 4.5 or 5.0)" >&2; exit 2 ;;
esac
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    echo "setup: the bpy wheel needs Python 3.11; $PYTHON is $("$PYTHON" --version 2>&1)" >&2
    exit 2
fi
# The Khronos glTF validator (npm) checks the batch converter's .glb files in the tests.
if [ ! -d scripts/gltf/node_modules/gltf-validator ]; then
    if command -v npm >/dev/null 2>&1; then
        (cd scripts/gltf && npm install --no-audit --no-fund --loglevel=error >/dev/null) \
            || echo "setup: npm install of the glTF validator failed; the .glb validity test will fail" >&2
    else
        echo "setup: npm not found; the .glb validity test needs Node.js and npm" >&2
    fi
fi
wanted="$(cat requirements.txt; echo "$BPY")"
stamp="$VENV/.requirements"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
    exit 0
fi
echo "setup: creating $VENV ($BPY) with $("$PYTHON" --version)" >&2
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements.txt "$BPY"
printf '%s' "$wanted" > "$stamp"
echo "setup: $VENV ready" >&2
