"""Soak of the careless clip edit sweep (tests/clip_sweep.py, run in the suite with a small fixed
budget by tests/test_clip_edit_sweep.py): many more random sequences of clips shown, nodes renamed, keys edited
and taken back, clips written, actions deleted and exports made twice, each export checked against what Blender
shows (or refused leaving the file as it was).

    .venv/bin/python benchmarks/clip_edit_soak.py --examples 200 [--steps 20] [--seed 1]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import blender_env  # noqa: E402  (imports bpy with an isolated user folder)
from clip_sweep import sweep_machine, walker_folder  # noqa: E402
from hypothesis import HealthCheck, seed, settings  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--steps", type=int, default=20, help="rules per sequence at most")
    parser.add_argument("--seed", type=int, default=None, help="a fixed seed (default: random)")
    args = parser.parse_args()
    blender_env.register()
    folder = Path(tempfile.mkdtemp(prefix="clip_soak_"))
    try:
        machine = sweep_machine(blender_env, folder, walker_folder(folder))
        if args.seed is not None:
            machine = seed(args.seed)(machine)
        start = time.perf_counter()
        run_state_machine_as_test(machine, settings=settings(
            max_examples=args.examples, stateful_step_count=args.steps, deadline=None, database=None,
            suppress_health_check=list(HealthCheck)))
        print(f"{args.examples} sequences of up to {args.steps} steps: no export lost an edit "
              f"({time.perf_counter() - start:.1f} s); {dict(machine.stats)}")
    finally:
        blender_env.clean_scene()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
