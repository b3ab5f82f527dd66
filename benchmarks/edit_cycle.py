"""The modder's edit cycle against Blender's glTF add-on on the same animation, in one process.

- import: a model of 60 nodes, every one keyed at every one of 1000 frames (dense), through our importer
  (FAITHFUL, the default) and, as .glb written once by Blender's glTF exporter, through the glTF importer;
- export untouched: the default import (an Armature, FAITHFUL) written back, which must give the file's bytes;
- export after every node was edited: a KEYS import, one key of every node moved, so that no node takes
  the unedited path, through our exporter (Reduced keys, the default) and through the glTF exporter.

Prints each time (best of --repeat) and the ratios ours / glTF.
    .venv/bin/python benchmarks/edit_cycle.py [--nodes 60] [--frames 1000] [--repeat 3] [--node-mode EMPTIES]
(--node-mode: how the KEYS import of the edited export holds the nodes; the other imports are the defaults)
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import tempfile
from pathlib import Path

from blender_bench import blender_env, bpy, run, start_blender, timed

from core.authoring.build import build_model
from core.authoring.synth import random_model


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=60)
    parser.add_argument("--frames", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--node-mode", default="ARMATURE", choices=("ARMATURE", "EMPTIES"))
    return parser.parse_args()


def move_one_key_of_every_node(root) -> int:
    """Every F-curve of the model's action gets its middle key raised a little; returns the curves moved."""
    compat = blender_env.ext.io_msh.com.compat
    moved = 0
    for fcurve in compat.assigned_fcurves(root):
        points = fcurve.keyframe_points
        if len(points) > 2:
            key = points[len(points) // 2]
            key.co.y += 0.01
            key.handle_left.y += 0.01
            key.handle_right.y += 0.01
            moved += 1
    return moved


def best(action, repeat: int, between=None) -> float:
    times = []
    for _ in range(repeat):
        times.append(timed(action))
        if between:
            between()
    return min(times)


def main() -> None:
    args = arguments()
    start_blender()
    folder = Path(tempfile.mkdtemp(prefix="io_msh_edit_cycle_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    msh, glb = folder / "dense.msh", folder / "dense.glb"
    model = build_model(random_model(7, node_count=args.nodes, frame_count=args.frames, animated=1.0,
                                     every_frame=True))
    msh.write_bytes(model.to_bytes())

    # import, ours and glTF's on the same animation
    bpy.ops.import_scene.parkan_msh(filepath=str(msh))
    bpy.ops.export_scene.gltf(filepath=str(glb), export_format="GLB", export_animations=True,
                              export_force_sampling=True)
    blender_env.clean_scene()
    ours_import = best(lambda: bpy.ops.import_scene.parkan_msh(filepath=str(msh)), args.repeat,
                       blender_env.clean_scene)
    gltf_import = best(lambda: bpy.ops.import_scene.gltf(filepath=str(glb)), args.repeat, blender_env.clean_scene)

    # export untouched: the import with the defaults (an Armature, FAITHFUL) written back as it was
    bpy.ops.import_scene.parkan_msh(filepath=str(msh))
    untouched = folder / "untouched.msh"
    ours_untouched = best(lambda: bpy.ops.export_scene.parkan_msh(filepath=str(untouched)), args.repeat)
    identical = untouched.read_bytes() == msh.read_bytes()
    blender_env.clean_scene()

    # export after every node was edited
    bpy.ops.import_scene.parkan_msh(filepath=str(msh), animation="KEYS", node_mode=args.node_mode)
    root = next(o for o in bpy.data.objects if "msh_model" in o)
    holders = (root, *blender_env.ext.io_msh.com.hierarchy.descendants(root))  # Empties: each node its own
    moved = sum(move_one_key_of_every_node(obj) for obj in holders)
    out = folder / "edited.msh"
    ours_export = best(lambda: bpy.ops.export_scene.parkan_msh(filepath=str(out)), args.repeat)
    gltf_export = best(lambda: bpy.ops.export_scene.gltf(filepath=str(folder / "edited.glb"), export_format="GLB",
                                                         export_animations=True), args.repeat)
    edited = out.read_bytes() != msh.read_bytes()
    blender_env.clean_scene()
    blender_env.unregister()

    print(f"Blender {bpy.app.version_string}; {args.nodes} nodes x {args.frames} frames, every node keyed at every "
          f"frame ({len(model.keys)} keys); best of {args.repeat}")
    print(f"import  ours (FAITHFUL)            {ours_import:7.3f} s")
    print(f"import  Blender glTF importer      {gltf_import:7.3f} s")
    print(f"export  ours, untouched            {ours_untouched:7.3f} s  (byte for byte: {identical})")
    print(f"export  ours, every node edited    {ours_export:7.3f} s  ({moved} curves moved; file changed: {edited}; "
          f"nodes as {args.node_mode})")
    print(f"export  Blender glTF exporter      {gltf_export:7.3f} s")
    print(f"ratio import ours/glTF: {ours_import / gltf_import:.2f} (goal <= 0.4)")
    print(f"ratio export ours/glTF: {ours_export / gltf_export:.2f} (goal <= 0.1)")


if __name__ == "__main__":
    run(main)
