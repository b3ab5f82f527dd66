"""Two figures for benchmarks/game_scale.py, each a function ``(game, args) -> rows`` (a row: what was measured,
the figure, its anchor, the goal), measured in the same run as its anchor:

- ``cli_start_rows``: ``python -m core info`` on an archive against ``python -c "import numpy"`` in CPU time
  (benchmarks/cli_start.py), warm (compiled modules kept) and cold;
- ``map_edit_rows``: the map export after a height edit against the untouched export, in CPU time, on a map of
  retail size (benchmarks/map_import.py --export-only, run in Blender's Python: this interpreter).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

Row = tuple[str, float, str, "float | None"]


def cli_start_rows(game, args) -> list[Row]:
    """``info`` of an archive / ``import numpy``, the median of ``args.repeat`` (at least 5) alternating runs."""
    from cli_start import GOAL, measure

    median = measure(max(5, getattr(args, "repeat", 5)))
    return [("python -m core info / import numpy (CPU)", median["info"] / median["numpy"],
             f"{median['numpy'] * 1000:.0f} ms of import numpy (info {median['info'] * 1000:.0f} ms)", GOAL),
            ("the same, cold (no compiled modules kept)", median["info cold"] / median["numpy"],
             f"{median['numpy'] * 1000:.0f} ms of import numpy (info {median['info cold'] * 1000:.0f} ms)", None)]


def map_edit_rows(game, args) -> list[Row]:
    """The export of a height edit / the untouched export, of a map of retail size (a 16 x 16 grid: the game
    folder's sample maps are far smaller than the game's); the tiny scale exports a 2 x 2 one, with no goal."""
    tiny = game.scale.max_nodes < 60
    command = [sys.executable, str(BENCHMARKS / "map_import.py"), "--export-only", "--grid", "2" if tiny else "16",
               "--repeat", str(max(1, getattr(args, "repeat", 2))), "--export-repeat", "5"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=1800, cwd=BENCHMARKS.parent)
    if run.returncode != 0:
        raise RuntimeError(f"map_import.py failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    edited = re.search(r"export of a height edit, ours: +([0-9.]+) ms CPU", run.stdout)
    untouched = re.search(r"export untouched, ours: +([0-9.]+) ms CPU", run.stdout)
    if edited is None or untouched is None:
        raise RuntimeError(f"map_import.py printed no export figures:\n{run.stdout[-2000:]}")
    edited_ms, untouched_ms = float(edited.group(1)), float(untouched.group(1))
    return [("map export after a height edit / untouched export (CPU)", edited_ms / untouched_ms,
             f"{untouched_ms:.1f} ms of the untouched export (the edit's {edited_ms:.1f} ms)", None if tiny else 1.2)]


if __name__ == "__main__":  # both figures on a tiny game folder: .venv/bin/python benchmarks/figures_cli_map.py
    import argparse
    import tempfile

    from game_scale import SCALES, Game

    with tempfile.TemporaryDirectory(prefix="io_msh_figures_") as work:
        game = Game(Path(work), SCALES["tiny"])
        for row in cli_start_rows(game, argparse.Namespace(repeat=5)) + map_edit_rows(game,
                                                                                     argparse.Namespace(repeat=1)):
            what, value, anchor, goal = row
            print(f"{what}: {value:.2f}x against {anchor}" + ("" if goal is None else f" (goal <= {goal:g})"))
