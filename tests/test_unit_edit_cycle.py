"""The edit cycle around Export Unit and
batch export --into-source, through the real operators, in both node modes where the mode matters: every
edit reaches its file, or the export is refused and every file is left as it was."""

import numpy as np
import pytest
from test_batch import batch
from test_unit_import import import_unit
from unit_fixtures import write_game

from core.authoring import units
from core.container.nres import Archive
from core.msh.model import Model
from core.unit.dat import parse_dat

MODES = ["ARMATURE", "EMPTIES"]


def files_of(folder) -> dict:
    """Every file below ``folder`` with its bytes."""
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def export_unit(bpy, path, **options):
    assert bpy.ops.export_scene.parkan_unit(filepath=str(path), **options) == {"FINISHED"}


def refused(bpy, path, match: str, folder) -> str:
    """Export Unit to ``path`` is refused with ``match`` and leaves every file of ``folder`` as it was."""
    before = files_of(folder)
    with pytest.raises(RuntimeError, match=match) as error:
        bpy.ops.export_scene.parkan_unit(filepath=str(path))
    assert files_of(folder) == before
    assert "Traceback" not in str(error.value)
    return str(error.value)


def mesh_of(root):
    return next(o for o in root.children_recursive if o.type == "MESH")


def move_vertex(root, dz: float) -> None:
    mesh_of(root).data.vertices[0].co.z += dz


def entry(path, name: str) -> bytes:
    return bytes(Archive.parse(path.read_bytes()).find(name).data)


def lifted(old: bytes, new: bytes, dz: float) -> bool:
    """Whether ``new`` holds ``old``'s vertices with some lifted by ``dz`` and the rest where they were."""
    a = Model.parse(old).positions.astype(np.float64)
    b = Model.parse(new).positions.astype(np.float64)
    moved = np.abs(b[:, None, :] - (a[None, :, :] + [0, 0, dz])).max(axis=2).min(axis=1) < 1e-5
    kept = np.abs(b[:, None, :] - a[None, :, :]).max(axis=2).min(axis=1) < 1e-6
    return bool(moved.any() and (moved | kept).all())


# ------------------------------------------------------------------ units as Empties

@pytest.mark.parametrize("node_mode", MODES)
def test_an_unchanged_unit_round_trips_and_an_edit_is_written_in_both_node_modes(blender, tmp_path, node_mode):
    bpy = blender.bpy
    write_game(tmp_path)
    dat, parts = tmp_path / units.UNIT_DAT, tmp_path / units.PARTS
    before = files_of(tmp_path)
    roots = import_unit(bpy, dat, node_mode=node_mode)
    assert any("msh_cpt" in o for o in roots[0].children_recursive)  # control points hang on the nodes
    export_unit(bpy, dat)
    assert files_of(tmp_path) == before
    move_vertex(roots[5], 0.3)
    export_unit(bpy, dat)
    source = Archive.parse(before[parts])
    written = Archive.parse(parts.read_bytes())
    assert [e.name_str for e, s in zip(written.entries, source.entries) if bytes(e.data) != bytes(s.data)] == \
        ["e_tur_mt_01.msh"]
    assert lifted(bytes(source.find("e_tur_mt_01.msh").data), bytes(written.find("e_tur_mt_01.msh").data), 0.3)
    assert dat.read_bytes() == before[dat]


# ------------------------------------------------------------------ the parts archive changed

@pytest.mark.parametrize("node_mode", MODES)
def test_a_parts_archive_rewritten_by_another_tool_gets_the_edit_in_the_entry_of_its_name(blender, tmp_path,
                                                                                          node_mode):
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    original = entry(parts, "e_tur_mt_01.msh")
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT, node_mode=node_mode)
    move_vertex(roots[5], 0.3)
    other = Archive.parse(parts.read_bytes())  # another tool drops two entries before the turret's
    other.remove("synth_chassis.cpt")
    other.remove("e_tur_lt_01.ndp")
    parts.write_bytes(other.to_bytes())
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    written = Archive.parse(parts.read_bytes())
    assert [e.name_str for e in written.entries] == [e.name_str for e in other.entries]
    assert [e.name_str for e, s in zip(written.entries, other.entries) if bytes(e.data) != bytes(s.data)] == \
        ["e_tur_mt_01.msh"]
    assert lifted(original, bytes(written.find("e_tur_mt_01.msh").data), 0.3)


