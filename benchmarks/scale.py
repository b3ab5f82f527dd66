"""Speed at scale, every figure a ratio measured in this one process.

- scene: the Nth import of a 40-node model into a scene already holding N - 1 models, against the first
  (gltf_scene: the same for Blender's glTF importer and that model as a .glb, for comparison);
- archive: a 50-model archive imported in one call, against 50 single imports into an empty scene;
- export: export of an unedited 60-node x 1000-frame import against the floor (reading its keyframes
  with foreach_get and writing the model with numpy), and an edited export (33 tracks re-authored)
  against Blender's glTF exporter on the same scene.

Run: .venv/bin/python benchmarks/scale.py [--parts scene gltf_scene archive export] [--models 200]
[--archive-models 50] [--export-nodes 60] [--export-frames 1000] [--repeat 15]
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from blender_bench import blender_env, bpy, run, timed
from mathutils import Matrix

from core.authoring.build import build_model
from core.authoring.synth import random_model
from core.container.nres import Archive
from core.msh.model import Model

GOALS = {"scene": 1.5, "archive": 1.5, "unedited": 10.0, "edited": 0.1}


def import_msh(path: Path, **options) -> None:
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), **options) == {"FINISHED"}


def write_scene_model(folder: Path) -> Path:
    """The 40-node model both scene parts import again and again."""
    path = folder / "m40.msh"
    path.write_bytes(build_model(random_model(3, node_count=40, frame_count=100)).to_bytes())
    return path


def scene_part(folder: Path, models: int) -> None:
    path = write_scene_model(folder)
    blender_env.clean_scene()
    times = [timed(lambda: import_msh(path)) for _ in range(models)]
    first, last = float(np.median(times[:5])), float(np.median(times[-5:]))
    report("scene", f"import #{models} into a scene of {models - 1} models / the first "
                    f"({last:.3f} s / {first:.3f} s, medians of 5)", last / first)
    imp = blender_env.ext.io_msh.imp
    ours = timed(lambda: imp.build.import_plans(bpy.context, imp.plan.plan_file(path, imp.plan.ImportOptions()),
                                                Matrix.Identity(4)))
    update = timed(bpy.context.view_layer.update)
    print(f"  of one more import: our code {ours:.3f} s, then Blender's view layer update {update:.3f} s "
          "(it rebuilds the relations of every object in the scene when objects are added)")
    start = time.perf_counter()
    roots = [o for o in bpy.data.objects if "msh_model" in o]
    imp.build.remove_models(roots)
    print(f"  removing the {models} models: {time.perf_counter() - start:.2f} s")


def gltf_scene_part(folder: Path, models: int) -> None:
    """Blender's glTF importer on the same scene growth: the same 40-node model, as a .glb."""
    path = write_scene_model(folder)
    blender_env.clean_scene()
    import_msh(path)
    glb = folder / "m40.glb"
    bpy.ops.export_scene.gltf(filepath=str(glb), export_format="GLB", export_animations=True)
    blender_env.clean_scene()
    times = [timed(lambda: bpy.ops.import_scene.gltf(filepath=str(glb))) for _ in range(models)]
    first, last = float(np.median(times[:5])), float(np.median(times[-5:]))
    print(f"glTF importer, for comparison: import #{models} into a scene of {models - 1} models / the first "
          f"({last:.3f} s / {first:.3f} s, medians of 5; {len(bpy.data.objects)} objects): {last / first:.2f}")
    bpy.data.batch_remove(list(bpy.data.objects))


def archive_part(folder: Path, models: int) -> None:
    archive, singles = Archive(), []
    for i in range(models):
        data = build_model(random_model(100 + i, node_count=10 + i % 30, frame_count=60)).to_bytes()
        archive.add(f"m{i:02d}.msh", data)
        singles.append(folder / f"single_{i:02d}.msh")
        singles[-1].write_bytes(data)
    path = folder / "fifty.rlb"
    path.write_bytes(archive.to_bytes())
    single = 0.0
    for each in singles:
        blender_env.clean_scene()
        single += timed(lambda each=each: import_msh(each))
    blender_env.clean_scene()
    together = timed(lambda: import_msh(path))
    present = timed(lambda: import_msh(path))
    report("archive", f"{models}-model archive in one call / {models} single imports "
                      f"({together:.2f} s / {single:.2f} s)", together / single)
    print(f"  the same archive again, with its {models} models present: {present:.2f} s")


