"""The panel's live export check runs in short timer steps (curves and meshes read a slice at a
time, the planning in a worker thread), and what it lists once it settles is what the full check (the Check
button, ``check_export``) lists for the same scene: every refusal the export gives, after any edit, also when the
scene changes while a live check is under way."""

import time

import pytest
from test_import import import_file, write
from test_panel import REFUSALS, _panel, _select_only, export_dialog_defaults  # noqa: F401  (an autouse fixture)

from core.authoring.build import build_model
from core.authoring.synth import random_model


def settle(bpy, panel, during=None) -> int:
    """Run the live check as its timer does until it is done; ``during(step)`` may change the scene between
    steps. Returns the number of steps."""
    bpy.context.view_layer.update()
    steps = 0
    while True:
        if bpy.app.timers.is_registered(panel._live_check):
            bpy.app.timers.unregister(panel._live_check)
        again = panel._live_check()
        steps += 1
        if again is None:
            return steps
        if during is not None:
            during(steps)
            bpy.context.view_layer.update()
        time.sleep(again)
        assert steps < 10000, "the live check did not settle"


def same_as_full_check(bpy, panel, root_name: str) -> None:
    live = panel.CHECKS.current(root_name)
    assert live is not None and panel.CHECKS.fresh(root_name)
    full = panel.check_export(bpy.context, panel.last_export_options(bpy.context))
    assert [(x.level, x.message) for x in live.lines] == [(x.level, x.message) for x in full.lines]
    assert (live.model is None) == (full.model is None)
    if full.model is not None:
        assert live.model.to_bytes() == full.model.to_bytes()


def curves_of(action):
    if hasattr(action, "fcurves"):
        return list(action.fcurves)
    return [c for layer in action.layers for strip in layer.strips for bag in strip.channelbags for c in bag.fcurves]


@pytest.fixture
def animated(blender, tmp_path):
    bpy = blender.bpy
    data = build_model(random_model(5, node_count=6, frame_count=40, animated=1.0, every_frame=True)).to_bytes()
    (root,) = import_file(bpy, write(tmp_path, "anim.msh", data))
    _select_only(bpy, [root])
    return root


def test_a_sequence_of_edits_lists_what_the_full_check_lists(blender, animated):
    bpy = blender.bpy
    panel = _panel(blender)
    root = animated
    curves = [c for c in curves_of(root.animation_data.action) if c.data_path.endswith("location")]
    mesh = next(o for o in root.children_recursive if o.type == "MESH")
    bone = root.data.bones[2]
    name = bone.name

    def key_moved():
        curves[3].keyframe_points[7].co.y += 0.5
        curves[3].update()

    def vertex_moved():
        mesh.data.vertices[0].co.x += 0.25
        mesh.data.update()

    def name_too_long():
        bone.name = "n" * 40

    def name_back():
        bone.name = name

    def key_back():
        curves[3].keyframe_points[7].co.y -= 0.5
        curves[3].update()

    def scaled():
        root.pose.bones[1].scale = (1.5, 1.5, 1.5)

    seen_errors = []
    for edit in (key_moved, vertex_moved, name_too_long, name_back, key_back, scaled):
        edit()
        assert settle(bpy, panel) > 3  # it ran in steps
        same_as_full_check(bpy, panel, root.name)
        seen_errors += [x.message for x in panel.CHECKS.current(root.name).lines if x.level == "ERROR"]
    assert any("MSH node names hold at most 31" in m for m in seen_errors)


def test_an_edit_while_the_live_check_runs_starts_it_again(blender, animated):
    bpy = blender.bpy
    panel = _panel(blender)
    root = animated
    curve = next(c for c in curves_of(root.animation_data.action) if c.data_path.endswith("location"))
    bone = root.data.bones[1]

    def during(step):
        if step == 2:  # mid-read: the curves already read are stale
            curve.keyframe_points[5].co.y += 1.0
            curve.update()
        if step == 4:
            bone.name = "m" * 40

    curve.keyframe_points[3].co.y += 0.5
    curve.update()
    settle(bpy, panel, during)
    same_as_full_check(bpy, panel, root.name)
    assert any("MSH node names hold at most 31" in x.message for x in panel.CHECKS.current(root.name).lines)


# The cases whose scene has a model selected (the live check checks the selected model; with none it runs not).
LIVE_CASES = [c for c in REFUSALS if c.__name__ not in ("no_model", "no_nodes")]


@pytest.mark.parametrize("case", LIVE_CASES, ids=[c.__name__ for c in LIVE_CASES])
def test_the_live_check_lists_every_refusal_the_full_check_lists(blender, tmp_path, case):
    bpy = blender.bpy
    panel = _panel(blender)
    options = case(bpy, tmp_path)
    last = bpy.context.window_manager.operator_properties_last("export_scene.parkan_msh")
    for key, value in options.items():
        setattr(last, key, value)
    root = panel.selected_root(bpy.context)
    panel.CHECKS.generation += 1  # the scene changed
    settle(bpy, panel)
    same_as_full_check(bpy, panel, root.name)
    assert any(REFUSALS[case] in x.message for x in panel.CHECKS.current(root.name).lines if x.level == "ERROR")


def test_edits_of_a_model_of_empties_list_what_the_full_check_lists(blender, tmp_path):
    bpy = blender.bpy
    panel = _panel(blender)
    data = build_model(random_model(6, node_count=5, frame_count=30, animated=1.0, every_frame=True)).to_bytes()
    (root,) = import_file(bpy, write(tmp_path, "empties.msh", data), node_mode="EMPTIES")
    _select_only(bpy, [root])
    empties = [o for o in root.children_recursive if o.type == "EMPTY"]
    moved = next(o for o in empties if o.animation_data and o.animation_data.action)
    curve = next(c for c in curves_of(moved.animation_data.action) if c.data_path == "location")
    mesh = next(o for o in root.children_recursive if o.type == "MESH")

    def key_moved():
        curve.keyframe_points[4].co.y += 0.5
        curve.update()

    def vertex_moved():
        mesh.data.vertices[1].co.z += 0.25
        mesh.data.update()

    def name_too_long():
        empties[1].name = "e" * 40

    for edit in (key_moved, vertex_moved, name_too_long):
        edit()
        settle(bpy, panel)
        same_as_full_check(bpy, panel, root.name)
    assert any("MSH node names hold at most 31" in x.message for x in panel.CHECKS.current(root.name).lines)
