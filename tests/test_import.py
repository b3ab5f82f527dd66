"""File > Import > Parkan MSH through the real operator, on the bpy wheel."""

import numpy as np
import pytest
from fixtures import generated, non_canonical, static_model

from core.animation.sampler import AnimationData, world_matrices_at
from core.authoring.synth import sample_archive
from core.container.nres import MODEL_TYPE_ID
from core.files import open_container
from core.msh.model import Model
from core.msh.validate import validate_model

NODE_MODES = ["ARMATURE", "EMPTIES"]


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def roots(bpy):
    return [o for o in bpy.data.objects if "msh_model" in o]


def node_matrices(bpy, root):
    """Each node's transform relative to the root, by node index."""
    out = {}
    if root.type == "ARMATURE":
        for pose_bone in root.pose.bones:
            out[root.data.bones[pose_bone.name]["msh_node_index"]] = np.array(pose_bone.matrix)
    else:
        inverse = root.matrix_world.inverted()
        for obj in bpy.data.objects:
            if obj.type == "EMPTY" and "msh_node_index" in obj:
                out[obj["msh_node_index"]] = np.array(inverse @ obj.matrix_world)
    return out


def import_file(bpy, path, **options):
    result = bpy.ops.import_scene.parkan_msh(filepath=path, **options)
    assert result == {"FINISHED"}
    return roots(bpy)


@pytest.fixture(scope="module")
def animated_models():
    base = generated(21, node_count=9, frame_count=25, animated=0.8, fractional=True)
    return {
        "canonical": generated(20, node_count=9, frame_count=31, animated=0.7),
        "fractional": base,
        "non_canonical": non_canonical(base),
    }


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("kind", ["canonical", "fractional", "non_canonical"])
def test_every_integer_frame_shows_the_runtime_pose(blender, tmp_path, animated_models, node_mode, kind):
    bpy = blender.bpy
    data = animated_models[kind]
    model = Model.parse(data)
    if kind == "non_canonical":
        assert any("above the fallback" in f.message for f in validate_model(model))
    (root,) = import_file(bpy, write(tmp_path, f"{kind}.msh", data), node_mode=node_mode)
    frames = np.arange(model.frame_count + 2)
    anim = AnimationData.from_model(model)
    rigid = world_matrices_at(anim, frames, normalize=True)
    game = world_matrices_at(anim, frames)
    worst_rigid = worst_game = 0.0
    for frame in frames:
        blender.evaluated_frame(frame)
        for index, matrix in node_matrices(bpy, root).items():
            worst_rigid = max(worst_rigid, np.abs(matrix - rigid[index, frame]).max())
            worst_game = max(worst_game, np.abs(matrix - game[index, frame]).max())
    assert worst_rigid < 1e-5
    assert worst_game < 2e-3  # the game draws with unnormalised i16 quaternions: inherent, not ours


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_evaluated_vertex_positions_move_with_their_node(blender, tmp_path, animated_models, node_mode):
    bpy = blender.bpy
    data = animated_models["non_canonical"]
    model = Model.parse(data)
    import_file(bpy, write(tmp_path, "m.msh", data), node_mode=node_mode)
    frames = [0, 3, 7, model.frame_count - 1, model.frame_count + 1]
    world = world_matrices_at(AnimationData.from_model(model), frames, normalize=True)
    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    assert len(meshes) == model.node_count
    depsgraph = bpy.context.evaluated_depsgraph_get()
    for c, frame in enumerate(frames):
        blender.evaluated_frame(frame)
        for obj in meshes:
            node = obj["msh_node_index"]
            evaluated = obj.evaluated_get(depsgraph)
            for v in list(evaluated.data.vertices)[:3]:
                got = np.array(evaluated.matrix_world @ v.co)
                expected = (world[node, c] @ np.r_[np.array(v.co), 1.0])[:3]
                assert np.abs(got - expected).max() < 1e-5