@pytest.mark.parametrize("node_mode", MODES)
def test_an_edited_part_whose_entry_is_gone_or_changed_is_refused(blender, tmp_path, node_mode):
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT, node_mode=node_mode)
    move_vertex(roots[5], 0.3)
    other = Archive.parse(parts.read_bytes())
    other.remove("e_tur_mt_01.msh")
    parts.write_bytes(other.to_bytes())
    refused(bpy, tmp_path / units.UNIT_DAT, r"has no entry 'e_tur_mt_01\.msh' any more", tmp_path)
    # the entry is back, with other contents (another tool edited the same model): the edit would lose those
    changed = Archive.parse(units.unit_files()[units.PARTS])
    changed.find("e_tur_mt_01.msh").data = bytes(changed.find("e_gun_mc_01.msh").data)
    parts.write_bytes(changed.to_bytes())
    refused(bpy, tmp_path / units.UNIT_DAT, r"entry 'e_tur_mt_01\.msh' of .* changed since the import", tmp_path)


# ------------------------------------------------------------------ the target is one of its inputs

@pytest.mark.parametrize("target", [units.PARTS, units.OBJECTS, "notes.dat"])
def test_a_target_that_is_an_input_or_no_unit_tree_is_refused_naming_it(blender, tmp_path, target):
    bpy = blender.bpy
    write_game(tmp_path)
    (tmp_path / "notes.dat").write_bytes(b"not a unit tree at all")
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    move_vertex(roots[5], 0.3)
    said = refused(bpy, tmp_path / target, "one of the unit's inputs" if target != "notes.dat" else
                   "is not a unit tree", tmp_path)
    assert str(tmp_path / target) in said


# ------------------------------------------------------------------ twins

@pytest.mark.parametrize("node_mode", MODES)
@pytest.mark.parametrize("edited", [3, 4])
def test_an_edited_twin_wins_over_its_unedited_twin(blender, tmp_path, node_mode, edited):
    """Components 3 and 4 (Gun LL gl01, gl02) use one entry, e_gun_ll_01.msh."""
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    original = entry(parts, "e_gun_ll_01.msh")
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT, node_mode=node_mode)
    move_vertex(roots[edited], 0.2)
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    assert lifted(original, entry(parts, "e_gun_ll_01.msh"), 0.2)
    export_unit(bpy, tmp_path / units.UNIT_DAT)  # again: the unedited twin still does not write over it
    assert lifted(original, entry(parts, "e_gun_ll_01.msh"), 0.2)
    move_vertex(roots[7 - edited], 0.1)  # the other twin edited too: two edits of one entry
    refused(bpy, tmp_path / units.UNIT_DAT, "changed since the import|edited differently", tmp_path)


@pytest.mark.parametrize("node_mode", MODES)
def test_two_different_edits_of_twins_are_refused(blender, tmp_path, node_mode):
    bpy = blender.bpy
    write_game(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT, node_mode=node_mode)
    move_vertex(roots[3], 0.2)
    move_vertex(roots[4], 0.1)
    refused(bpy, tmp_path / units.UNIT_DAT, "share one model and were edited differently", tmp_path)


@pytest.mark.parametrize("node_mode", MODES)
def test_a_part_copied_with_shift_d_is_refused_not_lost(blender, tmp_path, node_mode):
    bpy = blender.bpy
    write_game(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT, node_mode=node_mode)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == roots[5])
    bpy.context.view_layer.objects.active = roots[5]
    assert bpy.ops.object.duplicate() == {"FINISHED"}
    copy = bpy.context.view_layer.objects.active
    assert copy != roots[5] and copy["msh_unit_component"] == 5
    move_vertex(roots[5], 0.3)
    said = refused(bpy, tmp_path / units.UNIT_DAT, "are both component 5", tmp_path)
    assert copy.name in said and roots[5].name in said
    bpy.data.objects.remove(copy)
    export_unit(bpy, tmp_path / units.UNIT_DAT)


