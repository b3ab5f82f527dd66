"""A state's frame pairs and step length, edited on the model root's custom properties, are
written back into the .ctl by the real export operator (loose model and .rlb archive): only the edited f32
words change, an unedited root never touches the controller, a bad value is refused with nothing written."""

import json
import math
import os
import struct

import numpy as np
import pytest

from core.animation.controller import CTLD_TYPE_ID, clips_of, parse_controller
from core.animation.sampler import AnimationData
from core.authoring.build import build_model
from core.authoring.controllers import FRAME_COUNT, walker_controller, walker_model
from core.container.nres import Archive
from core.files import open_container
from core.msh.model import Model

STATE_BYTES = 156 + 16 * 2  # a state record and the walker's two contacts
PAIR_B, STEP = 0x14, 0x20
EDITS = {"msh_state 3 frames B": (5.5, 8.25), "msh_state 0 step ms": (80.0,)}
CHANGED = {128 + 3 * STATE_BYTES + PAIR_B: (5.5, 8.25), 128 + 0 * STATE_BYTES + STEP: (80.0,)}


@pytest.fixture
def walker(tmp_path):
    folder = tmp_path / "walker"
    folder.mkdir()
    model = build_model(walker_model()).to_bytes()
    ctl = walker_controller().to_bytes()
    (folder / "walker.msh").write_bytes(model)
    (folder / "WALKER.CTL").write_bytes(ctl)  # any case, as the game's files
    return folder, model, ctl


def walker_archive(path, model, ctl=None):
    archive = Archive()
    archive.add("walker.msh", model)
    if ctl is not None:
        archive.add("walker.ctl", ctl, CTLD_TYPE_ID)
    path.write_bytes(archive.to_bytes())
    return path


def import_walker(blender, path, node_mode="ARMATURE", **options):
    bpy = blender.bpy
    options = {"clips": "ACTIONS", **options}
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode, **options) == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    return root


def export(blender, path):
    return blender.bpy.ops.export_scene.parkan_msh(filepath=str(path))


def edit(root):
    for name, values in EDITS.items():
        root[name] = values if len(values) > 1 else values[0]


def ctl_entry(path):
    (entry,) = [e for e in open_container(str(path)).archive.entries if e.type_id == CTLD_TYPE_ID]
    return entry


def assert_only_the_edits(old: bytes, new: bytes):
    """The new controller parses, holds the new f32 values, and differs from the old only inside those words."""
    parse_controller(new)
    assert len(new) == len(old)
    words = set()
    for offset, values in CHANGED.items():
        assert struct.unpack_from(f"<{len(values)}f", new, offset) == values
        words |= set(range(offset, offset + 4 * len(values)))
    differ = set(np.flatnonzero(np.frombuffer(old, np.uint8) != np.frombuffer(new, np.uint8)).tolist())
    assert differ and differ <= words
    patched = bytearray(old)
    for offset, values in CHANGED.items():
        struct.pack_into(f"<{len(values)}f", patched, offset, *values)
    assert bytes(patched) == new


def assert_new_timing(model: bytes, ctl: bytes):
    clips = clips_of(parse_controller(ctl), AnimationData.from_model(Model.parse(model)))
    assert clips[0].states == [0] and clips[0].duration_ms == 80.0  # the stand's fixed step, 50 ms before
    old = clips_of(walker_controller(), AnimationData.from_model(Model.parse(model)))
    assert clips[1].states == old[1].states == [2, 3, 4, 5]
    assert clips[1].steps[1].stride != old[1].steps[1].stride  # pair B moved: node 0 travels another way


def test_import_makes_a_described_property_per_played_state(blender, walker):
    folder, _model, _ctl = walker
    root = import_walker(blender, folder / "walker.msh")
    played = [0, 2, 3, 4, 5, 7, 8, 9, 10]  # the three clips' states; 1 and 6 only lead into a cycle
    controller = walker_controller()
    for state in range(len(controller.states)):
        names = [f"msh_state {state} {field}" for field in ("frames A", "frames B", "step ms")]
        assert all((name in root) == (state in played) for name in names), state
        if state in played:
            record = controller.states[state]
            assert list(root[names[0]]) == record["pair_a"].tolist()
            assert list(root[names[1]]) == record["pair_b"].tolist()
            assert root[names[2]] == float(record["length_ms"])
            assert "0 = set by stride/speed" in root.id_properties_ui(names[2]).as_dict()["description"]
            assert "pair B" in root.id_properties_ui(names[1]).as_dict()["description"]


