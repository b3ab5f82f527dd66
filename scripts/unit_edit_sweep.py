"""The soak of the unit edit-cycle sweep (tests/unit_sweep.py): many more careless edit sequences than the
suite runs, through the real operators, in both node modes.

    .venv/bin/python scripts/unit_edit_sweep.py --examples 200 [--steps 20]

Prints the examples run, exports finished and refused, and the time; exits 1 on the first sequence that breaks
the invariant (hypothesis prints it, shrunk)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import blender_env  # noqa: E402  (imports bpy with an isolated user folder)
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402
from unit_sweep import unit_sweep  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--steps", type=int, default=20, help="rules per sequence at most")
    args = parser.parse_args()
    blender_env.register()
    machine = unit_sweep(blender_env.bpy, blender_env.clean_scene)
    totals = {"examples": 0, "finished": 0, "refused": 0}
    teardown = machine.teardown

    def counted(self):
        try:
            teardown(self)  # it ends the sequence with an export
        finally:
            totals["examples"] += 1
            totals["finished"] += getattr(self, "finished", 0)
            totals["refused"] += getattr(self, "refusals", 0)

    machine.teardown = counted
    start = time.perf_counter()
    code = 0
    try:
        run_state_machine_as_test(machine, settings=settings(
            max_examples=args.examples, stateful_step_count=args.steps, deadline=None, database=None,
            suppress_health_check=list(HealthCheck)))
    except AssertionError as exc:
        print(f"invariant broken: {exc}", file=sys.stderr)
        code = 1
    print(f"{totals['examples']} sequences, {totals['finished']} exports finished, {totals['refused']} refused, "
          f"{time.perf_counter() - start:.1f} s")
    blender_env.clean_scene()
    return code


if __name__ == "__main__":
    sys.exit(main())
