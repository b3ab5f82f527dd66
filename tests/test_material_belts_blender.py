"""Belts (units-clips-digest 2.5 and 3.3) through the real import operator: a controller channel with flag 0x10
plays the MAT0 track of the materials its node wears by its 0..1 value (manager slot 5), not by the clock. In
Blender the channel is a slider on the model root whose drivers set the material's nodes: at every slider value
the material shows what core.appearance.material_tracks.timeline_at_fraction gives, while a material the other
node wears still plays by the clock."""

import numpy as np
import pytest
from test_material_animation_blender import RATE, srgb_to_linear
from test_material_animation_fields_blender import FIELDS, shown_texture, two_texture_library
from test_materials_blender import model_archive, wear_of, write_game

from core.animation.controller import CTLD_TYPE_ID, Controller
from core.animation.controller.codec import ANCHOR, CONTACT, FIXED_STEP, GROUP_BLOCK, MATERIAL_CHANNEL, NO_GROUP
from core.appearance.mat0 import MAT0_TYPE_ID, material_of
from core.appearance.material_tracks import LOOP, ONCE, PING_PONG, field_values, texture_names, timeline_at_fraction
from core.authoring.controllers import channel, default_params, state
from core.container.nres import Archive

BELT = "msh_channel 0 part1"


def belt_controller(initial: float, node: int = 1) -> Controller:
    """One anchor standing on frame 0, and channel 0: the belt on node 1."""
    states = np.array([state(ANCHOR | FIXED_STEP, pair_b=(0.0, 0.0), length_ms=100.0)])
    costs = np.ones((1, 1), "<f4")
    channels = np.array([channel(node, -1.0, -1.0, initial, 1.0, 0.0, MATERIAL_CHANNEL)])
    block = np.full(GROUP_BLOCK, NO_GROUP, "<i4")
    return Controller(default_params(), states, np.zeros((1, 0), CONTACT), costs, channels, [], block, [])


def import_belt(blender, tmp_path, mode: int, mask: int, node: int = 1):
    """Node 0 wears CLOCK, node 1 (the belt) wears SWITCH: the same track."""
    bpy = blender.bpy
    libraries = two_texture_library(mode, mask)
    lib = libraries["Material.lib"]
    switch = lib.find("SWITCH")
    lib.add("CLOCK", bytes(switch.data), MAT0_TYPE_ID, attr1=switch.attr1, attr2=switch.attr2)
    game = write_game(tmp_path / "game", libraries)
    archive = Archive.parse(model_archive(wear_of(["CLOCK", "SWITCH"]), 2))
    archive.add("unit.ctl", belt_controller(0.3, node).to_bytes(), CTLD_TYPE_ID)
    (game / "unit.rlb").write_bytes(archive.to_bytes())
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), frame_rate=RATE,
                                           clips="ACTIONS") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    materials = {m.get("msh_mat0"): m for m in bpy.data.materials}
    return libraries, root, materials


@pytest.mark.parametrize("mode", [LOOP, PING_PONG, ONCE])
def test_a_belt_channel_plays_its_nodes_material_by_its_slider(blender, tmp_path, mode):
    bpy = blender.bpy
    libraries, root, materials = import_belt(blender, tmp_path, mode, 0x01 | 0x10)
    assert root[BELT] == pytest.approx(0.3)
    tree = materials["SWITCH"].node_tree
    assert tree.animation_data.action is None and len(tree.animation_data.drivers) > 0
    assert materials["CLOCK"].node_tree.animation_data.action is not None  # the other node's: by the clock
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    core_material = material_of(libraries["Material.lib"].find("SWITCH"))
    block = core_material.animations[0]
    values = np.array([0.0, 0.01, 0.1, 0.2499, 0.25, 0.3, 0.5, 0.61, 0.75, 0.9, 0.999, 1.0])
    times = timeline_at_fraction(block, values)
    names = texture_names(core_material, times)
    expected = {name: srgb_to_linear(field_values(core_material, times, name) / 255.0) for name in FIELDS}
    alpha = np.minimum(field_values(core_material, times, "ambient_alpha")[:, 0] * np.float32(0.01), 1)
    seen = set()
    for frame in (0, 7):  # the clock does not move a belt
        bpy.context.scene.frame_set(frame)
        for k, value in enumerate(values):
            root[BELT] = float(value)
            root.update_tag()  # as the property panel does on an edit
            bpy.context.view_layer.update()
            for name, label in FIELDS.items():
                shown = np.array(tree.nodes[label].outputs[0].default_value)[:3]
                assert np.abs(shown - expected[name][k]).max() < 1e-5, (name, value, shown, expected[name][k])
            assert abs(tree.nodes["msh alpha"].outputs[0].default_value - alpha[k]) < 1e-6, value
            assert shown_texture(bsdf.inputs["Base Color"]) == names[k], value
            seen.add(names[k])
    assert seen == {"BODY.0", "METAL.0"}


