"""Figures for benchmarks/game_scale.py: the panel's live export check and the FAITHFUL import's planning, each a
list of (what, figure, anchor, goal) rows (game_scale.Row's fields) measured by running the benchmarks that
print them, so that Blender runs in a process of its own:

- ``live_check_rows``: benchmarks/live_check.py on a 60-node x 1000-frame model (the tiny scale: its own sizes),
  its longest step against one 60 Hz frame (16.7 ms), as wall time and as the main thread's processor time (which a
  busy machine does not stretch).
- ``planning_rows``: the FAITHFUL plan of 60 x 1000 poses in processor milliseconds (this script's ``--plan``:
  io_msh.imp.animation.plan_channels without Blender, the best of a few, the slower node mode) and
  benchmarks/import_floor.py's import against the key-writing floor.

    .venv/bin/python benchmarks/figures_live_planning.py --plan [NODES FRAMES]
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
FRAME_MS = 1000 / 60  # one 60 Hz frame
GOAL_SIZE = (60, 1000)  # the size the goals are set at
PLAN_GOAL_MS = 20.0
FLOOR_GOAL = 1.7

Row = tuple[str, float, str, "float | None"]


def _size(game) -> tuple[int, int]:
    """The goals' size, or the scale's own when it is smaller (the suite's tiny run: no goal then)."""
    scale = game.scale
    return GOAL_SIZE if scale.max_nodes >= GOAL_SIZE[0] else (scale.max_nodes, scale.max_frames)


def _run(script: str, *args: str) -> str:
    run = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True,
                         timeout=3600)
    if run.returncode != 0:
        raise RuntimeError(f"{script} failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    return run.stdout


def live_check_rows(game, args) -> list[Row]:
    nodes, frames = _size(game)
    goal = 1.0 if (nodes, frames) == GOAL_SIZE else None
    out = _run("live_check.py", "--nodes", str(nodes), "--frames", str(frames))
    steps = [(float(wall), float(cpu)) for wall, cpu in
             re.findall(r"longest step +([\d.]+) ms \(processor +([\d.]+) ms", out)]
    wall, cpu = max(s[0] for s in steps), max(s[1] for s in steps)
    size = f"{nodes} nodes x {frames} frames, {len(steps)} edits"
    return [("live check: its longest step / one 60 Hz frame", wall / FRAME_MS,
             f"{FRAME_MS:.1f} ms (longest {wall:.1f} ms; {size}; a busy machine stretches it)", goal),
            ("live check: the most processor time a step took / one 60 Hz frame", cpu / FRAME_MS,
             f"{FRAME_MS:.1f} ms (most {cpu:.1f} ms; {size})", goal)]


def planning_rows(game, args) -> list[Row]:
    nodes, frames = _size(game)
    at_goal = (nodes, frames) == GOAL_SIZE
    plan_ms = float(_run("figures_live_planning.py", "--plan", str(nodes), str(frames)).split()[-1])
    out = _run("import_floor.py", "--nodes", str(nodes), "--frames", str(frames), "--repeat",
               str(max(1, getattr(args, "repeat", 3))))
    floor = float(re.search(r"import / keys alone \(the fastest path\): ([\d.]+)", out).group(1))
    return [(f"FAITHFUL plan of {nodes} x {frames} poses, processor ms", plan_ms,
             f"{PLAN_GOAL_MS:g} ms (the slower node mode, best of a few)", PLAN_GOAL_MS if at_goal else None),
            ("FAITHFUL import / keys alone (the fastest path)", floor,
             "the key-writing floor (benchmarks/import_floor.py, dense keys)", FLOOR_GOAL if at_goal else None)]


def plan_ms(nodes: int, frames: int, repeat: int = 9) -> float:
    """Processor milliseconds of the FAITHFUL plan of a dense generated model (every node keyed at every frame, as
    benchmarks/import_floor.py's), the best of ``repeat``, the slower of the two node modes."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    import importlib

    from fixtures import load_extension

    from core.authoring.build import build_model
    from core.authoring.synth import random_model
    from core.msh.model import Model

    package = load_extension().__name__
    plan = importlib.import_module(f"{package}.io_msh.imp.plan")
    animation = importlib.import_module(f"{package}.io_msh.imp.animation")
    model = Model.parse(build_model(random_model(7, node_count=nodes, frame_count=frames, animated=1.0,
                                                 every_frame=True)).to_bytes())
    slowest = 0.0
    for mode in ("ARMATURE", "EMPTIES"):
        planned = plan.plan_nodes(model, plan.ImportOptions(node_mode=mode))
        best = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            animation.plan_channels(model, planned, "FAITHFUL", mode)
            best = min(best, time.process_time() - start)
        slowest = max(slowest, best)
    return slowest * 1000


def main() -> None:
    if sys.argv[1:2] != ["--plan"]:
        sys.exit(__doc__)
    nodes, frames = (int(a) for a in sys.argv[2:4]) if len(sys.argv) >= 4 else GOAL_SIZE
    print(f"FAITHFUL plan of {nodes} x {frames} poses, processor ms: {plan_ms(nodes, frames):.1f}")


if __name__ == "__main__":
    main()
