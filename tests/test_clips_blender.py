"""Clips through the real import operator: a controller beside the model gives an action per clip
whose pose at every step is the runtime's blended pose, with both root-motion choices, and a 0..1 slider per
channel posing its node as the game's channel frame does."""

import numpy as np
import pytest
from fixtures import load_extension

from core.animation.controller import CTLD_TYPE_ID, clips_of, pose_at_step, step_at
from core.animation.controller.clips import channel_frame
from core.animation.pose import pose_matrix
from core.animation.sampler import AnimationData, blend, blend_pose
from core.authoring.build import build_model
from core.authoring.controllers import WALKER_CLIPS, walker_controller, walker_model
from core.container.nres import Archive
from core.msh.model import Model

RATE = 30.0
NAMES = ["walker.msh|stand 0", "walker.msh|walk 1", "walker.msh|run 2"]


@pytest.fixture(scope="module")
def walker_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("walker")
    data = build_model(walker_model()).to_bytes()
    (folder / "walker.msh").write_bytes(data)
    (folder / "WALKER.CTL").write_bytes(walker_controller().to_bytes())  # any case, as the game's files
    return folder, data


def import_walker(blender, path, **options):
    bpy = blender.bpy
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), **options) == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    return root


def tweak_clip_strip(holders, clip: str) -> None:
    """Tab into clip ``clip``'s NLA strip on every holder that has its track (as an artist edits it there)."""
    for holder in holders:
        anim = holder.animation_data
        track = next((t for t in anim.nla_tracks if t.name == clip), None) if anim else None
        if track is None:
            continue
        for other in anim.nla_tracks:
            other.select = False
        anim.nla_tracks.active = track
        track.select = track.strips[0].select = True
        anim.use_tweak_mode = True
        assert anim.use_tweak_mode


def clip_actions_module(blender):
    return blender.ext.io_msh.imp.clip_actions


def local_poses(bpy, root):
    """Each node's local matrix (relative to its parent node), by node index, as Blender evaluates it."""
    world = {}
    if root.type == "ARMATURE":
        for pose_bone in root.pose.bones:
            world[root.data.bones[pose_bone.name]["msh_node_index"]] = (np.array(pose_bone.matrix), pose_bone)
        parents = {i: (None if pb.parent is None else root.data.bones[pb.parent.name]["msh_node_index"])
                   for i, (_m, pb) in world.items()}
    else:
        inverse = root.matrix_world.inverted()
        empties = {o["msh_node_index"]: o for o in bpy.data.objects if o.type == "EMPTY" and "msh_node_index" in o}
        world = {i: (np.array(inverse @ o.matrix_world), o) for i, o in empties.items()}
        parents = {i: (o.parent["msh_node_index"] if o.parent is not root else None) for i, o in empties.items()}
    return {i: (m if parents[i] is None else np.linalg.inv(world[parents[i]][0]) @ m) for i, (m, _o) in world.items()}


