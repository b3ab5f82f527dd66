"""What the artist sees in Blender is what gets exported (import, edit, export, re-import)."""

import numpy as np
import pytest
from fixtures import generated
from test_export import build_rig, export_file, import_file, write
from test_import import node_matrices

from core.animation.sampler import AnimationData, world_matrices_at
from core.animation.tracks import read_animation
from core.msh.model import Model

NODE_MODES = ["ARMATURE", "EMPTIES"]


def model_root(bpy):
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    return root


def viewport_vertices(bpy, blender, frames) -> dict:
    """Per frame: the evaluated world positions of the model's visible mesh vertices (unique, sorted)."""
    out = {}
    for frame in frames:
        blender.evaluated_frame(frame)
        depsgraph = bpy.context.evaluated_depsgraph_get()
        parts = []
        for obj in model_root(bpy).children_recursive:
            if obj.type != "MESH" or obj.hide_get():
                continue
            evaluated = obj.evaluated_get(depsgraph)
            mesh = evaluated.to_mesh()
            co = np.zeros(len(mesh.vertices) * 3)
            mesh.vertices.foreach_get("co", co)
            matrix = np.array(evaluated.matrix_world)
            evaluated.to_mesh_clear()
            world = (matrix @ np.c_[co.reshape(-1, 3), np.ones(len(co) // 3)].T).T[:, :3]
            parts.append(world)
        out[frame] = np.unique(np.round(np.concatenate(parts), 5), axis=0)
    return out


def assert_same_view(before: dict, after: dict, atol=1e-5) -> None:
    assert before.keys() == after.keys()
    for key in before:
        assert before[key].shape == after[key].shape, key
        np.testing.assert_allclose(after[key], before[key], atol=atol, err_msg=str(key))


def round_trip(bpy, blender, tmp_path, node_mode, frames=(0, 7, 13)):
    """Export the scene's model, re-import it alone, and return (shown before, shown after, exported bytes)."""
    before = viewport_vertices(bpy, blender, frames)
    out = tmp_path / "edited.msh"
    export_file(bpy, out)
    blender.clean_scene()
    import_file(bpy, str(out), node_mode=node_mode)
    return before, viewport_vertices(bpy, blender, frames), out.read_bytes()


def mesh_of(root, node):
    return next(o for o in root.children_recursive if o.type == "MESH" and o["msh_node_index"] == node)


@pytest.fixture
def animated(tmp_path):
    data = generated(61, node_count=5, frame_count=20, animated=1.0)
    return data, write(tmp_path, "in.msh", data)


# --------------------------------------------------------------------- Edit Mode
@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_export_from_edit_mode_uses_the_edits_and_restores_the_mode(blender, tmp_path, animated, node_mode):
    import bmesh

    bpy = blender.bpy
    data, path = animated
    (root,) = import_file(bpy, path, node_mode=node_mode)
    mesh = mesh_of(root, 2)
    bpy.context.view_layer.objects.active = mesh
    bpy.ops.object.mode_set(mode="EDIT")
    edit = bmesh.from_edit_mesh(mesh.data)
    for vertex in edit.verts:
        vertex.co.z += 0.25
    bmesh.update_edit_mesh(mesh.data)
    out = tmp_path / "from_edit.msh"
    export_file(bpy, out)
    assert mesh.mode == "EDIT" and bpy.context.view_layer.objects.active == mesh
    bpy.ops.object.mode_set(mode="OBJECT")
    exported, source = Model.parse(out.read_bytes()), Model.parse(data)
    assert exported.positions[:, 2].max() > source.positions[:, 2].max() - 1e-6  # the edit is in the file
    assert not np.array_equal(exported.positions, source.positions)


def test_export_with_the_armature_in_edit_mode_keeps_the_animation(blender, tmp_path, animated):
    bpy = blender.bpy
    data, path = animated
    (root,) = import_file(bpy, path)
    bpy.context.view_layer.objects.active = root
    bpy.ops.object.mode_set(mode="EDIT")
    out = tmp_path / "armature_edit.msh"
    export_file(bpy, out)
    assert root.mode == "EDIT"
    bpy.ops.object.mode_set(mode="OBJECT")
    assert out.read_bytes() == data  # before: every node frozen at one pose (frame count 1)


# --------------------------------------------------------------------- object transforms
@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_a_moved_part_object_is_exported_where_it_is_shown(blender, tmp_path, animated, node_mode):
    bpy = blender.bpy
    _, path = animated
    (root,) = import_file(bpy, path, node_mode=node_mode)
    mesh_of(root, 3).location.x += 0.5
    before, after, _ = round_trip(bpy, blender, tmp_path, node_mode)
    assert_same_view(before, after)


def test_apply_scale_on_the_armature_is_exported_as_shown(blender, tmp_path, animated):
    bpy = blender.bpy
    _, path = animated
    (root,) = import_file(bpy, path)
    root.scale = (2.0, 2.0, 2.0)
    bpy.context.view_layer.objects.active = root
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == root)
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    before, after, _ = round_trip(bpy, blender, tmp_path, "ARMATURE", frames=(0,))
    assert_same_view(before, after)


def test_a_longer_bone_moves_its_part_as_shown(blender, tmp_path, animated):
    bpy = blender.bpy
    _, path = animated
    (root,) = import_file(bpy, path)
    bpy.context.view_layer.objects.active = root
    bpy.ops.object.mode_set(mode="EDIT")
    bone = next(b for b in root.data.edit_bones if b["msh_node_index"] == 2)
    bone.length *= 1.8
    bpy.ops.object.mode_set(mode="OBJECT")
    before, after, _ = round_trip(bpy, blender, tmp_path, "ARMATURE")
    assert_same_view(before, after)


def test_a_modifier_is_exported_as_shown(blender, tmp_path, animated):
    bpy = blender.bpy
    _, path = animated
    (root,) = import_file(bpy, path)
    modifier = mesh_of(root, 1).modifiers.new("push", "DISPLACE")
    modifier.strength = 0.3
    before, after, _ = round_trip(bpy, blender, tmp_path, "ARMATURE")
    assert_same_view(before, after)


# --------------------------------------------------------------------- frame ranges
def new_rig_view(bpy, blender, node_mode, frames):
    root = build_rig(bpy, node_mode)
    root["msh_model"] = "rig.msh"  # so the helpers find the root; a new model all the same (no msh_source)
    return viewport_vertices(bpy, blender, frames)


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_frame_f_is_time_f_whatever_the_scene_start(blender, tmp_path, node_mode):
    bpy = blender.bpy
    frames = (0, 4, 10, 17, 20)
    before = new_rig_view(bpy, blender, node_mode, frames)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 12  # Blender's default start, a short end
    out = tmp_path / "rig.msh"
    export_file(bpy, out)  # default: the action's range, 0..20
    assert Model.parse(out.read_bytes()).frame_count == 21
    blender.clean_scene()
    import_file(bpy, str(out), node_mode=node_mode)
    assert_same_view(before, viewport_vertices(bpy, blender, frames), atol=2e-3)  # key reduction tolerance


@pytest.mark.parametrize("frame_range, end, exported", [("SCENE", 12, 13), ("CUSTOM", 15, 16)])
def test_a_shorter_range_is_exported_with_a_warning(blender, tmp_path, capfd, frame_range, end, exported):
    bpy = blender.bpy
    new_rig_view(bpy, blender, "ARMATURE", (0,))
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 12
    out = tmp_path / "rig.msh"
    capfd.readouterr()
    export_file(bpy, out, frame_range=frame_range, end_frame=end)
    assert Model.parse(out.read_bytes()).frame_count == exported
    assert f"keyframe(s) lie outside the exported frames 0..{end}" in capfd.readouterr().out


def test_an_unedited_import_ignores_a_range_and_says_so(blender, tmp_path, capfd, animated):
    bpy = blender.bpy
    data, path = animated
    import_file(bpy, path)
    out = tmp_path / "out.msh"
    capfd.readouterr()
    export_file(bpy, out, frame_range="CUSTOM", end_frame=5)
    assert out.read_bytes() == data
    assert "the animation is as imported and is written unchanged (frame count 20)" in capfd.readouterr().out


# --------------------------------------------------------------------- editing a game animation
def key_count(bpy, root) -> int:
    import blender_env

    compat = blender_env.ext.io_msh.com.compat
    holders = [root] if root.type == "ARMATURE" else [o for o in root.children_recursive if o.type == "EMPTY"]
    return sum(len(c.keyframe_points) for h in holders for c in compat.assigned_fcurves(h))


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_an_editing_import_has_few_keys_and_shows_the_game_within_the_export_tolerance(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = generated(62, node_count=6, frame_count=120, animated=1.0)
    path = write(tmp_path, "in.msh", data)
    (root,) = import_file(bpy, path, node_mode=node_mode)
    faithful = key_count(bpy, root)
    blender.clean_scene()
    (root,) = import_file(bpy, path, node_mode=node_mode, animation="EDITING")
    editing = key_count(bpy, root)
    print(f"\n  keys: FAITHFUL {faithful}, EDITING {editing}")
    assert editing < faithful / 3
    frames = np.arange(120)
    rigid = world_matrices_at(AnimationData.from_model(Model.parse(data)), frames, normalize=True)
    worst = 0.0
    for frame in frames:
        blender.evaluated_frame(frame)
        for index, matrix in node_matrices(bpy, root).items():
            worst = max(worst, np.abs(matrix - rigid[index, frame]).max())
    assert worst < 2e-3  # 0.1 mm and 0.05 degree per node, through the chain
    out = tmp_path / "same.msh"
    export_file(bpy, out)
    assert out.read_bytes() == data


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_editing_one_node_of_an_editing_import_rewrites_that_node_only(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = generated(62, node_count=6, frame_count=120, animated=1.0)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode, animation="EDITING")
    owner = root.pose.bones[next(b.name for b in root.data.bones if b["msh_node_index"] == 2)] \
        if node_mode == "ARMATURE" else next(o for o in root.children_recursive if o.get("msh_node_index") == 2
                                             and o.type == "EMPTY")
    path = "rotation_quaternion"
    for frame in (30, 60):  # an artist keys a turn at two frames
        bpy.context.scene.frame_set(frame)
        owner.rotation_quaternion = (0.8, 0.0, 0.6, 0.0)
        owner.keyframe_insert(path, frame=frame)
    out = tmp_path / "edited.msh"
    export_file(bpy, out)
    old, new = read_animation(Model.parse(data)).tracks, read_animation(Model.parse(out.read_bytes())).tracks
    changed = [i for i, (a, b) in enumerate(zip(old, new)) if a.rot.tobytes() != b.rot.tobytes()
               or a.pos.tobytes() != b.pos.tobytes() or a.times.tobytes() != b.times.tobytes()]
    assert changed == [2]


# --------------------------------------------------------------------- renames and structure
def node_item(root, index):
    if root.type == "ARMATURE":
        return next(b for b in root.data.bones if b["msh_node_index"] == index)
    return next(o for o in root.children_recursive if o.type == "EMPTY" and o.get("msh_node_index") == index)


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_a_renamed_node_is_renamed_in_res9(blender, tmp_path, animated, node_mode):
    bpy = blender.bpy
    data, path = animated
    (root,) = import_file(bpy, path, node_mode=node_mode)
    node_item(root, 3).name = "turret_top"
    out = tmp_path / "renamed.msh"
    export_file(bpy, out)
    source, exported = Model.parse(data), Model.parse(out.read_bytes())
    assert [exported.node_name(i) for i in range(5)] == [
        "turret_top" if i == 3 else source.node_name(i) for i in range(5)]
    assert all(exported.data(t) == source.data(t) for t in (1, 2, 3, 8, 10, 19))  # nothing else changed
    blender.clean_scene()
    (again,) = import_file(bpy, str(out), node_mode=node_mode)
    assert node_item(again, 3).name == "turret_top"


def test_a_node_named_by_its_res10_label_is_renamed_there(blender, tmp_path):
    bpy = blender.bpy
    model = Model.parse(generated(63, node_count=4, frame_count=10, animated=1.0))
    model.set_stream(9, bytes(32 * 4))  # no Res9 names: nodes are named by their labels (digest fact 9)
    data = model.to_bytes()
    (root,) = import_file(bpy, write(tmp_path, "labels.msh", data))
    assert node_item(root, 0).name == "L0"
    node_item(root, 0).name = "a much longer label than Res9 could ever hold"
    out = tmp_path / "relabelled.msh"
    export_file(bpy, out)
    exported = Model.parse(out.read_bytes())
    assert exported.labels[0] == b"a much longer label than Res9 could ever hold"
    assert exported.data(9) == bytes(32 * 4)


def test_a_rename_cp1251_cannot_hold_is_refused_naming_the_bone(blender, tmp_path, animated):
    bpy = blender.bpy
    _, path = animated
    (root,) = import_file(bpy, path)
    node_item(root, 2).name = "砲塔"
    target = tmp_path / "bad.msh"
    with pytest.raises(RuntimeError, match="node '砲塔': the name '砲塔' cannot be stored in code page 1251"):
        export_file(bpy, target)
    assert not target.exists()


def test_a_second_mesh_on_a_used_node_is_refused_not_dropped(blender, tmp_path, animated):
    bpy = blender.bpy
    _, path = animated
    (root,) = import_file(bpy, path)
    part = mesh_of(root, 1)
    extra = part.copy()
    extra.data = part.data.copy()
    extra.name = "extra_armour"
    bpy.context.scene.collection.objects.link(extra)
    target = tmp_path / "two.msh"
    with pytest.raises(RuntimeError, match=r"extra_armour.*are on the same node and slot 0: join them"):
        export_file(bpy, target)


# --------------------------------------------------------------------- skinned meshes
def skinned_rig(bpy, weights_for):
    """build_rig's armature with its hip and spine boxes replaced by one mesh skinned to both bones."""
    import bmesh
    from mathutils import Matrix

    root = build_rig(bpy, "ARMATURE")
    root["msh_model"] = "rig.msh"
    for name in ("hip_mesh", "spine_mesh"):
        bpy.data.objects.remove(bpy.data.objects[name])
    mesh = bpy.data.meshes.new("body")
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, 1.0)))
    bmesh.ops.subdivide_edges(bm, edges=bm.edges[:], cuts=1, use_grid_fill=True)
    bm.to_mesh(mesh)
    bm.free()
    mesh.uv_layers.new(name="UVMap")
    body = bpy.data.objects.new("body", mesh)
    bpy.context.scene.collection.objects.link(body)
    body.parent = root
    body.modifiers.new("Armature", "ARMATURE").object = root
    for vertex in mesh.vertices:
        for group, weight in weights_for(vertex.co.z):
            (body.vertex_groups.get(group) or body.vertex_groups.new(name=group)).add([vertex.index], weight, "REPLACE")
    return root


