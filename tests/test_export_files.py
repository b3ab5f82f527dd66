"""An export writes all its files or none, and never writes over what it should
not (another entry, the user's material list, a file outside the target's folder, another export's entry)."""

import os
import stat

import pytest
from fixtures import generated
from test_export import export_file, import_file, write
from test_materials_blender import model_archive, wear_of

from core.container.nres import MODEL_TYPE_ID, Archive
from core.disk import changed_since, read_with_state, write_files
from core.msh.model import Model


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def core_disk():
    return __import__("blender_env").ext.core.disk


@pytest.fixture
def listed(blender, tmp_path):
    """A model with a material list, imported from its archive; the export target folder holds an old
    ``unit.msh`` and ``unit.wea``."""
    bpy = blender.bpy
    import_file(bpy, write(tmp_path, "units.rlb", model_archive(wear_of(["hull", "glass"]), 2)))
    bpy.data.materials["hull"].name = "hull_renamed"  # the list changes: the export writes a .wea
    out = tmp_path / "out"
    out.mkdir()
    (out / "unit.msh").write_bytes(b"old model")
    (out / "unit.wea").write_bytes(b"old list")
    return bpy, out


def read_only(path):
    path.chmod(stat.S_IRUSR | stat.S_IRGRP)


def contents(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("locked", ["unit.msh", "unit.wea"])
def test_a_read_only_file_of_the_export_leaves_every_file_as_it_was_and_is_named(listed, locked):
    bpy, out = listed
    read_only(out / locked)
    before = contents(out)
    with pytest.raises(RuntimeError, match=rf"{locked}: cannot write: the file is read-only"):
        bpy.ops.export_scene.parkan_msh(filepath=str(out / "unit.msh"))
    assert contents(out) == before and not leftovers(out)


def test_a_replacement_failing_midway_puts_back_the_files_already_replaced(listed, monkeypatch):
    bpy, out = listed
    disk = core_disk()
    real_replace = disk.os.replace
    calls = []

    def second_fails(source, target):
        calls.append(str(target))
        if str(target).endswith("unit.msh") and str(source).endswith(".tmp") and ".old." not in str(source):
            raise OSError(28, "No space left on device")
        return real_replace(source, target)

    before = contents(out)
    monkeypatch.setattr(disk.os, "replace", second_fails)
    with pytest.raises(RuntimeError, match=r"unit\.msh: cannot write: No space left on device"):
        bpy.ops.export_scene.parkan_msh(filepath=str(out / "unit.msh"))
    monkeypatch.undo()
    replaced = [c for c in calls if not c.endswith(".io_msh-journal")]  # the set's journal is written first
    assert replaced[0].endswith("unit.wea")  # the list was replaced first, then put back
    assert contents(out) == before and not leftovers(out)
    export_file(bpy, out / "unit.msh")
    assert b"hull_renamed" in (out / "unit.wea").read_bytes()


def test_the_transaction_restores_earlier_targets_and_removes_new_ones(tmp_path, monkeypatch):
    from core import disk

    (tmp_path / "a").write_bytes(b"old a")
    real_replace = disk.os.replace

    def third_fails(source, target):
        if str(target).endswith("/c") and ".old." not in str(source):
            raise OSError(5, "Input/output error")
        return real_replace(source, target)

    monkeypatch.setattr(disk.os, "replace", third_fails)
    with pytest.raises(OSError) as caught:
        write_files([(tmp_path / "a", b"new a"), (tmp_path / "b", b"new b"), (tmp_path / "c", b"new c")])
    assert caught.value.filename == str(tmp_path / "c")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"] and (tmp_path / "a").read_bytes() == b"old a"


def test_a_target_that_cannot_be_put_back_is_named_with_where_its_old_contents_are(tmp_path, monkeypatch):
    from core import disk

    (tmp_path / "a").write_bytes(b"old a")
    real_replace = disk.os.replace

    def failing(source, target):
        if str(target).endswith("/b") or ".old." in str(source):
            raise OSError(5, "Input/output error")
        return real_replace(source, target)

    monkeypatch.setattr(disk.os, "replace", failing)
    with pytest.raises(OSError, match=r"could not be put back \(its old contents are in ") as caught:
        write_files([(tmp_path / "a", b"new a"), (tmp_path / "b", b"new b")])
    assert caught.value.filename == str(tmp_path / "b")
    kept = [p for p in tmp_path.iterdir() if ".old." in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == b"old a" and str(kept[0]) in str(caught.value)


# --------------------------------------------------------------------- archive entries and side files
def select(bpy, root):
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    root.select_set(True)
    bpy.context.view_layer.objects.active = root


def move_a_vertex(root, by=0.25):
    mesh = next(o for o in root.children_recursive if o.type == "MESH")
    mesh.data.vertices[0].co.x += by


def test_an_entry_is_replaced_by_its_index_where_names_differ_only_in_case(blender, tmp_path):
    from core.appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID

    bpy = blender.bpy
    archive = Archive()
    archive.add("a.msh", generated(70, node_count=2), MODEL_TYPE_ID)
    archive.add("a.wea", wear_of(["paint", "glass", "steel"]), WEAR_TYPE_ID, **WEAR_ATTRS)
    archive.add("A.msh", generated(71, node_count=3), MODEL_TYPE_ID)
    path = write(tmp_path, "units.rlb", archive.to_bytes())
    roots = import_file(bpy, path)
    upper = next(r for r in roots if r["msh_model"] == "A.msh")
    select(bpy, upper)
    move_a_vertex(upper)
    mesh = next(o for o in upper.children_recursive if o.type == "MESH")
    mesh.data.materials.append(bpy.data.materials.new("new_paint"))  # A.msh's list changes
    mesh.data.polygons[0].material_index = len(mesh.data.materials) - 1
    export_file(bpy, path)
    written = Archive.parse((tmp_path / "units.rlb").read_bytes())
    assert [e.name_str for e in written] == ["a.msh", "a.wea", "A.msh", "A.wea"]
    for i in (0, 1):  # a.msh and its list are untouched
        assert bytes(written.entries[i].data) == bytes(archive.entries[i].data)
    assert bytes(written.entries[2].data) != bytes(archive.entries[2].data)
    assert Model.parse(bytes(written.entries[2].data)).node_count == 3
    assert b"new_paint" in bytes(written.entries[3].data)


def test_an_unedited_model_imported_without_a_list_writes_no_list(blender, tmp_path):
    bpy = blender.bpy
    lightmapped = Archive.parse(model_archive(wear_of(["hull"]), 1, lightmapped=True))
    import_file(bpy, write(tmp_path, "unit.msh", bytes(lightmapped.entries[0].data)))
    assert any(m.name.startswith("material_0 + ") for m in bpy.data.materials)  # a lightmapped placeholder
    out = tmp_path / "out"
    out.mkdir()
    (out / "unit.wea").write_bytes(b"the user's own list")
    export_file(bpy, out / "unit.msh")
    assert (out / "unit.wea").read_bytes() == b"the user's own list"
    assert (out / "unit.msh").read_bytes() == bytes(lightmapped.entries[0].data)


def test_a_side_file_linked_out_of_the_folder_is_refused(listed, tmp_path):
    bpy, out = listed
    elsewhere = tmp_path / "elsewhere.wea"
    elsewhere.write_bytes(b"not yours")
    (out / "unit.wea").unlink()
    (out / "unit.wea").symlink_to(elsewhere)
    with pytest.raises(RuntimeError, match=r"unit\.wea: cannot write: a symbolic link to .*elsewhere\.wea, "
                                           r"outside the model's folder"):
        bpy.ops.export_scene.parkan_msh(filepath=str(out / "unit.msh"))
    assert elsewhere.read_bytes() == b"not yours" and (out / "unit.msh").read_bytes() == b"old model"


def test_two_exports_into_one_archive_at_once_lose_no_entry(blender, tmp_path, monkeypatch):
    bpy = blender.bpy
    archive = Archive()
    archive.add("first.msh", generated(80, node_count=2), MODEL_TYPE_ID)
    archive.add("second.msh", generated(81, node_count=3), MODEL_TYPE_ID)
    path = write(tmp_path, "units.rlb", archive.to_bytes())
    first, second = sorted(import_file(bpy, path), key=lambda r: r["msh_model"])
    move_a_vertex(first)
    move_a_vertex(second)
    export = __import__("blender_env").ext.io_msh.exp.export
    real_write = export.write
    interleaved = []

    def other_export_meanwhile(*args, **kwargs):
        if not interleaved:  # the first export has read the archive; the second one runs to its end now
            interleaved.append(True)
            select(bpy, second)
            export_file(bpy, path)
            select(bpy, first)
        return real_write(*args, **kwargs)

    monkeypatch.setattr(export, "write", other_export_meanwhile)
    select(bpy, first)
    with pytest.raises(RuntimeError, match=r"units\.rlb: cannot write: it changed on disk after the export "
                                           r"read it"):
        bpy.ops.export_scene.parkan_msh(filepath=path)
    written = Archive.parse((tmp_path / "units.rlb").read_bytes())
    assert bytes(written.find("first.msh").data) == bytes(archive.find("first.msh").data)
    assert bytes(written.find("second.msh").data) != bytes(archive.find("second.msh").data)
    monkeypatch.undo()
    export_file(bpy, path)  # exported again, both edits are in the archive
    again = Archive.parse((tmp_path / "units.rlb").read_bytes())
    assert bytes(again.find("second.msh").data) == bytes(written.find("second.msh").data)
    assert bytes(again.find("first.msh").data) != bytes(archive.find("first.msh").data)
    assert not leftovers(tmp_path)


def test_file_state_tells_a_rewrite_with_the_same_size_and_time(tmp_path):
    target = tmp_path / "units.rlb"
    target.write_bytes(b"12345678")
    assert read_with_state(target)[0] == b"12345678"
    state = read_with_state(target)[1]
    assert not changed_since(target, state)
    before = os.stat(target)
    target.write_bytes(b"87654321")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert changed_since(target, state)
