"""A model's controller, found and checked against the model by one function in
core (``core.model_controller``), used by ``python -m core clips`` / ``sample --clip`` and by the
Blender import; hostile controllers give a result or a clean error; a controller the import cannot play leaves
the clips out, never the model."""

import dataclasses
import json
import struct
import tracemalloc

import numpy as np
import pytest
from controller_hostile import EMPTY, check_hostile, hostile_controllers
from fixtures import run_cli as run
from hypothesis import HealthCheck, example, given, settings

from core.animation.controller import CTLD_TYPE_ID, read_controller, validate_controller
from core.authoring import units
from core.authoring.build import ModelDef, NodeDef, Part, build_model
from core.authoring.controllers import walker_controller, walker_model
from core.authoring.synth import box
from core.container.nres import Archive

MB = 2 ** 20
NAMES = ["walker.msh|stand 0", "walker.msh|walk 1", "walker.msh|run 2"]


def contacts_without_states(count: int = 2 ** 27) -> bytes:
    """The issue's 212 bytes: no states, contact count ``count``, nothing else."""
    raw = bytearray(EMPTY)
    struct.pack_into("<i", raw, 4, count)
    return bytes(raw)


def with_channel_node(node: int) -> bytes:
    controller = walker_controller()
    channels = controller.channels.copy()
    channels["node"][0] = node
    return dataclasses.replace(controller, channels=channels).to_bytes()


def with_frames_past_the_end() -> bytes:
    controller = walker_controller()
    states = controller.states.copy()
    states["pair_b"][9] = (50.0, 60.0)  # the walker has 41 frames; state 9 plays in the run clip
    return dataclasses.replace(controller, states=states).to_bytes()


def gun_model() -> bytes:
    pos, tris = box(center=(0, 0, 0))
    return build_model(ModelDef([NodeDef("hull"), NodeDef("hatch", 0)], [Part(0, pos, tris),
                                                                           Part(1, pos, tris)])).to_bytes()


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "walker.msh").write_bytes(build_model(walker_model()).to_bytes())
    return tmp_path


# ---------------------------------------------------------------- counts that lie: contacts over no states
def test_a_contact_count_over_no_states_reads_writes_back_and_is_a_warning():
    raw = contacts_without_states()
    assert len(raw) == 212
    tracemalloc.start()
    try:
        controller, findings = read_controller(raw, "c.ctl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MB
    assert controller.counts == (0, 2 ** 27, 0, 0, 0) and controller.to_bytes() == raw
    assert [f.format("c.ctl") for f in findings] == [
        "c.ctl: ctl: warning: count B says 134217728 contacts per state, but there are no states: the count "
        "holds nothing"]


def test_validate_clips_and_roundtrip_of_the_contact_count_over_no_states(capsys, tmp_path):
    path = tmp_path / "c.ctl"
    path.write_bytes(contacts_without_states())
    code, out, err = run(capsys, "validate", path)
    assert code == 0 and "c.ctl: ctl: warning: count B says 134217728 contacts per state" in out
    assert "internal error" not in err
    code, out, err = run(capsys, "clips", path)
    assert code == 0 and "0 states (0 anchors), 134217728 contacts" in out and "internal error" not in err
    code, out, _ = run(capsys, "roundtrip", path)
    assert code == 0 and "identical (212 bytes)" in out


@settings(derandomize=True, max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=hostile_controllers())
@example(data=contacts_without_states())
@example(data=contacts_without_states(2 ** 31 - 1))
def test_hostile_controllers_give_a_result_or_a_format_error_in_bounded_time(data):
    with np.errstate(all="ignore"):
        check_hostile(data)


def test_the_blender_import_of_the_contact_count_over_no_states(blender, folder, capfd):
    (folder / "walker.ctl").write_bytes(contacts_without_states())
    capfd.readouterr()
    assert blender.bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"),
                                                   clips="ACTIONS") == {"FINISHED"}
    out = capfd.readouterr().out
    assert "count B says 134217728 contacts per state" in out and "Traceback" not in out
    assert [o for o in blender.bpy.data.objects if "msh_model" in o]


