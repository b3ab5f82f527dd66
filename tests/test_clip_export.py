"""``batch convert --clips`` writes every clip of the bundled walker (samples/walker: 3 clips, turret
and gun channels, a belt, an animated lamp) as a named glTF animation, in place and moving, each channel's range,
and the lamp's material animation (KHR_animation_pointer); valid for the Khronos validator, and read back with
Blender's glTF importer each animation shows the core's pose at every sampled frame."""

import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_batch import VALIDATOR, _glb_json, batch
from test_clips_blender import rigid

from core.animation.controller import clips_of, pose_at_step, step_at
from core.animation.controller.clips import channel_frame, node_channels
from core.animation.controller.codec import parse_controller
from core.animation.sampler import AnimationData, blend_pose
from core.msh.model import Model

ROOT = Path(__file__).resolve().parent.parent
WALKER = ROOT / "samples" / "walker"
FPS = 24.0  # the batch scene's frame rate: a glTF second is a controller second
CLIPS = ["stand 0", "walk 1", "run 2"]
MOVING = ["walk 1 moving", "run 2 moving"]  # the standing clip does not travel: no moving twin
CHANNELS = ["channel 0 turret", "channel 1 gun"]
BELT = "channel 2 leg_l"  # the belt channel plays WALKER_BELT's track: a material animation
RIGID_BOUND = 2e-6  # glTF float32 samples against the game's pose with its quaternion normalised
GAME_BOUND = 5e-5   # against core's matrix, built from the unnormalised i16 quaternion (test_clips_blender)


def clip_frames(clip) -> int:
    """The scene frames (at FPS) a clip's animation samples: 0 .. its end."""
    durations = np.array([s.duration_ms for s in clip.steps], np.float64)
    return int(np.floor(np.concatenate([[0.0], np.cumsum(durations)])[-1] * FPS / 1000)) + 1


class ClipFrame:
    """What clip ``clip`` shows at scene frame ``frame`` (at FPS): its step (``step_at``), the step's position
    and the phase s within it (past the last step: the last step's end)."""

    def __init__(self, controller, clip, frame: int) -> None:
        durations = np.array([s.duration_ms for s in clip.steps], np.float64)
        starts = np.concatenate([[0.0], np.cumsum(durations)]) * FPS / 1000
        self.clip, self.position = clip, int(np.searchsorted(starts, frame, side="right") - 1)
        if self.position >= len(durations):
            self.s, self.step = 0.0, step_at(controller, clip, len(durations))
        else:
            self.s = (frame - starts[self.position]) / (starts[self.position + 1] - starts[self.position])
            self.step = step_at(controller, clip, self.position + self.s)

    def node_matrix(self, anim, node: int, moving: bool) -> np.ndarray:
        """Node ``node``'s local matrix in the clip's animation: the step's blended pose, node 0 at the origin
        (in place) or carried by the stride (moving)."""
        step, steps = self.step, self.clip.steps
        q, p = blend_pose(anim, node, float(step.frame_a), float(step.frame_b), float(step.weight))
        p = np.array(p, np.float64)
        if node == 0:
            p[:] = 0
            if moving:
                travelled = np.concatenate([[0.0], np.cumsum([s.stride for s in steps])])
                p[1] = travelled[min(self.position, len(steps))] + (
                    self.s * steps[self.position].stride if self.position < len(steps) else 0)
        return rigid(q, p)


@pytest.fixture(scope="module")
def walker():
    model = Model.parse((WALKER / "walker.msh").read_bytes())
    controller = parse_controller((WALKER / "walker.ctl").read_bytes())
    return model, controller


