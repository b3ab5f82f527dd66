"""An edit of one part keeps every other slot (damage stages, LODs) as the source has it,
through the real operators."""

import numpy as np
import pytest
from test_export import export_file, import_file, write

from core.authoring.build import ModelDef, NodeDef, Part, build_model
from core.authoring.synth import box, box_uvs
from core.msh import streams as S
from core.msh.model import Model
from core.msh.validate import validate_model

# (node, slot position, scale): intact LOD 0 and 1, damage 1 LOD 0, damage 2 first-person
LAYOUT = [(0, 0, 1.0), (0, 1, 0.5), (0, 5, 0.8), (1, 0, 1.0), (1, 1, 0.3), (1, 14, 0.6), (2, 0, 0.7),
          (2, 10, 0.4)]
EDITED = (1, 0)


def layered_model(extra_streams: bool = True) -> bytes:
    """Three nodes with parts in several damage stages and LODs, and per-vertex streams Blender does not
    hold (Res15, Res18) with a distinct value at every vertex."""
    pos, tris = box()
    parts = [Part(node, pos * scale + node, tris, uvs=box_uvs(), slot=slot) for node, slot, scale in LAYOUT]
    model = build_model(ModelDef([NodeDef("a"), NodeDef("b", 0), NodeDef("c", 1)], parts))
    if extra_streams:
        count = model.vertex_count
        model.set_stream(15, (np.arange(count * 8) % 251).astype(np.uint8).tobytes(), attr1=count, attr3=8)
        model.set_stream(18, (np.arange(count * 2) * 7 % 4096).astype(np.uint16).tobytes(), attr1=count,
                         attr3=4)
    return model.to_bytes()


def slot_content(model: Model, node: int, position: int) -> dict:
    """What a node slot holds, independent of where it lies in the streams: its slot record without the
    two offsets, its triangle records (links relative to the slot), its batches without offsets, and the
    bytes of every per-vertex stream at each index the batches draw."""
    slot = model.slots[int(model.nodes[node]["slots"][position])].copy()
    start = int(slot["tri_start"])
    triangles = model.triangles[start:start + int(slot["tri_count"])].copy()
    triangles["links"] = np.where(triangles["links"] == 0xFFFF, 0xFFFF, triangles["links"] - start)
    batches = model.batches[int(slot["batch_start"]):int(slot["batch_start"]) + int(slot["batch_count"])].copy()
    drawn = np.concatenate([model.indices[int(b["index_start"]):int(b["index_start"]) + int(b["index_count"])]
                            .astype(np.int64) + int(b["base_vertex"]) for b in batches])
    vertices = {t: np.frombuffer(bytes(model.data(t)), np.uint8).reshape(model.vertex_count, -1)[drawn].tobytes()
                for t in (3, 4, 5, 15, 18) if model.stream(t) is not None}
    slot["tri_start"], slot["batch_start"] = 0, 0
    batches["index_start"], batches["base_vertex"] = 0, 0
    return {"record": slot.tobytes(), "triangles": triangles.tobytes(), "batches": batches.tobytes(), **vertices}


def mesh_at(root, node, position):
    return next(o for o in root.children_recursive
                if o.type == "MESH" and o["msh_node_index"] == node and o.get("msh_slot", 0) == position)


def import_with_faces_changed(bpy, tmp_path, data: bytes) -> None:
    """``data`` imported, the edited part's first two edges subdivided (new faces and vertices)."""
    import bmesh

    (root,) = import_file(bpy, write(tmp_path, "in.msh", data))
    mesh = mesh_at(root, *EDITED)
    bm = bmesh.new()
    bm.from_mesh(mesh.data)
    bmesh.ops.subdivide_edges(bm, edges=bm.edges[:2], cuts=1)
    bmesh.ops.triangulate(bm, faces=bm.faces[:])
    bm.to_mesh(mesh.data)
    bm.free()


@pytest.mark.parametrize("slots", ["CHOSEN", "ALL"])
def test_moving_one_vertex_keeps_every_other_slot_as_the_source_has_it(blender, tmp_path, capfd, slots):
    bpy = blender.bpy
    data = layered_model()
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), slots=slots)
    mesh = mesh_at(root, *EDITED)
    mesh.data.vertices[3].co.x += 0.25
    moved = np.array(mesh.data.vertices[3].co)
    capfd.readouterr()
    export_file(bpy, tmp_path / "out.msh")
    output = capfd.readouterr().out
    assert "Res16" not in output and "are dropped" not in output
    assert f"mesh {mesh.name!r} rebuilt" in output
    source, exported = Model.parse(data), Model.parse((tmp_path / "out.msh").read_bytes())
    assert not any(f.is_error for f in validate_model(exported))
    assert len(exported.slots) == len(LAYOUT)
    for node, position, _scale in LAYOUT:
        if (node, position) != EDITED:
            assert slot_content(exported, node, position) == slot_content(source, node, position), (node, position)
    edited, original = slot_content(exported, *EDITED), slot_content(source, *EDITED)
    positions = np.frombuffer(edited[3], np.float32).reshape(-1, 3)
    assert np.abs(positions - moved).max(axis=1).min() < 1e-6
    assert edited[3] != original[3]
    # The vertices are still the imported ones: their Res15 and Res18 values follow them.
    assert edited[15] == original[15] and edited[18] == original[18]
    # Streams with nothing of the edited part in them are the source's bytes.
    for type_id in (8, 9, 10, 19):
        assert bytes(exported.data(type_id)) == bytes(source.data(type_id))


