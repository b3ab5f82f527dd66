"""The whole game at once: a synthetic folder the size of the game (made by core.authoring: models with the
retail share of animated ones and node counts, unit trees, maps and missions) and each figure measured on it,
printed with its anchor beside it, all in one run on one machine (ratios, so that a slower machine shows the
same figures).

Structure, for adding a figure: a figure is a function ``(game: Game, args) -> list[Row]`` registered with
``@figure("name")`` in FIGURES (printed in that order; ``--figures NAME...`` picks some). ``Game`` writes the
folder's parts on demand (``game.folder`` the game folder: models and units; ``game.models_folder`` the models
alone; ``game.maps_folder()`` the maps and missions) and ``run_batch`` runs the batch tool, returning its wall
time, the CPU its processes took and its output. A Row is one printed line: what was measured, the figure, its
anchor (what it is set against), and the goal (None: no goal, printed for context).

    .venv/bin/python benchmarks/game_scale.py [--scale full|half|tiny] [--figures NAME...] [--jobs 2]

Full scale (435 models, 157 animated, 458 unit trees, 33 maps, 29 missions) takes long: ``--figures`` picks the
figures to run; ``--models``/``--units`` override the scale's counts. The suite runs it at ``--scale tiny``.
"""

from __future__ import annotations

import argparse
import atexit
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.authoring import game as game_files  # noqa: E402
from core.authoring import units as unit_files  # noqa: E402
from core.authoring.build import build_model  # noqa: E402
from core.authoring.synth import random_model  # noqa: E402

BATCH = ROOT / "io_msh" / "batch"


@dataclass(frozen=True)
class Scale:
    models: int      # models in the folder (of them, the synthetic units' parts: core.authoring.units.MEMBERS)
    animated: int    # of the models, animated ones
    units: int       # unit trees
    maps: int
    missions: int    # of the maps, with a mission on them
    max_nodes: int = 60
    max_frames: int = 400


SCALES = {
    "full": Scale(435, 157, 458, 33, 29),
    "half": Scale(218, 79, 229, 17, 15),
    "tiny": Scale(len(unit_files.MEMBERS) + 4, 2, 2, 1, 1, max_nodes=4, max_frames=12),
}


@dataclass
class Row:
    what: str
    value: float
    anchor: str
    goal: float | None = None
    unit: str = "x"

    def line(self) -> str:
        met = self.goal is not None and self.value <= self.goal
        verdict = "" if self.goal is None else f" (goal <= {self.goal:g}: {'met' if met else 'NOT met'})"
        return f"{self.what}: {self.value:.2f}{self.unit} against {self.anchor}{verdict}"


class Game:
    """The synthetic game folder at a scale, written on demand into ``work``."""

    def __init__(self, work: Path, scale: Scale) -> None:
        self.work, self.scale = work, scale
        self._folder: Path | None = None
        self._maps: Path | None = None

    @property
    def folder(self) -> Path:
        """The game folder: objects.rlb, the units' parts, the unit trees, the material and texture libraries, and
        the further models as .msh files under MODELS (the retail share animated, 1 to max_nodes nodes)."""
        if self._folder is None:
            self._folder = write_game(self.work / "game", self.scale)
        return self._folder

    @property
    def models_folder(self) -> Path:
        return self.folder / "MODELS"

    def maps_folder(self) -> Path:
        """A folder of ``maps`` maps (DATA/MAPS/NAME), ``missions`` of them with a mission (MISSIONS/NAME)."""
        if self._maps is None:
            from core.authoring.map_game import mission_game_files

            self._maps = self.work / "maps"
            for n in range(self.scale.maps):
                files = mission_game_files(name=f"MAP{n:02d}")
                for name, data in files.items():
                    if name.startswith("MISSIONS/") and n >= self.scale.missions:
                        continue
                    path = self._maps / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
        return self._maps


def write_game(folder: Path, scale: Scale, models: int | None = None, units: int | None = None) -> Path:
    """The game folder of ``scale`` (or of ``models`` models and ``units`` units at its proportions)."""
    models = scale.models if models is None else models
    units = scale.units if units is None else units
    files = game_files.game_files(0, units)
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    extra = max(0, models - len(unit_files.MEMBERS))
    animated = round(scale.animated * extra / max(1, scale.models))
    rng = np.random.default_rng(7)
    (folder / "MODELS").mkdir(exist_ok=True)
    for i in range(extra):
        moving = i < animated
        nodes = int(rng.integers(1, scale.max_nodes + 1))
        frames = int(rng.integers(min(20, scale.max_frames), scale.max_frames + 1)) if moving else 1
        spec = random_model(1000 + i, node_count=nodes, frame_count=frames, animated=0.7 if moving else 0.0,
                            name=f"model_{i:03d}.msh")
        (folder / "MODELS" / f"model_{i:03d}.msh").write_bytes(build_model(spec).to_bytes())
    return folder


