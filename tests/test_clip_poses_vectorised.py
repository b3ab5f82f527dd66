"""The clip planner samples a whole clip, every node at every step, in one call
(``steps_at``, ``poses_at_steps``, ``matrices_at_steps``, ``sampler.blend_poses``); each gives, bit for bit, what
the per-step path (``step_at``, ``pose_at_step``, ``blend_pose``) gives, on the walker's clips and on drawn
controllers, models and step times."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.animation.controller import clips_of, pose_at_step, step_at
from core.animation.controller.clips import matrices_at_steps, poses_at_steps, steps_at
from core.animation.controller.codec import ANCHOR, BY_VELOCITY, FIXED_STEP
from core.animation.sampler import AnimationData, blend_pose, blend_poses
from core.authoring.build import build_model
from core.authoring.controllers import walker_controller, walker_model
from core.authoring.synth import random_model
from core.msh.model import Model

WALKER = walker_controller()
WALKER_DATA = AnimationData.from_model(Model.parse(build_model(walker_model()).to_bytes(), "walker.msh"))


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def assert_same_as_per_step(data, controller, clip, steps, nodes=None, channel_values=None):
    many = steps_at(controller, clip, steps)
    rot, pos, shown = poses_at_steps(data, controller, many, nodes, channel_values)
    matrices = matrices_at_steps(data, controller, many, nodes, channel_values)
    ids = list(range(data.node_count)) if nodes is None else list(nodes)
    for k, value in enumerate(steps):
        one = step_at(controller, clip, float(value))
        got = many[k]
        assert (got.position, got.state) == (one.position, one.state)
        for name in ("phase", "frame_a", "frame_b", "weight"):
            assert same_bits(getattr(got, name), getattr(one, name)), (name, value)
        want = pose_at_step(data, controller, one, nodes, channel_values)
        assert same_bits(matrices[k], want), (value, matrices[k], want)
        for row, node in enumerate(ids):
            if node in _channel_nodes(controller):
                continue
            pose = blend_pose(data, node, float(one.frame_a), float(one.frame_b), float(one.weight))
            assert bool(shown[row, k]) == (pose is not None)
            if pose is not None:
                assert same_bits(rot[row, k], pose[0]), (value, node)
                if not (node == 0 and data.parents[0] == 0xFFFF):  # in place: node 0's translation cleared
                    assert same_bits(pos[row, k], pose[1]), (value, node)


def _channel_nodes(controller):
    from core.animation.controller.clips import node_channels

    return set(node_channels(controller))


def test_every_walker_clip_at_every_key_of_its_import_is_the_per_step_pose():
    for clip in clips_of(WALKER, WALKER_DATA):
        steps = np.concatenate([np.linspace(0, len(clip.steps), 97), np.arange(len(clip.steps) + 1) + 0.25,
                                [-3.5, -0.01, -0.0, 7.99, 1e6 + 0.5, 1e19, -2.0 ** 70]])
        assert_same_as_per_step(WALKER_DATA, WALKER, clip, steps)
        assert_same_as_per_step(WALKER_DATA, WALKER, clip, steps, nodes=[4, 0, 2], channel_values={1: 0.3})


def test_blend_poses_is_blend_pose_at_drawn_frames_and_weights():
    rng = np.random.default_rng(5)
    t_a = np.concatenate([rng.uniform(-2, 42, 200), [-1.0, 0.0, 40.0, 41.0, 2.5]])
    t_b = np.concatenate([rng.uniform(-2, 42, 200), [3.0, -1.0, 40.0, -0.5, 2.5]])
    w = np.concatenate([rng.choice([0.0, 1.0, 0.25, 0.6, 0.75], 200) * rng.uniform(0.5, 1.5, 200),
                        [0.0, 1.0, 0.5, 0.5, 1.0]]).astype(np.float32)
    rot, pos, shown = blend_poses(WALKER_DATA, range(WALKER_DATA.node_count), t_a, t_b, w)
    for node in range(WALKER_DATA.node_count):
        for k in range(len(w)):
            pose = blend_pose(WALKER_DATA, node, float(np.float32(t_a[k])), float(np.float32(t_b[k])), float(w[k]))
            assert bool(shown[node, k]) == (pose is not None)
            if pose is not None:
                assert same_bits(rot[node, k], pose[0]) and same_bits(pos[node, k], pose[1]), (node, k)
            else:
                assert np.isnan(rot[node, k]).all() and np.isnan(pos[node, k]).all()


@st.composite
def drawn_clip(draw):
    """A controller of drawn fixed-step states (pairs inside, across and past the model's frames, unused pairs,
    blended weights) cycling through one anchor, over a drawn model, with drawn step times."""
    nodes, frames = draw(st.integers(1, 6)), draw(st.integers(2, 30))
    data = AnimationData.from_model(Model.parse(build_model(random_model(
        draw(st.integers(0, 1000)), node_count=nodes, frame_count=frames, animated=0.7)).to_bytes(), "m.msh"))
    count = draw(st.integers(1, 5))
    controller = walker_controller()
    frame = st.floats(-2.0, frames + 3.0, width=32)
    states = controller.states.copy()[:count]
    for k in range(count):
        states[k]["mode"] = (ANCHOR if k == 0 else 0) | draw(st.sampled_from([FIXED_STEP, BY_VELOCITY, 0]))
        states[k]["pair_a"] = (-1.0, -1.0) if draw(st.booleans()) else (draw(frame), draw(frame))
        states[k]["pair_b"] = (draw(frame), draw(frame))
        states[k]["blend"] = draw(st.sampled_from([1.0, 0.75, 0.6, 0.0, 0.3]))
        states[k]["length_ms"] = 100.0
    controller.states = states
    costs = np.full((count, count), 1e6, "<f4")
    for k in range(count):
        costs[(k + 1) % count, k] = 1.0
    controller.costs = costs
    controller.channels = controller.channels[:0]
    (clip,) = clips_of(controller, data, speed=draw(st.sampled_from([0.0, 3.0])))
    steps = draw(st.lists(st.floats(-50.0, 50.0, allow_nan=False), min_size=1, max_size=12))
    return data, controller, clip, np.array(steps)


@settings(derandomize=True, max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(drawn=drawn_clip())
def test_drawn_clips_at_drawn_steps_are_the_per_step_pose(drawn):
    data, controller, clip, steps = drawn
    assert_same_as_per_step(data, controller, clip, steps)