def validate(path: Path) -> None:
    if not (VALIDATOR.parent / "node_modules" / "gltf-validator").is_dir():
        pytest.fail("the glTF validator is not installed: run scripts/setup.sh (needs npm)")
    check = subprocess.run(["node", str(VALIDATOR), str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def convert(tmp_path: Path, *options: str, fmt: str = "glb") -> Path:
    result = batch("convert", str(WALKER / "walker.msh"), "-o", str(tmp_path), "--format", fmt, "--clips", *options)
    assert result.returncode == 0, result.stdout + result.stderr
    return tmp_path / f"walker.{fmt}"


def test_glb_has_every_clip_channel_and_the_lamp_as_named_animations(blender, tmp_path):
    path = convert(tmp_path, "--base-colour-animation")  # the base colour tracks are opt-in
    validate(path)
    data = _glb_json(path)
    names = [a["name"] for a in data["animations"]]
    assert sorted(names) == sorted(CLIPS + MOVING + CHANNELS + ["material WALKER_LAMP", BELT])
    lamp = next(i for i, m in enumerate(data["materials"]) if m["name"] == "WALKER_LAMP")
    animation = next(a for a in data["animations"] if a["name"] == "material WALKER_LAMP")
    pointers = {c["target"]["extensions"]["KHR_animation_pointer"]["pointer"] for c in animation["channels"]}
    assert pointers == {f"/materials/{lamp}/emissiveFactor", f"/materials/{lamp}/pbrMetallicRoughness/baseColorFactor"}
    assert "KHR_animation_pointer" in data["extensionsUsed"]
    keys = material_keys("WALKER_LAMP")
    for channel in animation["channels"]:
        sampler = animation["samplers"][channel["sampler"]]
        times, values = accessor(path, data, sampler["input"]), accessor(path, data, sampler["output"])
        frames = times * FPS
        if channel["target"]["extensions"]["KHR_animation_pointer"]["pointer"].endswith("emissiveFactor"):
            ambient = keys.fields["ambient"]  # the device adds ambient x texture: the emission (material_animation)
            expected = played(ambient.frames, ambient.values, ambient.glides, frames)
        else:
            expected = played(keys.colour_frames, keys.colour, keys.colour_glides, frames)
            assert np.all(values[:, 3] == 1.0)
        assert len(frames) >= 24 and np.abs(values[:, :3] - expected).max() < 1e-6
    belt = next(i for i, m in enumerate(data["materials"]) if m["name"] == "WALKER_BELT")
    animation = next(a for a in data["animations"] if a["name"] == BELT)
    pointers = {c["target"]["extensions"]["KHR_animation_pointer"]["pointer"] for c in animation["channels"]}
    cell = f"/materials/{belt}/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform"
    assert {f"{cell}/offset", f"{cell}/scale", f"/materials/{belt}/emissiveFactor"} <= pointers
    keys = material_keys("WALKER_BELT")  # planned by the clock here; the belt's animation has a frame per ms
    assert keys.period_ms == 200
    for channel in animation["channels"]:
        sampler = animation["samplers"][channel["sampler"]]
        ms = np.round(accessor(path, data, sampler["input"]) * FPS, 3)
        values = accessor(path, data, sampler["output"])
        assert np.array_equal(ms, np.arange(keys.period_ms + 1))
        column = {"offset": 0, "scale": 2}.get(channel["target"]["extensions"]["KHR_animation_pointer"]
                                               ["pointer"].rsplit("/", 1)[1])
        if column is not None:  # the cell's u (v is flipped between Direct3D and glTF): held between keys
            expected = played(keys.cell_frames * 1000 / FPS, keys.cell_boxes[:, [column]], False,
                              ms % keys.period_ms)
            assert np.abs(values[:, 0] - expected[:, 0]).max() < 1e-6


def material_keys(name: str):
    """A material's keys as the import plans them from the game's MAT0 track (io_msh.imp.material_keys)."""
    import blender_env

    plan_module = blender_env.ext.io_msh.imp.plan
    (plan,) = plan_module.plan_file(WALKER / "walker.msh", plan_module.ImportOptions(frame_rate=FPS))
    (word,) = [w for w, look in plan.looks.items() if look.name == name]
    return plan.material_keys[word]


def played(frames: np.ndarray, values: np.ndarray, glides: bool, at: np.ndarray) -> np.ndarray:
    """Keys (linear between when they glide, else held) at frames ``at`` within one cycle."""
    if glides:
        return np.stack([np.interp(at, frames, values[:, k]) for k in range(values.shape[1])], axis=1)
    return values[np.searchsorted(frames, at + 1e-6, side="right") - 1]


def accessor(path: Path, data: dict, index: int) -> np.ndarray:
    """A float accessor of the .glb's binary chunk, as rows."""
    blob = path.read_bytes()
    start = 20 + int.from_bytes(blob[12:16], "little") + 8  # the JSON chunk, then the BIN chunk's header
    item = data["accessors"][index]
    view = data["bufferViews"][item["bufferView"]]
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[item["type"]]
    assert item["componentType"] == 5126 and view.get("byteStride", 4 * width) == 4 * width
    offset = start + view.get("byteOffset", 0) + item.get("byteOffset", 0)
    values = np.frombuffer(blob, "<f4", item["count"] * width, offset).astype(np.float64)
    return values if width == 1 else values.reshape(-1, width)


@pytest.mark.parametrize("motion, expected", [("IN_PLACE", CLIPS), ("MOVING", CLIPS)])
def test_one_root_motion_names_the_clips_plainly(tmp_path, motion, expected):
    data = _glb_json(convert(tmp_path, "--root-motion", motion, "--no-material-animation"))
    assert sorted(a["name"] for a in data["animations"]) == sorted(expected + CHANNELS)


def test_clips_need_an_armature(tmp_path):
    result = batch("convert", str(WALKER / "walker.msh"), "-o", str(tmp_path), "--format", "glb", "--clips",
                   "--node-mode", "EMPTIES")
    assert result.returncode == 2 and "--node-mode ARMATURE" in result.stderr
    assert not list(tmp_path.iterdir())


def local_poses(root) -> dict[str, np.ndarray]:
    """Each bone's matrix relative to its parent bone (the armature for a root bone), by name."""
    out = {}
    for bone in root.pose.bones:
        matrix = np.array(bone.matrix)
        out[bone.name] = matrix if bone.parent is None else np.linalg.inv(np.array(bone.parent.matrix)) @ matrix
    return out


def imported_action(bpy, name: str, root):
    """The action the glTF importer made of animation ``name``: so named (4.5, 5.0), or ``name_OBJECT`` (4.2)."""
    return bpy.data.actions.get(name) or bpy.data.actions.get(f"{name}_{root.name}")


def show(root, action) -> None:
    anim = root.animation_data
    anim.action = action
    if hasattr(anim, "action_slot") and action.slots:
        anim.action_slot = action.slots[0]


def test_glb_read_back_by_blender_poses_as_the_core(blender, walker, tmp_path):
    """Every animation (Blender's glTF importer fails on an animated base colour of a textured material, so the
    file read back is converted with --no-material-animation) at every frame it samples."""
    import addon_utils

    bpy = blender.bpy
    model, controller = walker
    path = convert(tmp_path, "--no-material-animation")
    validate(path)
    addon_utils.enable("io_scene_gltf2", default_set=False)
    bpy.context.scene.render.fps, bpy.context.scene.render.fps_base = int(FPS), 1.0
    assert bpy.ops.import_scene.gltf(filepath=str(path), bone_heuristic="BLENDER") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    root.animation_data.use_nla = False  # the importer lays the animations out as NLA tracks too
    anim = AnimationData.from_model(model)
    node_of = {model.node_name(i): i for i in range(anim.node_count)}  # the bones are named after the nodes
    assert set(node_of) == {b.name for b in root.data.bones}
    channel_of = node_channels(controller)
    clips = clips_of(controller, anim)
    worst_rigid = worst_game = 0.0
    checked = 0
    for clip, name in zip(clips, CLIPS):
        for moving in (False, True):
            action = imported_action(bpy, f"{name} moving" if moving else name, root)
            if action is None:
                assert moving and not any(s.stride for s in clip.steps)  # a standing clip: no moving twin
                continue
            show(root, action)
            for frame in range(clip_frames(clip)):
                blender.evaluated_frame(frame)
                shown = local_poses(root)
                at = ClipFrame(controller, clip, frame)
                game = pose_at_step(anim, controller, at.step, in_place=True)
                for bone, node in node_of.items():
                    if node in channel_of:
                        continue  # at its rest pose in a clip: its channel's animation poses it
                    worst_rigid = max(worst_rigid, np.abs(shown[bone] - at.node_matrix(anim, node, moving)).max())
                    if not (node == 0 and moving):
                        worst_game = max(worst_game, np.abs(shown[bone] - np.asarray(game[node], np.float64)).max())
                    checked += 1
    for index, name in enumerate(CHANNELS):
        channel = controller.channels[index]
        node = int(channel["node"])
        bone = next(b for b, n in node_of.items() if n == node)
        action = imported_action(bpy, name, root)
        show(root, action)
        last = round(action.frame_range[1])
        for frame in range(last + 1):
            blender.evaluated_frame(frame)
            q, p = blend_pose(anim, node, -1.0, float(channel_frame(channel, frame / last)), 1.0)
            worst_rigid = max(worst_rigid, np.abs(local_poses(root)[bone] - rigid(q, p)).max())
            checked += 1
    print(f"checked {checked} poses: worst {worst_rigid:.2e} (rigid), {worst_game:.2e} (core matrix)")
    assert checked > 200
    assert worst_rigid < RIGID_BOUND, worst_rigid
    assert worst_game < GAME_BOUND, worst_game


def test_fbx_has_a_take_per_clip_and_channel(blender, tmp_path):
    """FBX carries no material animation: the clips and channels only, each a take Blender's FBX importer reads
    back as an action of that name."""
    import addon_utils

    bpy = blender.bpy
    path = convert(tmp_path, fmt="fbx")
    addon_utils.enable("io_scene_fbx", default_set=False)
    assert bpy.ops.import_scene.fbx(filepath=str(path)) == {"FINISHED"}
    takes = {a.name.split("|")[-1] for a in bpy.data.actions}
    assert takes >= set(CLIPS + MOVING + CHANNELS)


def scene_state(bpy, root) -> dict:
    """What the export must leave as it was: assignments, NLA tracks, driver mutes, datablocks."""
    anim = root.animation_data
    lamp = bpy.data.materials["WALKER_LAMP"].node_tree.animation_data
    return {"action": anim.action, "tracks": [(t.name, t.mute, [s.action for s in t.strips]) for t in anim.nla_tracks],
            "drivers": [d.mute for d in anim.drivers], "lamp": lamp.action, "lamp tracks": len(lamp.nla_tracks),
            "actions": sorted(a.name for a in bpy.data.actions), "objects": len(bpy.data.objects)}


def channel_samples(path: Path, name: str, node: str) -> dict[str, np.ndarray]:
    """The samples of animation ``name`` on the joint named ``node`` (its mesh, named alike, is not animated)."""
    data = _glb_json(path)
    animation = next(a for a in data["animations"] if a["name"] == name)
    named = {i for i, n in enumerate(data["nodes"]) if n.get("name") == node}
    return {c["target"]["path"]: accessor(path, data, animation["samplers"][c["sampler"]]["output"])
            for c in animation["channels"] if c["target"].get("node") in named}


def test_export_operator_writes_the_scene_as_edited_and_leaves_it_as_it_was(blender, tmp_path):
    """File > Export > Parkan Clips for Engines: the clips as the scene shows them (an edit goes out), the
    import's own NLA tracks (Clips: NLA Strips) used; afterwards the scene is as it was."""
    bpy = blender.bpy
    assert bpy.ops.import_scene.parkan_msh(filepath=str(WALKER / "walker.msh"), clips="NLA") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    before = scene_state(bpy, root)
    first = tmp_path / "first.glb"
    assert bpy.ops.export_scene.parkan_clips(filepath=str(first)) == {"FINISHED"}
    assert scene_state(bpy, root) == before
    validate(first)
    names = sorted(a["name"] for a in _glb_json(first)["animations"])
    assert names == sorted(CLIPS + CHANNELS + ["material WALKER_LAMP", BELT])
    walk = blender.ext.io_msh.imp.clip_actions.clip_actions(root, "walker.msh|walk 1")
    curves = [f for f in blender.ext.io_msh.com.compat.action_fcurves(walk)
              if f.data_path == 'pose.bones["leg_l"].location' and f.array_index == 2]
    for fcurve in curves:  # the artist moves the left leg by 0.5 along its own z
        for point in fcurve.keyframe_points:
            point.co.y += 0.5
        fcurve.update()
    edited = tmp_path / "edited.glb"
    assert bpy.ops.export_scene.parkan_clips(filepath=str(edited)) == {"FINISHED"}
    old, new = channel_samples(first, "walk 1", "leg_l"), channel_samples(edited, "walk 1", "leg_l")
    moved = np.linalg.norm(new["translation"] - old["translation"], axis=1)
    assert len(curves) == 1 and np.allclose(moved, 0.5, atol=1e-5)
    assert np.array_equal(new["rotation"], old["rotation"])
    for other in ("run 2", "channel 0 turret"):
        assert all(np.array_equal(a, b) for a, b in zip(channel_samples(first, other, "leg_l").values(),
                                                        channel_samples(edited, other, "leg_l").values()))


def test_export_operator_refuses_without_clips_and_leaves_the_file(blender, tmp_path):
    bpy = blender.bpy
    target = tmp_path / "kept.glb"
    target.write_bytes(b"as it was")
    assert bpy.ops.import_scene.parkan_msh(filepath=str(WALKER / "walker.msh")) == {"FINISHED"}
    with pytest.raises(RuntimeError, match="no model with clips in the scene"):
        bpy.ops.export_scene.parkan_clips(filepath=str(target))
    assert target.read_bytes() == b"as it was" and sorted(p.name for p in tmp_path.iterdir()) == ["kept.glb"]


def test_blend_keeps_the_clips_as_nla_strips(blender, tmp_path):
    """convert --format blend --clips: the .blend holds the import's clip actions, each on its NLA track."""
    bpy = blender.bpy
    path = convert(tmp_path, fmt="blend")
    with bpy.data.libraries.load(str(path)) as (source, _target):
        actions = set(source.actions)
    assert {f"walker.msh|{name}" for name in CLIPS} <= actions


def test_a_unit_without_clips_is_written_with_its_timeline_and_a_warning(tmp_path):
    """No part of the synthetic unit has a controller with states: --clips writes it as without, warned (a unit
    with clips: tests/test_unit_clip_export.py)."""
    from unit_fixtures import write_game

    from core.authoring import units

    game = write_game(tmp_path / "game")
    result = batch("convert", str(game / units.UNIT_DAT), "-o", str(tmp_path / "out"), "--format", "glb", "--clips")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning: --clips: no part of the unit has clips (no controller with states)" in result.stdout
    data = _glb_json(tmp_path / "out" / "synth_unit.glb")
    assert data["animations"] and "muzzle" in {n.get("name") for n in data["nodes"]}