def test_hierarchy_names_and_custom_properties(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    path = write(tmp_path, "sample.msh", sample_msh)
    (root,) = import_file(bpy, path, node_mode="EMPTIES")
    model = Model.parse(sample_msh)
    assert root["msh_model"] == "sample.msh" and bytes(root["msh_source"]) == sample_msh
    empties = {o["msh_node_index"]: o for o in bpy.data.objects if o.type == "EMPTY" and "msh_node_index" in o}
    assert [empties[i].name for i in range(model.node_count)] == ["body", "turret", "gun", "antenna", "leg_l", "leg_r"]
    for i, obj in empties.items():
        parent = int(model.nodes[i]["parent"])
        assert obj.parent == (root if parent == 0xFFFF else empties[parent])
    blender.clean_scene()
    (root,) = import_file(bpy, path, node_mode="ARMATURE")
    assert root.type == "ARMATURE"
    bones = root.data.bones
    assert [bones[n]["msh_node_index"] for n in ("body", "turret", "gun")] == [0, 1, 2]
    assert bones["gun"].parent.name == "turret" and bones["body"].parent is None
    assert root.animation_data.action is not None
    scene = bpy.context.scene
    assert (scene.frame_start, scene.frame_end) == (0, model.frame_count - 1)


def test_long_and_duplicate_names_keep_the_original(blender, tmp_path):
    bpy = blender.bpy
    from core.authoring.build import ModelDef, NodeDef, build_model

    long = "x" * 31
    spec = ModelDef([NodeDef("same"), NodeDef("same", 0), NodeDef(long, 0)])
    path = write(tmp_path, "names.msh", build_model(spec).to_bytes())
    (root,) = import_file(bpy, path)
    bones = root.data.bones
    names = sorted(b.name for b in bones)
    assert names == sorted(["same", "same.001", long])
    assert bones["same.001"]["msh_name"] == "same" and "msh_name" not in bones["same"]
    blender.clean_scene()
    bpy.data.objects.new("same", None)  # an object of that name exists already
    import_file(bpy, path, node_mode="EMPTIES")
    renamed = next(o for o in bpy.data.objects if o.get("msh_node_index") == 0 and o.type == "EMPTY")
    assert renamed.name != "same" and renamed["msh_name"] == "same"


def test_materials_from_the_wear_list_and_uvs(blender, tmp_path, sample_rlb):
    bpy = blender.bpy
    import_file(bpy, write(tmp_path, "sample.rlb", sample_rlb))
    assert sorted(m.name for m in bpy.data.materials) == ["SAMPLE_BODY", "SAMPLE_METAL"]
    assert {m["msh_material"] for m in bpy.data.materials} == {0, 1}
    gun = next(o for o in bpy.data.objects if o.type == "MESH" and o["msh_node_index"] == 2)
    assert [m.name for m in gun.data.materials] == ["SAMPLE_METAL"]
    uvs = np.zeros(len(gun.data.loops) * 2)
    gun.data.uv_layers[0].data.foreach_get("uv", uvs)
    assert set(np.round(uvs, 4)) <= {0.0, 0.25, 0.5, 0.75, 1.0}
    assert gun.data.has_custom_normals


def test_materials_without_wear_are_named_by_index(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    import_file(bpy, write(tmp_path, "sample.msh", sample_msh))
    assert sorted(m.name for m in bpy.data.materials) == ["material_0", "material_1"]


def test_every_slot_goes_to_its_own_hidden_collection(blender, tmp_path):
    bpy = blender.bpy
    from core.authoring.build import ModelDef, NodeDef, Part, build_model
    from core.authoring.synth import box

    pos, tris = box()
    parts = [Part(0, pos, tris), Part(0, pos * 0.5, tris, slot=1), Part(1, pos, tris, slot=5), Part(1, pos, tris)]
    data = build_model(ModelDef([NodeDef("a"), NodeDef("b", 0)], parts)).to_bytes()
    path = write(tmp_path, "slots.msh", data)
    import_file(bpy, path)
    assert sorted(o["msh_slot"] for o in bpy.data.objects if o.type == "MESH") == [0, 0]
    blender.clean_scene()
    import_file(bpy, path, stage=1, lod="0")  # damage stage 1, LOD 0: slot 5, only node b has one
    assert [(o["msh_node_index"], o["msh_slot"]) for o in bpy.data.objects if o.type == "MESH"] == [(1, 5)]
    blender.clean_scene()
    import_file(bpy, path, lod="1")
    assert [(o["msh_node_index"], o["msh_slot"]) for o in bpy.data.objects if o.type == "MESH"] == [(0, 1)]
    blender.clean_scene()
    import_file(bpy, path, slots="ALL")
    meshes = {(o["msh_node_index"], o["msh_slot"]): o for o in bpy.data.objects if o.type == "MESH"}
    assert sorted(meshes) == [(0, 0), (0, 1), (1, 0), (1, 5)]
    for (_node, slot), obj in meshes.items():
        collection = obj.users_collection[0]
        if slot == 0:
            assert "msh_slot" not in collection
        else:
            assert collection["msh_slot"] == slot and collection.hide_viewport and collection.hide_render
            assert collection.name == {1: "slots.msh intact LOD 1", 5: "slots.msh damage 1 LOD 0"}[slot]


def test_archive_imports_every_model_or_the_filtered_ones(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    archive = sample_archive(sample_msh)
    archive.add("tank.msh", generated(4, node_count=3), MODEL_TYPE_ID)
    archive.add("tower.msh", static_model(2), MODEL_TYPE_ID)
    path = write(tmp_path, "units.rlb", archive.to_bytes())
    assert sorted(r["msh_model"] for r in import_file(bpy, path)) == ["sample.msh", "tank.msh", "tower.msh"]
    blender.clean_scene()
    assert sorted(r["msh_model"] for r in import_file(bpy, path, entry_filter="t*.msh")) == ["tank.msh", "tower.msh"]


def test_multi_file_import(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    write(tmp_path, "a.msh", sample_msh)
    write(tmp_path, "b.msh", generated(5, node_count=4))
    result = bpy.ops.import_scene.parkan_msh(directory=str(tmp_path), files=[{"name": "a.msh"}, {"name": "b.msh"}],
                                             node_mode="EMPTIES")
    assert result == {"FINISHED"}
    assert sorted(r["msh_model"] for r in roots(bpy)) == ["a.msh", "b.msh"]


def test_keys_mode_puts_one_keyframe_per_msh_key(blender, tmp_path, animated_models):
    bpy = blender.bpy
    from core.animation.tracks import read_animation

    data = animated_models["fractional"]
    model = Model.parse(data)
    (_root,) = import_file(bpy, write(tmp_path, "k.msh", data), animation="KEYS", node_mode="EMPTIES")
    tracks = read_animation(model).tracks
    io_compat = blender.ext.io_msh.com.compat
    for obj in bpy.data.objects:
        if obj.type == "EMPTY" and "msh_node_index" in obj:
            track = tracks[obj["msh_node_index"]]
            curves = io_compat.assigned_fcurves(obj)
            if not track.has_map:
                assert not curves
                continue
            frames = sorted({round(k.co[0], 4) for c in curves for k in c.keyframe_points})
            assert frames == [round(float(t), 4) for t in track.times]


def test_no_animation_mode(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    (root,) = import_file(bpy, write(tmp_path, "s.msh", sample_msh), animation="NONE")
    assert root.animation_data is None and len(bpy.data.actions) == 0


def test_axis_conversion_and_scale_live_on_the_root_only(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    (root,) = import_file(bpy, write(tmp_path, "s.msh", sample_msh), global_scale=2.0, axis_forward="-Z",
                          axis_up="Y", node_mode="EMPTIES")
    m = np.array(root.matrix_world)
    assert abs(np.linalg.det(m[:3, :3]) - 8.0) < 1e-5
    for obj in bpy.data.objects:
        if obj.parent is not None and obj.type == "EMPTY":
            assert abs(np.linalg.det(np.array(obj.matrix_local)[:3, :3]) - 1.0) < 1e-4


@pytest.mark.parametrize("bad", [b"", b"NRes\x00\x01\x00\x00", b"garbage" * 10])
def test_a_bad_file_reports_an_error_and_leaves_nothing(blender, tmp_path, bad):
    bpy = blender.bpy
    before = blender.datablock_counts()
    path = write(tmp_path, "bad.msh", bad)
    with pytest.raises(RuntimeError, match=r"bad\.msh"):
        bpy.ops.import_scene.parkan_msh(filepath=path)
    assert blender.datablock_counts() == before


def test_an_invalid_model_reports_the_cores_reason(blender, tmp_path):
    bpy = blender.bpy
    from fixtures import triangle_model

    data = triangle_model([(0, 0xFFFF, 0xFFFF, 5)], [(0, 0, 0, 0, 32767, 0, 0, 0)], [], 1)
    path = write(tmp_path, "invalid.msh", data)
    with pytest.raises(RuntimeError, match=r"Res1\[0\]: error: fallback key 5 is out of range"):
        bpy.ops.import_scene.parkan_msh(filepath=path)
    assert all(v == 0 for v in blender.datablock_counts().values())


def test_a_failure_while_building_removes_everything(blender, tmp_path, sample_msh, monkeypatch):
    bpy = blender.bpy
    importer = blender.ext.io_msh.imp.build

    def broken(*args, **kwargs):
        raise ValueError("injected failure")

    monkeypatch.setattr(importer, "_build_animation", broken)
    with pytest.raises(RuntimeError, match="nothing was kept"):
        bpy.ops.import_scene.parkan_msh(filepath=write(tmp_path, "s.msh", sample_msh))
    assert all(v == 0 for v in blender.datablock_counts().values())


def test_file_handler_and_menu_are_registered(blender):
    bpy = blender.bpy
    handler = bpy.types.FileHandler.bl_rna_get_subclass_py("IO_FH_parkan_msh")
    assert handler is not None and handler.bl_import_operator == "import_scene.parkan_msh"
    assert set(handler.bl_file_extensions.split(";")) == {".msh", ".rlb"}
    assert hasattr(bpy.ops.import_scene, "parkan_msh")


def test_warnings_are_reported_not_fatal(blender, tmp_path, animated_models):
    bpy = blender.bpy
    path = write(tmp_path, "nc.msh", animated_models["non_canonical"])
    assert bpy.ops.import_scene.parkan_msh(filepath=path) == {"FINISHED"}
    assert open_container(path).is_model