# ---------------------------------------------------------------- a controller that does not fit: no clips
def test_the_synthetic_units_controllers_pass_validate(capsys, tmp_path):
    assert validate_controller(read_controller(units.CONTROLLER)[0]) == []
    (tmp_path / units.PARTS).write_bytes(units.parts_archive().to_bytes())
    code, out, err = run(capsys, "validate", tmp_path / units.PARTS)
    assert code == 0, err
    assert "valid: 0 errors" in out and "groups[" not in out + err


def test_a_group_index_no_group_answers_is_reported_and_the_clips_are_made(blender, folder, capfd):
    """No source published the range of the group indices: the controller is kept whole and played."""
    controller = walker_controller()
    controller.group_block[0] = 7
    (folder / "walker.ctl").write_bytes(controller.to_bytes())
    capfd.readouterr()
    bpy = blender.bpy
    assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"), clips="ACTIONS") == {"FINISHED"}
    out = capfd.readouterr().out
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert list(root["msh_clips"]) == NAMES
    assert f"{folder / 'walker.ctl'}: groups[0]: warning: group index 7 of 1: no group runs (kept as read)" in out


@pytest.mark.parametrize("bad", ["truncated"])
def test_a_bad_controller_leaves_the_clips_out_not_the_model(blender, folder, capfd, bad):
    controller = walker_controller()
    raw = controller.to_bytes()[:300]
    (folder / "walker.ctl").write_bytes(raw)
    capfd.readouterr()
    bpy = blender.bpy
    assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"), clips="ACTIONS") == {"FINISHED"}
    out = capfd.readouterr().out
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert "msh_clips" not in root and root["msh_model"] == "walker.msh"
    assert not [a for a in bpy.data.actions if not a.name.endswith("|Action")]
    problem = ("state: section 1: 11 states of 188 bytes (2068 bytes at byte 128) runs past the end of the "
               "300-byte controller")
    assert (f"{folder / 'walker.ctl'}: the controller cannot be played, so the model was imported without clips: "
            f"{problem}. Fix the controller, or import with Clips: None") in out


def test_a_bad_ctld_entry_is_named_and_the_model_imports(blender, folder, capfd):
    controller = walker_controller()
    controller.group_block[0] = 7
    controller.channels = controller.channels[:0]  # the components' channel entries now name no channel: an error
    archive = Archive()
    archive.add("walker.msh", (folder / "walker.msh").read_bytes())
    archive.add("walker.ctl", controller.to_bytes(), CTLD_TYPE_ID)
    (folder / "unit.rlb").write_bytes(archive.to_bytes())
    capfd.readouterr()
    assert blender.bpy.ops.import_scene.parkan_msh(filepath=str(folder / "unit.rlb"),
                                                   clips="ACTIONS") == {"FINISHED"}
    out = capfd.readouterr().out
    assert f"{folder / 'unit.rlb'}:walker.ctl: component[" in out and "(kept; it drives nothing)" in out
    assert f"{folder / 'unit.rlb'}:walker.ctl: groups[0]: warning: group index 7 of 1" in out
    assert [o for o in blender.bpy.data.objects if "msh_model" in o]


# ---------------------------------------------------------------- channels and frames past the model
def test_clips_and_sample_report_a_channel_on_a_node_the_model_lacks(capsys, folder):
    """No source published a channel node's range against the model: a warning, the channel poses nothing."""
    (folder / "walker.ctl").write_bytes(with_channel_node(99))
    words = f"{folder / 'walker.ctl'}: channel[0]: warning: node 99 of a 5-node model: the channel poses no node"
    code, _out, err = run(capsys, "clips", folder / "walker.msh")
    assert code == 0 and words in err
    code, _out, err = run(capsys, "sample", folder / "walker.msh", "--clip", "1", "--step", "0")
    assert code == 0 and words in err
    code, out, _ = run(capsys, "clips", folder / "walker.ctl")  # no model: nothing to check the node against
    assert code == 0 and "channel 0: node 99" in out


