"""Export Unit through the one write path (core.write_path), by the real operators: what an export wrote is known
after Ctrl+Z takes the scene's record of it back, a ``.dat`` another program changed after the import is kept
when nothing of the scene changes it and refused naming it when something does, and a second export of edited
controller states does not take its own first write for another controller."""

import pytest
from test_controller_export import EDITS, assert_only_the_edits
from test_unit_clips import CHASSIS_CTL, clip_unit, import_clip_unit
from test_unit_edit_cycle import entry, files_of, lifted, move_vertex, refused
from test_unit_import import import_unit
from unit_fixtures import write_game

from core.authoring import units
from core.container.nres import Archive
from core.unit.dat import parse_dat
from core.unit.edit import with_attach

TURRET, GUN = 5, 6  # Turret M (e_tur_mt_01.msh) on the chassis, Gun MC on the turret's socket 3


def in_window(bpy):
    return bpy.context.temp_override(window=bpy.context.window_manager.windows[0])


def push_undo(bpy, message: str) -> None:
    with in_window(bpy):
        bpy.ops.ed.undo_push(message=message)


def undo(bpy) -> None:
    with in_window(bpy):
        assert bpy.ops.ed.undo() == {"FINISHED"}


def roots_now(bpy) -> dict:
    """The part roots by component, looked up again (an undo loads every datablock anew)."""
    return {o["msh_unit_component"]: o for o in bpy.data.objects if "msh_model" in o and "msh_unit_component" in o}


def export_unit(bpy, path, **options):
    assert bpy.ops.export_scene.parkan_unit(filepath=str(path), **options) == {"FINISHED"}


# ------------------------------------------------------------------ what an export wrote, proof against Ctrl+Z

@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_an_edit_exported_then_undone_is_taken_back_by_the_next_export(blender, tmp_path, node_mode):
    bpy = blender.bpy
    write_game(tmp_path)
    dat, parts = tmp_path / units.UNIT_DAT, tmp_path / units.PARTS
    before = files_of(tmp_path)
    import_unit(bpy, dat, node_mode=node_mode)
    push_undo(bpy, "import")
    move_vertex(roots_now(bpy)[TURRET], 0.3)
    push_undo(bpy, "move a vertex")
    export_unit(bpy, dat)
    assert lifted(bytes(Archive.parse(before[parts]).find("e_tur_mt_01.msh").data),
                  entry(parts, "e_tur_mt_01.msh"), 0.3)
    undo(bpy)  # the vertex back, and the scene's record of the write with it
    export_unit(bpy, dat)
    assert files_of(tmp_path) == before


