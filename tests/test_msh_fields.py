"""The MSH fields the game reads, written right for new and edited geometry: the slot
volume (Res2 +0x34), the slot area (+0x30, kept or 0 with a warning), Res7 face flags and Res1 node flags,
through the core writers and the real operators."""

import numpy as np
import pytest
from test_export import export_file, import_file, write

from core.authoring.build import SLOT_AREA, SLOT_VOLUME, ModelDef, NodeDef, Part, build_model
from core.authoring.splice import NewPart, splice_slots
from core.authoring.synth import box, box_uvs
from core.msh.model import Model
from core.msh.validate import validate_model

# Res7 words of the twelve box triangles: the four named bits, bits without a name (0x40, 0x100) and none
FACE_WORDS = np.array([0x02, 0x04, 0x10, 0x20, 0x22, 0x140, 0, 0, 0x06, 0, 0x100, 0], np.int64)
AREA = 2.5  # a source's slot area: its formula is unknown, so it is kept as read


def f32_word(value: float) -> int:
    return int(np.array([value], np.float32).view(np.uint32)[0])


def word_f32(word) -> float:
    return float(np.array([word], np.uint32).view(np.float32)[0])


def flagged_model() -> bytes:
    """Three nodes: 'hull' (no flags), 'iseat' (interior, 0x0001, with an unnamed bit 0x0100) and 'CP_m1o1'
    (cockpit, 0x0020); every part a box with the face words above, and a source area at +0x30."""
    pos, tris = box((2.0, 3.0, 4.0))
    nodes = [NodeDef("hull"), NodeDef("iseat", 0, flags=0x0101), NodeDef("CP_m1o1", 0, flags=0x0020)]
    parts = [Part(n, pos * (1 + n) / 2, tris, uvs=box_uvs(), face_flags=FACE_WORDS) for n in range(3)]
    model = build_model(ModelDef(nodes, parts))
    data = bytearray(model.data(2))
    slots = np.frombuffer(data, np.uint8)  # the header, then 68-byte records
    for record in range(3):
        at = 140 + 68 * record + 0x30
        slots[at:at + 4] = np.frombuffer(np.float32(AREA).tobytes(), np.uint8)
    model.set_stream(2, bytes(data))
    return model.to_bytes()


def test_a_built_slot_holds_its_box_volume_and_face_flags_and_area_zero():
    pos, tris = box((2.0, 3.0, 4.0))
    model = build_model(ModelDef([NodeDef("a")], [Part(0, pos, tris, face_flags=FACE_WORDS, material=0)]))
    slot = model.slots[0]
    assert word_f32(slot["unknown"][SLOT_VOLUME]) == pytest.approx(24.0)
    assert slot["unknown"][SLOT_AREA] == 0 and not slot["unknown"][2:].any()
    assert sorted(model.triangles["flags"].tolist()) == sorted(FACE_WORDS.tolist())
    assert not any(f.is_error for f in validate_model(model))


def test_a_spliced_slot_recomputes_its_volume_and_keeps_the_sources_other_tail_words():
    source = Model.parse(flagged_model())
    kept = source.slots[1]["unknown"].copy()
    kept[2:] = (7, 8, 9)
    pos, tris = box((1.0, 1.0, 6.0))
    spliced = splice_slots(source, [NewPart(Part(1, pos, tris), unknown=kept),
                                    NewPart(Part(0, pos * 2, tris, slot=1))])
    edited = spliced.slots[int(spliced.nodes[1]["slots"][0])]
    assert word_f32(edited["unknown"][SLOT_VOLUME]) == pytest.approx(6.0)
    assert word_f32(edited["unknown"][SLOT_AREA]) == AREA and edited["unknown"][2:].tolist() == [7, 8, 9]
    new = spliced.slots[int(spliced.nodes[0]["slots"][1])]
    assert word_f32(new["unknown"][SLOT_VOLUME]) == pytest.approx(48.0) and new["unknown"][SLOT_AREA] == 0
    untouched = spliced.slots[int(spliced.nodes[2]["slots"][0])]
    assert untouched["unknown"].tobytes() == source.slots[int(source.nodes[2]["slots"][0])]["unknown"].tobytes()


def mesh_of(root, node: int):
    return next(o for o in root.children_recursive if o.type == "MESH" and o["msh_node_index"] == node)


def face_attribute(mesh, name: str, kind=bool) -> np.ndarray:
    values = np.zeros(len(mesh.polygons), kind)
    mesh.attributes[name].data.foreach_get("value", values)
    return values