def test_loose_model_edits_write_only_their_words_and_an_unedited_export_touches_nothing(blender, walker):
    folder, model, ctl = walker
    msh, ctl_path = folder / "walker.msh", folder / "WALKER.CTL"
    root = import_walker(blender, msh)
    before = os.stat(ctl_path).st_mtime_ns
    assert export(blender, msh) == {"FINISHED"}  # unedited: the controller is not read or written
    assert msh.read_bytes() == model and ctl_path.read_bytes() == ctl and os.stat(ctl_path).st_mtime_ns == before
    edit(root)
    assert export(blender, msh) == {"FINISHED"}
    assert msh.read_bytes() == model  # the model as an unedited export writes it
    assert sorted(p.name for p in folder.iterdir()) == ["WALKER.CTL", "walker.msh"]  # written in place, its case
    new = ctl_path.read_bytes()
    assert_only_the_edits(ctl, new)
    assert_new_timing(model, new)
    assert export(blender, msh) == {"FINISHED"}  # again: the same values, the same bytes
    assert ctl_path.read_bytes() == new


def test_a_loose_target_without_a_controller_gets_the_imported_one_edited(blender, walker, tmp_path):
    folder, model, ctl = walker
    root = import_walker(blender, folder / "walker.msh", node_mode="EMPTIES")
    edit(root)
    out = tmp_path / "out"
    out.mkdir()
    assert export(blender, out / "Tank.msh") == {"FINISHED"}
    assert sorted(p.name for p in out.iterdir()) == ["Tank.ctl", "Tank.msh"]
    assert (out / "Tank.msh").read_bytes() == model
    assert_only_the_edits(ctl, (out / "Tank.ctl").read_bytes())
    assert (folder / "WALKER.CTL").read_bytes() == ctl  # the source stays as it was


def test_archive_edits_go_into_its_ctld_entry_in_the_same_write(blender, walker, tmp_path):
    _folder, model, ctl = walker
    path = walker_archive(tmp_path / "unit.rlb", model, ctl)
    original = path.read_bytes()
    root = import_walker(blender, path, node_mode="EMPTIES")
    assert export(blender, path) == {"FINISHED"}  # unedited: the archive (its model written) as it was
    assert path.read_bytes() == original
    edit(root)
    assert export(blender, path) == {"FINISHED"}
    archive = open_container(str(path)).archive
    assert [(e.name_str, e.type_id) for e in archive.entries] == [(e.name_str, e.type_id) for e in
                                                                  Archive.parse(original).entries]
    assert bytes(archive.find("walker.msh").data) == model
    new = bytes(ctl_entry(path).data)
    assert_only_the_edits(ctl, new)
    assert_new_timing(model, new)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["unit.rlb", "walker"]  # no loose .ctl beside it


def test_an_archive_without_a_controller_gets_the_imported_one_as_a_ctld_entry(blender, walker, tmp_path):
    folder, model, ctl = walker
    root = import_walker(blender, folder / "walker.msh")
    edit(root)
    path = walker_archive(tmp_path / "new.rlb", model)
    assert export(blender, path) == {"FINISHED"}
    entry = ctl_entry(path)
    assert entry.name_str == "walker.ctl"
    assert_only_the_edits(ctl, bytes(entry.data))


@pytest.mark.parametrize(("name", "value", "message"), [
    ("msh_state 4 frames A", (math.nan, 1.0), r"state\[4\].*frames A \(nan, 1\): not a number"),
    ("msh_state 7 step ms", -5.0, r"state\[7\].*step length -5 ms is negative"),
    ("msh_state 3 frames B", (6.0, float(FRAME_COUNT)), r"state\[3\].*frames B \(6, 41\) reach past the model's "
                                                         r"last frame 40"),
    ("msh_state 3 frames B", (6.0,), r"state\[3\].*frames B: property 'msh_state 3 frames B'.*needs 2 number"),
    ("msh_state 7 step ms", 1e300, r"state\[7\].*step ms 1e\+300: too large for the file's 32-bit float"),
])
@pytest.mark.parametrize("target", ["loose", "archive"])
def test_a_bad_value_is_refused_and_nothing_is_written(blender, walker, tmp_path, name, value, message, target):
    folder, model, ctl = walker
    path = folder / "walker.msh" if target == "loose" else walker_archive(tmp_path / "unit.rlb", model, ctl)
    watched = [folder / "walker.msh", folder / "WALKER.CTL", path]
    root = import_walker(blender, path)
    before = {p: (p.read_bytes(), os.stat(p).st_mtime_ns) for p in watched}
    root["msh_state 0 step ms"] = 90.0  # a good edit beside the bad one
    root[name] = value
    with pytest.raises(RuntimeError, match=message):
        export(blender, path)
    assert {p: (p.read_bytes(), os.stat(p).st_mtime_ns) for p in watched} == before
    assert sorted(p.name for p in folder.iterdir()) == ["WALKER.CTL", "walker.msh"]


