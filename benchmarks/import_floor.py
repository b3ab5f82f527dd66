"""Import at the key-writing floor: a FAITHFUL import of a 60-node x 1000-frame dense model (every
node keyed at every frame, as the issue's and benchmarks/edit_cycle.py's) against writing the same F-curves alone,
and against Blender's glTF importer on the same animation, in one process (``--sparse``: 60% of the nodes animated,
keys at random frames).

The floor writes every curve the import made (its paths, groups and keys, read back from the import) into a new
action, by the running Blender's fastest way (io_msh.com.compat.ChannelTarget.linear_fcurve: on 5.0 copies of a
template curve) and by the sequence the import used before (fcurves.new, keyframe_points.add, foreach_set of co
and interpolation, handles_recalc). Each time is the best of ``--repeat`` rounds.
    .venv/bin/python benchmarks/import_floor.py [--nodes 60] [--frames 1000] [--repeat 3] [--sparse]
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from blender_bench import blender_env, bpy, run, start_blender, timed, write_generated

from core.authoring.build import build_model
from core.authoring.synth import random_model

GOALS = {"floor": 1.5, "gltf": 0.4}


def read_curves(root) -> list[tuple[str, int, str, np.ndarray]]:
    compat = blender_env.ext.io_msh.com.compat
    curves = []
    for fcurve in compat.assigned_fcurves(root):
        co = np.empty(2 * len(fcurve.keyframe_points), np.float32)
        fcurve.keyframe_points.foreach_get("co", co)
        curves.append((fcurve.data_path, fcurve.array_index, fcurve.group.name if fcurve.group else "", co))
    return curves


def write_curves(curves, fastest: bool) -> None:
    compat = blender_env.ext.io_msh.com.compat
    obj = bpy.data.objects.new("floor", None)
    bpy.context.collection.objects.link(obj)
    target = compat.ChannelTarget(bpy.data.actions.new("floor"), obj, obj.name)
    for path, index, group, co in curves:
        if fastest:
            target.linear_fcurve(path, index, group, co)
            continue
        points = target.new_fcurve(path, index, group).keyframe_points
        points.add(len(co) // 2)
        points.foreach_set("co", co)
        points.foreach_set("interpolation", np.full(len(co) // 2, compat.LINEAR, np.int32))
        points.handles_recalc()


def best(action, repeat: int, updates: list[float] | None = None) -> float:
    """The shortest of ``repeat`` runs; ``updates``, if given, gets that run's time in Blender's scene update."""
    times = []
    for _ in range(repeat):
        blender_env.clean_scene()
        with scene_updates() as spent:
            times.append((timed(action), spent[0]))
    blender_env.clean_scene()
    fastest = min(times)
    if updates is not None:
        updates.append(fastest[1])
    return fastest[0]


@contextmanager
def scene_updates():
    """The time spent in the view-layer update that ``bpy.ops`` runs around an operator (after it finishes: the
    depsgraph of what the operator made, built and evaluated): Blender's cost of the new scene, which an operator
    pays whatever it does, and writing the keys alone does not."""
    wrapper = bpy.ops._BPyOpsSubModOp
    update, spent = wrapper._view_layer_update, [0.0]

    def timed_update(context) -> None:
        spent[0] += timed(lambda: update(context))
    wrapper._view_layer_update = staticmethod(timed_update)
    try:
        yield spent
    finally:
        wrapper._view_layer_update = staticmethod(update)


def report(goal: str, what: str, ratio: float) -> None:
    verdict = "met" if ratio <= GOALS[goal] else "NOT met"
    print(f"{what}: {ratio:.2f} (goal <= {GOALS[goal]}: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=60)
    parser.add_argument("--frames", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sparse", action="store_true", help="60%% of the nodes animated, keys at random frames")
    args = parser.parse_args()
    start_blender()
    folder = Path(tempfile.mkdtemp(prefix="io_msh_floor_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    msh, glb = folder / "floor.msh", folder / "floor.glb"
    if args.sparse:
        write_generated(msh, args.nodes, args.frames)
    else:
        msh.write_bytes(build_model(random_model(7, node_count=args.nodes, frame_count=args.frames, animated=1.0,
                                                 every_frame=True)).to_bytes())

    def ours() -> None:
        assert bpy.ops.import_scene.parkan_msh(filepath=str(msh), animation="FAITHFUL") == {"FINISHED"}

    ours()
    root = next(o for o in bpy.data.objects if "msh_model" in o)
    curves = read_curves(root)
    bpy.ops.export_scene.gltf(filepath=str(glb), export_format="GLB", export_animations=True,
                              export_force_sampling=True)
    rounds = max(1, args.repeat)
    updates = []
    imported = best(ours, rounds, updates)
    still = best(lambda: bpy.ops.import_scene.parkan_msh(filepath=str(msh), animation="NONE"), rounds)
    gltf = best(lambda: bpy.ops.import_scene.gltf(filepath=str(glb)), rounds)
    fastest = best(lambda: write_curves(curves, True), rounds)
    added = best(lambda: write_curves(curves, False), rounds)
    compat = blender_env.ext.io_msh.com.compat
    keys = sum(len(c[3]) // 2 for c in curves)
    print(f"Blender {bpy.app.version_string}; {args.nodes} nodes x {args.frames} frames "
          f"{'(sparse)' if args.sparse else '(dense)'}, FAITHFUL: {len(curves)} "
          f"curves, {keys} keys; F-curve copies {'used' if compat.CHANNELBAG_COPIES_FCURVES else 'not available'}")
    print(f"  import {imported:.3f} s, glTF importer {gltf:.3f} s, keys alone {fastest:.3f} s "
          f"(keys added one curve at a time {added:.3f} s)")
    print(f"keys alone, fastest path / keys added curve by curve: {fastest / added:.2f}")
    report("floor", "import / keys alone (the fastest path)", imported / fastest)
    print(f"  of the import, Blender's scene update after the operator (bpy.ops; the new model's depsgraph): "
          f"{updates[0]:.3f} s = {updates[0] / fastest:.2f} x keys alone; the import without it / keys alone: "
          f"{(imported - updates[0]) / fastest:.2f}")
    print(f"  the same import without animation (Animation: None; nodes, meshes, materials, Blender's scene update) "
          f"{still:.3f} s = {still / fastest:.2f} x keys alone: keys alone + that = {(fastest + still) / fastest:.2f} "
          "x keys alone, before any key is planned")
    report("gltf", "import / glTF importer", imported / gltf)
    blender_env.unregister()


if __name__ == "__main__":
    run(main)