def test_batch_into_source_writes_the_edited_twin(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    original = entry(parts, "e_gun_ll_01.msh")
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    first = min((roots[3], roots[4]), key=lambda o: o.name)  # the batch took roots by name: the last one won
    move_vertex(first, 0.2)
    blend = tmp_path / "unit.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    blender.clean_scene()
    result = batch("export", str(blend), "--into-source")
    assert result.returncode == 0, result.stdout + result.stderr
    assert lifted(original, entry(parts, "e_gun_ll_01.msh"), 0.2)
    changed = [e.name_str for e, s in zip(Archive.parse(parts.read_bytes()).entries,
                                         Archive.parse(units.unit_files()[units.PARTS]).entries)
               if bytes(e.data) != bytes(s.data)]
    assert changed == ["e_gun_ll_01.msh"]


# ------------------------------------------------------------------ an edit taken back

@pytest.mark.parametrize("node_mode", MODES)
def test_an_edit_taken_back_is_written_back(blender, tmp_path, node_mode):
    bpy = blender.bpy
    write_game(tmp_path)
    before = files_of(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT, node_mode=node_mode)
    move_vertex(roots[5], 0.3)
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    assert files_of(tmp_path) != before
    move_vertex(roots[5], -0.3)  # as Ctrl+Z would
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    assert files_of(tmp_path) == before


# ------------------------------------------------------------------ a part deleted

@pytest.mark.parametrize("node_mode", MODES)
def test_a_deleted_part_is_said_to_stay_in_the_unit(blender, tmp_path, node_mode):
    bpy = blender.bpy
    write_game(tmp_path)
    before = files_of(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT, node_mode=node_mode)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == roots[6] or obj in roots[6].children_recursive)
    assert bpy.ops.object.delete() == {"FINISHED"}
    exp = blender.ext.io_msh.exp
    result = exp.unit.export_unit(bpy.context, str(tmp_path / units.UNIT_DAT), exp.plan.ExportOptions())
    report = [w for w in result.warnings if "component 6" in w]
    assert report and "no longer in the scene" in report[0] and "the .dat keeps it" in report[0]
    assert files_of(tmp_path) == before
    export_unit(bpy, tmp_path / units.UNIT_DAT)  # the operator says it too, and finishes


# ------------------------------------------------------------------ all or nothing per item

