"""A unit imported with Clips plays the chassis's clips with every mounted part at its
socket (Show Unit Clip, the panel's Unit Pose), and Export Unit writes edited controller states and clip edits
as the model export does. Through the real operators."""

import struct

import numpy as np
import pytest
from test_unit_import import node_worlds
from unit_fixtures import write_game

from core.animation.controller import clips_of, pose_at_step, read_controller, step_at
from core.animation.sampler import AnimationData, sample, world_matrices_at
from core.authoring import units
from core.authoring.controllers import walker_controller
from core.container.nres import Archive
from core.msh.model import Model
from core.unit.mount import part_placement

CHASSIS_CTL = "synth_chassis.ctl"
WALK_FRAMES = np.arange(5.0, 12.0)  # inside pair B of the walker's walk states (4..12)


def clip_unit(folder):
    """The synthetic unit with a walking chassis (the walker's controller: stand, walk, run clips, two channels)."""
    files = units.unit_files()
    archive = Archive.parse(files[units.PARTS])
    archive.find(CHASSIS_CTL).data = walker_controller().to_bytes()
    files[units.PARTS] = archive.to_bytes()
    write_game(folder, files)
    return folder / units.UNIT_DAT


def import_clip_unit(bpy, dat, **options):
    assert bpy.ops.import_scene.parkan_unit(filepath=str(dat), clips="ACTIONS", **options) == {"FINISHED"}
    unit = next(c for c in bpy.data.collections if "msh_unit" in c)
    roots = {o["msh_unit_component"]: o for o in unit.all_objects if "msh_model" in o}
    return unit, roots


def socket_world(root, node: int) -> np.ndarray:
    return node_worlds(root)[node]


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_a_chassis_clip_moves_every_mounted_part_with_its_socket(blender, tmp_path, node_mode):
    bpy = blender.bpy
    unit, roots = import_clip_unit(bpy, clip_unit(tmp_path), node_mode=node_mode)
    chassis = roots[0]
    assert [n.rsplit("|", 1)[1] for n in chassis["msh_clips"]] == ["stand 0", "walk 1", "run 2"]
    scene = bpy.context.scene
    assert bpy.ops.object.parkan_unit_clip(clip="walk 1", collection=unit.name) == {"FINISHED"}
    holder = chassis if node_mode == "ARMATURE" else next(
        o for o in chassis.children_recursive if o.animation_data and o.animation_data.action)
    start, end = holder.animation_data.action.frame_range
    assert holder.animation_data.action.get("msh_clip", "").endswith("|walk 1")
    assert (scene.frame_start, scene.frame_end) == (int(start), int(np.ceil(end)))
    mid = (start + end) / 2  # mid-stride
    scene.frame_set(int(mid), subframe=mid - int(mid))
    shown = {c: node_worlds(r) for c, r in roots.items()}
    sockets = {2: 1, 5: 2}  # turret component -> chassis socket node (Base_TL, Base_TM)
    for component, socket in sockets.items():
        part = roots[component]
        own = {n: np.linalg.inv(np.array(part.matrix_world)) @ w for n, w in shown[component].items()}
        # the mounting rule (core.unit.mount.part_placement): node n = socket_world @ root_local^-1 @ own(n)
        for node, world in shown[component].items():
            expected = shown[0][socket] @ np.linalg.inv(own[0]) @ own[node]
            if node:
                assert np.abs(world - expected).max() < 1e-5, (component, node)
    walked = {c: socket_world(chassis, s) for c, s in sockets.items()}
    assert bpy.ops.object.parkan_unit_clip(clip="", collection=unit.name) == {"FINISHED"}
    scene.frame_set(int(mid), subframe=mid - int(mid))
    # the clip, not the timeline, placed the sockets (the walk's frame differs from the timeline's)
    assert any(np.abs(socket_world(chassis, s) - walked[c]).max() > 1e-4 for c, s in sockets.items())
    assert holder.animation_data.action.get("msh_clip") is None
    assert (scene.frame_start, scene.frame_end) == (0, 40)  # the timeline's range again (41 frames)