def test_clips_and_sample_say_that_frames_lie_past_the_models_end(capsys, folder):
    (folder / "walker.ctl").write_bytes(with_frames_past_the_end())
    words = (f"{folder / 'walker.ctl'}: state[9]: warning: frames [14.0, 15.0, 50.0, 60.0] reach past the "
             "model's 41 frames")
    code, out, err = run(capsys, "clips", folder / "walker.msh")
    assert code == 0 and words in err and "clip 2:" in out
    code, out, _ = run(capsys, "clips", folder / "walker.msh", "--json")
    assert json.loads(out)["warnings"] == [{"severity": "warning", "where": None, "stream": "state", "index": 9,
                                            "message": "frames [14.0, 15.0, 50.0, 60.0] reach past the model's "
                                                       "41 frames"}]
    code, _out, err = run(capsys, "sample", folder / "walker.msh", "--clip", "2", "--step", "0.5")
    assert code == 0 and words in err


def test_the_import_reports_the_same_words(blender, folder, capfd):
    bpy = blender.bpy
    (folder / "walker.ctl").write_bytes(with_frames_past_the_end())
    capfd.readouterr()
    assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"), clips="ACTIONS") == {"FINISHED"}
    out = capfd.readouterr().out
    assert (f"{folder / 'walker.ctl'}: state[9]: warning: frames [14.0, 15.0, 50.0, 60.0] reach past the "
            "model's 41 frames") in out
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert list(root["msh_clips"]) == NAMES  # a warning: the clips are made
    blender.clean_scene()
    (folder / "walker.ctl").write_bytes(with_channel_node(99))
    capfd.readouterr()
    assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"), clips="ACTIONS") == {"FINISHED"}
    out = capfd.readouterr().out
    assert "channel[0]: warning: node 99 of a 5-node model: the channel poses no node" in out
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert list(root["msh_clips"]) == NAMES


# ---------------------------------------------------------------- each model its own controller
@pytest.fixture
def two_controllers(folder):
    """An archive of a walker and a gun, each with its own controller (gun.ctl: the walker's, its channels on
    the gun's two nodes and its states on frame 0)."""
    gun = walker_controller()
    gun.channels["node"] = (0, 1)
    gun.states["pair_a"] = gun.states["pair_b"] = (0.0, 0.0)
    archive = Archive()
    archive.add("walker.msh", (folder / "walker.msh").read_bytes())
    archive.add("gun.msh", gun_model())
    archive.add("walker.ctl", walker_controller().to_bytes(), CTLD_TYPE_ID)
    archive.add("gun.ctl", gun.to_bytes(), CTLD_TYPE_ID)
    path = folder / "two.rlb"
    path.write_bytes(archive.to_bytes())
    return path


def test_clips_of_an_archive_entry_takes_the_models_own_controller(capsys, two_controllers):
    code, out, err = run(capsys, "clips", two_controllers, "--entry", "GUN.MSH")
    assert code == 0, err
    assert out.startswith(f"{two_controllers}:gun.ctl: 11 states") and "channel 1: node 1, frames" in out
    code, out, err = run(capsys, "clips", two_controllers, "--entry", "walker.msh")
    assert code == 0 and out.startswith(f"{two_controllers}:walker.ctl: 11 states"), err
    code, out, err = run(capsys, "sample", two_controllers, "--entry", "gun.msh", "--clip", "0", "--step", "0")
    assert code == 0 and "node 1 hatch" in out, err
    code, _, err = run(capsys, "clips", two_controllers)
    assert code == 2 and "choose one with --entry" in err


def test_an_archive_without_the_models_controller_says_where_it_looked(capsys, folder):
    archive = Archive()
    archive.add("walker.msh", (folder / "walker.msh").read_bytes())
    archive.add("gun.msh", gun_model())
    archive.add("walker.ctl", walker_controller().to_bytes(), CTLD_TYPE_ID)
    (folder / "one.rlb").write_bytes(archive.to_bytes())
    code, _, err = run(capsys, "clips", folder / "one.rlb", "--entry", "gun.msh")
    assert code == 2
    assert ("one.rlb: no controller found (a CTLD entry named like the model, or the archive's only one); give "
            "one with --ctl FILE") in err


def test_the_import_takes_the_same_controller(blender, two_controllers):
    bpy = blender.bpy
    assert bpy.ops.import_scene.parkan_msh(filepath=str(two_controllers), clips="ACTIONS",
                                           entry_filter="gun.msh") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert root["msh_model"] == "gun.msh" and list(root["msh_clips"]) == [
        "gun.msh|stand 0", "gun.msh|walk 1", "gun.msh|run 2"]
