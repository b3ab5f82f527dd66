"""Blender's F-curve evaluation in numpy (io_msh.exp.fcurves), and the export taking every frame's pose from
the curves instead of stepping Blender through the frames."""

import numpy as np
import pytest
from fixtures import generated
from test_authoring import assert_same_view, round_trip
from test_export import export_file, import_file, write
from test_export_unedited import animated_node, blender_fcurves, node_handle

from core.animation.tracks import read_animation
from core.msh.model import Model

NODE_MODES = ["ARMATURE", "EMPTIES"]


def fcurves_module(blender):
    import importlib

    return importlib.import_module(f"{blender.ext.__name__}.io_msh.exp.fcurves")


def evaluable_curves(blender, root):
    curves = blender.ext.io_msh.com.curves.read_curves(root)
    blender.ext.io_msh.exp.poses.read_for_evaluation(root, curves)
    return curves


def random_curve(bpy, compat, obj, rng):
    """An F-curve of random keys (some off whole frames), interpolations, handle types and extrapolation."""
    obj.animation_data_clear()
    obj.keyframe_insert("location", index=0, frame=0)
    (fcurve,) = compat.assigned_fcurves(obj)
    fcurve.keyframe_points.clear()
    frames = np.sort(rng.choice(np.arange(-20.0, 60.0), int(rng.integers(1, 8)), replace=False))
    frames += rng.uniform(-0.4, 0.4, len(frames)) * (rng.random(len(frames)) < 0.3)
    for frame in frames:
        key = fcurve.keyframe_points.insert(float(frame), float(rng.normal() * 3))
        key.interpolation = str(rng.choice(["CONSTANT", "LINEAR", "BEZIER", "BEZIER"]))
        key.handle_left_type = key.handle_right_type = str(rng.choice(["AUTO", "AUTO_CLAMPED", "VECTOR",
                                                                       "ALIGNED", "FREE"]))
    fcurve.extrapolation = str(rng.choice(["CONSTANT", "LINEAR"]))
    fcurve.update()
    if rng.random() < 0.25:  # free handles anywhere, some too long for their segment
        for key in fcurve.keyframe_points:
            key.handle_left_type = key.handle_right_type = "FREE"
            key.handle_left = (key.co[0] - rng.uniform(0, 3), key.co[1] + rng.normal())
            key.handle_right = (key.co[0] + rng.uniform(0, 3), key.co[1] + rng.normal())
    return fcurve


def test_the_numpy_evaluation_gives_blenders_values_bit_for_bit(blender):
    bpy = blender.bpy
    fcurves = fcurves_module(blender)
    compat = blender.ext.io_msh.com.compat
    enum = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items
    assert (enum["CONSTANT"].value, enum["LINEAR"].value, enum["BEZIER"].value) == (
        fcurves.CONSTANT, fcurves.LINEAR, fcurves.BEZIER)
    root = bpy.data.objects.new("root", None)
    obj = bpy.data.objects.new("node", None)
    bpy.context.scene.collection.objects.link(root)
    bpy.context.scene.collection.objects.link(obj)
    obj.parent = root
    rng = np.random.default_rng(13)
    curves, expected, refused = [], [], 0
    for _ in range(150):
        fcurve = random_curve(bpy, compat, obj, rng)
        (curve,) = [c for c in evaluable_curves(blender, root) if c.handle == "node"]
        if not curve.plain:
            refused += 1
            continue
        keys = curve.co[0::2]
        frames = np.concatenate([np.arange(-30, 70, 0.37), np.arange(-30, 70), keys, keys + 5e-5, keys - 5e-5])
        frames = np.sort(frames.astype(np.float32))
        curves.append((curve, frames))
        expected.append(np.array([fcurve.evaluate(float(f)) for f in frames], np.float32))
    assert len(curves) >= 100 and refused >= 10
    for (curve, frames), blender_values in zip(curves, expected):
        np.testing.assert_array_equal(fcurves.evaluate([curve], frames)[0], blender_values)
    # Many curves at once, in chunks of frames: the same values.
    shared = np.sort(np.concatenate([np.arange(-30, 70, 0.37), np.arange(-30, 70)]).astype(np.float32))
    fcurves.PAIRS, saved = 1000, fcurves.PAIRS
    try:
        together = fcurves.evaluate([c for c, _ in curves], shared)
    finally:
        fcurves.PAIRS = saved
    for (curve, _), values in zip(curves, together):
        np.testing.assert_array_equal(values, fcurves.evaluate([curve], shared)[0])