def test_into_source_with_warnings_as_errors_writes_nothing(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    before = files_of(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    move_vertex(roots[5], 0.3)  # e_tur_mt_01: written without a warning, before synth_chassis (by name)
    blend = tmp_path / "unit.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    blender.clean_scene()
    before[blend] = blend.read_bytes()
    # the chassis is animated and exported as imported: the custom range is not applied, a warning
    result = batch("export", str(blend), "--into-source", "--warnings-as-errors", "--frame-range", "CUSTOM",
                   "--end-frame", "2")
    assert result.returncode == 1, result.stdout
    assert "treated as errors (--warnings-as-errors)" in result.stdout and "left as it was" in result.stdout
    assert "synth_chassis.msh: the animation is as imported" in result.stdout
    assert files_of(tmp_path) == before
    again = batch("export", str(blend), "--into-source")
    assert again.returncode == 0, again.stdout
    old = bytes(Archive.parse(before[tmp_path / units.PARTS]).find("e_tur_mt_01.msh").data)
    assert lifted(old, entry(tmp_path / units.PARTS, "e_tur_mt_01.msh"), 0.3)


# ------------------------------------------------------------------ hand-edited properties

HAND_EDITS = [("msh_unit_component", "five", "a whole number"), ("msh_unit_component", -3, "at least 0"),
              ("msh_entry_index", "x", "a whole number"), ("msh_clips", 5, "a list of names"),
              ("msh_source", "edited", "the bytes the import stored")]


@pytest.mark.parametrize(("key", "value", "wanted"), HAND_EDITS)
def test_a_hand_edited_property_is_refused_naming_object_and_property_in_export_unit(blender, tmp_path, key,
                                                                                     value, wanted):
    bpy = blender.bpy
    write_game(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    roots[5][key] = value
    said = refused(bpy, tmp_path / units.UNIT_DAT, wanted, tmp_path)
    assert repr(roots[5].name) in said and repr(key) in said


@pytest.mark.parametrize(("key", "value", "wanted"), HAND_EDITS[2:])
def test_a_hand_edited_property_is_refused_by_the_model_export_and_listed_by_the_check(blender, tmp_path, key,
                                                                                       value, wanted):
    bpy = blender.bpy
    write_game(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    root = roots[5]
    root[key] = value
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == root)
    bpy.context.view_layer.objects.active = root
    check = blender.ext.io_msh.ui.panel.run_check(bpy.context, root)
    errors = [line.message for line in check.lines if line.level == "ERROR"]
    assert any(wanted in m and repr(key) in m and repr(root.name) in m for m in errors), errors
    with pytest.raises(RuntimeError, match=r"export check: 1 refusal\(s\)"):
        bpy.ops.parkan_msh.check_export()
    before = files_of(tmp_path)
    for target in (tmp_path / units.PARTS, tmp_path / "out.msh"):
        with pytest.raises(RuntimeError, match=wanted) as error:
            bpy.ops.export_scene.parkan_msh(filepath=str(target))
        assert "Traceback" not in str(error.value) and repr(key) in str(error.value)
    assert files_of(tmp_path) == before


# ------------------------------------------------------------------ true messages

def test_a_tree_whose_child_count_runs_past_its_end_exports_back_and_errors_name_the_source(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    dat = tmp_path / units.UNIT_DAT
    tree = parse_dat(dat.read_bytes())
    tree.components[7].children = 2 ** 31 - 1
    dat.write_bytes(tree.to_bytes())
    roots = import_unit(bpy, dat)
    out = tmp_path / "out.dat"
    export_unit(bpy, out)  # unchanged: written back as read
    assert out.read_bytes() == dat.read_bytes()
    roots[3].parent.constraints["Mount"].subtarget = "Base_RU_01"  # a move needs the tree walked: refused
    said = refused(bpy, tmp_path / "moved.dat", "runs past the end", tmp_path)
    assert str(out) in said and "moved.dat" not in said  # the source now: the file last written


def test_a_deleted_source_dat_exports_the_tree_the_import_read_and_is_not_made_again_unasked(blender, tmp_path):
    """The import keeps the .dat it read (the tree the parts' properties describe): with the source gone the unit
    still goes into another .dat; onto its own path, nothing of the scene changing it, the deletion is kept as
    another program's change would be; a socket moved is refused there, the .dat named as changed."""
    bpy = blender.bpy
    write_game(tmp_path)
    dat = tmp_path / units.UNIT_DAT
    original = dat.read_bytes()
    roots = import_unit(bpy, dat)
    dat.unlink()
    export_unit(bpy, dat)
    assert not dat.exists()
    roots[3].parent.constraints["Mount"].subtarget = "Base_RU_01"
    said = refused(bpy, dat, "changed on disk", tmp_path)
    assert str(dat) in said
    roots[3].parent.constraints["Mount"].subtarget = "Base_LU_01"
    export_unit(bpy, tmp_path / "out.dat")
    assert (tmp_path / "out.dat").read_bytes() == original


def test_a_deleted_source_dat_of_a_scene_without_the_kept_tree_cannot_be_read_not_cannot_be_written(blender,
                                                                                                   tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    dat = tmp_path / units.UNIT_DAT
    import_unit(bpy, dat)
    del next(c for c in bpy.data.collections if "msh_unit" in c)["msh_unit_tree"]  # a scene made before it was kept
    dat.unlink()
    said = refused(bpy, tmp_path / "out.dat", "cannot read the unit's source", tmp_path)
    assert str(dat) in said and "cannot write" not in said


def test_a_dat_reordered_since_the_import_is_said_to_have_changed(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    dat = tmp_path / units.UNIT_DAT
    roots = import_unit(bpy, dat)
    roots[3].parent.constraints["Mount"].subtarget = "Base_RU_01"
    tree = parse_dat(dat.read_bytes())
    tree.components[3], tree.components[4] = tree.components[4], tree.components[3]
    tree.components[5], tree.components[2] = tree.components[2], tree.components[5]
    dat.write_bytes(tree.to_bytes())
    said = refused(bpy, dat, "changed on disk", tmp_path)
    assert "hangs on" not in said and str(dat) in said



def test_the_new_refusals_come_out_in_russian(blender, tmp_path, monkeypatch):
    """Export Unit's refusals translate with their fields (io_msh.ui.translations, the unitexp block)."""
    bpy = blender.bpy
    translations = blender.ext.io_msh.ui.translations
    table = translations.translations()["ru_RU"]
    monkeypatch.setattr(translations, "_translate", lambda english: table.get(("*", english), english))
    write_game(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    roots[5]["msh_entry_index"] = "x"
    refused(bpy, tmp_path / units.UNIT_DAT, r"пользовательское свойство 'msh_entry_index' равно 'x', а должно быть "
                                            r"целое число", tmp_path)
    roots[5]["msh_entry_index"] = 10
    refused(bpy, tmp_path / units.PARTS, r"цель — архив части '[^']+', один из входных файлов юнита",
            tmp_path)
    del next(c for c in bpy.data.collections if "msh_unit" in c)["msh_unit_tree"]
    (tmp_path / units.UNIT_DAT).unlink()
    refused(bpy, tmp_path / "out.dat", r"исходный файл юнита не читается: ", tmp_path)
