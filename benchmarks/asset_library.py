"""The asset library's figures: ``batch library`` of a synthetic game folder (100 models, 20
units by default: core.authoring.game) at --jobs 1 and --jobs 2, a second run with nothing changed, a run after
one model changed, and the time to drag one unit in (what the Asset Browser's Append does: the unit's collection
appended from the library into an empty scene and linked to it).
    .venv/bin/python benchmarks/asset_library.py [--models 100] [--units 20] [--size 128] [--repeat 1]
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.authoring import game, units  # noqa: E402


def build(folder: Path, library: Path, jobs: int, size: int, *extra: str) -> tuple[float, str, int]:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, str(ROOT / "io_msh" / "batch"), "library", str(folder), "-o",
                             str(library), "--jobs", str(jobs), "--size", str(size), *extra],
                            capture_output=True, text=True)
    seconds = time.perf_counter() - start
    summary = next((line for line in result.stdout.splitlines() if line.startswith("summary:")),
                   result.stderr.strip()[-300:] or "no summary")
    return seconds, summary, result.returncode


def drag_unit(library: Path, repeat: int) -> tuple[float, str]:
    """Seconds to append one unit's collection (the best of ``repeat``), in this process's Blender."""
    sys.path.insert(0, str(ROOT / "tests"))
    import blender_env  # imports bpy with an isolated user folder

    bpy = blender_env.bpy
    blender_env.register()
    best, name = float("inf"), ""
    for _ in range(repeat):
        bpy.ops.wm.read_homefile(use_empty=True)
        blender_env.register()
        start = time.perf_counter()
        with bpy.data.libraries.load(str(library), link=False, assets_only=True) as (source, target):
            name = next(n for n in source.collections if n.endswith(".dat"))
            target.collections = [name]
        bpy.context.scene.collection.children.link(target.collections[0])
        bpy.context.view_layer.update()
        best = min(best, time.perf_counter() - start)
    return best, name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=100, help="models in the folder (at least the 10 parts "
                                                                "of the synthetic units)")
    parser.add_argument("--units", type=int, default=20, help="unit trees in the folder")
    parser.add_argument("--size", type=int, default=128, help="preview pixels")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each job count (the best is taken)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="io_msh_library_bench_"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    extra = max(0, args.models - len(units.MEMBERS))
    folder = game.write_game(work / "game", extra, args.units)
    count = len(units.MEMBERS) + extra + args.units
    print(f"game folder: {len(units.MEMBERS) + extra} models, {args.units} units ({count} assets), "
          f"previews {args.size} px")
    best = {}
    for run in range(args.repeat):
        for jobs in (1, 2):
            library = work / f"lib_{jobs}_{run}" / "Parkan.blend"
            seconds, summary, code = build(folder, library, jobs, args.size)
            best[jobs] = min(best.get(jobs, seconds), seconds)
            print(f"--jobs {jobs}: {seconds:6.1f} s, {count / seconds:5.1f} assets/s ({summary}; exit {code})")
    print(f"--jobs 2 / --jobs 1: {best[1] / best[2]:.2f}x")
    library = work / "lib_2_0" / "Parkan.blend"
    seconds, summary, code = build(folder, library, 2, args.size)
    print(f"second run, nothing changed: {seconds:.1f} s ({summary}; exit {code})")
    archive = game.model_archive(0, min(extra, game.MODELS_PER_ARCHIVE))
    if extra:
        archive.entries[0].data = game.model_archive(500, 1).entries[0].data
        (folder / "MODELS" / "props_00.rlb").write_bytes(archive.to_bytes())
        seconds, summary, code = build(folder, library, 2, args.size)
        print(f"second run, one model changed: {seconds:.1f} s ({summary}; exit {code})")
    print(f"library: {library.stat().st_size / 1e6:.1f} MB")
    if args.units:
        seconds, name = drag_unit(library, 3)
        print(f"drag one unit in ({name}, appended and linked to the scene): {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
    if "blender_env" in sys.modules:  # the drag ran in this process's Blender
        sys.modules["blender_env"].exit_without_teardown(0)