def test_a_skinned_mesh_is_split_into_rigid_parts_by_its_strongest_bone(blender, tmp_path, capfd):
    bpy = blender.bpy
    skinned_rig(bpy, lambda z: [("hip", 1.0)] if z < 0.99 else [("spine", 1.0)])
    before = viewport_vertices(bpy, blender, (0,))[0]
    out = tmp_path / "skinned.msh"
    capfd.readouterr()
    export_file(bpy, out)
    assert "mesh 'body' is skinned to 2 bones" in capfd.readouterr().out
    model = Model.parse(out.read_bytes())
    parts = {int(n) for n, slots in enumerate(model.nodes["slots"]) if slots[0] != 0xFFFF}
    assert parts == {0, 1, 2}  # hip and spine now hold the two halves of the body; arm its box
    blender.clean_scene()
    import_file(bpy, str(out))
    after = viewport_vertices(bpy, blender, (0,))[0]
    # At the frame the export read, every vertex is where it was shown (the seam's are in both parts).
    distance = np.linalg.norm(after[:, None] - before[None], axis=-1)
    assert distance.min(axis=0).max() < 1e-4 and distance.min(axis=1).max() < 1e-4


def test_a_skinned_mesh_with_unweighted_vertices_names_its_groups(blender, tmp_path):
    bpy = blender.bpy
    skinned_rig(bpy, lambda z: [("hip", 1.0)] if z < 0.99 else ([("spine", 1.0)] if z > 1.2 else []))
    with pytest.raises(RuntimeError, match=r"mesh 'body': \d+ vertices have no weight on a bone "
                                           r"\(vertex groups: hip, spine\)"):
        export_file(bpy, tmp_path / "bad.msh")


