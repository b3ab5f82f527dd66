"""Blender shows the game's pose at every frame, and an untouched import exports byte for byte, for
every rotation and rig, in both node modes and every animation mode (tests/pose_sweep.py holds the models and
the references; benchmarks/pose_soak.py runs the same sweep longer)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pose_sweep import SweepModel, draw_model, measure, model_bytes, shown_worlds
from test_export import export_file, import_file, write

from core.animation.sampler import AnimationData, world_matrices_at
from core.animation.tracks import read_animation
from core.msh.model import Model

NODE_MODES = ("ARMATURE", "EMPTIES")
ANIMATIONS = ("FAITHFUL", "EDITING", "KEYS")
KINDS = ("SPHERE", "HALF", "NEAR_ONE", "FLIP")


def check_model(blender, tmp_path, data: bytes, animations=ANIMATIONS, node_modes=NODE_MODES) -> dict:
    """Every (animation, node mode): the worst world-pose error against its reference at every integer frame
    within ``bound``, and the untouched export byte for byte. Returns the measurements (pose_sweep.measure)."""
    measured = measure(blender, tmp_path, data, animations, node_modes)
    for (animation, node_mode), (error, limit, _floor, same) in measured.items():
        assert error <= limit, f"{node_mode} {animation}: {error:.3g} > {limit:.3g}"
        assert same, f"{node_mode} {animation}: the untouched export changed the file"
    return measured


@st.composite
def small_models(draw) -> SweepModel:
    """2-6 nodes, chains up to 6 deep, up to 30 frames: keys over the whole sphere, at half turns, near +-1 and
    with signs flipped between neighbours; sparse or dense, integer or fractional times, canonical maps or not."""
    nodes = draw(st.integers(2, 6))
    depth = draw(st.integers(1, nodes))
    frames = draw(st.integers(2, 30))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4))
    dense, fractional = draw(st.booleans()), draw(st.booleans())
    shuffled = draw(st.booleans())
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return draw_model(np.random.default_rng(seed), nodes, depth, frames, kinds, dense=dense,
                      fractional=fractional and not dense, shuffle_map=shuffled)


@settings(derandomize=True, max_examples=16, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(model=small_models())
def test_small_models_over_the_whole_value_space(blender, tmp_path, model):
    check_model(blender, tmp_path, model_bytes(model))


@settings(derandomize=True, max_examples=2, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1), kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3))
def test_a_chain_64_deep(blender, tmp_path, seed, kinds):
    model = draw_model(np.random.default_rng(seed), 64, 64, 6, kinds)
    check_model(blender, tmp_path, model_bytes(model), animations=("FAITHFUL", "KEYS"))


@settings(derandomize=True, max_examples=1, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_300_nodes(blender, tmp_path, seed):
    model = draw_model(np.random.default_rng(seed), 300, 24, 4, list(KINDS))
    check_model(blender, tmp_path, model_bytes(model), animations=("FAITHFUL",))


@settings(derandomize=True, max_examples=1, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_dense_random_motion(blender, tmp_path, seed):
    model = draw_model(np.random.default_rng(seed), 16, 12, 40, ["SPHERE", "HALF"], dense=True)
    check_model(blender, tmp_path, model_bytes(model), animations=("FAITHFUL", "EDITING"))


# ------------------------------------------------------------------ the cases, one by one
def half_turn_model(keys: int, axis) -> bytes:
    """Two nodes; the child's keys are half turns (w = -828/32767) about ``axis``."""
    axis = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    w = -828 / 32767
    child = np.array([[w, *(axis * np.sqrt(1 - w * w - (7e-4 * k) ** 2))] for k in range(keys)])
    child[:, 1:] += 7e-4 * np.arange(keys)[:, None] * np.roll(axis, 1)
    root = np.tile([0.918, 0, 0.397, 0], (keys, 1))
    times = np.arange(keys, dtype=np.float64) * 4
    return model_bytes(SweepModel([None, 0], [times, times], [root, child],
                                  [np.tile([0, 0, 1.0], (keys, 1)), np.tile([0.5, 0.2, 0.1], (keys, 1))],
                                  [0, 1], int(times[-1]) + 1))


@pytest.mark.parametrize("keys", [2, 3, 4])
@pytest.mark.parametrize("axis", [(0, 0, 1), (1, 0, 0)])
def test_half_turns_show_the_runtime_pose_and_export_untouched(blender, tmp_path, keys, axis):
    """Before: as an Armature the child was 1e-5 off the game's pose (its bone's rest, made by Blender from
    head, tail and roll near -Y, was not even a rotation); with more keys the export changed or refused it."""
    measured = check_model(blender, tmp_path, half_turn_model(keys, axis), animations=("FAITHFUL", "KEYS"))
    for animation in ("FAITHFUL", "KEYS"):
        armature, empties = measured[(animation, "ARMATURE")][0], measured[(animation, "EMPTIES")][0]
        assert armature <= 2.5 * max(empties, 2e-7)


def test_a_deep_rig_at_half_turns_stepped_through_every_frame_exports_untouched(blender, tmp_path):
    """60 nodes in one chain, half turns and dense motion; a constraint without influence makes the export
    step through every frame and judge scale on Blender's matrices. Before: refused ('a scale that changes
    over the frames'), the rests' float32 error taken for a scale."""
    bpy = blender.bpy
    data = model_bytes(draw_model(np.random.default_rng(2), 60, 60, 60, ["SPHERE", "HALF"], dense=True))
    for node_mode in NODE_MODES:
        blender.clean_scene()
        (root,) = import_file(bpy, write(tmp_path, "deep.msh", data), node_mode=node_mode)
        holder = root.pose.bones[0] if node_mode == "ARMATURE" else next(o for o in root.children if o.type == "EMPTY")
        holder.constraints.new("COPY_LOCATION").influence = 0.0
        out = tmp_path / "out.msh"
        export_file(bpy, out)
        assert out.read_bytes() == data


