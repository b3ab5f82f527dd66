"""Export writes an explosion's edited kind, damage, radius and placement into the archive it was imported from,
through the one write path: only those bytes change; an unedited scene writes nothing there; a value of the
wrong type refuses the export with nothing written; another program's change to the archive meanwhile is kept."""

import struct

import pytest
from test_effects_blender import _effects, _walker_folder
from test_import import import_file

from core.authoring import effects as E
from core.container.nres import Archive
from core.effects.exp import EXP_TYPE_ID, parse_exp


def _export(bpy, root, path):
    bpy.context.view_layer.objects.active = root
    return bpy.ops.export_scene.parkan_msh(filepath=str(path))


@pytest.fixture
def imported(blender, tmp_path):
    data = _walker_folder(tmp_path)
    (root,) = import_file(blender.bpy, str(tmp_path / "walker.msh"))
    return blender.bpy, root, tmp_path, data


def test_an_edited_explosion_is_written_into_its_archive_and_nothing_else_changes(imported):
    bpy, root, folder, model = imported
    weapon = folder / "weapon.rlb"
    before = weapon.read_bytes()
    assert _export(bpy, root, folder / "walker.msh") == {"FINISHED"}
    assert weapon.read_bytes() == before and (folder / "walker.msh").read_bytes() == model   # nothing edited
    blast = _effects(bpy)["weapon.rlb/synth_round.exp"]
    blast["msh_effect_damage"] = 250.0
    blast["msh_effect_kind"] = 3
    assert _export(bpy, root, folder / "walker.msh") == {"FINISHED"}
    after = weapon.read_bytes()
    explosion = parse_exp(Archive.parse(after).find("synth_round.exp").data)
    assert (explosion.kind, explosion.damage, explosion.radius, explosion.placement) == (3, 250.0, 2.0, 7)
    assert len(after) == len(before)
    changed = [i for i in range(len(after)) if after[i] != before[i]]
    start = after.index(explosion.to_bytes())
    assert changed and all(start <= i < start + 8 for i in changed)   # the kind and damage words only
    assert (folder / "walker.msh").read_bytes() == model
    assert _export(bpy, root, folder / "walker.msh") == {"FINISHED"}
    assert weapon.read_bytes() == after                                  # the same edit again: the same bytes


def test_a_value_of_the_wrong_type_refuses_the_export_and_nothing_is_written(imported):
    bpy, root, folder, _ = imported
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    _effects(bpy)["weapon.rlb/synth_round.exp"]["msh_effect_kind"] = 2.5
    with pytest.raises(RuntimeError, match="kind must be a whole number"):
        _export(bpy, root, folder / "walker.msh")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_another_programs_change_to_the_archive_is_kept(imported):
    bpy, root, folder, _ = imported
    weapon = folder / "weapon.rlb"
    archive = Archive.parse(weapon.read_bytes())
    archive.add("other.exp", E.sample_explosions()["synth_quiet.exp"], EXP_TYPE_ID)
    weapon.write_bytes(archive.to_bytes())
    _effects(bpy)["weapon.rlb/synth_round.exp"]["msh_effect_radius"] = 5.0
    assert _export(bpy, root, folder / "walker.msh") == {"FINISHED"}
    after = Archive.parse(weapon.read_bytes())
    assert after.find("other.exp") is not None
    assert struct.unpack_from("<f", bytes(after.find("synth_round.exp").data), 8)[0] == 5.0


def test_an_edit_taken_back_after_an_export_is_written_too(imported):
    bpy, root, folder, _ = imported
    blast = _effects(bpy)["weapon.rlb/synth_round.exp"]
    before = (folder / "weapon.rlb").read_bytes()
    blast["msh_effect_damage"] = 250.0
    assert _export(bpy, root, folder / "walker.msh") == {"FINISHED"}
    blast["msh_effect_damage"] = 1.0     # the value imported
    assert _export(bpy, root, folder / "walker.msh") == {"FINISHED"}
    assert (folder / "weapon.rlb").read_bytes() == before


def test_two_copies_of_an_explosion_edited_apart_refuse_the_export(imported):
    bpy, root, folder, _ = imported
    blast = _effects(bpy)["weapon.rlb/synth_round.exp"]
    copy = blast.copy()
    bpy.context.collection.objects.link(copy)
    blast["msh_effect_radius"], copy["msh_effect_radius"] = 3.0, 4.0
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(RuntimeError, match=r"is edited twice, radius 3\.0 and 4\.0"):
        _export(bpy, root, folder / "walker.msh")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    copy["msh_effect_radius"] = 3.0      # agreeing copies write
    assert _export(bpy, root, folder / "walker.msh") == {"FINISHED"}
    assert parse_exp(Archive.parse((folder / "weapon.rlb").read_bytes()).find("synth_round.exp").data).radius == 3.0


def _window(bpy):
    return bpy.context.temp_override(window=bpy.context.window_manager.windows[0])


def _damage(folder) -> float:
    return parse_exp(Archive.parse((folder / "weapon.rlb").read_bytes()).find("synth_round.exp").data).damage


def test_an_edit_undone_after_an_export_is_written_back_by_the_next_export(imported):
    """Edit, export, Ctrl+Z, export: the file holds what the scene shows again (the export's own record of what
    it wrote survives the undo; the Empty's remembered values do not)."""
    bpy, root, folder, _ = imported
    before = (folder / "weapon.rlb").read_bytes()
    with _window(bpy):
        bpy.ops.ed.undo_push(message="imported")
        _effects(bpy)["weapon.rlb/synth_round.exp"]["msh_effect_damage"] = 250.0
        bpy.ops.ed.undo_push(message="damage edited")
        assert _export(bpy, bpy.data.objects[root.name], folder / "walker.msh") == {"FINISHED"}
        assert _damage(folder) == 250.0
        assert bpy.ops.ed.undo() == {"FINISHED"}   # back to the import: the Empty shows 1.0 again
        assert _effects(bpy)["weapon.rlb/synth_round.exp"]["msh_effect_damage"] == 1.0
        root = next(o for o in bpy.data.objects if "msh_model" in o)
        assert _export(bpy, root, folder / "walker.msh") == {"FINISHED"}
        assert (folder / "weapon.rlb").read_bytes() == before
        assert bpy.ops.ed.redo() == {"FINISHED"}   # the edit again: written again
        root = next(o for o in bpy.data.objects if "msh_model" in o)
        assert _export(bpy, root, folder / "walker.msh") == {"FINISHED"}
        assert _damage(folder) == 250.0