# --------------------------------------------------------------------- smaller items
def test_the_vertex_limit_error_counts_the_vertices_the_artist_sees(blender, tmp_path):
    import bmesh

    bpy = blender.bpy
    root = build_rig(bpy, "EMPTIES")
    mesh = bpy.data.meshes.new("terrain")
    bm = bmesh.new()
    bmesh.ops.create_grid(bm, x_segments=140, y_segments=140, size=10.0)
    rng = np.random.default_rng(4)
    for vertex in bm.verts:  # a bumpy surface with flat faces: every face's corners get their own normal
        vertex.co.z = rng.uniform(0, 0.2)
    for face in bm.faces:
        face.smooth, face.material_index = False, face.index % 4  # four materials: no batch over the index limit
    bm.to_mesh(mesh)
    bm.free()
    for i in range(4):
        mesh.materials.append(bpy.data.materials.new(f"ground_{i}"))
    terrain = bpy.data.objects.new("terrain", mesh)
    bpy.context.scene.collection.objects.link(terrain)
    terrain.parent = bpy.data.objects["hip"]
    bpy.data.objects.remove(bpy.data.objects["hip_mesh"])
    shown = len(mesh.vertices)
    with pytest.raises(RuntimeError, match=rf"mesh 'terrain' has {shown} vertices, \d+ once split where normals"):
        export_file(bpy, tmp_path / "big.msh")
    assert root.name == "Rig"


