"""The runtime sampler and pose blend, pinned branch by branch on hand-built bytes."""

import math

import numpy as np
import pytest
from fixtures import generated, static_model, triangle_model
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_sampler import sample_node_pose

from core.animation import sampler as R
from core.animation.pose import pose_matrix
from core.animation.sampler import AnimationData, blend, frame_index, sample, sample_node, slerp, world_matrices_at
from core.msh.model import Model

I = (32767, 0, 0, 0)  # noqa: E741
Q90Z = (23170, 0, 0, 23170)  # 90 degrees about the last axis
NONE = 0xFFFF


def model(nodes, keys, words, frame_count):
    return Model.parse(triangle_model(nodes, keys, words, frame_count))


def data_of(nodes, keys, words, frame_count):
    return AnimationData.from_model(model(nodes, keys, words, frame_count))


# node 0: static (no map), node 1: keys 1..3 at times 0, 2, 4, frame_count 6, canonical map.
BASE_NODES = [(0, NONE, NONE, 0), (0, 0, 0, 3)]
BASE_KEYS = [(5, 5, 5, 0, *I), (0, 0, 0, 0, *I), (2, 0, 0, 2, *Q90Z), (4, 0, 0, 4, *I)]
BASE_WORDS = [1, 1, 2, 2, 3, 3]


def base(words=BASE_WORDS, keys=BASE_KEYS, frame_count=6):
    return data_of(BASE_NODES, keys, words, frame_count)


def test_fallback_when_the_node_has_no_map():
    _rot, pos, key, branch = sample_node(base(), 0, 1.0)
    assert (key, branch) == (0, "fallback") and pos.tolist() == [5, 5, 5]


def test_fallback_when_frame_reaches_frame_count():
    assert sample_node(base(), 1, 6.5)[2:] == (3, "fallback")  # frame rint(6.0) = 6 >= 6
    assert sample_node(base(), 1, 6.4)[2:] == (3, "fallback")  # frame rint(5.9) = 6


def test_fallback_for_negative_times():
    for t in (-1.0, -0.5, -0.25, -100.0):
        assert sample_node(base(), 1, t)[2:] == (3, "fallback"), t
    assert sample_node(base(), 1, -0.0)[2:] == (1, "k0")  # rint(-0.5) is -0: frame 0


def test_fallback_when_map_word_equals_the_fallback_key():
    assert sample_node(base(), 1, 4.0)[2:] == (3, "fallback")  # word[4] == 3


def test_fallback_when_map_word_is_above_the_fallback_key():
    data = base(words=[1, 9, 2, 2, 3, 3])
    _rot, pos, key, branch = sample_node(data, 1, 1.6)  # frame 1 -> word 9 >= 3
    assert (key, branch) == (3, "fallback") and pos.tolist() == [4, 0, 0]


def test_exact_k0_and_k1_returns():
    assert sample_node(base(), 1, 2.0)[2:] == (2, "k0")
    keys = [BASE_KEYS[0], (0, 0, 0, 0, *I), (3, 0, 0, 3, *Q90Z), (5, 0, 0, 5, *I)]
    data = data_of(BASE_NODES, keys, [1, 1, 1, 2, 2, 3], 6)
    rot, pos, key, branch = sample_node(data, 1, 3.0)  # frame rint(2.5) = 2 -> key 1; t == key 2's time
    assert (key, branch) == (2, "k1") and pos.tolist() == [3, 0, 0]
    assert rot.tolist() == (np.float32(Q90Z) * (np.float32(1) / np.float32(32767))).tolist()


def test_lerp_between_keys():
    _rot, pos, key, branch = sample_node(base(), 1, 1.0)
    assert (key, branch) == (1, "lerp")
    assert pos.tolist() == [1.0, 0, 0]


@pytest.mark.parametrize("t, half_even, floor_frame, half_away", [
    (1.0, 0, 0, 1), (2.0, 2, 1, 2), (3.0, 2, 2, 3), (4.0, 4, 3, 4), (5.0, 4, 4, 5),
    (2.5, 2, 2, 2), (3.5, 3, 3, 3), (0.0, 0, -1, -1), (1.25, 1, 0, 1),
])
def test_frame_index_is_round_half_even(t, half_even, floor_frame, half_away):
    assert int(frame_index(np.float32(t))) == half_even
    x = t - 0.5
    assert math.floor(x) == floor_frame
    assert int(math.copysign(math.floor(abs(x) + 0.5), x)) == half_away