def rigid(q_file: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The game's pose with its quaternion normalised (what a viewer that normalises shows)."""
    q = np.asarray(q_file, np.float64)
    return pose_matrix(q / np.linalg.norm(q), p).astype(np.float64)


def game_matrix(m: np.ndarray) -> np.ndarray:
    """core's row-vector-free matrix (translation in elements 3/7/11) is already Blender's column layout."""
    return np.asarray(m, np.float64)


def test_blend_pose_is_blend_bit_for_bit():
    data = AnimationData.from_model(Model.parse(build_model(walker_model()).to_bytes()))
    for node in range(data.node_count):
        for t_a, t_b, w in ((-1, 3.5, 1), (2.25, 7.5, 0.3), (5, -1, 0), (14.5, 22, 0.6)):
            q, p = blend_pose(data, node, t_a, t_b, w)
            assert np.array_equal(pose_matrix(q, p), blend(data, node, t_a, t_b, w))


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@pytest.mark.parametrize("root_motion", ["IN_PLACE", "MOVING"])
def test_clips_import_as_named_actions_posed_as_the_runtime(blender, walker_files, node_mode, root_motion):
    bpy = blender.bpy
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS",
                         root_motion=root_motion, frame_rate=RATE)
    assert list(root["msh_clips"]) == NAMES
    timeline = root.animation_data.action if node_mode == "ARMATURE" else None
    controller = walker_controller()
    anim = AnimationData.from_model(Model.parse(data))
    clips = clips_of(controller, anim)
    assert [c.states for c in clips] == WALKER_CLIPS
    nodes = None if node_mode == "ARMATURE" else [o for o in bpy.data.objects if "msh_node_index" in o
                                                  and o.type == "EMPTY"]
    nodes = nodes and sorted(nodes, key=lambda o: o["msh_node_index"])
    worst_rigid = worst_game = 0.0
    checked = 0
    for clip, name in zip(clips, NAMES):
        clip_actions_module(blender).show_clip(root, name, nodes)
        durations = np.array([s.duration_ms for s in clip.steps])
        starts = np.concatenate([[0], np.cumsum(durations)]) * RATE / 1000
        action = clip_actions_module(blender).clip_actions(nodes[0] if nodes else root, name)  # 4.2: one per Empty
        assert action.use_fake_user and action.frame_range[1] == pytest.approx(starts[-1], abs=1e-4)
        travelled = np.concatenate([[0], np.cumsum([s.stride for s in clip.steps])])
        for k in range(len(clip.steps) + 1):
            blender.evaluated_frame(starts[k])
            shown = local_poses(bpy, root)
            step = step_at(controller, clip, k)
            game = pose_at_step(anim, controller, step, in_place=True)
            for node in range(anim.node_count):
                q, p = blend_pose(anim, node, float(step.frame_a), float(step.frame_b), float(step.weight))
                if node in (1, 2):  # channel nodes: the sliders' initial values
                    channel = controller.channels[node - 1]
                    q, p = blend_pose(anim, node, -1.0, float(channel_frame(channel, channel["initial"])), 1.0)
                p = np.array(p, np.float64)
                if node == 0:
                    p[:] = 0
                    if root_motion == "MOVING":
                        p[:] = (0.0, travelled[k], 0.0)  # along +y, the walker's velocity boxes
                expected = rigid(q, p)
                worst_rigid = max(worst_rigid, np.abs(shown[node] - expected).max())
                if not (node == 0 and root_motion == "MOVING"):
                    worst_game = max(worst_game, np.abs(shown[node] - game_matrix(game[node])).max())
                checked += 1
    assert checked == anim.node_count * sum(len(c.steps) + 1 for c in clips)
    assert worst_rigid < 1e-5
    assert worst_game < 2e-4  # the game builds its matrix from the unnormalised i16 quaternion
    if node_mode == "ARMATURE":
        clip_actions_module(blender).show_clip(root, None)
        root.animation_data.action = timeline


def test_import_keeps_the_timeline_assigned_and_lays_out_nla_tracks(blender, walker_files):
    folder, _data = walker_files
    root = import_walker(blender, folder / "walker.msh", clips="NLA", frame_rate=RATE)
    assert root.animation_data.action.name == "walker.msh|Action"
    tracks = root.animation_data.nla_tracks
    assert [t.name for t in tracks] == NAMES
    assert all(t.mute for t in tracks)
    assert [t.strips[0].action.name for t in tracks] == NAMES
    assert all(t.strips[0].frame_start == 0 for t in tracks)


def test_no_controller_or_clips_none_makes_no_clip(blender, walker_files, tmp_path):
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh")
    assert "msh_clips" not in root and not [a for a in blender.bpy.data.actions if a.name != "walker.msh|Action"]
    blender.clean_scene()
    (tmp_path / "lone.msh").write_bytes(data)
    bpy = blender.bpy
    assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / "lone.msh"), clips="ACTIONS") == {"FINISHED"}
    assert not [a for a in bpy.data.actions if not a.name.endswith("|Action")]


def test_controller_from_the_archive_and_a_bad_one_left_out(blender, walker_files, tmp_path):
    _folder, data = walker_files
    archive = Archive()
    archive.add("walker.msh", data)
    archive.add("walker.ctl", walker_controller().to_bytes(), CTLD_TYPE_ID)
    (tmp_path / "unit.rlb").write_bytes(archive.to_bytes())
    root = import_walker(blender, tmp_path / "unit.rlb", clips="ACTIONS")
    assert list(root["msh_clips"]) == NAMES
    blender.clean_scene()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "walker.msh").write_bytes(data)
    (bad / "walker.ctl").write_bytes(walker_controller().to_bytes()[:300])
    # the model imports, without clips (tests/test_controller_model.py has the warning)
    root = import_walker(blender, bad / "walker.msh", clips="ACTIONS")
    assert "msh_clips" not in root