@pytest.mark.parametrize("change", ["modifier", "mute", "easing", "long handles", "keys too close"])
def test_curves_it_cannot_reproduce_are_left_to_blender(blender, change):
    bpy = blender.bpy
    compat = blender.ext.io_msh.com.compat
    root = bpy.data.objects.new("root", None)
    obj = bpy.data.objects.new("node", None)
    bpy.context.scene.collection.objects.link(root)
    bpy.context.scene.collection.objects.link(obj)
    obj.parent = root
    for frame, value in ((0, 0.0), (10, 1.0), (20, 0.5)):
        obj.location.x = value
        obj.keyframe_insert("location", index=0, frame=frame)
    (fcurve,) = compat.assigned_fcurves(obj)
    (before,) = evaluable_curves(blender, root)
    assert before.plain
    if change == "modifier":
        fcurve.modifiers.new("CYCLES")
    elif change == "mute":
        fcurve.mute = True
    elif change == "easing":
        fcurve.keyframe_points[0].interpolation = "ELASTIC"
    elif change == "long handles":
        key = fcurve.keyframe_points[1]
        key.handle_left_type = key.handle_right_type = "FREE"
        key.handle_right = (key.co[0] + 14, key.co[1])
    else:
        fcurve.keyframe_points.add(1)  # (insert and update would merge it with the key at frame 20)
        fcurve.keyframe_points[-1].co = (20.00015, 2.0)
    (after,) = evaluable_curves(blender, root)
    assert not after.plain


