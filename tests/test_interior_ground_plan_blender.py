"""Export Unit writes a building's ground plan back: the two loops Import Unit shows (``inner`` and ``outer``)
with a corner moved give the ``.bas`` entry of ``fortif.rlb`` that corner's three floats (and the closing point
when it is the first corner) and nothing else; the archive's other entries, the records and the tree keep their
bytes; an unmoved plan leaves every file as it was. A corner added or deleted, or a plan of another form than
the two rings, refuses the export naming the plan, and nothing is written."""

from __future__ import annotations

import numpy as np
import pytest
from unit_fixtures import write_game

from core.authoring import interiors as I
from core.container.nres import Archive
from core.interior import bas as B

PLAN = f"{I.BUILDING}.bas"


def _import(bpy, folder, files=None):
    write_game(folder, files or I.interior_files())
    assert bpy.ops.import_scene.parkan_unit(filepath=str(folder / I.HALL_DAT)) == {"FINISHED"}
    (plan_obj,) = [o for o in bpy.data.objects if "msh_ground_plan" in o]
    return plan_obj


def _files(folder) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in (I.FORTIF, I.OBJECTS, I.HALL_DAT)}


def _export(bpy, folder):
    return bpy.ops.export_scene.parkan_unit(filepath=str(folder / I.HALL_DAT))


def _plan_bytes(folder) -> bytes:
    return bytes(Archive.parse((folder / I.FORTIF).read_bytes()).find(PLAN).data)


def _object_mode(bpy, obj):
    if obj.mode == "EDIT":
        bpy.context.view_layer.objects.active = obj
        bpy.ops.object.mode_set(mode="OBJECT")


def test_an_unmoved_ground_plan_leaves_every_file_as_it_was(blender, tmp_path):
    bpy = blender.bpy
    _import(bpy, tmp_path)
    before = _files(tmp_path)
    assert _export(bpy, tmp_path) == {"FINISHED"}
    assert _files(tmp_path) == before


@pytest.mark.parametrize("corner", [0, 2, "outer"])
def test_a_moved_corner_changes_its_floats_in_the_bas_and_nothing_else(blender, tmp_path, corner):
    bpy = blender.bpy
    plan_obj = _import(bpy, tmp_path)
    before = _files(tmp_path)
    source, _ = B.read_bas(_plan_bytes(tmp_path))
    inner = source.inner[0].count
    vertex = inner + 1 if corner == "outer" else corner
    v = plan_obj.data.vertices[vertex]
    v.co = (np.array(v.co) + np.array([0.5, -0.25, 0.0])).tolist()
    assert _export(bpy, tmp_path) == {"FINISHED"}
    after = _files(tmp_path)
    assert after[I.OBJECTS] == before[I.OBJECTS] and after[I.HALL_DAT] == before[I.HALL_DAT]
    old, new = Archive.parse(before[I.FORTIF]), Archive.parse(after[I.FORTIF])
    for a, b in zip(old.entries, new.entries, strict=True):  # every other entry, every header word, as read
        assert (a.name, a.type_id, a.attr1, a.attr2, a.attr3) == (b.name, b.type_id, b.attr1, b.attr2, b.attr3)
        if a.name_str != PLAN:
            assert bytes(a.data) == bytes(b.data)
    raw, written = bytes(old.find(PLAN).data), bytes(new.find(PLAN).data)
    assert len(raw) == len(written)
    # the point's offset: 4 (count) + 4 (n) + 12 per point; an outer one after the inner ring's back-references
    start = 8 + 12 * vertex if corner != "outer" else 8 + 12 * (inner + 1) + 8 * inner + 8 + 12 * 1
    changed = {i for i in range(len(raw)) if raw[i] != written[i]}
    spans = [range(start, start + 12)]
    if corner == 0:  # the closing point repeats the first corner
        spans.append(range(8 + 12 * inner, 8 + 12 * inner + 12))
    assert changed and changed <= {i for span in spans for i in span}
    point = np.frombuffer(written, "<f4", 3, start)
    assert np.allclose(point, np.frombuffer(raw, "<f4", 3, start) + np.array([0.5, -0.25, 0.0]), atol=1e-6)
    got, findings = B.read_bas(written)
    assert got.form == B.TWO_RINGS and not [f for f in findings if f.is_error]
    assert _export(bpy, tmp_path) == {"FINISHED"}  # the plan now describes the file: the same bytes again
    assert _files(tmp_path) == after


