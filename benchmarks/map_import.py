"""Map import and export: a synthetic map of retail size (16 x 16 grid, 12,800 faces on each
level) with a mission of 100 placed objects of 20 kinds, in one process:

- import time of File > Import > Parkan Map against Blender's glTF importer on the same geometry and objects
  (the imported scene exported once with Blender's glTF exporter as .glb, then imported);
- memory with instancing (each kind once, every placement a collection instance) against one copy per object
  (the instances made real, each with its own mesh copies): mesh vertices held and the process's resident
  memory growth;
- export of a height edit (Land.msh recomputed, all files in one transaction) against the glTF exporter, and
  against the export of the untouched import (which reads and compares every file, writing none).

Each time is the better of ``--repeat`` rounds; the two exports of the map (the height edit's and the untouched
one's) are in CPU time of this process, alternating, the median of ``--export-repeat`` pairs each round.
``--export-only`` measures those two alone (no glTF, no memory); ``--mission`` takes an existing mission (a copy
of its game folder: MISSIONS/NAME/data.tma beside DATA/MAPS) instead of the synthetic one.
    .venv/bin/python benchmarks/map_import.py [--grid 16] [--subdivisions 5] [--objects 100] [--kinds 20]
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from blender_bench import blender_env, bpy, run, start_blender, timed

from core.authoring.map_game import mission_game_files
from core.authoring.maps import MapSpec

MISSION = "MISSIONS/SAMPLE/data.tma"


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--grid", type=int, default=16, help="squares across and down")
    parser.add_argument("--subdivisions", type=int, default=5, help="level-0 sub-squares per cell side")
    parser.add_argument("--objects", type=int, default=100)
    parser.add_argument("--kinds", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--export-repeat", type=int, default=5, help="export pairs per round (the median is shown)")
    parser.add_argument("--export-only", action="store_true", help="only the two exports of the map")
    parser.add_argument("--mission", type=Path, help="an existing MISSIONS/NAME/data.tma (its game folder copied)")
    return parser.parse_args()


def cpu_timed(action) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


def export_pair(mission: Path, ground, water_level: float | None, repeat: int) -> tuple[float, float]:
    """The median CPU seconds of the untouched export and of the height edit's (every tenth vertex of level 0 off
    the water raised by one unit), alternating; the files are put back as they were after each edit."""
    def export() -> None:
        assert bpy.ops.export_scene.parkan_map(filepath=str(mission)) == {"FINISHED"}

    co = np.zeros(3 * len(ground.data.vertices), np.float32)
    ground.data.vertices.foreach_get("co", co)
    raised = co.reshape(-1, 3).copy()
    if water_level is None:  # an existing map: its lowest height taken as the water's
        water_level = float(raised[:, 2].min())
    dry = np.flatnonzero(raised[:, 2] != water_level)[::10]   # water stays one plane (digest 2.8)
    raised[dry, 2] += 1.0
    untouched, edited = [], []
    for _ in range(max(repeat, 1)):
        untouched.append(cpu_timed(export))
        ground.data.vertices.foreach_set("co", raised.ravel())
        edited.append(cpu_timed(export))
        ground.data.vertices.foreach_set("co", co)
        export()  # the files as they were
    return statistics.median(untouched), statistics.median(edited)


def export_only(args: argparse.Namespace, folder: Path, mission: Path, water_level: float | None) -> None:
    pairs = []
    for _ in range(max(args.repeat, 1)):
        blender_env.clean_scene()
        import_ours(mission)
        ground = next(o for o in bpy.data.objects if o.get("msh_map_level") == 0)
        pairs.append(export_pair(mission, ground, water_level, args.export_repeat))
    untouched, edited = min(p[0] for p in pairs), min(p[1] for p in pairs)
    blender_env.unregister()
    print(f"Blender {bpy.app.version_string}; {mission.relative_to(folder)}")
    print(f"export of a height edit, ours:     {edited * 1000:7.1f} ms CPU")
    print(f"export untouched, ours:            {untouched * 1000:7.1f} ms CPU; the height edit's "
          f"{edited / untouched:.2f}x of it (goal <= 1.2x)")


def resident_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def held_vertices() -> int:
    return sum(len(m.vertices) for m in bpy.data.meshes)


def import_ours(path: Path) -> None:
    assert bpy.ops.import_scene.parkan_map(filepath=str(path)) == {"FINISHED"}


def main() -> None:
    args = arguments()
    start_blender()
    folder = Path(tempfile.mkdtemp(prefix="io_msh_bench_map_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    spec = MapSpec(grid=args.grid, subdivisions=args.subdivisions, level1_step=1, lake=(min(1, args.grid - 1),) * 2)
    if args.mission is not None:
        game = args.mission.resolve().parent.parent.parent
        shutil.copytree(game, folder / "game")
        export_only(args, folder, folder / "game" / args.mission.resolve().relative_to(game), None)
        return
    for name, data in mission_game_files(spec, args.objects, args.kinds).items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    mission, glb = folder / MISSION, folder / "map.glb"
    if args.export_only:
        export_only(args, folder, mission, spec.water_level)
        return
    ours, gltf, ours_export, gltf_export, untouched_export = [], [], [], [], []
    faces = vertices_instanced = vertices_copied = 0
    memory_instanced = memory_copied = 0.0
    for _ in range(max(args.repeat, 1)):
        blender_env.clean_scene()
        start = resident_mb()
        ours.append(timed(lambda: import_ours(mission)))
        memory_instanced = resident_mb() - start
        vertices_instanced = held_vertices()
        ground = next(o for o in bpy.data.objects if o.get("msh_map_level") == 0)
        faces = len(ground.data.polygons)
        gltf_export.append(timed(lambda: bpy.ops.export_scene.gltf(  # ours imports no animation here either
            filepath=str(glb), export_format="GLB", export_animations=False)))
        untouched, edited = export_pair(mission, ground, spec.water_level, args.export_repeat)
        untouched_export.append(untouched)
        ours_export.append(edited)
        # one copy per object: the instances made real, each object with its own mesh
        before = resident_mb()
        bpy.ops.object.select_all(action="DESELECT")
        for obj in bpy.data.objects:
            if obj.instance_type == "COLLECTION" and obj.name in bpy.context.view_layer.objects:
                obj.select_set(True)
        bpy.ops.object.duplicates_make_real(use_base_parent=True, use_hierarchy=True)
        bpy.ops.object.make_single_user(type="SELECTED_OBJECTS", object=True, obdata=True)
        vertices_copied = held_vertices()
        memory_copied = memory_instanced + resident_mb() - before
        blender_env.clean_scene()
        gltf.append(timed(lambda: bpy.ops.import_scene.gltf(filepath=str(glb))))
        blender_env.clean_scene()
    blender_env.unregister()
    print(f"Blender {bpy.app.version_string}; map {args.grid} x {args.grid}, {faces} faces on level 0 (and as many "
          f"on level 1), {args.objects} objects of {args.kinds} kinds; .glb {glb.stat().st_size / 1e6:.1f} MB")
    print(f"import, ours (Parkan Map):         {min(ours):7.2f} s")
    print(f"import, Blender glTF importer:     {min(gltf):7.2f} s")
    print(f"ratio ours/glTF: {min(ours) / min(gltf):.2f}")
    print(f"mesh vertices held: instanced {vertices_instanced}, one copy per object {vertices_copied} "
          f"({vertices_copied / max(vertices_instanced, 1):.1f} x)")
    print(f"resident memory growth: instanced {memory_instanced:.1f} MB, one copy per object {memory_copied:.1f} MB")
    print(f"export of a height edit, ours:     {min(ours_export) * 1000:7.1f} ms CPU")
    print(f"export untouched, ours:            {min(untouched_export) * 1000:7.1f} ms CPU; the height edit's "
          f"{min(ours_export) / min(untouched_export):.2f}x of it (goal <= 1.2x)")
    print(f"export, Blender glTF exporter:     {min(gltf_export):7.2f} s (wall)")
    print(f"ratio ours (CPU)/glTF (wall): {min(ours_export) / min(gltf_export):.2f}")


if __name__ == "__main__":
    run(main)
