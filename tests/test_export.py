"""File > Export > Parkan MSH through the real operators: lossless round trips, edits, new models, archives."""

import struct

import numpy as np
import pytest
from fixtures import generated, non_canonical, static_model, triangle_model

from core.animation.sampler import AnimationData, world_matrices_at
from core.animation.tracks import read_animation
from core.container.nres import MODEL_TYPE_ID, Archive
from core.files import read_container
from core.msh.model import Model
from core.msh.validate import validate_model

NODE_MODES = ["ARMATURE", "EMPTIES"]


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def import_file(bpy, path, **options):
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), **options) == {"FINISHED"}
    return [o for o in bpy.data.objects if "msh_model" in o]


def export_file(bpy, path, **options):
    assert bpy.ops.export_scene.parkan_msh(filepath=str(path), **options) == {"FINISHED"}
    return (path if isinstance(path, str) else str(path))


def with_extra_streams():
    extra = [(18, struct.pack("<6H", 1, 2, 3, 4, 5, 6), 3, 0, 4), (20, b"\x01\x02\x03", 3, 0, 0),
             (17, b"graph", 1, 0, 0), (99, b"unknown", 7, 8, 9)]
    nodes = [(0, 0xFFFF, 0xFFFF, 0), (0, 0, 0, 2)]
    keys = [(0, 0, 0, 0, 32767, 0, 0, 0), (0, 0, 0, 0, 32767, 0, 0, 0), (1, 2, 3, 4, 23170, 0, 23170, 0)]
    return triangle_model(nodes, keys, [1, 1, 1, 1, 2], 5, extra=extra)


def with_lod_slots():
    from core.authoring.build import ModelDef, NodeDef, Part, build_model
    from core.authoring.synth import box

    pos, tris = box()
    parts = [Part(0, pos, tris), Part(0, pos * 0.5, tris, slot=1), Part(1, pos, tris), Part(1, pos * 0.3, tris, slot=5)]
    return build_model(ModelDef([NodeDef("a"), NodeDef("b", 0)], parts)).to_bytes()


MODELS = {
    "lod_slots": with_lod_slots,
    "canonical": lambda: generated(30, node_count=7, frame_count=20),
    "non_canonical": lambda: non_canonical(generated(31, node_count=6, frame_count=18, fractional=True)),
    "fractional": lambda: generated(32, node_count=5, frame_count=15, fractional=True),
    "static": lambda: static_model(3),
    "many_nodes": lambda: generated(33, node_count=60, frame_count=12, animated=0.5),
    "extra_streams": with_extra_streams,
}


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_import_then_export_without_edits_is_byte_identical(blender, tmp_path, kind, node_mode):
    bpy = blender.bpy
    data = MODELS[kind]()
    import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    assert out.read_bytes() == data


def test_sample_archive_round_trips_through_blender(blender, tmp_path, sample_rlb):
    bpy = blender.bpy
    path = write(tmp_path, "sample.rlb", sample_rlb)
    import_file(bpy, path)
    export_file(bpy, path)  # into the same archive, replacing sample.msh
    assert (tmp_path / "sample.rlb").read_bytes() == sample_rlb


def pose_bone_worlds(bpy, root, frames, blender):
    """(nodes, frames, 4, 4) relative to the root, by node index."""
    out = {}
    for f in frames:
        blender.evaluated_frame(f)
        if root.type == "ARMATURE":
            for pb in root.pose.bones:
                out.setdefault(root.data.bones[pb.name]["msh_node_index"], []).append(np.array(pb.matrix))
        else:
            inverse = root.matrix_world.inverted()
            for obj in bpy.data.objects:
                if obj.type == "EMPTY" and "msh_node_index" in obj:
                    out.setdefault(obj["msh_node_index"], []).append(np.array(inverse @ obj.matrix_world))
    return np.array([out[i] for i in sorted(out)])