def test_round_half_even_picks_the_map_word_floor_or_half_away_would_not():
    # A non-canonical map whose words differ at frames 1, 2, 3 shows which frame was used.
    keys = [BASE_KEYS[0], (0, 0, 0, 0, *I), (10, 0, 0, 10, *I), (20, 0, 0, 20, *I), (30, 0, 0, 30, *I)]
    nodes = [(0, NONE, NONE, 0), (0, 0, 0, 4)]
    data = data_of(nodes, keys, [1, 1, 2, 3, 4, 4], 6)
    assert sample_node(data, 1, 2.0)[2] == 2  # frame 2 (floor would give 1 -> key 1)
    assert sample_node(data, 1, 3.0)[2] == 2  # frame 2 (half-away would give 3 -> key 3)
    assert sample_node(data, 1, 1.0)[2] == 1  # frame 0
    assert sample_node(data, 1, 5.0)[2] == 4  # frame 4 -> word 4 == fallback


def test_frame_index_of_values_fistp_cannot_represent():
    assert frame_index(np.float32("nan")) == 0
    assert frame_index(np.float32("inf")) == 0
    assert frame_index(np.float32(2.0 ** 32)) == 0  # low dword of 2**32
    assert frame_index(np.float32(3e9)) == np.int32(np.uint32(3000000000).astype(np.int32))


def test_fractional_key_times():
    keys = [BASE_KEYS[0], (0, 0, 0, 0, *I), (1, 0, 0, 1.5, *Q90Z), (2, 0, 0, 3.25, *I)]
    data = data_of(BASE_NODES, keys, [1, 1, 2, 2, 3], 5)
    assert sample_node(data, 1, 1.5)[2:] == (2, "k1")  # frame 1 -> key 1, t equals key 2's time
    _rot, pos, key, branch = sample_node(data, 1, 2.0)  # frame 2 -> key 2, lerp towards key 3
    a = (np.float32(2.0) - np.float32(1.5)) / (np.float32(3.25) - np.float32(1.5))
    assert (key, branch) == (2, "lerp") and pos[0] == np.float32(1) + (np.float32(2) - np.float32(1)) * a
    assert sample_node(data, 1, 3.25)[2:] == (3, "k1")  # frame rint(2.75) = 3 -> key 2; t is key 3's time

def test_non_canonical_map_pointing_into_another_nodes_keys():
    nodes = [(0, NONE, NONE, 0), (0, 0, 0, 2), (0, 0, 4, 4)]
    keys = [BASE_KEYS[0], (1, 1, 1, 0, *I), (2, 2, 2, 3, *I), (7, 7, 7, 0, *I), (8, 8, 8, 3, *I)]
    data = data_of(nodes, keys, [1, 1, 1, 2, 1, 1, 3, 4], 4)
    _rot, pos, key, branch = sample_node(data, 2, 0.0)
    assert (key, branch) == (1, "k0") and pos.tolist() == [1, 1, 1]  # node 2 plays node 1's keys
    _rot, pos, key, branch = sample_node(data, 2, 1.5)  # frame 1 -> key 1, towards key 2 (node 1's end)
    assert (key, branch) == (1, "lerp") and pos.tolist() == [1.5, 1.5, 1.5]
    assert sample_node(data, 2, 2.75)[2:] == (3, "lerp")  # frame 2 -> word 3, node 2's own first key


def test_static_model_with_empty_res19_always_falls_back():
    data = AnimationData.from_model(Model.parse(static_model(3)))
    s = sample(data, [-1, 0, 0.5, 1, 2, 100])
    assert (s.branch == R.FALLBACK).all() and s.key.tolist() == [[0] * 6, [1] * 6, [2] * 6]


def test_slerp_linear_branch_below_the_threshold():
    q0 = np.float32([1, 0, 0, 0])
    q1 = np.float32([0.999999, 0.001, 0, 0])
    a = np.float32(0.25)
    assert np.float32(1) - (q0 * q1).sum() <= R.SLERP_LINEAR_THRESHOLD
    expected = (np.float32(1) - a) * q0 + a * q1
    assert slerp(q0, q1, a).tolist() == expected.tolist()


def test_slerp_flips_sign_when_dot_is_negative_and_does_not_normalise():
    q0 = np.float32([1, 0, 0, 0])
    q1 = np.float32([-0.70710677, 0, 0, -0.70710677])
    out = slerp(q0, q1, np.float32(0.5))
    assert out[0] > 0 and out[3] > 0  # took the short way, towards -q1
    np.testing.assert_allclose(out, [math.cos(math.pi / 8), 0, 0, math.sin(math.pi / 8)], atol=1e-6)
    unnormalised = slerp(np.float32([2, 0, 0, 0]), np.float32([0, 2, 0, 0]), np.float32(0.5))
    assert abs(np.linalg.norm(unnormalised) - 1) > 0.1