def test_keys_less_than_a_hundredth_of_a_frame_apart_stay_apart(blender, tmp_path):
    """Fractional key times 0.009 frame apart: fcurve.update() merged them (keeping the later key), so KEYS
    showed the wrong key at frame 0 and the unedited export rewrote the track."""
    times = np.array([0.0, 0.009, 3.5, 7.0])
    rotations = np.array([[1.0, 0, 0, 0], [0.6, 0.8, 0, 0], [0, 0, 1.0, 0], [0.6, 0, 0, 0.8]])
    positions = np.array([[0, 0, 0], [1.0, 0, 0], [0, 2.0, 0], [0, 0, 3.0]])
    data = model_bytes(SweepModel([None, 0], [times, times], [rotations, rotations[::-1]], [positions, positions],
                                  [0, 1], 8))
    measured = check_model(blender, tmp_path, data, animations=("KEYS",))
    assert max(error for error, *_rest in measured.values()) < 1e-5


def test_scale_tolerance_grows_with_the_chain(blender):
    conversion = blender.ext.io_msh.com.conversion
    parents = [None, *range(63)]
    world = np.tile(np.eye(4), (64, 1, 1, 1))
    world[:, 0, :3, :3] *= 1 + 1.5e-5 * (1 + np.arange(64))[:, None, None] / 2  # rounding that grows down the chain
    assert not conversion.scaled_nodes(world, parents).any()
    world[40, 0, 0, 0] = 1.01  # a scale the user set
    assert conversion.scaled_nodes(world, parents).tolist() == [i == 40 for i in range(64)]


@pytest.mark.parametrize("stepped", [False, True])
def test_an_edited_turned_bone_exports_the_pose_it_shows(blender, tmp_path, stepped):
    """A bone turned from its node (msh_bone_frame): an edit of its keys exports the pose Blender shows, read
    from the F-curves or (a constraint without influence) stepped through the frames."""
    bpy = blender.bpy
    data = half_turn_model(3, (0, 0, 1))
    (root,) = import_file(bpy, write(tmp_path, "turned.msh", data), node_mode="ARMATURE")
    turned = [b for b in root.data.bones if "msh_bone_frame" in b]
    assert [b["msh_node_index"] for b in turned] == [1]
    fcurves = [c for c in blender.ext.io_msh.com.compat.assigned_fcurves(root) if turned[0].name in c.data_path]
    for curve in fcurves:
        if curve.data_path.endswith("location"):
            for point in curve.keyframe_points:
                point.co.y += 0.3
                point.handle_left.y += 0.3
                point.handle_right.y += 0.3
    if stepped:
        root.pose.bones[0].constraints.new("COPY_LOCATION").influence = 0.0
    model = Model.parse(data)
    frames = np.arange(model.frame_count + 2, dtype=np.float64)
    shown = []
    for frame in frames:
        bpy.context.scene.frame_set(int(frame))
        shown.append(shown_worlds(bpy, root))
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    written = Model.parse(out.read_bytes())
    game = world_matrices_at(AnimationData.from_model(written), frames, normalize=True)
    assert np.abs(np.stack(shown, axis=1) - game).max() < 1e-4
    assert np.abs(game[1, :, :3, 3] - world_matrices_at(AnimationData.from_model(model), frames,
                                                          normalize=True)[1, :, :3, 3]).max() > 0.1


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_a_keys_import_of_a_track_starting_after_frame_0_keeps_it(blender, tmp_path, node_mode):
    """A track whose first key is at 2.3: the runtime shows its fallback key at frames 0-2, KEYS its first key.
    Before: the export compared frame 0 with the runtime, took the node for edited and rewrote its track, both
    untouched and when another node was edited."""
    bpy = blender.bpy
    times = np.array([2.3, 3.5, 7.25])
    rotations = np.array([[0.99, 0, 0, 0.14], [0.82, 0, 0, 0.57], [0.54, 0, 0, 0.84]])
    positions = np.array([[0, 0, 0], [1.0, 0, 0], [0, 2.0, 0]])
    data = model_bytes(SweepModel([None, 0], [np.array([0.0, 7.0]), times], [rotations[:2], rotations],
                                  [positions[:2], positions], [0, 1], 8))
    check_model(blender, tmp_path, data, animations=("KEYS",), node_modes=(node_mode,))
    blender.clean_scene()
    (root,) = import_file(bpy, write(tmp_path, "late.msh", data), node_mode=node_mode, animation="KEYS")
    holder = root if node_mode == "ARMATURE" else next(o for o in root.children if o.get("msh_node_index") == 0)
    curve = next(c for c in blender.ext.io_msh.com.compat.assigned_fcurves(holder)
                 if c.data_path.endswith("location") and (node_mode != "ARMATURE" or '"node0"' in c.data_path))
    curve.keyframe_points[1].co.y += 0.25
    out = tmp_path / "edited.msh"
    export_file(bpy, out)
    before, after = read_animation(Model.parse(data)).tracks, read_animation(Model.parse(out.read_bytes())).tracks
    assert not np.array_equal(before[0].pos, after[0].pos)
    assert all(np.array_equal(getattr(before[1], f), getattr(after[1], f)) for f in ("times", "pos", "rot"))
