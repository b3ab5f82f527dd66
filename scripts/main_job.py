"""The main job on a model or archive (default: the bundled sample).

Until the Blender importer exists: show the file, validate it, check the
lossless round trip, and print a few poses as the game's runtime samples them.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.cli import main as core_cli  # noqa: E402

DEFAULT = ROOT / "samples" / "sample.rlb"


def main(argv: list[str]) -> int:
    target = argv[0] if argv else str(DEFAULT)
    steps = [
        ["info", target],
        ["validate", target],
        ["roundtrip", target],
        ["sample", target, "--times", "0,10.5,20,40"],
    ]
    worst = 0
    for step in steps:
        print(f"\n$ python -m core {' '.join(step)}", flush=True)
        worst = max(worst, core_cli(step))
        sys.stdout.flush()
    print(f"\nmain job: {'OK' if worst == 0 else 'FAILED'}")
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