@dataclass
class BatchRun:
    seconds: float
    cpu: float
    peak_mb: float  # the largest resident size any process of the run reached (the children's, as the kernel keeps)
    code: int
    stdout: str
    stderr: str

    def summary(self) -> str:
        return next((line for line in self.stdout.splitlines() if line.startswith("summary:")),
                    self.stderr.strip()[-300:] or "no summary")


def run_batch(*args: str, timeout: float = 7200) -> BatchRun:
    """The batch tool in a process of its own: its wall time, CPU seconds (it and its workers) and output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, str(BATCH), *args], capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return BatchRun(seconds, cpu, after.ru_maxrss / 1024, result.returncode, result.stdout, result.stderr)


def best_wall(command: list[str], repeat: int, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, timeout=600, env=env)
        times.append(time.perf_counter() - start)
    return min(times)


FIGURES: dict[str, Callable[[Game, argparse.Namespace], list[Row]]] = {}


def figure(name: str):
    def register(function):
        FIGURES[name] = function
        return function
    return register


def _assets_made_at(run: BatchRun) -> float:
    """Elapsed seconds at the run's last "preview made" line (every asset imported and rendered by the workers in
    parallel; what follows imports them into the library file)."""
    times = [float(line.rsplit("elapsed ", 1)[1].split(" s")[0]) for line in run.stdout.splitlines()
             if "preview made" in line and "elapsed " in line]
    return max(times) if times else float("nan")


@figure("library")
def library_figure(game: Game, args) -> list[Row]:
    """``batch library`` of the folder, and of a folder of half its models and units (linear: 2N <= 2.3x N);
    the whole against the time its assets took; the largest process; a line printed for every step."""
    scale = game.scale
    half = write_game(game.work / "half_game", scale, max(len(unit_files.MEMBERS) + 1, scale.models // 2),
                      max(1, scale.units // 2))
    runs = {}
    for name, folder in (("half", half), ("whole", game.folder)):
        out = game.work / f"library_{name}" / "Parkan.blend"
        runs[name] = run_batch("library", str(folder), "-o", str(out), "--jobs", str(args.jobs), "--size",
                               str(args.size))
        print(f"  library of the {name} folder: {runs[name].seconds:.1f} s, {runs[name].cpu:.1f} s CPU, peak "
              f"{runs[name].peak_mb:.0f} MB ({runs[name].summary()}; exit {runs[name].code})")
        if runs[name].code != 0:
            print(runs[name].stdout[-3000:], runs[name].stderr[-3000:])
    whole, half_run = runs["whole"], runs["half"]
    steps = [line for line in whole.stdout.splitlines() if line.startswith("[")]
    tail = whole.stdout.splitlines()[-4:]
    print(f"  {len(steps)} step lines; the tail: {' | '.join(tail)}")
    made = _assets_made_at(whole)
    return [Row("library of the whole folder / of half of it", whole.seconds / half_run.seconds,
                f"{half_run.seconds:.1f} s (whole {whole.seconds:.1f} s)", 2.3),
            Row("library of the whole folder / of half of it, CPU", whole.cpu / half_run.cpu,
                f"{half_run.cpu:.1f} s CPU (whole {whole.cpu:.1f} s)", 2.3),
            Row("library of the whole folder / making its assets", whole.seconds / made,
                f"{made:.1f} s of making assets", 1.3)]


@figure("glb")
def glb_figure(game: Game, args) -> list[Row]:
    """``batch convert --format glb`` of the models against the same conversion to .blend, in CPU seconds."""
    cpu = {}
    for fmt in ("blend", "glb"):
        run = run_batch("convert", str(game.models_folder), "-o", str(game.work / f"convert_{fmt}"), "--format",
                        fmt, "--jobs", str(args.jobs))
        cpu[fmt] = run.cpu
        print(f"  convert --format {fmt}: {run.seconds:.1f} s, {run.cpu:.1f} s CPU ({run.summary()}; "
              f"exit {run.code})")
        shutil.rmtree(game.work / f"convert_{fmt}", ignore_errors=True)
    return [Row("convert --format glb / --format blend, CPU", cpu["glb"] / cpu["blend"],
                f"{cpu['blend']:.1f} s CPU of blend", 2.0)]


@figure("fixed_cost")
def fixed_cost_figure(game: Game, args) -> list[Row]:
    """A run's fixed cost: ``batch convert`` of one model against ``import bpy`` alone (wall, best of a few; the
    run's own process and its worker overlap). Python keeps its compiled modules after a first run, as on a
    user's machine: both commands run here with a temporary cache (PYTHONPYCACHEPREFIX, one warm-up run each),
    whatever PYTHONDONTWRITEBYTECODE says in the environment; the cold run (every module of ours compiled
    again in each of the run's processes, as under PYTHONDONTWRITEBYTECODE without ``__pycache__``) is printed
    beside it, for context."""
    one = game.work / "one"
    one.mkdir(exist_ok=True)
    model = sorted(game.models_folder.glob("*.msh"))[0]
    shutil.copy(model, one / model.name)
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    warm = {**base, "PYTHONPYCACHEPREFIX": str(game.work / "pycache")}
    cold = {**base, "PYTHONDONTWRITEBYTECODE": "1"}  # Blender's and numpy's own compiled modules still read
    bpy_command = [sys.executable, "-c", "import bpy"]
    convert = [sys.executable, str(BATCH), "convert", str(one), "-o", str(game.work / "one_out"), "--format", "blend"]
    for command in (bpy_command, convert):  # the warm-up: the modules compiled into the cache
        best_wall(command, 1, warm)
    bpy = best_wall(bpy_command, args.repeat, warm)
    run = best_wall(convert, args.repeat, warm)
    bpy_cold = best_wall(bpy_command, args.repeat, cold)
    run_cold = best_wall(convert, args.repeat, cold)
    return [Row("batch convert of one model / import bpy", run / bpy, f"{bpy:.2f} s of import bpy "
                f"(convert {run:.2f} s)", 1.5),
            Row("the same, cold (no compiled modules kept)", run_cold / bpy_cold,
                f"{bpy_cold:.2f} s of import bpy (convert {run_cold:.2f} s)")]


def _rows(found) -> list[Row]:
    """The figure modules' (what, figure, anchor, goal) tuples as Rows; a figure in milliseconds says so."""
    return [Row(what, value, anchor, goal, " ms" if what.endswith(", processor ms") else "x")
            for what, value, anchor, goal in found]


@figure("cli_start")
def cli_start_figure(game: Game, args) -> list[Row]:
    """``python -m core info`` against ``import numpy`` (benchmarks/figures_cli_map.py)."""
    from figures_cli_map import cli_start_rows
    return _rows(cli_start_rows(game, args))


@figure("live_check")
def live_check_figure(game: Game, args) -> list[Row]:
    """The live check's longest step against one 60 Hz frame (benchmarks/figures_live_planning.py)."""
    from figures_live_planning import live_check_rows
    return _rows(live_check_rows(game, args))


@figure("planning")
def planning_figure(game: Game, args) -> list[Row]:
    """The FAITHFUL plan's milliseconds and the import against the key-writing floor."""
    from figures_live_planning import planning_rows
    return _rows(planning_rows(game, args))


@figure("map_edit")
def map_edit_figure(game: Game, args) -> list[Row]:
    """The map export after a height edit against the untouched export (benchmarks/figures_cli_map.py)."""
    from figures_cli_map import map_edit_rows
    return _rows(map_edit_rows(game, args))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", default="full", choices=sorted(SCALES))
    parser.add_argument("--models", type=int, help="models in the folder (default: the scale's)")
    parser.add_argument("--units", type=int, help="unit trees (default: the scale's)")
    parser.add_argument("--figures", nargs="*", default=list(FIGURES), choices=list(FIGURES))
    parser.add_argument("--jobs", type=int, default=2, help="batch runs' --jobs")
    parser.add_argument("--size", type=int, default=128, help="library previews, pixels")
    parser.add_argument("--repeat", type=int, default=3, help="best of, for the short figures")
    args = parser.parse_args()
    scale = SCALES[args.scale]
    if args.models is not None or args.units is not None:
        models = scale.models if args.models is None else args.models
        scale = Scale(models, round(scale.animated * models / scale.models), scale.units if args.units is None
                      else args.units, scale.maps, scale.missions, scale.max_nodes, scale.max_frames)
    work = Path(tempfile.mkdtemp(prefix="io_msh_game_scale_"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    game = Game(work, scale)
    print(f"game folder: {scale.models} models ({scale.animated} animated), {scale.units} unit trees, {scale.maps} "
          f"maps, {scale.missions} missions; --jobs {args.jobs}")
    rows: list[Row] = []
    for name in args.figures:
        start = time.perf_counter()
        print(f"{name}:", flush=True)
        found = FIGURES[name](game, args)
        for row in found:
            print(f"  {row.line()}", flush=True)
        print(f"  ({time.perf_counter() - start:.0f} s)", flush=True)
        rows += found
    print("all figures:")
    for row in rows:
        print(f"  {row.line()}")


if __name__ == "__main__":
    main()
