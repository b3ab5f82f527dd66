"""Many models in one Blender session: nothing left behind after removal, no memory growth, all exportable.

The suite runs a few dozen; benchmarks/load_500.py runs the full 500.
"""

import numpy as np
from fixtures import generated

from core.files import open_container, validate_container


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096 / 2**20


def import_all(bpy, paths, node_mode):
    for path in paths:
        assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode) == {"FINISHED"}
    return [o for o in bpy.data.objects if "msh_model" in o]


def test_import_remove_cycles_leave_nothing_and_do_not_grow(blender, tmp_path):
    bpy = blender.bpy
    importer = blender.ext.io_msh.imp.build
    paths = []
    for i in range(24):
        path = tmp_path / f"m{i:02d}.msh"
        path.write_bytes(generated(100 + i, node_count=int(3 + i % 10), frame_count=int(5 + 7 * (i % 6))))
        paths.append(path)
    baseline = blender.datablock_counts()
    memory = []
    for cycle, mode in enumerate(["ARMATURE", "EMPTIES", "ARMATURE", "EMPTIES"]):
        roots = import_all(bpy, paths, mode)
        assert len(roots) == len(paths)
        if cycle < 2:
            for root in roots:
                importer.remove_model(root)
        else:
            importer.remove_models(roots)  # all at once
        assert blender.datablock_counts() == baseline, f"cycle {cycle} ({mode}) left datablocks behind"
        memory.append(rss_mb())
    growth = memory[-1] - memory[1]
    print(f"\n  resident memory after each cycle (MB): {np.round(memory, 1).tolist()}")
    assert growth < 40, f"memory grew by {growth:.1f} MB over two import/remove cycles"


def test_export_all_and_reread(blender, tmp_path):
    bpy = blender.bpy
    sources = {}
    for i in range(12):
        path = tmp_path / f"m{i:02d}.msh"
        data = generated(200 + i, node_count=4 + i, frame_count=10)
        path.write_bytes(data)
        sources[path.name] = data
        assert bpy.ops.import_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    out = tmp_path / "out"
    out.mkdir()
    for root in [o for o in bpy.data.objects if "msh_model" in o]:
        for obj in bpy.context.view_layer.objects:
            obj.select_set(obj == root)
        bpy.context.view_layer.objects.active = root
        assert bpy.ops.export_scene.parkan_msh(filepath=str(out / root["msh_model"])) == {"FINISHED"}
    for name, data in sources.items():
        written = out / name
        assert written.read_bytes() == data
        assert not any(f.is_error for f in validate_container(open_container(written)))


def test_removing_one_model_keeps_the_other_and_what_others_use(blender, tmp_path):
    bpy = blender.bpy
    from core.authoring.build import ModelDef, NodeDef, Part, build_model
    from core.authoring.synth import box

    pos, tris = box()
    data = build_model(ModelDef([NodeDef("a"), NodeDef("b", 0)], [Part(0, pos, tris), Part(1, pos, tris, slot=2)]))
    for name in ("one.msh", "two.msh"):
        (tmp_path / name).write_bytes(data.to_bytes())
        assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / name), slots="ALL") == {"FINISHED"}
    one, two = sorted((o for o in bpy.data.objects if "msh_model" in o), key=lambda o: o["msh_model"])
    shared = bpy.data.materials.new("shared by someone else")
    keeper = bpy.data.meshes.new("keeper")
    keeper.materials.append(shared)
    next(o for o in one.children_recursive if o.type == "MESH").data.materials.append(shared)
    blender.ext.io_msh.imp.build.remove_model(one)
    assert [o["msh_model"] for o in bpy.data.objects if "msh_model" in o] == ["two.msh"]
    assert len(two.children_recursive) == 2  # its two mesh objects (the nodes are bones)
    assert [c.name for c in bpy.data.collections] == ["two.msh intact LOD 2"]
    assert shared.name in bpy.data.materials  # still used by another mesh