MOUNTS = {2: (0, 1), 3: (2, 2), 4: (2, 3), 5: (0, 2), 6: (5, 3)}  # mounted component -> (parent, socket node)
RATE = 24.0  # Import Unit's default Frame Rate


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_at_mid_stride_every_mounted_part_is_where_the_mounting_rule_puts_it_on_cores_clip_pose(
        blender, tmp_path, node_mode):
    """The chassis at the middle step of its walk, as core poses it (pose_at_step: the sockets Base_TL and
    Base_TM are channel nodes, at their sliders' initial values), carries every turret and gun where
    core.unit.mount's rule puts them: node n = socket_world @ root_local^-1 @ own(n), each part on its own
    timeline at that frame (a mounted part plays no chassis state: docs/formats/units.md)."""
    bpy = blender.bpy
    dat = clip_unit(tmp_path)
    unit, roots = import_clip_unit(bpy, dat, node_mode=node_mode)
    archive = Archive.parse((tmp_path / units.PARTS).read_bytes())
    models = {c: Model.parse(archive.find(str(r["msh_model"])).data) for c, r in roots.items()}
    controller = walker_controller()
    chassis = AnimationData.from_model(models[0])
    clip = clips_of(controller, chassis)[1]
    k = len(clip.steps) // 2
    frame = float(np.concatenate([[0], np.cumsum([s.duration_ms for s in clip.steps])])[k] * RATE / 1000)
    assert frame > 0
    assert bpy.ops.object.parkan_unit_clip(clip="walk 1", collection=unit.name) == {"FINISHED"}
    blender.evaluated_frame(frame)
    local = pose_at_step(chassis, controller, step_at(controller, clip, k), in_place=True).astype(np.float64)
    expected = {0: {0: local[0], **{n: local[0] @ local[n] for n in range(1, len(local))}}}
    for component, (parent, socket) in sorted(MOUNTS.items()):
        assert roots[component]["msh_unit_attach"] == socket
        own = world_matrices_at(AnimationData.from_model(models[component]), [frame], normalize=True)[:, 0]
        placement = part_placement(expected[parent][socket], own[0])
        expected[component] = {n: placement @ own[n] for n in range(len(own))}
    unit_space = np.linalg.inv(np.array(roots[0].matrix_world))
    worst, checked = 0.0, 0
    for component in MOUNTS:
        for node, world in node_worlds(roots[component]).items():
            if node:  # a mounted part's root is dropped: its socket stands for it
                worst = max(worst, float(np.abs(unit_space @ world - expected[component][node]).max()))
                checked += 1
    print(f"{node_mode}: {checked} mounted nodes at clip frame {frame:.4f}, worst {worst:.2e}")
    assert checked == 12 and worst < 5e-5  # core normalises (normalize=True); measured 4e-6


def test_an_unknown_clip_is_refused(blender, tmp_path):
    bpy = blender.bpy
    unit, _roots = import_clip_unit(bpy, clip_unit(tmp_path))
    with pytest.raises(RuntimeError, match="No part of"):
        bpy.ops.object.parkan_unit_clip(clip="fly 9", collection=unit.name)


def test_an_edited_state_is_written_into_the_parts_controller_and_nothing_else(blender, tmp_path):
    bpy = blender.bpy
    dat = clip_unit(tmp_path)
    parts = tmp_path / units.PARTS
    before = {p: p.read_bytes() for p in (dat, parts)}
    _unit, roots = import_clip_unit(bpy, dat)
    assert bpy.ops.export_scene.parkan_unit(filepath=str(dat)) == {"FINISHED"}
    assert {p: p.read_bytes() for p in (dat, parts)} == before  # unedited: byte for byte
    chassis = roots[0]
    chassis["msh_state 2 step ms"] = 77.5
    assert bpy.ops.export_scene.parkan_unit(filepath=str(dat)) == {"FINISHED"}
    assert dat.read_bytes() == before[dat]
    old, new = Archive.parse(before[parts]), Archive.parse(parts.read_bytes())
    changed = [e.name_str for e, o in zip(new.entries, old.entries) if bytes(e.data) != bytes(o.data)]
    assert changed == [CHASSIS_CTL] and len(new.entries) == len(old.entries)
    a, b = bytes(old.find(CHASSIS_CTL).data), bytes(new.find(CHASSIS_CTL).data)
    words = [i for i in range(0, len(a), 4) if a[i:i + 4] != b[i:i + 4]]
    assert len(a) == len(b) and len(words) == 1 and struct.unpack_from("<f", b, words[0])[0] == 77.5
    controller, _ = read_controller(b, CHASSIS_CTL)
    assert float(controller.states[2]["length_ms"]) == 77.5