def test_edits_with_no_controller_anywhere_export_the_model_and_say_why(blender, walker, tmp_path, capfd):
    folder, model, _ctl = walker
    root = import_walker(blender, folder / "walker.msh")
    (folder / "WALKER.CTL").unlink()
    edit(root)
    out = tmp_path / "out.msh"
    capfd.readouterr()
    assert export(blender, out) == {"FINISHED"}
    assert out.read_bytes() == model and not (tmp_path / "out.ctl").exists()
    said = capfd.readouterr().out
    assert "msh_state 0 step ms, msh_state 3 frames B" in said and "were not written" in said
    assert "is gone" in said


def test_a_deleted_property_is_unedited_and_a_float32_equal_value_is_no_edit(blender, walker):
    folder, model, ctl = walker
    msh, ctl_path = folder / "walker.msh", folder / "WALKER.CTL"
    root = import_walker(blender, msh)
    del root["msh_state 3 frames B"]
    root["msh_state 0 step ms"] = 50.000000001  # 50 as float32
    root["msh_state 2 frames B"] = [4, 6]        # integers equal to the values read
    before = os.stat(ctl_path).st_mtime_ns
    assert export(blender, msh) == {"FINISHED"}
    assert ctl_path.read_bytes() == ctl and os.stat(ctl_path).st_mtime_ns == before
    assert msh.read_bytes() == model


def test_the_panel_lists_each_clips_states_and_the_check_refuses_a_bad_value(blender, walker):
    from rna_layout import CheckedLayout

    bpy = blender.bpy
    folder, _model, _ctl = walker
    root = import_walker(blender, folder / "walker.msh")
    panel = blender.ext.io_msh.ui.panel
    drawn = CheckedLayout()
    panel.draw_states(drawn, root)
    labels = [d[1] for d in drawn.drawn if d[0] == "label"]
    assert labels[:1] == ["walker.msh|stand 0"] and "walker.msh|walk 1" in labels and "walker.msh|run 2" in labels
    props = [d[1] for d in drawn.drawn if d[0] == "prop"]
    assert len(props) == 3 * 9 and '["msh_state 3 frames B"]' in props
    kept = root["msh_states_imported"]
    for shape in ('{"clips": [["walk", ["x"]]]}', '{"clips": [1, 2]}', '{"clips": 3}', "[1]"):  # edited by hand
        root["msh_states_imported"] = shape
        panel.draw_states(CheckedLayout(), root)  # lists nothing, and no traceback
    root["msh_states_imported"] = kept
    for o in bpy.context.selected_objects:
        o.select_set(False)
    root.select_set(True)
    bpy.context.view_layer.objects.active = root
    assert not panel.run_check(bpy.context, root).refused
    root["msh_state 9 step ms"] = -1.0
    check = panel.run_check(bpy.context, root)
    assert [line.message for line in check.lines if line.level == "ERROR"] == [
        "step length -1 ms is negative (0 ms: set by stride and speed); property 'msh_state 9 step ms' on "
        "'walker.msh'"]


