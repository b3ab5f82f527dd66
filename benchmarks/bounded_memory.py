"""Peak memory and time of the hostile inputs: huge frame counts (import and export) and
aliasing directories.

Each case runs in a process of its own; the figure is the rise of its peak resident memory (VmHWM,
reset once the input is built and the modules are loaded) and the wall time of the work alone.

Run: .venv/bin/python benchmarks/bounded_memory.py [--cases NAME ...] [--root OTHER_CHECKOUT]
(``--root`` runs the same cases against another checkout, e.g. an older commit in a git worktree;
the inputs are always built by this one.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = Path(os.environ.get("IO_MSH_BENCH_CODE", ROOT))  # the checkout a case process runs
sys.path[:0] = [str(CODE), str(CODE / "tests")]

from peak_memory import measured  # noqa: E402  (beside this script)

# name: (what runs, input file, what it is)
CASES = {
    "plan-unmapped-1M": ("plan", "unmapped_1048576.msh", "plan, 8 nodes, no map, frame count 1,048,576"),
    "plan-unmapped-10M": ("plan", "unmapped_10000000.msh", "plan, 8 nodes, no map, frame count 10,000,000"),
    "plan-unmapped-4G": ("plan", "unmapped_4294967295.msh", "plan, 8 nodes, no map, frame count 0xFFFFFFFF"),
    "plan-300x65535": ("plan", "long_300.msh", "plan, 300 nodes x 65,535 frames (valid, 1 animated)"),
    "plan-shared-map": ("plan", "shared_300.msh", "plan, 300 nodes all reading one 65,535-frame map"),
    "import-unmapped-4G": ("import", "unmapped_4294967295.msh", "Blender import, no map, frame count 0xFFFFFFFF"),
    "import-300x65535": ("import", "long_300.msh", "Blender import, 300 nodes x 65,535 frames"),
    "import-shared-map": ("import", "shared_300.msh", "Blender import, 300 nodes all reading one map"),
    # every node moving at every frame: refused once the keys pass KEY_LIMIT
    "import-dense-shared-map": ("import", "dense_300.msh", "Blender import, 300 nodes, one map of dense motion"),
    "import-aliasing-1k": ("import", "alias_1000.rlb", "Blender import, 1,000 entries sharing one payload"),
    "info-aliasing-20k": ("info", "alias_20000.rlb", "CLI info, 20,000 entries sharing one payload"),
    # imported with the defaults (Armature, Faithful), one bone keyed, exported (timed alone).
    "export-unmapped-4G": ("export", "unmapped_4294967295.msh", "export, one bone keyed, frame count 0xFFFFFFFF"),
    "export-300x65535": ("export", "long_300.msh", "export, one bone keyed, 300 nodes x 65,535 frames"),
}


def build_inputs(folder: Path) -> None:
    from fixtures import aliasing_archive, generated, shared_map_model

    from core.authoring import synth

    for count in (1_048_576, 10_000_000, 0xFFFFFFFF):
        (folder / f"unmapped_{count}.msh").write_bytes(synth.unmapped_model(count))
    (folder / "long_300.msh").write_bytes(generated(7, node_count=300, frame_count=65535, animated=0.0))
    (folder / "shared_300.msh").write_bytes(shared_map_model(300, 65535))
    (folder / "dense_300.msh").write_bytes(shared_map_model(300, 65535, dense=True))
    sample = (ROOT / "samples" / "sample.msh").read_bytes()
    for count in (1000, 20000):
        (folder / f"alias_{count}.rlb").write_bytes(aliasing_archive(sample, count))


# --------------------------------------------------------------------- one case, in its own process
def _work(kind: str, path: str):
    """The case's work as a function returning what it produced, with everything it needs loaded."""
    import importlib

    from fixtures import load_extension

    load_extension()
    if kind == "import":
        import blender_env  # bpy with an isolated user folder

        blender_env.register()
        blender_env.clean_scene()
        bpy = blender_env.bpy

        def work():
            try:
                bpy.ops.import_scene.parkan_msh(filepath=path)
            except RuntimeError as exc:
                return f"refused: {str(exc).strip().splitlines()[-1][-90:]}"
            return f"{len(bpy.data.objects)} objects"
    elif kind == "export":
        import blender_env

        blender_env.register()
        blender_env.clean_scene()
        bpy = blender_env.bpy
        bpy.ops.import_scene.parkan_msh(filepath=path)
        root = next(o for o in bpy.data.objects if o.type == "ARMATURE")
        bpy.context.scene.frame_set(3)  # as an artist keys a bone: at the current frame
        bone = root.pose.bones[1]
        bone.location.x += 0.5
        bone.keyframe_insert("location")
        out = str(Path(path).with_suffix(".out.msh"))

        def work():
            bpy.ops.export_scene.parkan_msh(filepath=out)
            return f"{Path(out).stat().st_size:,} B written"
    elif kind == "plan":
        plan = importlib.import_module("io_msh_ext.io_msh.imp.plan")

        def work():
            plans = plan.plan_file(path, plan.ImportOptions())
            return f"{sum(len(c.frames) for p in plans for c in p.channels):,} keys"
    else:
        from core.cli import main as cli

        def work():
            return f"exit {cli.main(['info', path])}"
    return work


def run_case(kind: str, path: str) -> dict:
    figures = measured(_work(kind, path))
    if kind in ("import", "export"):
        sys.modules["blender_env"].unregister()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose code runs the cases")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_case(*args.child)))
        return
    with tempfile.TemporaryDirectory(prefix="io_msh_memory_") as folder:
        build_inputs(Path(folder))
        print(f"code: {args.root}")
        print(f"{'case':<66} {'time':>9} {'peak rise':>11}  outcome")
        for name in args.cases:
            kind, file_name, label = CASES[name]
            path = Path(folder) / file_name
            child = subprocess.run([sys.executable, __file__, "--child", kind, str(path)], capture_output=True,
                                   text=True, cwd=args.root, env={**os.environ, "IO_MSH_BENCH_CODE": str(args.root)})
            lines = child.stdout.strip().splitlines()
            if child.returncode or not lines:
                print(f"{label + f' ({path.stat().st_size:,} B)':<66} failed: {child.stderr.strip()[-200:]}")
                continue
            figures = json.loads(lines[-1])
            print(f"{label + f' ({path.stat().st_size:,} B)':<66} {figures['seconds']:>8.2f}s "
                  f"{figures['peak_rise_mb']:>8.0f} MB  {figures['outcome']}")


if __name__ == "__main__":
    main()