def test_a_new_model_keeps_its_node_and_material_names_and_the_root_is_named_after_it(blender, tmp_path):
    bpy = blender.bpy
    build_rig(bpy, "ARMATURE")
    for obj in [o for o in bpy.data.objects if o.type == "MESH"]:
        obj.data.materials.append(bpy.data.materials.new(obj.name.replace("_mesh", "_paint")))
    out = tmp_path / "walker.msh"
    export_file(bpy, out)
    blender.clean_scene()
    (root,) = import_file(bpy, str(out))
    assert root.name == "walker.msh"
    assert sorted(b.name for b in root.data.bones) == ["arm", "hip", "spine"]
    assert sorted(m.name for m in bpy.data.materials) == ["arm_paint", "hip_paint", "spine_paint"]
    # MSH stores no mesh names: each part is named after its node.
    assert sorted(o.name for o in root.children_recursive if o.type == "MESH") == ["arm", "hip", "spine"]


@pytest.mark.parametrize("has_other_slots", [False, True])
def test_dropped_slots_are_reported_only_when_there_are_any(blender, tmp_path, capfd, has_other_slots):
    from test_export import with_lod_slots

    bpy = blender.bpy
    data = with_lod_slots() if has_other_slots else generated(64, node_count=2, frame_count=5)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), slots="CHOSEN")
    mesh_of(root, 0).data.vertices[0].co.x += 0.1  # a geometry edit: the geometry is rebuilt from the scene
    capfd.readouterr()
    export_file(bpy, tmp_path / "out.msh")
    output = capfd.readouterr().out
    assert "geometry changed" in output
    assert "are dropped" not in output and "Res15" not in output  # other slots are kept, not dropped
