"""``batch convert --clips`` of a unit (.dat) and File > Export > Parkan Clips for Engines of a unit
imported with Clips: every chassis clip (both root motions) and channel sweep as a named animation holding every
node, the mounted parts following their sockets (baked: io_msh.exp.engine_units). Read back with Blender's glTF
importer, each animation shows core's pose of the chassis and the mounting rule's pose of every mounted part."""

from pathlib import Path

import numpy as np
import pytest
from test_batch import _glb_json, batch
from test_clip_export import RIGID_BOUND, ClipFrame, clip_frames, validate
from test_clips_blender import rigid
from test_unit_clips import MOUNTS, clip_unit, import_clip_unit
from test_unit_import import turn_inverse

from core.animation.controller import clips_of
from core.animation.controller.clips import channel_frame, node_channels
from core.animation.sampler import AnimationData, blend_pose, world_matrices_at
from core.authoring import units
from core.authoring.controllers import walker_controller
from core.container.nres import Archive
from core.msh.model import Model
from core.unit.mount import part_placement

FPS = 24.0
CLIPS = ["stand 0", "walk 1", "run 2"]
MOVING = ["walk 1 moving", "run 2 moving"]  # the standing clip does not travel
CHANNELS = ["channel 0 Base_TL", "channel 1 Base_TM"]  # the walker's channels on the chassis's turret sockets


def convert(folder: Path, out: Path, *options: str, fmt: str = "glb") -> Path:
    dat = clip_unit(folder)
    result = batch("convert", str(dat), "-o", str(out), "--format", fmt, "--clips", *options)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "a unit (.dat) is written with its timeline only" not in result.stdout
    return out / f"synth_unit.{fmt}"


def test_glb_names_every_chassis_clip_and_channel_and_every_animation_holds_every_mount(tmp_path):
    path = convert(tmp_path / "game", tmp_path / "out")
    validate(path)
    data = _glb_json(path)
    names = [a["name"] for a in data["animations"]]
    assert sorted(names) == sorted(CLIPS + MOVING + CHANNELS)
    mounts = {i for i, n in enumerate(data["nodes"]) if n.get("name", "").endswith(" mount")}
    assert len(mounts) == 7  # five external parts and two internal ones
    for animation in data["animations"]:
        keyed = {(c["target"]["node"], c["target"]["path"]) for c in animation["channels"]}
        assert {(m, p) for m in mounts for p in ("translation", "rotation", "scale")} <= keyed, animation["name"]
    # The mounts' own pose (what a viewer shows without animation): on their sockets, the unit at rest (every
    # part at its first key), where glTF's static bones (their rests) put the sockets
    archive = Archive.parse((tmp_path / "game" / units.PARTS).read_bytes())
    anims = {c: AnimationData.from_model(Model.parse(archive.find(model).data)) for c, model in MODELS.items()}
    local = {n: rigid(*blend_pose(anims[0], n, -1.0, 0.0, 1.0)) for n in range(anims[0].node_count)}
    expected = {0: chain(anims[0].parents, local)}
    nodes = {n.get("name"): n for n in data["nodes"]}
    worst = 0.0
    for component, (parent, socket) in sorted(MOUNTS.items()):
        own = world_matrices_at(anims[component], [0.0], normalize=True)[:, 0]
        placement = part_placement(expected[parent][socket], own[0])
        expected[component] = {n: placement @ own[n] for n in range(len(own))}
        worst = max(worst, np.abs(blender_matrix(nodes[MOUNT_NODES[component]]) - placement).max())
    assert worst < RIGID_BOUND, worst


MODELS = {0: "synth_chassis.msh", 2: "e_tur_lt_01.msh", 3: "e_gun_ll_01.msh", 4: "e_gun_ll_01.msh",
          5: "e_tur_mt_01.msh", 6: "e_gun_mc_01.msh"}
MOUNT_NODES = {2: "e_tur_lt_01.msh mount", 3: "e_gun_ll_01.msh mount", 4: "e_gun_ll_01.msh.001 mount",
               5: "e_tur_mt_01.msh mount", 6: "e_gun_mc_01.msh mount"}
Y_UP = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])  # glTF axes -> Blender's


