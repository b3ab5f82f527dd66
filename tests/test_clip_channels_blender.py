"""Two channels with segments naming one node. One rule (docs/formats/controller.md:
the first channel poses the node; the sources are silent), the same in ``core sample --clip`` and in Blender,
and both say which channels clash."""

import dataclasses
import json

import numpy as np
import pytest
from fixtures import run_cli as run
from test_clips_blender import import_walker, local_poses, rigid

from core.animation.controller import clips_of, pose_at_step, step_at
from core.animation.controller.clips import channel_frame, node_channels, shadowed_channels
from core.animation.sampler import AnimationData, blend_pose
from core.authoring.build import build_model
from core.authoring.controllers import YAW_FRAMES, channel, walker_controller, walker_model
from core.msh.model import Model

GUN = 2


def walker_with_a_second_gun_channel():
    """The walker plus channel 2 on the gun (node 2, already channel 1's) along the turret's yaw segment, at 0.75:
    a pose channel 1 never gives."""
    controller = walker_controller()
    extra = channel(GUN, *YAW_FRAMES, 0.75, 1.0, 1.0, 0x0)
    return dataclasses.replace(controller, channels=np.concatenate([controller.channels, [extra]]))


@pytest.fixture
def files(tmp_path):
    data = build_model(walker_model()).to_bytes()
    (tmp_path / "walker.msh").write_bytes(data)
    (tmp_path / "walker.ctl").write_bytes(walker_with_a_second_gun_channel().to_bytes())
    return tmp_path, data


def test_the_first_channel_naming_a_node_poses_it():
    controller = walker_with_a_second_gun_channel()
    assert node_channels(controller) == {1: 0, GUN: 1}
    assert shadowed_channels(controller) == [(GUN, 1, 2)]
    assert shadowed_channels(walker_controller()) == []


def test_sample_clip_poses_the_node_by_the_first_channel_and_says_so(capsys, files):
    folder, data = files
    controller = walker_with_a_second_gun_channel()
    anim = AnimationData.from_model(Model.parse(data))
    code, out, err = run(capsys, "sample", str(folder / "walker.msh"), "--clip", "1", "--step", "1.5", "--json")
    assert code == 0, err
    payload = json.loads(out)
    first = controller.channels[1]
    want = blend_pose(anim, GUN, -1.0, float(channel_frame(first, first["initial"])), 1.0)
    assert (payload["nodes"][GUN]["rot"], payload["nodes"][GUN]["pos"]) == ([float(v) for v in want[0]],
                                                                             [float(v) for v in want[1]])
    assert payload["notes"] == ["channels 1 and 2 both animate node 2: the first one poses it"]
    code, out, _ = run(capsys, "sample", str(folder / "walker.msh"), "--clip", "1", "--step", "1.5")
    assert code == 0 and out.rstrip().endswith("channels 1 and 2 both animate node 2: the first one poses it")
    code, out, _ = run(capsys, "sample", str(folder / "walker.msh"), "--clip", "1", "--step", "1.5", "--nodes", "3")
    assert code == 0 and "both animate" not in out  # the gun is not asked for


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_blender_poses_the_node_as_the_cli_and_warns_naming_both_channels(blender, files, capfd, node_mode):
    bpy = blender.bpy
    folder, data = files
    controller = walker_with_a_second_gun_channel()
    anim = AnimationData.from_model(Model.parse(data))
    capfd.readouterr()
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS", frame_rate=30.0)
    out = capfd.readouterr().out
    assert "channels 1 and 2 both animate node 2: the first one poses it and the other gets no slider" in out
    assert [k for k in sorted(root.keys()) if k.startswith("msh_channel")] == ["msh_channel 0 turret",
                                                                             "msh_channel 1 gun"]
    clip = clips_of(controller, anim)[1]
    for value in (0.0, 0.25, 1.0):
        root["msh_channel 1 gun"] = value
        root.update_tag()
        blender.evaluated_frame(3)
        shown = local_poses(bpy, root)[GUN]
        game = pose_at_step(anim, controller, step_at(controller, clip, 1.0), nodes=[GUN], channel_values={1: value})
        q, p = blend_pose(anim, GUN, -1.0, float(channel_frame(controller.channels[1], value)), 1.0)
        assert np.abs(shown - rigid(q, np.array(p, np.float64))).max() < 1e-5, value
        assert np.abs(shown - game[0]).max() < 2e-4, value  # the game's matrix: the unnormalised i16 quaternion


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_update_clips_repeats_the_controllers_warnings(blender, files, capfd, node_mode):
    """Update Clips makes the clips again from the controller, and says what the import said of it."""
    bpy = blender.bpy
    folder, _data = files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS", frame_rate=30.0)
    capfd.readouterr()
    bpy.context.view_layer.objects.active = root
    assert bpy.ops.object.parkan_update_clips() == {"FINISHED"}
    assert "channels 1 and 2 both animate node 2: the first one poses it" in capfd.readouterr().out


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_a_slider_along_a_long_segment_keeps_every_key(blender, tmp_path, node_mode):
    """A channel along 38 timeline frames gets 609 slider keys, 1/608 apart in value: keyed at x = value, Blender's
    FCurve.update merged those closer than 0.01 (87 were left, the pose 0.2 off); at every value the slider
    poses the node as core's pose_at_step does."""
    bpy = blender.bpy
    controller = walker_controller()
    controller.channels["first"][1], controller.channels["last"][1] = 2.0, 40.0
    data = build_model(walker_model()).to_bytes()
    (tmp_path / "walker.msh").write_bytes(data)
    (tmp_path / "walker.ctl").write_bytes(controller.to_bytes())
    root = import_walker(blender, tmp_path / "walker.msh", node_mode=node_mode, clips="ACTIONS")
    anim = AnimationData.from_model(Model.parse(data))
    holder = root if node_mode == "ARMATURE" else next(o for o in bpy.data.objects if o.get("msh_node_index") == GUN)
    counts = {len(f.keyframe_points) for f in holder.animation_data.drivers if "msh_channel 1" in
              f.driver.variables[0].targets[0].data_path}
    assert counts == {609}
    clip = clips_of(controller, anim)[0]
    worst_rigid = worst_game = 0.0
    for value in np.linspace(0.0, 1.0, 97):
        root["msh_channel 1 gun"] = float(value)
        root.update_tag()
        blender.evaluated_frame(3)
        shown = local_poses(bpy, root)[GUN]
        game = pose_at_step(anim, controller, step_at(controller, clip, 0.0), nodes=[GUN], channel_values={1: value})
        q, p = blend_pose(anim, GUN, -1.0, float(channel_frame(controller.channels[1], value)), 1.0)
        worst_rigid = max(worst_rigid, np.abs(shown - rigid(q, np.array(p, np.float64))).max())
        worst_game = max(worst_game, np.abs(shown - game[0]).max())
    assert worst_rigid < 1e-5 and worst_game < 2e-4, (worst_rigid, worst_game)
