"""Time and peak memory of ``core unit`` and of Blender's Import Unit on big units.

The units are the project's synthetic ones (core.authoring.units): a chassis carrying a chain of guns, each on
the muzzle of the one before (a tree as deep as it is big), and a chassis carrying every gun side by side on
one socket (a wide tree). Each case runs in a process of its own; the figure is the rise of its peak resident
memory (VmHWM, reset once the input is built and the modules are loaded) and the wall time of the work alone.

Run: .venv/bin/python benchmarks/unit_scale.py [--sizes 1000 4000 20000] [--shapes chain wide]
[--kinds cli import] [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from peak_memory import measured  # noqa: E402  (beside this script)

SHAPES = ("chain", "wide")
KINDS = ("cli", "import")


def build_game(folder: Path, sizes: list[int], shapes: list[str]) -> dict[tuple[str, int], Path]:
    """The synthetic game folder (objects.rlb, the parts archive) and a .dat per shape and size."""
    from core.authoring import units

    for name, data in units.unit_files().items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    out = {}
    for shape in shapes:
        make = units.chain_tree if shape == "chain" else units.wide_tree
        for size in sizes:
            path = folder / Path(units.UNIT_DAT).parent / f"{shape}_{size}.dat"
            path.write_bytes(make(size).to_bytes())
            out[shape, size] = path
    return out


# --------------------------------------------------------------------- one case, in its own process
def _work(kind: str, path: str):
    """The case's work as a function returning what it produced, with everything it needs loaded."""
    if kind == "import":
        from fixtures import load_extension

        load_extension()
        import blender_env  # bpy with an isolated user folder

        blender_env.register()
        blender_env.clean_scene()
        bpy = blender_env.bpy

        def work():
            bpy.ops.import_scene.parkan_unit(filepath=path)
            parts = sum("msh_unit_component" in o and "msh_model" in o for o in bpy.data.objects)
            return f"{parts} parts, {len(bpy.data.objects)} objects"
        return work
    from core.cli import main as cli

    def work():
        with redirect_stdout(io.StringIO()) as text:
            code = cli.main(["unit", path])
        return f"exit {code}, {len(text.getvalue()):,} characters"
    return work


def run_case(kind: str, path: str) -> dict:
    figures = measured(_work(kind, path))
    if kind == "import":
        sys.modules["blender_env"].unregister()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="*", type=int, default=[1000, 4000, 20000], help="components per unit")
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES), choices=SHAPES)
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=KINDS)
    parser.add_argument("--timeout", type=float, default=1800, help="seconds a case may take")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_case(*args.child)))
        return
    with tempfile.TemporaryDirectory(prefix="io_msh_units_") as folder:
        paths = build_game(Path(folder), args.sizes, args.shapes)
        print(f"{'case':<40} {'time':>9} {'peak rise':>11}  outcome")
        for kind in args.kinds:
            for (shape, size), path in paths.items():
                what = "core unit" if kind == "cli" else "Import Unit"
                label = f"{what}, {shape} of {size:,} ({path.stat().st_size:,} B)"
                try:
                    child = subprocess.run([sys.executable, __file__, "--child", kind, str(path)], capture_output=True,
                                           text=True, cwd=ROOT, env=dict(os.environ), timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    print(f"{label:<40} over {args.timeout:g} s")
                    continue
                lines = child.stdout.strip().splitlines()
                if child.returncode or not lines:
                    print(f"{label:<40} failed: {child.stderr.strip()[-300:]}")
                    continue
                figures = json.loads(lines[-1])
                print(f"{label:<40} {figures['seconds']:>8.2f}s {figures['peak_rise_mb']:>8.0f} MB  "
                      f"{figures['outcome']}", flush=True)


if __name__ == "__main__":
    main()