def test_a_part_whose_faces_changed_is_refused_when_a_stream_blender_does_not_hold_cannot_follow(
        blender, tmp_path):
    bpy = blender.bpy
    import_with_faces_changed(bpy, tmp_path, layered_model())
    target = tmp_path / "out.msh"
    target.write_bytes(b"precious")
    with pytest.raises(RuntimeError, match=r"mesh 'b'.*extra vertex stream \(Res15\)"):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert target.read_bytes() == b"precious"


def test_a_part_whose_faces_changed_is_rebuilt_alone_without_streams_blender_does_not_hold(blender, tmp_path):
    bpy = blender.bpy
    data = layered_model(extra_streams=False)
    import_with_faces_changed(bpy, tmp_path, data)
    export_file(bpy, tmp_path / "out.msh")
    source, exported = Model.parse(data), Model.parse((tmp_path / "out.msh").read_bytes())
    assert not any(f.is_error for f in validate_model(exported))
    assert int(exported.slots[int(exported.nodes[1]["slots"][0])]["tri_count"]) > 12
    for node, position, _scale in LAYOUT:
        if (node, position) != EDITED:
            assert slot_content(exported, node, position) == slot_content(source, node, position), (node, position)


def test_deleting_an_imported_part_empties_only_its_slot(blender, tmp_path):
    bpy = blender.bpy
    data = layered_model()
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data))
    bpy.data.objects.remove(mesh_at(root, *EDITED))
    export_file(bpy, tmp_path / "out.msh")
    source, exported = Model.parse(data), Model.parse((tmp_path / "out.msh").read_bytes())
    assert not any(f.is_error for f in validate_model(exported))
    assert int(exported.nodes[EDITED[0]]["slots"][EDITED[1]]) == 0xFFFF
    for node, position, _scale in LAYOUT:
        if (node, position) != EDITED:
            assert slot_content(exported, node, position) == slot_content(source, node, position), (node, position)


def test_a_new_node_refuses_to_drop_slots_that_were_not_imported(blender, tmp_path):
    bpy = blender.bpy
    data = layered_model(extra_streams=False)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode="EMPTIES")
    extra = bpy.data.objects.new("added", None)
    bpy.context.scene.collection.objects.link(extra)
    extra.parent = root
    target = tmp_path / "out.msh"
    with pytest.raises(RuntimeError, match="the other damage stages and LODs would be lost; import it with "
                                           "Geometry: All Slots"):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert not target.exists()


def labelled_model() -> bytes:
    """Three nodes with Res10 labels (socket labels, units-clips-digest.md 1.5); node 2 has no Res9 name, so
    the import names it by its label."""
    pos, tris = box()
    nodes = [NodeDef("body", label="e_tur_mt"), NodeDef("gun", 0), NodeDef(b"", 0, label="central_lc")]
    return build_model(ModelDef(nodes, [Part(i, pos + i, tris, uvs=box_uvs()) for i in range(3)])).to_bytes()


def _node_item(bpy, root, index):
    if root.type == "ARMATURE":
        return next(b for b in root.data.bones if b.get("msh_node_index") == index)
    return next(o for o in bpy.data.objects if o.type == "EMPTY" and o.get("msh_node_index") == index)