def test_belt_keys_step_where_the_games_whole_millisecond_changes(blender, tmp_path):
    """A quarter of a millisecond before and after each key the belt shows the track at floor(period x f) ms:
    the driver gives the F-curve the slider value x the period, and the keys sit at whole ms."""
    bpy = blender.bpy
    libraries, root, materials = import_belt(blender, tmp_path, LOOP, 0x01)
    tree = materials["SWITCH"].node_tree
    core_material = material_of(libraries["Material.lib"].find("SWITCH"))
    period = int(core_material.animations[0].keys["k1"][-1])
    fcurve = next(f for f in tree.animation_data.drivers if f.data_path.startswith('nodes["msh ambient"]'))
    assert fcurve.driver.expression == f"value * {float(period)!r}" and fcurve.driver.is_simple_expression
    co = np.empty(2 * len(fcurve.keyframe_points), np.float32)
    fcurve.keyframe_points.foreach_get("co", co)
    steps = co[::2][1:]
    assert len(steps) == period and np.array_equal(steps, np.arange(1, period + 1))  # the ambient glides: every ms
    probe = np.concatenate([steps - 0.25, steps + 0.25]) / period
    probe = probe[probe <= 1]
    expected = srgb_to_linear(field_values(core_material, timeline_at_fraction(core_material.animations[0], probe),
                                           "ambient") / 255.0)
    for k, value in enumerate(probe):
        root[BELT] = float(value)
        root.update_tag()
        bpy.context.view_layer.update()
        shown = np.array(tree.nodes["msh ambient"].outputs[0].default_value)[:3]
        assert np.abs(shown - expected[k]).max() < 1e-5, (value, shown, expected[k])


def test_an_import_with_a_belt_exports_byte_for_byte(blender, tmp_path):
    bpy = blender.bpy
    _libraries, root, _materials = import_belt(blender, tmp_path, LOOP, 0x01 | 0x10)
    source = tmp_path / "game" / "unit.rlb"
    before = source.read_bytes()
    root[BELT] = 0.8
    root.update_tag()
    bpy.context.view_layer.update()
    out = tmp_path / "out.rlb"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    written, read = Archive.parse(out.read_bytes()), Archive.parse(before)
    assert bytes(written.find("unit.msh").data) == bytes(read.find("unit.msh").data)


def test_a_belt_on_a_node_without_an_animated_material_says_it_has_no_slider(blender, tmp_path, capfd):
    """A belt channel on node 0 gets its slider when node 0 wears an animated material (CLOCK), and none, with a
    warning saying why, when it wears only a material without animation (SAMPLE_BODY)."""
    capfd.readouterr()
    _libraries, root, _materials = import_belt(blender, tmp_path, LOOP, 0x01, node=0)
    assert BELT.replace("part1", "part0") in root  # node 0 wears CLOCK: its belt
    blender.clean_scene()
    libraries = two_texture_library(LOOP, 0x01)
    game = write_game(tmp_path / "plain", libraries)
    archive = Archive.parse(model_archive(wear_of(["SAMPLE_BODY", "SWITCH"]), 2))
    archive.add("unit.ctl", belt_controller(0.3, 0).to_bytes(), CTLD_TYPE_ID)
    (game / "unit.rlb").write_bytes(archive.to_bytes())
    capfd.readouterr()
    assert blender.bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), clips="ACTIONS") == {"FINISHED"}
    (root,) = [o for o in blender.bpy.data.objects if "msh_model" in o]
    assert not [k for k in list(root.keys()) if k.startswith("msh_channel")]
    assert "controller channel 0 (flag 0x10, a belt) is on node 0, which wears no animated material of its own" \
        in capfd.readouterr().out