def edit_rotation(bpy, root, node_index, frames, angle):
    """Turn one node further about its local Z at the given frames (F-curve values edited in place)."""
    io_compat = __import__("blender_env").ext.io_msh.com.compat
    if root.type == "ARMATURE":
        bone = next(b.name for b in root.data.bones if b["msh_node_index"] == node_index)
        path = f'pose.bones["{bone}"].rotation_quaternion'
        curves = [c for c in io_compat.assigned_fcurves(root) if c.data_path == path]
    else:
        obj = next(o for o in bpy.data.objects if o.type == "EMPTY" and o.get("msh_node_index") == node_index)
        curves = [c for c in io_compat.assigned_fcurves(obj) if c.data_path == "rotation_quaternion"]
    curves.sort(key=lambda c: c.array_index)
    assert len(curves) == 4
    turn = np.array([np.cos(angle / 2), 0, 0, np.sin(angle / 2)])
    for i, point in enumerate(curves[0].keyframe_points):
        if round(point.co[0]) in frames:
            q = np.array([c.keyframe_points[i].co[1] for c in curves])
            w1, x1, y1, z1 = q
            w2, x2, y2, z2 = turn
            new = [w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                   w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2]
            for c, value in zip(curves, new):
                c.keyframe_points[i].co[1] = value
    for c in curves:
        c.update()


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_editing_one_node_changes_its_keys_only(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = generated(40, node_count=6, frame_count=24, animated=1.0)
    source = Model.parse(data)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    edited = 3
    edit_rotation(bpy, root, edited, set(range(6, 14)), 0.4)
    frames = np.arange(source.frame_count)
    before = pose_bone_worlds(bpy, root, frames, blender)
    out = tmp_path / "edited.msh"
    export_file(bpy, out)
    exported = Model.parse(out.read_bytes())
    assert validate_model(exported) == []
    old_tracks, new_tracks = read_animation(source).tracks, read_animation(exported).tracks
    for i, (old, new) in enumerate(zip(old_tracks, new_tracks)):
        if i == edited:
            assert not np.array_equal(old.rot, new.rot) or len(old) != len(new)
            continue
        assert old.times.tobytes() == new.times.tobytes() and old.rot.tobytes() == new.rot.tobytes()
        assert old.pos.tobytes() == new.pos.tobytes()
    assert exported.frame_count == source.frame_count
    assert exported.data(3) == source.data(3) and exported.data(2) == source.data(2)  # geometry kept
    blender.clean_scene()
    (again,) = import_file(bpy, out, node_mode=node_mode)
    after = pose_bone_worlds(bpy, again, frames, blender)
    runtime = world_matrices_at(AnimationData.from_model(exported), frames, normalize=True)
    print(f"\n  edited node {edited}: {len(new_tracks[edited])} keys; re-imported pose error "
          f"{np.abs(after - before).max():.1e}, runtime error {np.abs(runtime - before).max():.1e}")
    assert np.abs(after - before).max() < 2e-3  # reduction tolerance (0.05 degree, 0.1 mm) through the chain
    assert np.abs(runtime - before).max() < 2e-3


def build_rig(bpy, mode):
    """A small rig made by script: three nodes, a box on each, a little animation."""
    import bmesh

    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 0, 20
    collection = scene.collection

    def box(name, size):
        mesh = bpy.data.meshes.new(name)
        bm = bmesh.new()
        bmesh.ops.create_cube(bm, size=size)
        bm.to_mesh(mesh)
        bm.free()
        mesh.uv_layers.new(name="UVMap")
        obj = bpy.data.objects.new(name, mesh)
        collection.objects.link(obj)
        return obj

    if mode == "ARMATURE":
        arm = bpy.data.armatures.new("Rig")
        root = bpy.data.objects.new("Rig", arm)
        collection.objects.link(root)
        bpy.context.view_layer.objects.active = root
        bpy.ops.object.mode_set(mode="EDIT")
        a = arm.edit_bones.new("hip")
        a.head, a.tail = (0, 0, 0), (0, 0, 1)
        b = arm.edit_bones.new("spine")
        b.head, b.tail, b.parent = (0, 0, 1), (0, 0, 2), a
        c = arm.edit_bones.new("arm")
        c.head, c.tail, c.parent = (0, 0, 2), (1, 0, 2), b
        bpy.ops.object.mode_set(mode="OBJECT")
        for name, size in (("hip", 0.8), ("spine", 0.5), ("arm", 0.3)):
            obj = box(f"{name}_mesh", size)
            obj.parent, obj.parent_type, obj.parent_bone = root, "BONE", name
        spine = root.pose.bones["spine"]
        spine.rotation_mode = "QUATERNION"
        for frame, angle in ((0, 0.0), (10, 0.8), (20, 0.0)):
            spine.rotation_quaternion = (np.cos(angle / 2), np.sin(angle / 2), 0, 0)
            spine.keyframe_insert("rotation_quaternion", frame=frame)
        root.pose.bones["hip"].location = (0, 0, 0)
        for frame, z in ((0, 0.0), (20, 1.0)):
            root.pose.bones["hip"].location = (0, 0, z)
            root.pose.bones["hip"].keyframe_insert("location", frame=frame)
    else:
        root = bpy.data.objects.new("Rig", None)
        collection.objects.link(root)
        parent = root
        for name, offset, size in (("hip", (0, 0, 0), 0.8), ("spine", (0, 0, 1), 0.5), ("arm", (0, 0, 1), 0.3)):
            empty = bpy.data.objects.new(name, None)
            collection.objects.link(empty)
            empty.parent, empty.location = parent, offset
            empty.rotation_mode = "QUATERNION"
            mesh = box(f"{name}_mesh", size)
            mesh.parent = empty
            parent = empty
        spine = bpy.data.objects["spine"]
        for frame, angle in ((0, 0.0), (10, 0.8), (20, 0.0)):
            spine.rotation_quaternion = (np.cos(angle / 2), np.sin(angle / 2), 0, 0)
            spine.keyframe_insert("rotation_quaternion", frame=frame)
    bpy.context.view_layer.objects.active = root
    root.select_set(True)
    return root


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_new_model_exports_validates_and_reimports(blender, tmp_path, node_mode):
    bpy = blender.bpy
    build_rig(bpy, node_mode)
    frames = np.arange(0, 21)
    meshes = {o.name: o for o in bpy.data.objects if o.type == "MESH"}
    expected_vertices = {}
    for f in (0, 7, 15):
        blender.evaluated_frame(f)
        for name, obj in meshes.items():
            expected_vertices[(name, f)] = np.array([np.array(obj.matrix_world @ v.co) for v in obj.data.vertices])
    out = tmp_path / "new.msh"
    export_file(bpy, out)
    model = Model.parse(out.read_bytes())
    assert validate_model(model) == []  # strict: no error, no warning
    assert [model.node_name(i) for i in range(model.node_count)] == ["hip", "spine", "arm"]
    assert model.vertex_count == 3 * 24 and len(model.triangles) == 3 * 12
    assert model.frame_count == 21
    blender.clean_scene()
    import_file(bpy, out, node_mode=node_mode)
    reimported = {o["msh_node_index"]: o for o in bpy.data.objects if o.type == "MESH"}
    order = {"hip_mesh": 0, "spine_mesh": 1, "arm_mesh": 2}
    for (name, f), vertices in expected_vertices.items():
        blender.evaluated_frame(f)
        obj = reimported[order[name]]
        got = np.array([np.array(obj.matrix_world @ v.co) for v in obj.data.vertices])
        for v in vertices:  # every original corner is among the re-imported (split) vertices
            assert np.abs(got - v).max(axis=1).min() < 2e-3
    world = world_matrices_at(AnimationData.from_model(model), frames, normalize=True)
    assert world.shape[:2] == (3, 21)


def test_export_into_an_archive_keeps_every_other_entry(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    archive = Archive()
    archive.add("first.msh", generated(50, node_count=3), MODEL_TYPE_ID)
    archive.add("target.msh", generated(51, node_count=4), MODEL_TYPE_ID)
    archive.add("other.tex", b"texture bytes", 0x6D786554, 1, 2, 3)
    path = write(tmp_path, "units.rlb", archive.to_bytes())
    original = Archive.parse((tmp_path / "units.rlb").read_bytes())
    import_file(bpy, path, entry_filter="target.msh")
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    tracks = read_animation(Model.parse(bytes(original.find("target.msh").data))).tracks
    animated = next(i for i, t in enumerate(tracks) if t.has_map)
    edit_rotation(bpy, root, animated, set(range(2, 5)), 0.3)
    export_file(bpy, path, entry="TARGET.MSH")
    written = Archive.parse((tmp_path / "units.rlb").read_bytes())
    assert [e.name for e in written] == [e.name for e in original]
    for name in ("first.msh", "other.tex"):
        assert bytes(written.find(name).data) == bytes(original.find(name).data)
        assert (written.find(name).attr1, written.find(name).type_id) == (original.find(name).attr1,
                                                                         original.find(name).type_id)
    assert validate_model(Model.parse(bytes(written.find("target.msh").data))) == []
    export_file(bpy, path, entry="added.msh")
    assert read_container((tmp_path / "units.rlb").read_bytes()).archive.find("added.msh") is not None


def test_a_failure_leaves_the_target_untouched_and_no_temporary_file(blender, tmp_path, sample_msh, monkeypatch):
    bpy = blender.bpy
    import_file(bpy, write(tmp_path, "sample.msh", sample_msh))
    target = tmp_path / "target.msh"
    target.write_bytes(b"precious")
    core_files = __import__("blender_env").ext.core.disk

    original_replace = core_files.os.replace

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(core_files.os, "replace", failing_replace)
    with pytest.raises(RuntimeError, match="No space left"):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    monkeypatch.setattr(core_files.os, "replace", original_replace)
    assert target.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sample.msh", "target.msh"]


def test_clear_errors_for_what_cannot_be_written(blender, tmp_path):
    bpy = blender.bpy
    root = build_rig(bpy, "ARMATURE")
    long_name = "a_very_long_bone_name_over_31_bytes"
    bpy.context.view_layer.objects.active = root
    root.data.bones["arm"].name = long_name
    target = tmp_path / "never.msh"
    with pytest.raises(RuntimeError, match=long_name):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert not target.exists()
    blender.clean_scene()
    root = build_rig(bpy, "EMPTIES")
    loose = bpy.data.objects.new("loose", bpy.data.meshes["hip_mesh"])
    bpy.context.scene.collection.objects.link(loose)
    loose.parent = root
    with pytest.raises(RuntimeError, match="'loose' is not attached to a node"):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert not target.exists()


def test_nothing_to_export_is_an_error(blender, tmp_path):
    bpy = blender.bpy
    with pytest.raises(RuntimeError, match="no model root"):
        bpy.ops.export_scene.parkan_msh(filepath=str(tmp_path / "x.msh"))


def test_an_instance_of_a_model_collection_is_refused_naming_it(blender, tmp_path, sample_msh):
    """An Empty that instances a collection holding a model (the Asset Browser's Link places an asset so) is
    refused with the way out, not exported as a new model of no nodes; nothing is written."""
    bpy = blender.bpy
    import_file(bpy, write(tmp_path, "asset.msh", sample_msh))
    collection = bpy.data.collections.new("asset")
    for obj in list(bpy.data.objects):
        collection.objects.link(obj)
        for owner in list(obj.users_collection):
            if owner != collection:
                owner.objects.unlink(obj)
    instance = bpy.data.objects.new("linked asset", None)
    instance.instance_type, instance.instance_collection = "COLLECTION", collection
    bpy.context.scene.collection.objects.link(instance)
    for obj in list(bpy.context.view_layer.objects.selected):
        obj.select_set(False)
    instance.select_set(True)
    bpy.context.view_layer.objects.active = instance
    target = tmp_path / "never.msh"
    with pytest.raises(RuntimeError, match=r"'linked asset' is an instance of the collection 'asset'.*Append"):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert not target.exists()


@pytest.mark.parametrize("keys", ["EVERY_FRAME", "BLENDER_KEYS"])
def test_other_key_modes(blender, tmp_path, keys):
    bpy = blender.bpy
    build_rig(bpy, "EMPTIES")
    out = tmp_path / "k.msh"
    export_file(bpy, out, keys=keys)
    model = Model.parse(out.read_bytes())
    assert validate_model(model) == []
    spine = read_animation(model).tracks[1]
    assert spine.times.tolist() == (list(range(21)) if keys == "EVERY_FRAME" else [0, 10, 20])


def test_export_operator_is_registered_with_the_file_handler(blender):
    bpy = blender.bpy
    handler = bpy.types.FileHandler.bl_rna_get_subclass_py("IO_FH_parkan_msh")
    assert handler.bl_export_operator == "export_scene.parkan_msh"


def test_collection_exporter_exports_the_model_of_that_collection(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    collection = bpy.data.collections.new("Unit")
    bpy.context.scene.collection.children.link(collection)
    layer = bpy.context.view_layer.layer_collection.children[collection.name]
    bpy.context.view_layer.active_layer_collection = layer
    import_file(bpy, write(tmp_path, "sample.msh", sample_msh))
    import_file(bpy, write(tmp_path, "other.msh", generated(80, node_count=3)))  # also in the collection
    other = bpy.data.collections.new("Other")
    bpy.context.scene.collection.children.link(other)
    root = next(o for o in bpy.data.objects if o.get("msh_model") == "other.msh")
    for obj in [root, *root.children_recursive]:
        for c in obj.users_collection:
            c.objects.unlink(obj)
        other.objects.link(obj)
    out = tmp_path / "from_collection.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out), collection="Unit") == {"FINISHED"}
    assert out.read_bytes() == sample_msh


@pytest.mark.parametrize("slots", ["CHOSEN", "ALL"])
def test_models_with_several_slots_round_trip_whichever_slots_were_imported(blender, tmp_path, slots):
    bpy = blender.bpy
    data = with_lod_slots()
    import_file(bpy, write(tmp_path, "lods.msh", data), slots=slots)
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    assert out.read_bytes() == data


def test_a_geometry_edit_rebuilds_the_geometry_and_keeps_the_animation(blender, tmp_path):
    bpy = blender.bpy
    data = generated(90, node_count=4, frame_count=12, animated=1.0)
    import_file(bpy, write(tmp_path, "g.msh", data), node_mode="EMPTIES")
    mesh_obj = next(o for o in bpy.data.objects if o.type == "MESH" and o["msh_node_index"] == 2)
    mesh_obj.data.vertices[0].co.z += 0.5
    moved = np.array(mesh_obj.data.vertices[0].co)
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    source, exported = Model.parse(data), Model.parse(out.read_bytes())
    assert not any(f.is_error for f in validate_model(exported))
    assert exported.data(8) == source.data(8) and exported.data(19) == source.data(19)  # animation untouched
    assert [exported.node_name(i) for i in range(4)] == [source.node_name(i) for i in range(4)]
    slot = exported.slots[int(exported.nodes[2]["slots"][0])]
    batch = exported.batches[int(slot["batch_start"])]
    positions = exported.positions[int(batch["base_vertex"]):]
    assert np.abs(positions - moved).max(axis=1).min() < 1e-6


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_constraints_on_objects_outside_the_model_are_evaluated(blender, tmp_path, node_mode):
    bpy = blender.bpy
    root = build_rig(bpy, node_mode)
    target = bpy.data.objects.new("outside target", None)  # not part of the model
    bpy.context.scene.collection.objects.link(target)
    for frame, z in ((0, 0.0), (20, 2.0)):
        target.location = (0.5, 0.0, z)
        target.keyframe_insert("location", frame=frame)
    owner = root.pose.bones["arm"] if node_mode == "ARMATURE" else bpy.data.objects["arm"]
    constraint = owner.constraints.new("COPY_LOCATION")
    constraint.target = target
    frames = np.arange(0, 21)
    before = []
    for f in frames:
        blender.evaluated_frame(f)
        world = np.array(owner.matrix) if node_mode == "ARMATURE" else np.array(owner.matrix_world)
        before.append(world[:3, 3])
    out = tmp_path / "constrained.msh"
    export_file(bpy, out)
    model = Model.parse(out.read_bytes())
    runtime = world_matrices_at(AnimationData.from_model(model), frames, normalize=True)
    np.testing.assert_allclose(runtime[2, :, :3, 3], np.array(before), atol=2e-4)
    assert np.ptp(np.array(before)[:, 2]) > 1.5  # the constraint really moved the node