def blender_matrix(node: dict) -> np.ndarray:
    """A glTF node's own matrix (translation, rotation, scale; Y up) in Blender's axes."""
    x, y, z, w = node.get("rotation", (0, 0, 0, 1))
    matrix = np.eye(4)
    matrix[:3, :3] = np.linalg.inv(turn_inverse((w, x, y, z)))[:3, :3] * np.asarray(node.get("scale", (1, 1, 1)))
    matrix[:3, 3] = node.get("translation", (0, 0, 0))
    return Y_UP @ matrix @ Y_UP.T


@pytest.mark.parametrize("motion, expected", [("IN_PLACE", CLIPS), ("MOVING", CLIPS)])
def test_one_root_motion_names_the_unit_clips_plainly(tmp_path, motion, expected):
    data = _glb_json(convert(tmp_path / "game", tmp_path / "out", "--root-motion", motion))
    assert sorted(a["name"] for a in data["animations"]) == sorted(expected + CHANNELS)


def part_bones(bpy, dat: Path) -> tuple[dict, dict]:
    """Import Unit's part roots: by object name, (component, model name) and each bone's (node, turn)."""
    _unit, roots = import_clip_unit(bpy, dat)
    parts, bones = {}, {}
    for component, root in roots.items():
        parts[root.name] = (component, str(root["msh_model"]))
        bones[root.name] = {b.name: (int(b["msh_node_index"]), tuple(b.get("msh_bone_frame", (1, 0, 0, 0))))
                            for b in root.data.bones}
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    return parts, bones


def show_animation(bpy, name: str) -> None:
    """Every object the glTF importer animated plays its NLA track ``name`` alone."""
    for obj in bpy.data.objects:
        anim = obj.animation_data
        if anim is None:
            continue
        anim.action = None
        anim.use_nla = True
        for track in anim.nla_tracks:
            track.mute = track.name != name


def shown_worlds(bpy, bones: dict) -> dict[str, dict[int, np.ndarray]]:
    """Each part's node worlds as the glTF import shows them (a bone turned from its node: undone)."""
    out = {}
    for root_name, by_bone in bones.items():
        root = bpy.data.objects[root_name]
        world = np.array(root.matrix_world)
        out[root_name] = {node: world @ np.array(root.pose.bones[bone].matrix) @ turn_inverse(turn)
                          for bone, (node, turn) in by_bone.items()}
    return out


