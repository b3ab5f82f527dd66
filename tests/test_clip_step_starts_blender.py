"""The real import operator on step starts near an integer frame. Blender merges keys of an
F-curve closer than 0.01 frame (``FCurve.update``), so a step start that close to an integer frame used to move the
pose shown at that frame. A sweep of step boundaries within 0.012 frame of integer frames, at several frame rates
and in both node modes: at every integer frame of the clip, the clip action shows core's pose there."""

import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_clips_blender import clip_actions_module, game_matrix, import_walker, local_poses, rigid

from core.animation.controller import clips_of, pose_at_step, step_at
from core.animation.controller.codec import ANCHOR, FIXED_STEP
from core.animation.sampler import AnimationData, blend_pose
from core.authoring.build import build_model
from core.authoring.controllers import walker_controller, walker_model
from core.msh.model import Model

SWEEP = os.environ.get("IO_MSH_SWEEP_EXAMPLES")  # benchmarks/edges_sweep.py: a longer soak, seeds drawn afresh

WALK = (2, 3, 4, 5)  # the walk cycle's states (clip 1): their step lengths are drawn
RATES = [24.0, 25.0, 30.0, 60.0, 24000 / 1001]

boundaries = st.lists(st.tuples(st.integers(1, 4), st.floats(-0.012, 0.012)), min_size=4, max_size=4)


def walker_with_steps(rate: float, steps: list[tuple[int, float]]):
    """The walker whose walk cycle's steps are fixed and start near integer frames: step k ends at frame
    ``sum(whole frames so far) + offset_k`` at ``rate``."""
    controller = walker_controller()
    ends = np.cumsum([whole for whole, _ in steps]) + np.array([offset for _, offset in steps])
    lengths = np.diff(np.concatenate([[0.0], ends])) * 1000 / rate
    for state, ms in zip(WALK, lengths):
        controller.states[state]["mode"] = (ANCHOR if state == WALK[0] else 0) | FIXED_STEP
        controller.states[state]["length_ms"] = ms
    return controller


def clip_pose_at(anim, controller, clip, frame: float, rate: float):
    """The step a Blender frame of the clip is at (the import's timing: step k starts at the summed durations
    of the steps before, x rate / 1000) and core's pose there: ``pose_at_step`` (what ``core sample --clip``
    prints) and each node's ``blend_pose`` with its quaternion normalised (what Blender can show)."""
    starts = np.concatenate([[0.0], np.cumsum([s.duration_ms for s in clip.steps])]) * rate / 1000
    k = int(np.searchsorted(starts, frame, side="right")) - 1
    position = k + (frame - starts[k]) / (starts[k + 1] - starts[k]) if k < len(clip.steps) else len(clip.steps)
    step = step_at(controller, clip, position)
    normalised = {}
    for node in range(anim.node_count):
        q, p = blend_pose(anim, node, float(step.frame_a), float(step.frame_b), float(step.weight))
        normalised[node] = rigid(q, np.array(p, np.float64))
    return pose_at_step(anim, controller, step, in_place=True), normalised, starts


@settings(derandomize=SWEEP is None, max_examples=int(SWEEP or 12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rate=st.sampled_from(RATES), steps=boundaries, node_mode=st.sampled_from(["ARMATURE", "EMPTIES"]))
def test_every_integer_frame_shows_core_clip_pose_with_step_starts_near_it(blender, tmp_path, rate, steps,
                                                                          node_mode):
    blender.clean_scene()
    bpy = blender.bpy
    controller = walker_with_steps(rate, steps)
    data = build_model(walker_model()).to_bytes()
    (tmp_path / "walker.msh").write_bytes(data)
    (tmp_path / "walker.ctl").write_bytes(controller.to_bytes())
    root = import_walker(blender, tmp_path / "walker.msh", node_mode=node_mode, clips="ACTIONS", frame_rate=rate)
    anim = AnimationData.from_model(Model.parse(data))
    clip = clips_of(controller, anim)[1]
    assert clip.states == list(WALK)
    nodes = None if node_mode == "ARMATURE" else sorted(
        [o for o in bpy.data.objects if "msh_node_index" in o and o.type == "EMPTY"], key=lambda o: o["msh_node_index"])
    clip_actions_module(blender).show_clip(root, root["msh_clips"][1], nodes)
    keyed = (0, 3, 4)  # the channel nodes 1 and 2 follow their sliders; node 0 in place
    worst_rigid = worst_game = 0.0
    end = None
    for frame in range(0, 64):
        game, normalised, starts = clip_pose_at(anim, controller, clip, float(frame), rate)
        end = starts[-1]
        if frame > end:
            break
        blender.evaluated_frame(frame)
        shown = local_poses(bpy, root)
        for node in keyed:
            expected = normalised[node]
            if node == 0:
                expected = expected.copy()
                expected[:3, 3] = 0
            worst_rigid = max(worst_rigid, np.abs(shown[node] - expected).max())
            worst_game = max(worst_game, np.abs(shown[node] - game_matrix(game[node])).max())
    assert end is not None and end > 3.9
    assert worst_rigid < 1e-5, (rate, steps, worst_rigid)
    assert worst_game < 2e-4, (rate, steps, worst_game)  # the game's matrix is of the unnormalised i16 quaternion