@pytest.mark.parametrize(("node_mode", "clips"), [("ARMATURE", "NLA"), ("EMPTIES", "ACTIONS")])
def test_update_clips_shows_the_edited_timing_and_frames(blender, walker, node_mode, clips):
    from test_clips_blender import NAMES, local_poses, rigid

    from core.animation.controller import step_at
    from core.animation.controller.edit import StateEdit, edit_states
    from core.animation.sampler import blend_pose

    bpy = blender.bpy
    rate = 30.0
    folder, model, ctl = walker
    root = import_walker(blender, folder / "walker.msh", node_mode, clips=clips, frame_rate=rate)
    actions = sorted(a.name for a in bpy.data.actions)
    empties = sorted([o for o in bpy.data.objects if o.type == "EMPTY" and "msh_node_index" in o],
                     key=lambda o: o["msh_node_index"])
    module = blender.ext.io_msh.imp.clip_actions
    module.show_clip(root, NAMES[1], empties)  # the walk shown: shown again afterwards
    bpy.context.view_layer.objects.active = root
    root["msh_state 5 frames B"] = (10.0, 45.0)
    kept = [a.as_pointer() for a in bpy.data.actions]
    with pytest.raises(RuntimeError, match=r"state\[5\].*frames B \(10, 45\) reach past"):
        bpy.ops.object.parkan_update_clips()
    assert [a.as_pointer() for a in bpy.data.actions] == kept  # the clips as they were
    root["msh_state 5 frames B"] = (10.0, 12.0)
    edit(root)
    assert bpy.ops.object.parkan_update_clips() == {"FINISHED"}
    assert list(root["msh_clips"]) == NAMES and sorted(a.name for a in bpy.data.actions) == actions
    holder = root if node_mode == "ARMATURE" else empties[0]
    assert holder.animation_data.action == module.clip_actions(holder, NAMES[1])
    if clips == "NLA":
        assert [t.name for t in holder.animation_data.nla_tracks] == NAMES
    assert module.clip_actions(holder, NAMES[0]).frame_range[1] == pytest.approx(80 * rate / 1000)
    edited = edit_states(walker_controller(), [StateEdit(3, "frames B", (5.5, 8.25)),
                                               StateEdit(0, "step ms", (80.0,))])
    anim = AnimationData.from_model(Model.parse(model))
    walk = clips_of(edited, anim)[1]
    starts = np.concatenate([[0], np.cumsum([s.duration_ms for s in walk.steps])]) * rate / 1000
    assert module.clip_actions(holder, NAMES[1]).frame_range[1] == pytest.approx(starts[-1], abs=1e-4)
    for k in range(len(walk.steps) + 1):  # each step's start is keyed with the game's pose there
        blender.evaluated_frame(starts[k])
        shown = local_poses(bpy, root)
        step = step_at(edited, walk, k)
        for node in (3, 4):  # the legs (nodes 1 and 2 follow their sliders)
            q, p = blend_pose(anim, node, float(step.frame_a), float(step.frame_b), float(step.weight))
            assert np.abs(shown[node] - rigid(q, p)).max() < 1e-5, (k, node)
    assert float(step_at(edited, walk, 1).frame_b) == 5.5  # the edited pair B shows at the second step's start
    timeline = json.loads(root["msh_clip_steps"])["timeline"]
    for h in ([root] if node_mode == "ARMATURE" else empties):  # the model's timeline shown again
        module.assign(h, bpy.data.actions.get(timeline.get(h.name, "")))
    assert export(blender, folder / "walker.msh") == {"FINISHED"}  # the edits still go into the .ctl
    assert_only_the_edits(ctl, (folder / "WALKER.CTL").read_bytes())
    assert (folder / "walker.msh").read_bytes() == model


def test_object_menu_parkan_holds_the_clip_operators(blender):
    from rna_layout import CheckedLayout

    bpy = blender.bpy
    assert blender.ext.io_msh.ui.clip_operators.menu_object in bpy.types.VIEW3D_MT_object._dyn_ui_initialize()
    drawn = CheckedLayout()
    bpy.types.VIEW3D_MT_parkan_object.draw(type("MenuSelf", (), {"layout": drawn})(), bpy.context)
    assert [d[:2] for d in drawn.drawn] == [("operator", "object.parkan_clip_to_timeline"),
                                            ("operator", "object.parkan_update_clips")]


def test_a_model_that_cannot_be_written_keeps_the_controller_as_it_was(blender, walker, tmp_path):
    """One transaction: the .ctl is not written when the model's write is refused (a read-only model the edit
    changes too: a model the scene does not change is not written, and its read-only file refuses nothing)."""
    from test_export_files import move_a_vertex

    folder, model, ctl = walker
    msh, ctl_path = folder / "walker.msh", folder / "WALKER.CTL"
    root = import_walker(blender, msh)
    edit(root)
    move_a_vertex(root)
    msh.chmod(0o444)
    try:
        with pytest.raises(RuntimeError, match="read-only"):
            export(blender, msh)
    finally:
        msh.chmod(0o644)
    assert ctl_path.read_bytes() == ctl and msh.read_bytes() == model
    assert sorted(p.name for p in folder.iterdir()) == ["WALKER.CTL", "walker.msh"]  # no temporary left


