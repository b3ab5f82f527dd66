#!/usr/bin/env bash
# Set up a fresh machine and run the main job on the bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python scripts/main_job.py "$@"
