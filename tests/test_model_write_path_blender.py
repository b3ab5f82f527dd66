"""Export Parkan MSH through the one write path (core.write_path): a model another program changed in its file
after the import is refused when the scene changes it, kept when nothing of the scene does; an edit exported
then undone is written back; a file of another kind is never replaced; another model's entry changed meanwhile
is kept."""

from __future__ import annotations

import pytest
from fixtures import generated
from test_export import import_file, write
from test_export_files import move_a_vertex, select

from core.container.nres import MODEL_TYPE_ID, Archive


def in_window(bpy):
    return bpy.context.temp_override(window=bpy.context.window_manager.windows[0])


def export(bpy, path, **options):
    return bpy.ops.export_scene.parkan_msh(filepath=str(path), **options)


def model_root(bpy):
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    return root


@pytest.fixture
def model_file(blender, tmp_path):
    bpy = blender.bpy
    path = write(tmp_path, "tank.msh", generated(90, node_count=3))
    import_file(bpy, path)
    return bpy, tmp_path / "tank.msh"


def test_an_untouched_export_keeps_what_another_program_wrote_since_the_import(model_file):
    bpy, path = model_file
    other = generated(91, node_count=3)
    path.write_bytes(other)
    assert export(bpy, path) == {"FINISHED"}
    assert path.read_bytes() == other


def test_an_edit_over_a_file_changed_since_the_import_is_refused_unless_asked(model_file):
    bpy, path = model_file
    other = generated(91, node_count=3)
    path.write_bytes(other)
    move_a_vertex(model_root(bpy))
    with pytest.raises(RuntimeError, match=r"tank\.msh: cannot write: the model changed on disk after the import"):
        export(bpy, path)
    assert path.read_bytes() == other
    assert export(bpy, path, replace_changed=True) == {"FINISHED"}
    assert path.read_bytes() != other


def test_an_edit_exported_then_undone_is_written_back(model_file):
    bpy, path = model_file
    source = path.read_bytes()
    with in_window(bpy):
        bpy.ops.ed.undo_push(message="import")
    move_a_vertex(model_root(bpy))
    with in_window(bpy):
        bpy.ops.ed.undo_push(message="move a vertex")
    assert export(bpy, path) == {"FINISHED"}
    assert path.read_bytes() != source
    with in_window(bpy):
        assert bpy.ops.ed.undo() == {"FINISHED"}  # the vertex (and what the export recorded on the root) undone
    select(bpy, model_root(bpy))
    assert export(bpy, path) == {"FINISHED"}
    assert path.read_bytes() == source  # the file shows the scene as it is now


def test_a_second_edit_after_an_export_is_no_change_of_another_program(model_file):
    bpy, path = model_file
    move_a_vertex(model_root(bpy))
    assert export(bpy, path) == {"FINISHED"}
    first = path.read_bytes()
    move_a_vertex(model_root(bpy))
    assert export(bpy, path) == {"FINISHED"}
    assert path.read_bytes() != first


def test_an_export_onto_a_file_of_another_kind_is_refused(blender, tmp_path):
    bpy = blender.bpy
    import_file(bpy, write(tmp_path, "tank.msh", generated(90, node_count=3)))
    scene_file = tmp_path / "scene.glb"
    scene_file.write_bytes(b"glTF\x02\x00\x00\x00" + bytes(8))
    before = scene_file.read_bytes()
    with pytest.raises(RuntimeError, match="holds a binary glTF file, and this export writes a model"):
        export(bpy, scene_file.with_suffix(".glb"))
    assert scene_file.read_bytes() == before


def test_an_entry_changed_since_the_import_refuses_its_edit_and_another_entrys_change_is_kept(blender, tmp_path):
    bpy = blender.bpy
    archive = Archive()
    archive.add("first.msh", generated(80, node_count=2), MODEL_TYPE_ID)
    archive.add("second.msh", generated(81, node_count=3), MODEL_TYPE_ID)
    path = write(tmp_path, "units.rlb", archive.to_bytes())
    first, _second = sorted(import_file(bpy, path), key=lambda r: r["msh_model"])
    changed = Archive.parse(archive.to_bytes())
    changed.find("second.msh").data = generated(82, node_count=3)
    (tmp_path / "units.rlb").write_bytes(changed.to_bytes())
    move_a_vertex(first)
    select(bpy, first)
    assert export(bpy, path) == {"FINISHED"}
    written = Archive.parse((tmp_path / "units.rlb").read_bytes())
    assert bytes(written.find("second.msh").data) == generated(82, node_count=3)  # the other program's, kept
    assert bytes(written.find("first.msh").data) != generated(80, node_count=2)
    again = Archive.parse(written.to_bytes())
    again.find("first.msh").data = generated(83, node_count=2)
    (tmp_path / "units.rlb").write_bytes(again.to_bytes())
    before = (tmp_path / "units.rlb").read_bytes()
    move_a_vertex(first)
    with pytest.raises(RuntimeError, match=r"its entry .first\.msh. changed on disk after the import"):
        export(bpy, path)
    assert (tmp_path / "units.rlb").read_bytes() == before


def test_an_import_after_an_export_killed_between_two_replacements_puts_the_set_back(blender, tmp_path, capfd):
    """A set a killed writer left half replaced (tank.msh new, tank.wea old, the journal beside them): the
    import reads the set back whole, as it was before that write, and says so."""
    import subprocess
    import sys

    from test_write_path import KILLER, ROOT

    bpy = blender.bpy
    model = tmp_path / "tank.msh"
    model.write_bytes(generated(90, node_count=3))
    (tmp_path / "tank.wea").write_bytes(b"old list")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    script = KILLER.format(root=str(ROOT), paths=[str(model), str(tmp_path / "tank.wea")], after=1, suffix="msh")
    assert subprocess.run([sys.executable, "-c", script]).returncode == -9
    assert model.read_bytes() != before["tank.msh"]
    capfd.readouterr()
    import_file(bpy, model)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert "were put back as they were before it" in capfd.readouterr().out


def test_an_archive_written_for_one_model_does_not_make_another_programs_entry_ours(blender, tmp_path):
    """Another program changes the first model's entry; the second model is exported into the archive (which
    carries that change as it was); an edit of the first is still refused over it."""
    bpy = blender.bpy
    archive = Archive()
    archive.add("first.msh", generated(80, node_count=2), MODEL_TYPE_ID)
    archive.add("second.msh", generated(81, node_count=3), MODEL_TYPE_ID)
    path = write(tmp_path, "units.rlb", archive.to_bytes())
    first, second = sorted(import_file(bpy, path), key=lambda r: r["msh_model"])
    changed = Archive.parse(archive.to_bytes())
    changed.find("first.msh").data = generated(83, node_count=2)
    (tmp_path / "units.rlb").write_bytes(changed.to_bytes())
    move_a_vertex(second)
    select(bpy, second)
    assert export(bpy, path) == {"FINISHED"}
    before = (tmp_path / "units.rlb").read_bytes()
    assert bytes(Archive.parse(before).find("first.msh").data) == generated(83, node_count=2)
    move_a_vertex(first)
    select(bpy, first)
    with pytest.raises(RuntimeError, match=r"its entry .first\.msh. changed on disk after the import"):
        export(bpy, path)
    assert (tmp_path / "units.rlb").read_bytes() == before