def test_an_edited_clip_key_reaches_the_parts_model(blender, tmp_path):
    bpy = blender.bpy
    dat = clip_unit(tmp_path)
    parts = tmp_path / units.PARTS
    before = Archive.parse(parts.read_bytes())
    _unit, roots = import_clip_unit(bpy, dat)
    chassis = roots[0]
    action = next(a for a in bpy.data.actions if a.get("msh_clip", "").endswith("|walk 1"))
    from io_msh.com import compat
    curve = next(c for c in compat.action_fcurves(action) if "leg" in c.data_path and "rotation" in c.data_path)
    for key in curve.keyframe_points:
        key.co.y += 0.2
        key.handle_left.y += 0.2
        key.handle_right.y += 0.2
    assert bpy.ops.export_scene.parkan_unit(filepath=str(dat)) == {"FINISHED"}
    after = Archive.parse(parts.read_bytes())
    changed = [e.name_str for e, o in zip(after.entries, before.entries) if bytes(e.data) != bytes(o.data)]
    assert changed == ["synth_chassis.msh"]
    # the walk's timeline frames (pair B of its states: 4..12) hold the leg's new turn; node 0..2 are kept
    old = sample(AnimationData.from_model(Model.parse(before.find("synth_chassis.msh").data)), WALK_FRAMES)
    new = sample(AnimationData.from_model(Model.parse(after.find("synth_chassis.msh").data)), WALK_FRAMES)
    leg = 3
    assert np.abs(new.rot[leg].astype(float) - old.rot[leg]).max() > 1e-2
    assert np.abs(new.rot[:leg].astype(float) - old.rot[:leg]).max() < 1e-3
    assert np.abs(new.pos.astype(float) - old.pos).max() < 1e-3
    assert chassis["msh_model"] == "synth_chassis.msh"


def test_the_panel_poses_the_whole_unit_from_any_of_its_parts(blender, tmp_path):
    """Unit Pose: a button per clip of the unit (and Timeline), then each part's sliders under its name."""
    from rna_layout import CheckedLayout
    from test_panel import drawn_panel

    bpy = blender.bpy
    unit, roots = import_clip_unit(bpy, clip_unit(tmp_path))
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    turret = roots[5]
    turret.select_set(True)
    bpy.context.view_layer.objects.active = turret
    roots[0]['msh_channel 2 Base_"TR"'] = 0.5  # a node name may hold quotes: the path escapes them
    panel = blender.ext.io_msh.ui.panel
    drawn = CheckedLayout()
    panel.VIEW3D_PT_parkan_model.draw(drawn_panel(drawn), bpy.context)
    assert ("panel", "PARKAN_MSH_panel_unit") in drawn.drawn
    clips = [d[2] for d in drawn.drawn if d[:2] == ("operator", "object.parkan_unit_clip")]
    assert clips == ["Timeline", "stand 0", "walk 1", "run 2"]
    assert ("operator property", "collection", unit.name) in drawn.drawn
    at = drawn.drawn.index(("label", roots[0]["msh_unit_display"]))
    assert drawn.drawn[at + 1:at + 4] == [("prop", '["msh_channel 0 Base_TL"]'), ("prop", '["msh_channel 1 Base_TM"]'),
                                          ("prop", '["msh_channel 2 Base_\\"TR\\""]')]


def test_a_state_value_the_game_cannot_take_is_refused_naming_the_part_and_nothing_is_written(blender, tmp_path):
    bpy = blender.bpy
    dat = clip_unit(tmp_path)
    parts = tmp_path / units.PARTS
    before = {p: p.read_bytes() for p in (dat, parts)}
    _unit, roots = import_clip_unit(bpy, dat)
    roots[0]["msh_state 2 step ms"] = -5.0
    with pytest.raises(RuntimeError, match=r"part synth_chassis\.msh.*step length -5 ms is negative"):
        bpy.ops.export_scene.parkan_unit(filepath=str(dat))
    assert {p: p.read_bytes() for p in (dat, parts)} == before