def test_another_models_controller_is_not_taken_from_the_archive(blender, walker_files, tmp_path):
    """An archive of a walker, its walker.ctl and a two-node gun: the gun has no controller (the walker's, the
    archive's only one, refused its import), and the walker keeps its own."""
    from core.authoring.build import ModelDef, NodeDef, Part
    from core.authoring.synth import box

    bpy = blender.bpy
    _folder, data = walker_files
    pos, tris = box(center=(0, 0, 0))
    gun = build_model(ModelDef([NodeDef("hull"), NodeDef("hatch", 0)], [Part(0, pos, tris), Part(1, pos, tris)]))
    archive = Archive()
    archive.add("walker.msh", data)
    archive.add("gun.msh", gun.to_bytes())
    archive.add("walker.ctl", walker_controller().to_bytes(), CTLD_TYPE_ID)
    (tmp_path / "unit.rlb").write_bytes(archive.to_bytes())
    assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / "unit.rlb"), clips="ACTIONS",
                                           entry_filter="gun.msh") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert root["msh_model"] == "gun.msh" and "msh_clips" not in root
    blender.clean_scene()
    assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / "unit.rlb"), clips="ACTIONS",
                                           entry_filter="walker.msh") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert list(root["msh_clips"]) == NAMES


def test_a_channel_not_a_number_gets_no_slider_and_no_traceback(blender, tmp_path):
    """Channel 0's first frame NaN: no segment to pose along, no slider; channel 1's initial value NaN: its
    slider starts at 0. The import finishes."""
    import dataclasses

    controller = walker_controller()
    channels = controller.channels.copy()
    channels["first"][0] = np.nan
    channels["initial"][1] = np.nan
    (tmp_path / "walker.msh").write_bytes(build_model(walker_model()).to_bytes())
    (tmp_path / "walker.ctl").write_bytes(dataclasses.replace(controller, channels=channels).to_bytes())
    root = import_walker(blender, tmp_path / "walker.msh", clips="ACTIONS")
    assert [k for k in sorted(root.keys()) if k.startswith("msh_channel")] == ["msh_channel 1 gun"]
    assert root["msh_channel 1 gun"] == 0.0


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_channel_sliders_pose_their_nodes_as_the_game(blender, walker_files, node_mode):
    bpy = blender.bpy
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS")
    controller = walker_controller()
    anim = AnimationData.from_model(Model.parse(data))
    names = {0: "msh_channel 0 turret", 1: "msh_channel 1 gun"}
    for index, name in names.items():
        channel = controller.channels[index]
        assert root[name] == pytest.approx(float(channel["initial"]))
        assert root.id_properties_ui(name).as_dict()["max"] == 1.0
        for value in (0.0, 0.5, 1.0):
            root[name] = value
            root.update_tag()  # as the property panel does on an edit
            blender.evaluated_frame(7)  # any frame: the slider wins over the timeline, as in the game
            q, p = blend_pose(anim, int(channel["node"]), -1.0, float(channel_frame(channel, value)), 1.0)
            shown = local_poses(bpy, root)[int(channel["node"])]
            assert np.abs(shown - rigid(q, p)).max() < 1e-5, (name, value)


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@pytest.mark.parametrize("clips", ["ACTIONS", "NLA"])
def test_an_unedited_import_with_clips_exports_byte_for_byte(blender, walker_files, tmp_path, node_mode, clips):
    """The clip actions, NLA tracks and slider drivers are the controller's view: the model's timeline is what
    the export writes, so a moved slider changes nothing in the file."""
    bpy = blender.bpy
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips=clips)
    root["msh_channel 0 turret"] = 0.9
    root.update_tag()
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == data
    sliders = blender.ext.io_msh.com.sliders.slider_drivers(root)
    assert len(sliders) == 2 * 7 and not any(fcurve.mute for _holder, fcurve in sliders)  # back after the export


def test_a_frame_rate_past_the_key_limit_is_refused_before_sampling(walker_files):
    ext = load_extension()  # planning needs no Blender
    plan = ext.io_msh.imp.plan
    folder, _data = walker_files
    with pytest.raises(ext.core.errors.FormatError, match="choose a lower frame rate") as caught:
        plan.plan_file(folder / "walker.msh", plan.ImportOptions(clips="ACTIONS", frame_rate=1e6))
    assert "WALKER.CTL" in caught.value.describe(str(folder / "walker.msh"))


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_removing_the_model_removes_its_clip_actions(blender, walker_files, node_mode):
    folder, _data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="NLA")
    blender.ext.io_msh.imp.build.remove_model(root)
    assert not blender.bpy.data.actions and not blender.bpy.data.objects


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_a_second_import_after_renaming_the_clips_keeps_its_own(blender, walker_files, node_mode):
    """The first import's clip actions renamed free their names, not their marks: the second import's clips get
    names of their own, so that removing it leaves the first's clips."""
    bpy = blender.bpy
    folder, _data = walker_files
    first = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS")
    for action in list(bpy.data.actions):
        action.name = "mine " + action.name
    mine = set(bpy.data.actions)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"), node_mode=node_mode,
                                           clips="ACTIONS") == {"FINISHED"}
    second = next(o for o in bpy.data.objects if "msh_model" in o and o != first)
    module = clip_actions_module(blender)
    holder = second if node_mode == "ARMATURE" else next(o for o in second.children_recursive
                                                         if o.get("msh_node_index") == 3)
    assert all(module.clip_actions(holder, name) not in mine for name in second["msh_clips"])
    blender.ext.io_msh.imp.build.remove_model(second)
    assert set(bpy.data.actions) == mine