def test_blend_branches():
    data = base()
    only_a = blend(data, 1, 1.0, 3.0, 0.0)
    np.testing.assert_array_equal(only_a, pose_matrix(*sample_node(data, 1, 1.0)[:2]))
    only_b = blend(data, 1, -1.0, 3.0, 0.5)
    np.testing.assert_array_equal(only_b, pose_matrix(*sample_node(data, 1, 3.0)[:2]))
    assert blend(data, 1, 1.0, -1.0, 1.0) is None  # neither: undefined in the original
    both = blend(data, 1, 0.0, 2.0, 0.5)
    assert both[0, 3] == np.float32(1.0) and both.dtype == np.float32
    assert both[3].tolist() == [0, 0, 0, 1]
    half = math.radians(45) / 2
    expected = pose_matrix([math.cos(half), 0, 0, math.sin(half)], [0, 0, 0])[:3, :3]
    np.testing.assert_allclose(both[:3, :3], expected, atol=2e-5)  # i16 keys are off by up to 1/65534


def test_blend_takes_the_shortest_path_by_flipping_b():
    keys = [BASE_KEYS[0], (0, 0, 0, 0, *I), (0, 0, 0, 2, -32767, 0, 0, 0), (0, 0, 0, 4, *I)]
    data = data_of(BASE_NODES, keys, BASE_WORDS, 6)
    m = blend(data, 1, 0.0, 2.0, 0.5)  # qB = -qA: after the flip they agree, so the blend is the identity
    np.testing.assert_allclose(m[:3, :3], np.eye(3), atol=1e-6)


def test_matrix_layout_translation_in_elements_3_7_11():
    m = pose_matrix(np.float32([1, 0, 0, 0]), [1, 2, 3]).reshape(-1)
    assert (m[3], m[7], m[11]) == (1, 2, 3)
    r = pose_matrix(np.float32([math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4)]), [0, 0, 0])
    assert r[0, 1] == pytest.approx(1.0) and r[1, 0] == pytest.approx(-1.0)  # the spec's m[1] = 2(xy + wz)


def test_out_of_range_indices_raise_a_format_error_not_an_index_error():
    from core.errors import FormatError

    data = base(words=[1, 1, 2, 2, 3])  # frame_count 6 but 5 words
    with pytest.raises(FormatError, match="map word past the end"):
        sample(data, [5.6])  # frame 5


def test_world_matrices_compose_parents():
    data = base()
    world = world_matrices_at(data, [2.0])
    np.testing.assert_allclose(world[1, 0], world[0, 0] @ pose_matrix(*sample_node(data, 1, 2.0)[:2]), atol=1e-6)
    assert world[1, 0][:3, 3].tolist() == pytest.approx([5 + 2, 5, 5])  # node 0 is unrotated at (5, 5, 5)


@pytest.fixture(scope="module")
def fractional_model():
    return Model.parse(generated(7, node_count=10, frame_count=30, animated=0.8, fractional=True))


@settings(max_examples=300, deadline=None)
@given(t=st.one_of(st.floats(-3, 40, width=32), st.integers(-2, 40).map(float),
                   st.integers(-4, 80).map(lambda h: h / 2)))
def test_vectorised_sampler_matches_the_reference_transcription_bit_for_bit(fractional_model, t):
    m = fractional_model
    data = AnimationData.from_model(m)
    batch = sample(data, [t])
    for node in range(m.node_count):
        q, p, key, branch = sample_node_pose(bytes(m.data(1)), bytes(m.data(8)), bytes(m.data(19)),
                                             m.frame_count, node, t)
        assert (int(batch.key[node, 0]), R.BRANCHES[batch.branch[node, 0]]) == (key, branch)
        assert batch.rot[node, 0].tobytes() == np.float32(q).tobytes()
        assert batch.pos[node, 0].tobytes() == np.float32(p).tobytes()


def test_scalar_and_vectorised_calls_agree_bit_for_bit(fractional_model):
    data = AnimationData.from_model(fractional_model)
    times = np.concatenate([np.arange(-2, 32, 0.25), np.random.default_rng(1).uniform(-1, 31, 200)]).astype(np.float32)
    batch = sample(data, times)
    for node in range(data.node_count):
        for c, t in enumerate(times[::7]):
            rot, pos, key, branch = sample_node(data, node, t)
            assert rot.tobytes() == batch.rot[node, c * 7].tobytes()
            assert pos.tobytes() == batch.pos[node, c * 7].tobytes()
            assert (key, branch) == (int(batch.key[node, c * 7]), R.BRANCHES[batch.branch[node, c * 7]])


def test_world_poses_refuse_cycles_and_bad_parents():
    from core.errors import FormatError

    nodes = [(0, 1, NONE, 0), (0, 0, NONE, 1)]  # 0 -> 1 -> 0
    data = data_of(nodes, [(0, 0, 0, 0, *I), (0, 0, 0, 0, *I)], [], 1)
    with pytest.raises(FormatError, match="own ancestor"):
        world_matrices_at(data, [0.0])
    data.parents[:] = [NONE, 7]
    with pytest.raises(FormatError, match="parent 7 is out of range"):
        world_matrices_at(data, [0.0])
    data.parents[:] = [1, NONE]  # a parent after its child is fine
    assert world_matrices_at(data, [0.0]).shape == (2, 1, 4, 4)
