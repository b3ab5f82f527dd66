"""A longer soak of the sweeps of clips and material animation (glide loops, step starts): the suite runs each with
a fixed seed and a small budget; this runs them with ``--examples N`` each (drawn afresh unless ``--seed`` is
given) and prints pytest's result and the wall time.

- tests/test_material_glide_loops_blender.py: material tracks with drawn key times (periods that are and are not
  whole frames), modes, masks and frame rates; every integer frame of several loops against core.
- tests/test_clip_step_starts_blender.py: clips whose step boundaries lie within 0.012 frame of integer frames,
  at several frame rates, both node modes; every integer frame against core's clip pose.

Run: .venv/bin/python benchmarks/edges_sweep.py [--examples 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SWEEPS = ["tests/test_material_glide_loops_blender.py::test_every_integer_frame_of_every_loop_shows_the_game_colour",
          "tests/test_clip_step_starts_blender.py"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=200, help="examples per sweep (default 200)")
    parser.add_argument("--seed", type=int, help="hypothesis seed (default: drawn afresh)")
    args = parser.parse_args()
    env = dict(os.environ, IO_MSH_SWEEP_EXAMPLES=str(args.examples))
    command = [sys.executable, "-m", "pytest", "-q", "--rootdir", "tests", "-p", "no:cacheprovider", *SWEEPS]
    if args.seed is not None:
        command.append(f"--hypothesis-seed={args.seed}")
    start = time.perf_counter()
    code = subprocess.call(command, cwd=ROOT, env=env)
    print(f"{args.examples} examples per sweep: {time.perf_counter() - start:.1f} s, pytest exit {code}")
    return code


if __name__ == "__main__":
    sys.exit(main())