def chain(parents: np.ndarray, local: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    world = {}
    for node in sorted(local):
        parent = int(parents[node])
        world[node] = local[node] if parent >= len(parents) or parent == node else world[parent] @ local[node]
    return world


def test_glb_read_back_by_blender_poses_chassis_and_mounted_parts_as_the_core(blender, tmp_path):
    """Each chassis animation at every frame it samples: the chassis's nodes as core's clip pose (a channel node,
    a socket here, at its rest: the timeline's first pose), every mounted part's node n at
    socket_world @ root_local^-1 @ own(n) (core.unit.mount.part_placement), each part playing its own timeline
    over the animation's frames (as Show Unit Clip shows it, docs/formats/units.md)."""
    import addon_utils

    bpy = blender.bpy
    dat = clip_unit(tmp_path / "game")
    parts, bones = part_bones(bpy, dat)
    path = convert(tmp_path / "game", tmp_path / "out")
    addon_utils.enable("io_scene_gltf2", default_set=False)
    bpy.context.scene.render.fps, bpy.context.scene.render.fps_base = int(FPS), 1.0
    assert bpy.ops.import_scene.gltf(filepath=str(path), bone_heuristic="BLENDER") == {"FINISHED"}
    archive = Archive.parse((tmp_path / "game" / units.PARTS).read_bytes())
    by_component = {c: (name, model) for name, (c, model) in parts.items()}
    anims = {c: AnimationData.from_model(Model.parse(archive.find(model).data))
             for c, (_name, model) in by_component.items()}
    chassis, controller = anims[0], walker_controller()
    channel_of = node_channels(controller)
    assert set(channel_of) == {1, 2}  # the sockets Base_TL, Base_TM
    rest = {n: rigid(*blend_pose(chassis, n, -1.0, 0.0, 1.0)) for n in channel_of}
    worst, checked = {"chassis": 0.0, "mounted": 0.0}, 0
    animations = [(c, m) for c in clips_of(controller, chassis) for m in (False, True)]
    for clip, moving in animations:
        name = CLIPS[clips_of(controller, chassis).index(clip)] + (" moving" if moving else "")
        if name not in {t.name for t in bpy.data.objects[by_component[0][0]].animation_data.nla_tracks}:
            assert moving and name.startswith("stand")
            continue
        show_animation(bpy, name)
        for frame in range(clip_frames(clip)):  # the frames the exporter samples (walk 1 lasts 41 ms)
            blender.evaluated_frame(frame)
            shown = shown_worlds(bpy, bones)
            at = ClipFrame(controller, clip, frame)
            local = {node: rest[node] if node in channel_of else at.node_matrix(chassis, node, moving)
                     for node in range(chassis.node_count)}
            expected = {0: chain(chassis.parents, local)}
            for node, world in expected[0].items():
                worst["chassis"] = max(worst["chassis"], np.abs(shown[by_component[0][0]][node] - world).max())
            for component, (parent, socket) in sorted(MOUNTS.items()):
                own = world_matrices_at(anims[component], [float(frame)], normalize=True)[:, 0]
                placement = part_placement(expected[parent][socket], own[0])
                expected[component] = {n: placement @ own[n] for n in range(len(own))}
                for node in range(1, len(own)):  # a mounted part's root is dropped: its socket stands for it
                    error = np.abs(shown[by_component[component][0]][node] - expected[component][node]).max()
                    worst["mounted"] = max(worst["mounted"], error)
                    checked += 1
    for index, name in enumerate(CHANNELS):  # the sockets swept: the turrets and their guns follow
        show_animation(bpy, name)
        channel = controller.channels[index]
        node = int(channel["node"])
        action_end = max(s.frame_end for t in bpy.data.objects[by_component[0][0]].animation_data.nla_tracks
                         if t.name == name for s in t.strips)
        last = round(action_end)
        for frame in range(0, last + 1, 4):
            blender.evaluated_frame(frame)
            shown = shown_worlds(bpy, bones)
            local = {n: rigid(*blend_pose(chassis, n, -1.0, 0.0, 1.0)) for n in range(chassis.node_count)}
            local[node] = rigid(*blend_pose(chassis, node, -1.0, float(channel_frame(channel, frame / last)), 1.0))
            expected = {0: chain(chassis.parents, local)}
            worst["chassis"] = max(worst["chassis"], np.abs(shown[by_component[0][0]][node] - expected[0][node]).max())
            for component, (parent, socket) in sorted(MOUNTS.items()):
                own = world_matrices_at(anims[component], [float(frame)], normalize=True)[:, 0]
                placement = part_placement(expected[parent][socket], own[0])
                expected[component] = {n: placement @ own[n] for n in range(len(own))}
                for n in range(1, len(own)):
                    error = np.abs(shown[by_component[component][0]][n] - expected[component][n]).max()
                    worst["mounted"] = max(worst["mounted"], error)
                    checked += 1
    print(f"checked {checked} mounted poses: worst chassis {worst['chassis']:.2e}, mounted {worst['mounted']:.2e}")
    assert checked > 300
    assert worst["chassis"] < RIGID_BOUND and worst["mounted"] < RIGID_BOUND, worst


def test_a_part_with_its_own_clips_gets_them_named_after_it(tmp_path):
    """Turret M (component 5) given the walker's controller too: its clips and channels go out prefixed with its
    model and component (two parts may share a model), so that they cannot collide with the chassis's."""
    files = units.unit_files()
    archive = Archive.parse(files[units.PARTS])
    for member in ("synth_chassis.ctl", "e_tur_mt_01.ctl"):
        archive.find(member).data = walker_controller().to_bytes()
    files[units.PARTS] = archive.to_bytes()
    from unit_fixtures import write_game

    game = write_game(tmp_path / "game", files)
    result = batch("convert", str(game / units.UNIT_DAT), "-o", str(tmp_path / "out"), "--format", "glb", "--clips",
                   "--root-motion", "IN_PLACE")
    assert result.returncode == 0, result.stdout + result.stderr
    path = tmp_path / "out" / "synth_unit.glb"
    validate(path)
    turret = "e_tur_mt_01.msh 5 "
    expected = CLIPS + CHANNELS + [turret + n for n in [*CLIPS, "channel 0 Turn", "channel 1 GP"]]
    assert sorted(a["name"] for a in _glb_json(path)["animations"]) == sorted(expected)


def test_fbx_has_a_take_per_chassis_clip_and_channel_and_the_mounts_follow_the_sockets(blender, tmp_path):
    """FBX: the exporter bakes each NLA strip's scene (the Child Of constraints followed), one take each."""
    import addon_utils

    bpy = blender.bpy
    path = convert(tmp_path / "game", tmp_path / "out", fmt="fbx")
    addon_utils.enable("io_scene_fbx", default_set=False)
    assert bpy.ops.import_scene.fbx(filepath=str(path)) == {"FINISHED"}
    takes = {a.name.split("|")[-1] for a in bpy.data.actions}
    assert takes == set(CLIPS + MOVING + CHANNELS)
    assert_mount_swept(blender)


def assert_mount_swept(blender) -> None:
    """The FBX read back: turret M swept with its socket (Base_TM's segment turns it by up to 8.5 degrees)."""
    (sweep,) = [a for a in blender.bpy.data.actions
                if a.name.startswith("e_tur_mt_01.msh mount") and a.name.endswith("|channel 1 Base_TM")]
    values = [p.co[1] for f in blender.ext.io_msh.com.compat.action_fcurves(sweep)
              if (f.data_path, f.array_index) == ("rotation_euler", 2) for p in f.keyframe_points]
    assert len(values) > 60 and np.ptp(values) > 0.1


def scene_state(bpy) -> dict:
    """What the export must leave as it was: every holder's action and NLA tracks, the mounts' constraints,
    driver mutes, the pose bones' values, the datablocks."""
    state = {}
    for obj in bpy.data.objects:
        anim = obj.animation_data
        state[obj.name] = (
            anim.action if anim else None,
            [(t.name, t.mute, [s.action for s in t.strips]) for t in anim.nla_tracks] if anim else None,
            [d.mute for d in anim.drivers] if anim else None,
            [(c.name, c.mute) for c in obj.constraints],
            [tuple(b.location) + tuple(b.rotation_quaternion) + tuple(b.scale) for b in obj.pose.bones]
            if obj.pose else None)
    state["actions"] = sorted(a.name for a in bpy.data.actions)
    return state


@pytest.mark.parametrize("clips", ["ACTIONS", "NLA"])
def test_export_operator_writes_a_unit_with_its_clips_and_leaves_it_as_it_was(blender, tmp_path, clips):
    """File > Export > Parkan Clips for Engines with a unit imported by Import Unit with Clips: the chassis's
    clips (as they show: no moving twins) and channels, every mount in every animation; the scene as it was."""
    bpy = blender.bpy
    dat = clip_unit(tmp_path / "game")
    assert bpy.ops.import_scene.parkan_unit(filepath=str(dat), clips=clips) == {"FINISHED"}
    blender.evaluated_frame(7)
    before = scene_state(bpy)
    path = tmp_path / "unit.glb"
    assert bpy.ops.export_scene.parkan_clips(filepath=str(path)) == {"FINISHED"}
    assert scene_state(bpy) == before
    validate(path)
    data = _glb_json(path)
    assert sorted(a["name"] for a in data["animations"]) == sorted(CLIPS + CHANNELS)
    mounts = {i for i, n in enumerate(data["nodes"]) if n.get("name", "").endswith(" mount")}
    assert len(mounts) == 7
    for animation in data["animations"]:
        assert mounts <= {c["target"]["node"] for c in animation["channels"]}, animation["name"]
    fbx = tmp_path / "unit.fbx"
    assert bpy.ops.export_scene.parkan_clips(filepath=str(fbx), file_format="FBX") == {"FINISHED"}
    assert scene_state(bpy) == before
    # one take per clip and channel (no baked strips: each would be a take of its own), the mounts following
    assert fbx.read_bytes().count(b"\x00\x01AnimStack") == len(CLIPS + CHANNELS)
    import addon_utils

    addon_utils.enable("io_scene_fbx", default_set=False)
    assert bpy.ops.import_scene.fbx(filepath=str(fbx)) == {"FINISHED"}
    assert_mount_swept(blender)


def test_blend_keeps_the_unit_clips_as_nla_strips(blender, tmp_path):
    """convert --format blend --clips of a unit: the chassis's clip actions on their NLA tracks, as for a model."""
    bpy = blender.bpy
    path = convert(tmp_path / "game", tmp_path / "out", fmt="blend")
    with bpy.data.libraries.load(str(path)) as (source, _target):
        actions = set(source.actions)
    assert {f"synth_chassis.msh|{name}" for name in CLIPS} <= actions