def test_the_second_of_two_exported_edits_undone_leaves_the_first(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    dat, parts = tmp_path / units.UNIT_DAT, tmp_path / units.PARTS
    original = entry(parts, "e_tur_mt_01.msh")
    import_unit(bpy, dat)
    push_undo(bpy, "import")
    move_vertex(roots_now(bpy)[TURRET], 0.25)
    push_undo(bpy, "first move")
    export_unit(bpy, dat)
    move_vertex(roots_now(bpy)[TURRET], 0.25)
    push_undo(bpy, "second move")
    export_unit(bpy, dat)
    assert lifted(original, entry(parts, "e_tur_mt_01.msh"), 0.5)
    undo(bpy)
    export_unit(bpy, dat)  # not refused as "changed since the import": the export wrote it
    assert lifted(original, entry(parts, "e_tur_mt_01.msh"), 0.25)


def test_a_socket_move_exported_then_undone_is_taken_back_by_the_next_export(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    dat = tmp_path / units.UNIT_DAT
    before = files_of(tmp_path)
    import_unit(bpy, dat)
    push_undo(bpy, "import")
    for component, bone in ((3, "Base_RU_01"), (4, "Base_LU_01")):
        roots_now(bpy)[component].parent.constraints["Mount"].subtarget = bone
    push_undo(bpy, "swap the guns")
    export_unit(bpy, dat)
    assert [c.attach for c in parse_dat(dat.read_bytes()).components][3:5] == [2, 3]
    assert dat.read_bytes() != before[dat]
    undo(bpy)
    export_unit(bpy, dat)
    assert files_of(tmp_path) == before


# ------------------------------------------------------------------ the .dat another program changed

def other_programs_dat(dat) -> bytes:
    """The .dat with Gun MC moved to the turret's socket 2 by another program (the order stays)."""
    tree = parse_dat(dat.read_bytes())
    moved, order = with_attach(tree, {GUN: 2}, {2, 3, 4, 5, 6})
    assert order == list(range(len(tree.components)))
    dat.write_bytes(moved.to_bytes())
    return moved.to_bytes()


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_a_socket_change_another_program_made_is_kept_by_an_export_that_does_not_change_it(blender, tmp_path,
                                                                                           node_mode, capfd):
    bpy = blender.bpy
    write_game(tmp_path)
    dat, parts = tmp_path / units.UNIT_DAT, tmp_path / units.PARTS
    original = entry(parts, "e_tur_mt_01.msh")
    roots = import_unit(bpy, dat, node_mode=node_mode)
    theirs = other_programs_dat(dat)
    capfd.readouterr()
    export_unit(bpy, dat)
    assert dat.read_bytes() == theirs
    assert "moved from socket" not in capfd.readouterr().out
    move_vertex(roots[TURRET], 0.3)  # a part's edit is written; the .dat still is theirs
    export_unit(bpy, dat)
    assert dat.read_bytes() == theirs and lifted(original, entry(parts, "e_tur_mt_01.msh"), 0.3)


def test_a_socket_move_over_a_dat_another_program_changed_is_refused_naming_it_unless_told(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    dat = tmp_path / units.UNIT_DAT
    roots = import_unit(bpy, dat)
    other_programs_dat(dat)
    for component, bone in ((3, "Base_RU_01"), (4, "Base_LU_01")):
        roots[component].parent.constraints["Mount"].subtarget = bone
    said = refused(bpy, dat, "changed on disk", tmp_path)
    assert str(dat) in said
    export_unit(bpy, dat, replace_changed=True)
    tree = parse_dat(dat.read_bytes())
    assert [c.attach for c in tree.components][3:5] == [2, 3] and tree.components[GUN].attach == 3


def test_a_new_target_dat_is_written_and_another_unit_tree_named_is_replaced(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    dat = tmp_path / units.UNIT_DAT
    import_unit(bpy, dat)
    out = tmp_path / "out.dat"
    export_unit(bpy, out)
    assert out.read_bytes() == dat.read_bytes()
    other = tmp_path / "other.dat"
    tree = parse_dat(dat.read_bytes())
    tree.components = tree.components[:1]
    tree.components[0].children = 0
    other.write_bytes(tree.to_bytes())
    export_unit(bpy, other)  # the user named it: replaced
    assert other.read_bytes() == dat.read_bytes()


# ------------------------------------------------------------------ a second export of edited states

def test_a_second_state_edit_export_does_not_warn_its_own_controller_is_another(blender, tmp_path, capfd):
    bpy = blender.bpy
    dat = clip_unit(tmp_path)
    parts = tmp_path / units.PARTS
    ctl = bytes(Archive.parse(parts.read_bytes()).find(CHASSIS_CTL).data)
    _unit, roots = import_clip_unit(bpy, dat)
    for name, values in EDITS.items():
        roots[0][name] = values if len(values) > 1 else values[0]
    capfd.readouterr()
    export_unit(bpy, dat)
    assert_only_the_edits(ctl, bytes(Archive.parse(parts.read_bytes()).find(CHASSIS_CTL).data))
    assert "is not the controller" not in capfd.readouterr().out
    roots[0]["msh_state 0 step ms"] = 90.0
    export_unit(bpy, dat)
    out = capfd.readouterr().out
    assert "is not the controller" not in out and "not the one" not in out, out


def test_a_second_state_edit_export_of_a_model_does_not_warn_its_own_controller_is_another(blender, tmp_path,
                                                                                          capfd):
    from test_controller_export import import_walker, walker_archive

    from core.authoring.build import build_model
    from core.authoring.controllers import walker_controller, walker_model

    path = walker_archive(tmp_path / "walker.rlb", build_model(walker_model()).to_bytes(),
                          walker_controller().to_bytes())
    root = import_walker(blender, path)
    for name, values in EDITS.items():
        root[name] = values if len(values) > 1 else values[0]
    assert blender.bpy.ops.export_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    root["msh_state 0 step ms"] = 90.0
    capfd.readouterr()
    assert blender.bpy.ops.export_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "is not the controller" not in out, out


def test_an_edited_part_exported_elsewhere_with_the_model_export_still_goes_into_its_entry(blender, tmp_path):
    """Export Parkan MSH of a part to another file records that write on the part's root (msh_written): the part
    is no less edited for Export Unit, whose entry does not hold those bytes."""
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    original = entry(parts, "e_tur_mt_01.msh")
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    move_vertex(roots[TURRET], 0.3)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == roots[TURRET])
    bpy.context.view_layer.objects.active = roots[TURRET]
    assert bpy.ops.export_scene.parkan_msh(filepath=str(tmp_path / "turret.msh")) == {"FINISHED"}
    assert entry(parts, "e_tur_mt_01.msh") == original
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    assert lifted(original, entry(parts, "e_tur_mt_01.msh"), 0.3)


def test_another_programs_entry_carried_by_an_export_is_not_taken_for_the_exports_own(blender, tmp_path):
    """An export writing one part carries the archive's other entries as another program left them: the next
    export keeps such an entry (its part unedited) instead of writing the part back over it."""
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    original = entry(parts, "e_tur_mt_01.msh")
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    theirs = Archive.parse(parts.read_bytes())
    theirs.find("e_gun_ll_01.msh").data = bytes(theirs.find("synth_round.msh").data)
    parts.write_bytes(theirs.to_bytes())
    move_vertex(roots[TURRET], 0.3)
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    assert entry(parts, "e_gun_ll_01.msh") == bytes(theirs.find("synth_round.msh").data)
    assert lifted(original, entry(parts, "e_tur_mt_01.msh"), 0.3)
    move_vertex(roots[TURRET], -0.3)
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    assert entry(parts, "e_gun_ll_01.msh") == bytes(theirs.find("synth_round.msh").data)
    assert entry(parts, "e_tur_mt_01.msh") == original


def test_an_edit_over_an_entry_another_program_changed_is_written_with_replace_changed_files(blender, tmp_path):
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    original = entry(parts, "e_tur_mt_01.msh")
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    theirs = Archive.parse(parts.read_bytes())
    theirs.find("e_tur_mt_01.msh").data = bytes(theirs.find("e_gun_mc_01.msh").data)
    parts.write_bytes(theirs.to_bytes())
    move_vertex(roots[TURRET], 0.3)
    said = refused(bpy, tmp_path / units.UNIT_DAT, "changed since the import", tmp_path)
    assert "Replace Changed Files" in said
    export_unit(bpy, tmp_path / units.UNIT_DAT, replace_changed=True)
    assert lifted(original, entry(parts, "e_tur_mt_01.msh"), 0.3)


def test_an_export_undone_back_to_what_it_wrote_keeps_another_programs_later_change(blender, tmp_path):
    """Edit, export, edit again, another program writes the entry, Ctrl+Z: the scene shows what the export wrote
    (the entry's last state in step with it, though Ctrl+Z took the part's record of that write): nothing of the
    scene changes the entry, the other program's change is kept, the export is not refused."""
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    import_unit(bpy, tmp_path / units.UNIT_DAT)
    push_undo(bpy, "import")
    move_vertex(roots_now(bpy)[TURRET], 0.25)
    push_undo(bpy, "first move")
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    move_vertex(roots_now(bpy)[TURRET], 0.25)
    push_undo(bpy, "second move")
    theirs = Archive.parse(parts.read_bytes())
    theirs.find("e_tur_mt_01.msh").data = bytes(theirs.find("e_gun_mc_01.msh").data)
    parts.write_bytes(theirs.to_bytes())
    undo(bpy)
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    assert parts.read_bytes() == theirs.to_bytes()
    move_vertex(roots_now(bpy)[TURRET], -0.25)  # back to the import: an edit of what the entry last held
    refused(bpy, tmp_path / units.UNIT_DAT, "changed since the import", tmp_path)


def test_a_part_written_by_the_model_export_then_undone_is_taken_back_by_export_unit(blender, tmp_path):
    """Export Parkan MSH into the part's own archive, Ctrl+Z, Export Unit: the entry holds what an export of this
    process wrote (the record both exports keep), so the undo is written back."""
    bpy = blender.bpy
    write_game(tmp_path)
    parts = tmp_path / units.PARTS
    before = files_of(tmp_path)
    import_unit(bpy, tmp_path / units.UNIT_DAT)
    push_undo(bpy, "import")
    turret = roots_now(bpy)[TURRET]
    move_vertex(turret, 0.3)
    push_undo(bpy, "move a vertex")
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == turret)
    bpy.context.view_layer.objects.active = turret
    assert bpy.ops.export_scene.parkan_msh(filepath=str(parts)) == {"FINISHED"}
    assert files_of(tmp_path) != before
    undo(bpy)
    export_unit(bpy, tmp_path / units.UNIT_DAT)
    assert files_of(tmp_path) == before