def slot_triangles(model: Model, node: int) -> np.ndarray:
    slot = model.slots[int(model.nodes[node]["slots"][0])]
    return model.triangles[int(slot["tri_start"]):int(slot["tri_start"]) + int(slot["tri_count"])]


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_import_shows_face_and_node_flags_and_an_unchanged_export_is_byte_identical(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = flagged_model()
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    hull = mesh_of(root, 0).data
    for name, bit in (("msh_walkable", 2), ("msh_see_through", 4), ("msh_door", 0x10), ("msh_glass", 0x20)):
        assert face_attribute(hull, name).tolist() == ((FACE_WORDS & bit) != 0).tolist(), name
    assert face_attribute(hull, "msh_face_flags", np.int32).tolist() == FACE_WORDS.tolist()
    nodes = {n["msh_node_index"]: n for n in (root.data.bones if node_mode == "ARMATURE" else root.children_recursive)
             if "msh_node_index" in n and (node_mode == "ARMATURE" or n.type == "EMPTY")}
    assert [nodes[i]["msh_node_flags"] for i in range(3)] == [0, 0x0101, 0x0020]
    assert [bool(nodes[i]["msh_interior"]) for i in range(3)] == [False, True, False]
    assert [bool(nodes[i]["msh_cockpit"]) for i in range(3)] == [False, False, True]
    assert [c.name for c in mesh_of(root, 1).users_collection] == ["in.msh interior"]
    assert [c.name for c in mesh_of(root, 2).users_collection] == ["in.msh cockpit"]
    assert mesh_of(root, 0).users_collection[0].name not in ("in.msh interior", "in.msh cockpit")
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    assert out.read_bytes() == data


def test_a_face_flag_edit_rewrites_only_those_flag_words(blender, tmp_path):
    bpy = blender.bpy
    data = flagged_model()
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data))
    mesh = mesh_of(root, 1).data
    glass = face_attribute(mesh, "msh_glass")
    glass[6] = True    # a face without flags becomes glass
    glass[3] = False   # a glass face is glass no more
    mesh.attributes["msh_glass"].data.foreach_set("value", glass)
    walkable = face_attribute(mesh, "msh_walkable")
    walkable[5] = True  # a face with unnamed bits (0x140) keeps them
    mesh.attributes["msh_walkable"].data.foreach_set("value", walkable)
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    source, exported = Model.parse(data), Model.parse(out.read_bytes())
    wanted = FACE_WORDS.copy()
    wanted[6], wanted[3], wanted[5] = 0x20, 0, 0x142
    assert slot_triangles(exported, 1)["flags"].tolist() == wanted.tolist()
    assert slot_triangles(exported, 0)["flags"].tolist() == FACE_WORDS.tolist()
    # Nothing else changed: every other stream and the rest of the triangle records are the source's.
    assert [e.type_id for e in exported.archive.entries] == [e.type_id for e in source.archive.entries]
    for type_id in [e.type_id for e in source.archive.entries if e.type_id != 7]:
        assert bytes(exported.data(type_id)) == bytes(source.data(type_id)), type_id
    rest = exported.triangles.copy()
    rest["flags"] = source.triangles["flags"]
    assert rest.tobytes() == source.triangles.tobytes()


def test_a_node_flag_edit_is_written_to_res1(blender, tmp_path):
    bpy = blender.bpy
    data = flagged_model()
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data))
    bones = {b["msh_node_index"]: b for b in root.data.bones}
    bones[1]["msh_interior"] = False   # 0x0101 -> 0x0100: the unnamed bit stays
    bones[0]["msh_cockpit"] = True
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    exported = Model.parse(out.read_bytes())
    assert exported.nodes["flags"].tolist() == [0x0020, 0x0100, 0x0020]
    assert bytes(exported.data(7)) == bytes(Model.parse(data).data(7))


def test_an_edited_part_keeps_its_flags_and_area_and_gets_its_new_volume(blender, tmp_path, capfd):
    bpy = blender.bpy
    data = flagged_model()
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data))
    obj = mesh_of(root, 0)
    for vertex in obj.data.vertices:
        vertex.co.z *= 2  # the box was 1 x 1.5 x 2: now 1 x 1.5 x 4 (node 0 is at the origin, unrotated)
    obj.data.update()
    capfd.readouterr()
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    output = capfd.readouterr().out
    assert "slot area" not in output
    exported = Model.parse(out.read_bytes())
    slot = exported.slots[int(exported.nodes[0]["slots"][0])]
    assert word_f32(slot["unknown"][SLOT_VOLUME]) == pytest.approx(6.0, rel=1e-5)
    assert word_f32(slot["unknown"][SLOT_AREA]) == AREA
    assert sorted(slot_triangles(exported, 0)["flags"].tolist()) == sorted(FACE_WORDS.tolist())


def test_a_new_part_gets_its_volume_and_a_warning_naming_its_slot_for_the_area(blender, tmp_path, capfd):
    bpy = blender.bpy
    data = flagged_model()
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data))
    copy = mesh_of(root, 0).copy()
    copy.data = copy.data.copy()
    copy["msh_slot"] = 1
    bpy.context.scene.collection.objects.link(copy)
    capfd.readouterr()
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    output = capfd.readouterr().out
    assert "slot area (Res2 +0x30) written as 0 for the new slot(s) intact LOD 1 of node 'hull'" in output
    exported = Model.parse(out.read_bytes())
    slot = exported.slots[int(exported.nodes[0]["slots"][1])]
    assert word_f32(slot["unknown"][SLOT_VOLUME]) == pytest.approx(3.0, rel=1e-5)
    assert slot["unknown"][SLOT_AREA] == 0
    # The copy carries the face attributes: the new slot's triangles hold the same words.
    start = int(slot["tri_start"])
    assert sorted(exported.triangles[start:start + 12]["flags"].tolist()) == sorted(FACE_WORDS.tolist())