def test_a_plan_moved_in_edit_mode_is_written_as_shown(blender, tmp_path):
    import bmesh

    bpy = blender.bpy
    plan_obj = _import(bpy, tmp_path)
    raw = _plan_bytes(tmp_path)
    blender.ext.io_msh.com.hierarchy.layer_collection(bpy.context, plan_obj.users_collection[0]).hide_viewport = False
    for other in bpy.context.selected_objects:
        other.select_set(False)
    bpy.context.view_layer.objects.active = plan_obj
    bpy.ops.object.mode_set(mode="EDIT")
    mesh = bmesh.from_edit_mesh(plan_obj.data)
    mesh.verts.ensure_lookup_table()
    mesh.verts[1].co.y += 1.0
    bmesh.update_edit_mesh(plan_obj.data)
    assert _export(bpy, tmp_path) == {"FINISHED"}
    written = _plan_bytes(tmp_path)
    assert np.frombuffer(written, "<f4", 1, 8 + 12 + 4)[0] == np.frombuffer(raw, "<f4", 1, 8 + 12 + 4)[0] + 1.0
    assert plan_obj.mode == "EDIT"
    _object_mode(bpy, plan_obj)


@pytest.mark.parametrize("edit", ["add", "delete"])
def test_a_corner_added_or_deleted_refuses_the_export_and_nothing_is_written(blender, tmp_path, edit):
    import bmesh

    bpy = blender.bpy
    plan_obj = _import(bpy, tmp_path)
    plan_obj.data.vertices[0].co.x += 1.0  # a move too: the refusal is for the count
    before = _files(tmp_path)
    mesh = bmesh.new()
    mesh.from_mesh(plan_obj.data)
    mesh.verts.ensure_lookup_table()
    if edit == "add":
        mesh.verts.new((1.0, 2.0, 0.0))
    else:
        mesh.verts.remove(mesh.verts[3])
    mesh.to_mesh(plan_obj.data)
    mesh.free()
    with pytest.raises(RuntimeError, match=r"ground plan fortif\.rlb/synth_hall\.bas .*moved, not added or deleted"):
        _export(bpy, tmp_path)
    assert _files(tmp_path) == before


def test_a_plan_of_another_form_is_carried_and_its_edit_refused(blender, tmp_path):
    bpy = blender.bpy
    archive = I.fortif_archive()
    archive.replace(PLAN, I.multi_contour_plan())
    files = {**I.interior_files(), I.FORTIF: archive.to_bytes()}
    plan_obj = _import(bpy, tmp_path, files)
    assert plan_obj["msh_ground_plan_form"] == B.OTHER
    before = _files(tmp_path)
    assert _export(bpy, tmp_path) == {"FINISHED"}  # unmoved: carried byte for byte
    assert _files(tmp_path) == before
    plan_obj.data.vertices[1].co.x += 0.5
    with pytest.raises(RuntimeError, match=r"not in the two-ring form.*cannot be moved"):
        _export(bpy, tmp_path)
    assert _files(tmp_path) == before


def test_a_plan_another_program_changed_is_not_overwritten(blender, tmp_path):
    bpy = blender.bpy
    plan_obj = _import(bpy, tmp_path)
    archive = Archive.parse((tmp_path / I.FORTIF).read_bytes())
    other = bytearray(archive.find(PLAN).data)
    other[8:12] = np.float32(9.0).tobytes()
    archive.replace(PLAN, bytes(other))
    (tmp_path / I.FORTIF).write_bytes(archive.to_bytes())
    before = _files(tmp_path)
    plan_obj.data.vertices[2].co.x += 0.5
    with pytest.raises(RuntimeError, match="changed"):
        _export(bpy, tmp_path)
    assert _files(tmp_path) == before


def test_an_edit_exported_then_undone_is_written_back(blender, tmp_path):
    """Ctrl+Z after an export takes back the corner and the plan's record of what it was read as: the next export
    compares with this process's record of what it wrote and writes the plan as it now is."""
    bpy = blender.bpy
    plan_obj = _import(bpy, tmp_path)
    before = _files(tmp_path)
    recorded = bytes(plan_obj["msh_ground_plan_read"])
    was = tuple(plan_obj.data.vertices[4].co)
    plan_obj.data.vertices[4].co.x += 2.0
    assert _export(bpy, tmp_path) == {"FINISHED"}
    assert _files(tmp_path)[I.FORTIF] != before[I.FORTIF]
    plan_obj.data.vertices[4].co = was  # what Ctrl+Z restores: the corner and the custom property
    blender.ext.io_msh.com.props.store_bytes(plan_obj, "msh_ground_plan_read", recorded)
    assert _export(bpy, tmp_path) == {"FINISHED"}
    assert _plan_bytes(tmp_path) == bytes(Archive.parse(before[I.FORTIF]).find(PLAN).data)