def bezier_edit(bpy, root, node):
    """Key a node's location anew as an artist would: Bezier keys with automatic handles."""
    for curve in blender_fcurves(bpy, root, node):
        if curve.data_path.endswith("location"):
            for key in curve.keyframe_points:
                key.interpolation = "BEZIER"
                key.handle_left_type = key.handle_right_type = "AUTO_CLAMPED"
            curve.keyframe_points[len(curve.keyframe_points) // 2].co.y += 0.4
            curve.update()


def exported_both_ways(blender, tmp_path, monkeypatch):
    """The export's bytes taking poses from the curves, and stepping through the frames; and how many frames
    each stepped through."""
    readback = blender.ext.io_msh.exp.readback
    stepped = []
    world_at = readback._world_at
    monkeypatch.setattr(readback, "_world_at", lambda *args: stepped.append(1) or world_at(*args))
    from_curves = tmp_path / "curves.msh"
    export_file(blender.bpy, from_curves)
    curve_steps = len(stepped)
    monkeypatch.setattr(readback, "curve_poses", lambda *args: None)
    stepping = tmp_path / "stepping.msh"
    export_file(blender.bpy, stepping)
    return from_curves.read_bytes(), stepping.read_bytes(), curve_steps, len(stepped) - curve_steps


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_an_edited_export_takes_every_frame_from_the_curves_as_stepping_would(blender, tmp_path, monkeypatch,
                                                                               node_mode):
    bpy = blender.bpy
    data = generated(61, node_count=8, frame_count=40, animated=0.8)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    bezier_edit(bpy, root, animated_node(root, data))
    from_curves, stepping, curve_steps, steps = exported_both_ways(blender, tmp_path, monkeypatch)
    assert curve_steps == 0 and steps == 40
    ours, theirs = (read_animation(Model.parse(b)).tracks for b in (from_curves, stepping))
    assert from_curves != data
    for a, b in zip(ours, theirs):  # the same keys; positions within Blender's float32 rounding of its matrices
        np.testing.assert_array_equal(a.times, b.times)
        np.testing.assert_array_equal(a.rot, b.rot)
        np.testing.assert_allclose(a.pos, b.pos, atol=1e-6)


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_curves_that_do_not_give_the_pose_shown_are_not_trusted(blender, tmp_path, monkeypatch, node_mode):
    bpy = blender.bpy
    data = generated(62, node_count=8, frame_count=30, animated=0.8)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    node = animated_node(root, data)
    bezier_edit(bpy, root, node)
    if node_mode == "ARMATURE":  # Blender shows the rest pose whatever the curves say
        root.data.pose_position = "REST"
    else:  # an offset the curves know nothing of
        node_handle(root, node).delta_location = (0.0, 0.0, 0.5)
    _, _, curve_steps, _ = exported_both_ways(blender, tmp_path, monkeypatch)
    assert curve_steps == 30
    before, after, _ = round_trip(bpy, blender, tmp_path, node_mode)
    assert_same_view(before, after)


def keyed_curves(bpy, compat, copies: bool, monkeypatch) -> list[tuple]:
    """Seven curves of each of three bones (two key counts, fractional frames, keys 0.004 frame apart) through
    ChannelTarget.linear_fcurve, F-curve copies on or off; returns each curve's path, index, group, keys and
    handles as the channelbag (or 4.2's action) holds them, in its order."""
    monkeypatch.setattr(compat, "CHANNELBAG_COPIES_FCURVES", copies)
    rng = np.random.default_rng(7)
    obj = bpy.data.objects.new(f"copies {copies}", None)
    bpy.context.collection.objects.link(obj)
    target = compat.ChannelTarget(bpy.data.actions.new(obj.name), obj, obj.name)
    for bone, count in (("a", 40), ('b "q"', 40), ("c", 9)):
        frames = np.sort(rng.uniform(-5, 50, count))
        frames[1] = frames[0] + 0.004
        for path, size in (("location", 3), ("rotation_quaternion", 4)):
            for index in range(size):
                co = np.column_stack([frames, rng.normal(size=count)]).astype(np.float32).ravel()
                target.linear_fcurve(f'pose.bones["{bone}"].{path}', index, bone, co)
    out = []
    for fcurve in compat.assigned_fcurves(obj):
        points, n = fcurve.keyframe_points, len(fcurve.keyframe_points)
        floats = {p: np.empty(2 * n, np.float32) for p in ("co", "handle_left", "handle_right")}
        ints = {p: np.empty(n, np.int32) for p in ("interpolation", "handle_left_type", "handle_right_type",
                                                   "easing", "type")}
        for name, array in (*floats.items(), *ints.items()):
            points.foreach_get(name, array)
        out.append((fcurve.data_path, fcurve.array_index, fcurve.group.name, fcurve.extrapolation,
                    {k: v.tolist() for k, v in (*floats.items(), *ints.items())}))
    return out


def test_linear_curves_copied_from_a_template_hold_the_keys_and_handles_of_curves_keyed_one_by_one(
        blender, monkeypatch):
    """5.0 writes an import's linear curves as copies of a template (new_from_fcurve); the keys,
    handles, interpolations, order and groups are those of curves made with fcurves.new and keyframe_points.add."""
    bpy, compat = blender.bpy, blender.ext.io_msh.com.compat
    available = compat.CHANNELBAG_COPIES_FCURVES
    assert available == (bpy.app.version >= (5, 0, 0))
    added = keyed_curves(bpy, compat, False, monkeypatch)
    copied = keyed_curves(bpy, compat, available, monkeypatch)
    assert len(added) == 21 and added == copied
    assert all(set(curve[4]["interpolation"]) == {compat.LINEAR} for curve in added)