def test_exporting_into_the_archive_keeps_its_controller_byte_for_byte(blender, walker_files, tmp_path):
    from core.files import open_container

    _folder, data = walker_files
    ctl = walker_controller().to_bytes()
    archive = Archive()
    archive.add("walker.msh", data)
    archive.add("walker.ctl", ctl, CTLD_TYPE_ID)
    path = tmp_path / "unit.rlb"
    path.write_bytes(archive.to_bytes())
    before = path.read_bytes()
    root = import_walker(blender, path, clips="NLA")
    root["msh_channel 1 gun"] = 1.0
    assert blender.bpy.ops.export_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    assert path.read_bytes() == before  # the model unchanged, the controller entry as it was
    (entry,) = [e for e in open_container(str(path)).archive.entries if e.type_id == CTLD_TYPE_ID]
    assert bytes(entry.data) == ctl


def clip_fcurve(blender, holder, path, index):
    return next(f for f in blender.ext.io_msh.com.compat.assigned_fcurves(holder)
                if f.data_path == path and f.array_index == index)


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_an_edited_clip_is_written_into_the_timeline_and_exported(blender, walker_files, tmp_path, node_mode):
    """The left leg lifted 0.1 in the walk clip lands on the timeline frames 4..12 the walk plays (pure pair-B
    steps), nothing else moves, and the export writes it."""
    bpy = blender.bpy
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS")
    empties = sorted([o for o in bpy.data.objects if o.type == "EMPTY" and "msh_node_index" in o],
                     key=lambda o: o["msh_node_index"])
    holder, prefix = (root, 'pose.bones["leg_l"].') if node_mode == "ARMATURE" else (empties[3], "")
    before = {f: local_poses(bpy, root) for f in range(0, 16) if not blender.evaluated_frame(f)}
    ops = bpy.ops.object
    bpy.context.view_layer.objects.active = root
    assert ops.parkan_clip_to_timeline(clip=NAMES[1]) == {"FINISHED"}  # nothing edited: nothing written
    unchanged = tmp_path / "unchanged.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(unchanged)) == {"FINISHED"}
    assert unchanged.read_bytes() == data
    clip_actions_module(blender).show_clip(root, NAMES[1], empties)
    fcurve = clip_fcurve(blender, holder, prefix + "location", 2)
    co = np.zeros(2 * len(fcurve.keyframe_points), np.float32)
    fcurve.keyframe_points.foreach_get("co", co)
    co[1::2] += 0.1
    fcurve.keyframe_points.foreach_set("co", co)
    fcurve.update()
    assert ops.parkan_clip_to_timeline(clip=NAMES[1]) == {"FINISHED"}
    assert node_mode == "EMPTIES" or root.animation_data.action.name == NAMES[1]  # the clip still shown
    timeline = json_timeline(root)
    for h in ([root] if node_mode == "ARMATURE" else empties):
        clip_actions_module(blender).assign(h, bpy.data.actions.get(timeline.get(h.name, "")))
    for f in range(0, 16):
        blender.evaluated_frame(f)
        shown = local_poses(bpy, root)
        for node in range(5):
            lift = 0.1 if node == 3 and 4 <= f <= 12 else 0.0
            expected = before[f][node].copy()
            expected[2, 3] += lift  # leg_l's parent is the body: its local z
            assert np.abs(shown[node] - expected).max() < 1e-5, (f, node)
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    old, new = AnimationData.from_model(Model.parse(data)), AnimationData.from_model(Model.parse(out.read_bytes()))
    from core.animation.sampler import sample

    frames = np.arange(0, 16, dtype=np.float32)
    a, b = sample(old, frames), sample(new, frames)
    lift = np.where((frames >= 4) & (frames <= 12), 0.1, 0.0)
    assert np.abs(b.pos[3, :, 2] - (a.pos[3, :, 2] + lift)).max() < 2e-4
    others = [0, 1, 2, 4]
    assert np.array_equal(a.pos[others], b.pos[others]) and np.array_equal(a.rot[others], b.rot[others])


def json_timeline(root):
    import json

    return json.loads(root["msh_clip_steps"])["timeline"]