def _add_node(bpy, root) -> None:
    """A new bone (Armature) or Empty (Empties) in the model: its node structure changes."""
    if root.type == "ARMATURE":
        bpy.context.view_layer.objects.active = root
        bpy.ops.object.mode_set(mode="EDIT")
        bone = root.data.edit_bones.new("added")
        bone.head, bone.tail, bone.parent = (0, 0, 0), (0, 0, 1), root.data.edit_bones[0]
        bpy.ops.object.mode_set(mode="OBJECT")
    else:
        extra = bpy.data.objects.new("added", None)
        bpy.context.scene.collection.objects.link(extra)
        extra.parent = root


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_new_node_keeps_every_imported_nodes_label(blender, tmp_path, capfd, node_mode):
    """A new node rebuilds the model from the scene: the imported nodes keep their Res10 labels (a socket
    loses none of what it takes), the renamed node named by its label gets the new name there too."""
    bpy = blender.bpy
    (root,) = import_file(bpy, write(tmp_path, "in.msh", labelled_model()), node_mode=node_mode)
    assert _node_item(bpy, root, 2).name == "central_lc"
    _node_item(bpy, root, 2).name = "central_mc"
    _add_node(bpy, root)
    export_file(bpy, tmp_path / "out.msh")
    assert "the model is rebuilt from the scene" in capfd.readouterr().out
    exported = Model.parse((tmp_path / "out.msh").read_bytes())
    assert not any(f.is_error for f in validate_model(exported))
    assert exported.labels == [b"e_tur_mt", None, b"central_mc", None]
    assert [exported.node_name(i) for i in range(4)] == ["body", "gun", "central_mc", "added"]


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_node_name_with_the_byte_cp1251_lacks_survives_a_rebuild(blender, tmp_path, node_mode):
    """0x98 (undefined in cp1251) in a node's Res9 name and Res10 label reads as U+0098, not U+FFFD, so a model
    rebuilt for a new node writes the same bytes instead of refusing a name the user never touched."""
    bpy = blender.bpy
    pos, tris = box()
    nodes = [NodeDef(b"body\x98", label=b"e_tur\x98"), NodeDef(b"gun", 0)]
    data = build_model(ModelDef(nodes, [Part(i, pos + i, tris, uvs=box_uvs()) for i in range(2)])).to_bytes()
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    assert _node_item(bpy, root, 0).name == "body\x98"
    _add_node(bpy, root)
    export_file(bpy, tmp_path / "out.msh")
    exported = Model.parse((tmp_path / "out.msh").read_bytes())
    assert exported.node_names_raw[0].rstrip(b"\0") == b"body\x98"
    assert exported.labels[:2] == [b"e_tur\x98", None]


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_new_node_keeps_the_exact_keys_of_every_untouched_node(blender, tmp_path, node_mode):
    """A model rebuilt for a new bone or Empty (in Euler mode, a new Empty's default, turned): an imported node
    whose curves, parent and first frame are the import's keeps its source keys exactly (its game pose, slerp
    between the keys), instead of keys read back from the curves (a Keys import shows them linear)."""
    from core.animation.tracks import Animation, Track, read_animation

    bpy = blender.bpy
    half_turns = [np.array([np.cos(a / 2), 0, 0, np.sin(a / 2)]) for a in (0.0, 2.1, 0.3)]
    turret = Track.from_keys([0, 6, 11], [[1.0, 0, 0]] * 3, S.encode_rotations(np.array(half_turns)))
    lift = Track.from_keys([0, 11], [[0, 0, 0], [0, 0, 2.0]], S.encode_rotations(np.array([[1.0, 0, 0, 0]] * 2)))
    pos, tris = box()
    data = build_model(ModelDef([NodeDef("body"), NodeDef("turret", 0)], [Part(0, pos, tris, uvs=box_uvs()),
                                Part(1, pos * 0.5, tris, uvs=box_uvs())], Animation(12, [lift, turret]))).to_bytes()
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode, animation="KEYS")
    _add_node(bpy, root)
    if node_mode == "EMPTIES":
        bpy.data.objects["added"].rotation_euler = (0.3, 0.2, 0.1)
    export_file(bpy, tmp_path / "out.msh")
    source, exported = read_animation(Model.parse(data)), read_animation(Model.parse((tmp_path / "out.msh")
                                                                                     .read_bytes()))
    for kept in (0, 1):
        for field in ("times", "pos", "rot"):
            assert np.array_equal(getattr(exported.tracks[kept], field), getattr(source.tracks[kept], field))


@pytest.mark.parametrize("animation", ["FAITHFUL", "KEYS"])
@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_new_node_keeps_the_game_pose_of_untouched_nodes_with_non_canonical_maps(blender, tmp_path, node_mode,
                                                                                  animation):
    """A non-canonical frame map of an untouched node is carried into the rebuilt model (moved to where its keys
    now lie): the game shows every imported node at every frame exactly as before."""
    from fixtures import generated, non_canonical

    from core.animation.sampler import AnimationData, world_matrices_at

    bpy = blender.bpy
    data = non_canonical(generated(31, node_count=4, frame_count=15))
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode, animation=animation)
    _add_node(bpy, root)
    export_file(bpy, tmp_path / "out.msh")
    source, exported = Model.parse(data), Model.parse((tmp_path / "out.msh").read_bytes())
    assert not any(f.is_error for f in validate_model(exported))
    frames = np.arange(source.frame_count + 3, dtype=np.float64)
    was = world_matrices_at(AnimationData.from_model(source), frames, normalize=True)
    now = world_matrices_at(AnimationData.from_model(exported), frames, normalize=True)
    assert np.array_equal(now[:source.node_count], was)
