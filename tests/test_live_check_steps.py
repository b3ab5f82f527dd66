"""The live check reads the scene a part per timer step (io_msh.exp.readback.scene_steps through
io_msh.exp.export.model_steps), so that no step holds Blender for the whole read: the parts together read exactly
what the read in one go reads, they pause only where the read has changed nothing in Blender, and an edit between
two parts makes the live check start again and list what the full check lists."""

import dataclasses

import numpy as np
import pytest
from test_import import import_file, write
from test_live_check import curves_of, same_as_full_check, settle
from test_panel import _panel, _select_only, export_dialog_defaults  # noqa: F401  (an autouse fixture)

from core.authoring.build import build_model
from core.authoring.synth import random_model

NODE_MODES = ["ARMATURE", "EMPTIES"]


def run_steps(steps) -> tuple[object, int]:
    """(what the generator returns, how many times it paused)."""
    count = 0
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value, count
        count += 1


def imported(bpy, tmp_path, node_mode, seed=5):
    data = build_model(random_model(seed, node_count=6, frame_count=40, animated=1.0, every_frame=True)).to_bytes()
    (root,) = import_file(bpy, write(tmp_path, "anim.msh", data), node_mode=node_mode)
    _select_only(bpy, [root])
    bpy.context.view_layer.update()
    return root


def move_a_key(root):
    holders = [root] if root.type == "ARMATURE" else [o for o in root.children_recursive if o.type == "EMPTY"]
    curve = next(c for h in holders if h.animation_data and h.animation_data.action
                 for c in curves_of(h.animation_data.action) if c.data_path.endswith("location"))
    curve.keyframe_points[len(curve.keyframe_points) // 2].co.y += 0.5
    curve.update()
    return curve


def assert_same_scene(a, b) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "poses":
            assert (x is None) == (y is None)
            if x is not None:
                frames = np.arange(0, 40, dtype=np.float64)
                assert np.array_equal(x(frames, list(range(len(a.nodes)))), y(frames, list(range(len(b.nodes)))))
        elif isinstance(x, np.ndarray):
            assert np.array_equal(x, y), f.name
        elif f.name in ("meshes", "materials"):
            assert repr(x) == repr(y), f.name
        else:
            assert x == y, f.name


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("edited", [False, True], ids=["as imported", "a key moved"])
def test_the_read_in_parts_reads_what_the_read_in_one_go_reads(blender, tmp_path, node_mode, edited):
    bpy = blender.bpy
    export = blender.ext.io_msh.exp.export
    root = imported(bpy, tmp_path, node_mode)
    if edited:
        move_a_key(root)
        bpy.context.view_layer.update()
    options = export.ExportOptions()
    whole = export.read_model(bpy.context, root, options)
    parts, paused = run_steps(export.model_steps(bpy.context, root, options, pause=True))
    assert paused >= (3 if edited else 2)  # the read ran in parts
    assert_same_scene(parts.scene, whole.scene)
    assert (parts.end, parts.frame_end, parts.clip_warnings) == (whole.end, whole.frame_end, whole.clip_warnings)
    assert np.array_equal(parts.frames, whole.frames)
    _unpaused, never = run_steps(export.model_steps(bpy.context, root, options))
    assert never == 0  # the export's own read runs at once


def test_the_read_pauses_only_while_it_changed_nothing_in_blender(blender, tmp_path):
    bpy = blender.bpy
    export = blender.ext.io_msh.exp.export
    root = imported(bpy, tmp_path, "ARMATURE")
    move_a_key(root)
    options = export.ExportOptions()
    scene = bpy.context.scene
    scene.frame_set(7)  # the read evaluates the first frame in a scene of its own: no pause
    assert run_steps(export.model_steps(bpy.context, root, options, pause=True))[1] == 0
    scene.frame_set(0)
    driver = root.pose.bones[1].driver_add("location", 0)
    driver.mute = True  # the read parks a muted driver while it reads: no pause
    bpy.context.view_layer.update()
    assert run_steps(export.model_steps(bpy.context, root, options, pause=True))[1] == 0
    root.pose.bones[1].driver_remove("location", 0)
    bpy.context.view_layer.update()
    assert run_steps(export.model_steps(bpy.context, root, options, pause=True))[1] >= 3


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_the_live_check_reads_the_scene_in_several_steps(blender, tmp_path, node_mode):
    bpy = blender.bpy
    panel = _panel(blender)
    root = imported(bpy, tmp_path, node_mode)
    move_a_key(root)
    reading = []
    settle(bpy, panel, lambda step: reading.append(
        panel._LIVE[0] is not None and panel._LIVE[0].job is not None and panel._LIVE[0].thread is None))
    assert sum(reading) >= 3  # steps between the read's start and the planning thread's
    same_as_full_check(bpy, panel, root.name)


@pytest.mark.parametrize("part", [0, 1, 2])
def test_an_edit_between_two_parts_of_the_read_starts_the_check_again(blender, tmp_path, part):
    bpy = blender.bpy
    panel = _panel(blender)
    root = imported(bpy, tmp_path, "ARMATURE")
    curve = move_a_key(root)
    bone = root.data.bones[2]
    seen = []

    def during(step):
        live = panel._LIVE[0]
        if live is None or live.job is None or live.thread is not None:
            return
        seen.append(step)
        if len(seen) == part + 1:  # in the middle of the scene read
            curve.keyframe_points[3].co.y += 1.0
            curve.update()
            bone.name = "m" * 40

    settle(bpy, panel, during)
    assert len(seen) > part
    same_as_full_check(bpy, panel, root.name)
    assert any("MSH node names hold at most 31" in x.message for x in panel.CHECKS.current(root.name).lines)