def test_the_targets_own_controller_is_the_one_edited(blender, walker, tmp_path, capfd):
    """Exported into an archive whose controller differs from the imported one: that controller gets the edited
    words (the rest of it kept), and a warning says it is not the one imported."""
    folder, model, _ctl = walker
    other = walker_controller()
    other.params["top_speed"] = (0.0, 9.0, 0.0)
    theirs = other.to_bytes()
    path = walker_archive(tmp_path / "other.rlb", model, theirs)
    root = import_walker(blender, folder / "walker.msh")
    edit(root)
    capfd.readouterr()
    assert export(blender, path) == {"FINISHED"}
    assert_only_the_edits(theirs, bytes(ctl_entry(path).data))
    assert "is not the controller the model was imported with" in capfd.readouterr().out


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_update_clips_replaces_the_nla_tracks_of_a_second_import_and_renamed_ones(blender, walker, node_mode):
    """The second import's clips are named '.001' but its tracks after the clips; a track may be renamed: Update
    Clips replaces each by its strips' actions, leaving no track with an emptied strip."""
    bpy = blender.bpy
    folder, _model, _ctl = walker
    for _ in range(2):
        assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"), node_mode=node_mode,
                                               clips="NLA") == {"FINISHED"}
    first, second = sorted((o for o in bpy.data.objects if "msh_model" in o), key=lambda o: o.name)
    for root in (second, first):
        holder = root if node_mode == "ARMATURE" else next(o for o in root.children_recursive
                                                           if o.get("msh_node_index") == 3)
        holder.animation_data.nla_tracks[1].name = "my walk"
        bpy.context.view_layer.objects.active = root
        assert bpy.ops.object.parkan_update_clips() == {"FINISHED"}
        tracks = holder.animation_data.nla_tracks
        assert len(tracks) == 3 and all(s.action is not None for t in tracks for s in t.strips)
        assert sorted(s.action.get("msh_clip") for t in tracks for s in t.strips) == sorted(root["msh_clips"])


def test_a_controller_linked_out_of_the_folder_is_refused_as_a_controller(blender, walker, tmp_path):
    """The .ctl beside the model is written only within its folder; the refusal speaks of that file, not of the
    material list."""
    folder, model, ctl = walker
    root = import_walker(blender, folder / "walker.msh")
    elsewhere = tmp_path / "elsewhere.ctl"
    elsewhere.write_bytes(ctl)
    (folder / "WALKER.CTL").unlink()
    (folder / "WALKER.CTL").symlink_to(elsewhere)
    edit(root)
    with pytest.raises(RuntimeError, match=r"WALKER\.CTL: cannot write: a symbolic link .*outside the model's "
                                           r"folder; the file is not written through it"):
        export(blender, folder / "walker.msh")
    assert elsewhere.read_bytes() == ctl and (folder / "walker.msh").read_bytes() == model


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_update_clips_while_a_clip_strip_is_tweaked(blender, walker, node_mode):
    """Clips: NLA Strips, the walk's strip tweaked (Tab): Update Clips leaves the tweak mode (the strip's action
    cannot be swapped in it) and makes the clips again, the walk shown; no traceback."""
    from test_clips_blender import NAMES, tweak_clip_strip

    bpy = blender.bpy
    folder, _model, _ctl = walker
    root = import_walker(blender, folder / "walker.msh", node_mode, clips="NLA")
    holders = [root] if node_mode == "ARMATURE" else [o for o in root.children_recursive if o.type == "EMPTY"]
    tweak_clip_strip(holders, NAMES[1])
    bpy.context.view_layer.objects.active = root
    root["msh_state 0 step ms"] = 80.0
    assert bpy.ops.object.parkan_update_clips() == {"FINISHED"}
    module = blender.ext.io_msh.imp.clip_actions
    for holder in holders:
        anim = holder.animation_data
        if anim is None or not anim.nla_tracks:
            continue
        assert not anim.use_tweak_mode and len(anim.nla_tracks) == 3
        assert all(s.action is not None for t in anim.nla_tracks for s in t.strips)
        assert anim.action == module.clip_actions(holder, NAMES[1])