def export_part(folder: Path, nodes: int, frames: int, repeats: int) -> None:
    path = folder / "m60.msh"
    path.write_bytes(build_model(random_model(5, node_count=nodes, frame_count=frames, animated=0.6)).to_bytes())
    blender_env.clean_scene()
    import_msh(path)
    root = next(o for o in bpy.data.objects if "msh_model" in o)
    out = folder / "out.msh"
    floor = min(timed(lambda: keyframe_floor(root, path)) for _ in range(repeats))
    for current, where in ((0, "at the first exported frame"), (1, "elsewhere: a temporary scene")):
        bpy.context.scene.frame_set(current)
        unedited = min(timed(lambda: bpy.ops.export_scene.parkan_msh(filepath=str(out))) for _ in range(repeats))
        identical = out.read_bytes() == path.read_bytes()
        report("unedited", f"unedited export, current frame {where} / foreach_get floor ({unedited:.4f} s / "
                           f"{floor:.4f} s; byte-identical {identical})", unedited / floor)
    edited = edit_tracks(root, nodes * 33 // 60)
    ours = min(timed(lambda: bpy.ops.export_scene.parkan_msh(filepath=str(out))) for _ in range(2))
    gltf = min(timed(lambda: bpy.ops.export_scene.gltf(filepath=str(folder / "m.glb"), export_format="GLB",
                                                       export_animations=True)) for _ in range(2))
    changed = out.read_bytes() != path.read_bytes()
    report("edited", f"export with {edited} tracks edited / glTF exporter ({ours:.3f} s / {gltf:.3f} s; "
                     f"bytes changed {changed})", ours / gltf)


def keyframe_floor(root, path: Path) -> None:
    """The least an unedited export must do: read every keyframe, and write the model's bytes."""
    compat = blender_env.ext.io_msh.com.compat
    for fcurve in compat.assigned_fcurves(root):
        values = np.empty(2 * len(fcurve.keyframe_points), np.float32)
        fcurve.keyframe_points.foreach_get("co", values)
    Model.parse(path.read_bytes()).to_bytes()


def edit_tracks(root, count: int) -> int:
    """Move every key of the first ``count`` animated bones' Z location by 1 cm."""
    compat = blender_env.ext.io_msh.com.compat
    bones = []
    for fcurve in compat.assigned_fcurves(root):
        bone = fcurve.data_path.split('"')[1]
        if fcurve.data_path.endswith("location") and fcurve.array_index == 2 and len(bones) < count:
            bones.append(bone)
            values = np.empty(2 * len(fcurve.keyframe_points), np.float32)
            fcurve.keyframe_points.foreach_get("co", values)
            values[1::2] += 0.01
            fcurve.keyframe_points.foreach_set("co", values)
            fcurve.update()
    return len(bones)


def report(goal: str, what: str, ratio: float) -> None:
    verdict = "met" if ratio <= GOALS[goal] else "NOT met"
    print(f"{what}: {ratio:.2f} (goal <= {GOALS[goal]}: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", nargs="*", default=["scene", "archive", "export"],
                        choices=["scene", "gltf_scene", "archive", "export"])
    parser.add_argument("--models", type=int, default=200, help="scene parts: imports into one scene")
    parser.add_argument("--archive-models", type=int, default=50)
    parser.add_argument("--export-nodes", type=int, default=60)
    parser.add_argument("--export-frames", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15, help="best of: short runs on a shared machine")
    args = parser.parse_args()
    blender_env.register()
    print(f"Blender {bpy.app.version_string}")
    folder = Path(tempfile.mkdtemp(prefix="io_msh_scale_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    if "scene" in args.parts:
        scene_part(folder, args.models)
    if "gltf_scene" in args.parts:
        gltf_scene_part(folder, args.models)
    if "archive" in args.parts:
        archive_part(folder, args.archive_models)
    if "export" in args.parts:
        export_part(folder, args.export_nodes, args.export_frames, args.repeat)
    blender_env.clean_scene()
    blender_env.unregister()


if __name__ == "__main__":
    run(main)
