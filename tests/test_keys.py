"""Key authoring: every frame, or reduced and checked by sampling as the runtime does."""

import zlib

import numpy as np
import pytest

from core.animation.keys import Tolerance, author_animation, author_tracks, quantize_rotations, reproduction_error
from core.animation.sampler import AnimationData, sample
from core.animation.tracks import Animation
from core.authoring.build import build_model
from core.authoring.synth import axis_quat
from core.msh.model import Model
from core.msh.validate import validate_model

FRAMES = 200
TOL = Tolerance()


def smooth(rng, n=4):
    t = np.linspace(0, 2 * np.pi, FRAMES)
    rot = np.stack([axis_quat(rng.normal(size=3), np.sin(t * rng.uniform(0.5, 2)) * 1.5) for _ in range(n)])
    pos = np.stack([np.c_[np.sin(t), np.cos(t * 0.5), t * 0.1] * rng.uniform(0.5, 2) for _ in range(n)])
    return rot, pos


def jerky(rng, n=4):
    steps = rng.integers(0, 2, size=(n, FRAMES)).cumsum(axis=1) * 0.3
    rot = np.stack([axis_quat(rng.normal(size=3), s) for s in steps])
    pos = rng.normal(size=(n, FRAMES, 3)).cumsum(axis=1) * 0.05
    return rot, pos


def static(rng, n=4):
    rot = np.broadcast_to(axis_quat(rng.normal(size=3), 0.7), (n, FRAMES, 4)).copy()
    pos = np.broadcast_to(rng.normal(size=3), (n, FRAMES, 3)).copy()
    return rot, pos


def sparse(rng, n=4):
    """What the runtime plays from sparse keys: slerp and lerp between keys every 5 to 15 frames."""
    from core.animation.tracks import Track

    tracks = []
    for _ in range(n):
        times = np.unique(np.concatenate([[0, FRAMES - 1], rng.integers(1, FRAMES - 1, 15)])).astype(np.float32)
        quats = axis_quat(rng.normal(size=3), np.cumsum(rng.uniform(-0.8, 0.8, len(times))))
        tracks.append(Track.from_keys(times, rng.normal(size=(len(times), 3)), quantize_rotations(quats)))
    anim = Animation(FRAMES, tracks)
    s = sample(AnimationData.from_animation(anim), np.arange(FRAMES))
    sparse.key_counts = [len(t) for t in tracks]
    return s.rot.astype(np.float64), s.pos


def sign_flips(rng, n=4):
    rot, pos = smooth(rng, n)
    flips = np.where(rng.random((n, FRAMES)) < 0.3, -1.0, 1.0)
    return rot * flips[..., None], pos


@pytest.mark.parametrize("make", [smooth, jerky, static, sign_flips, sparse])
def test_reduced_keys_reproduce_every_frame_within_tolerance(make, capsys):
    rot, pos = make(np.random.default_rng(zlib.crc32(make.__name__.encode())))
    anim = author_animation(rot, pos)
    pos_err, rot_err = reproduction_error(anim, rot, pos)
    assert pos_err <= TOL.position and rot_err <= np.radians(TOL.rotation_deg)
    counts = [len(t) for t in anim.tracks]
    with capsys.disabled():
        print(f"\n  {make.__name__}: {FRAMES} frames -> keys per node {counts}; "
              f"max error {pos_err:.2e} m, {np.degrees(rot_err):.4f} deg")
    if make is static:
        assert counts == [1] * len(counts) and not any(t.has_map for t in anim.tracks)
    if make is sparse:  # the keys the motion was made from are found again
        assert counts == sparse.key_counts
    assert max(counts) <= FRAMES


def test_every_frame_mode_keys_each_frame_and_samples_back_exactly():
    rot, pos = smooth(np.random.default_rng(3), 2)
    anim = author_animation(rot, pos, reduce=False)
    assert [len(t) for t in anim.tracks] == [FRAMES, FRAMES]
    s = sample(AnimationData.from_animation(anim), np.arange(FRAMES))
    assert (s.branch != 3).all()  # every integer frame lands on a key: no interpolation
    np.testing.assert_array_equal(s.pos, pos.astype(np.float32))


def test_authored_animation_writes_a_valid_model():
    rot, pos = jerky(np.random.default_rng(5), 3)
    anim = author_animation(rot, pos)
    from core.authoring.build import ModelDef, NodeDef

    model = build_model(ModelDef([NodeDef("a"), NodeDef("b", 0), NodeDef("c", 1)], [], anim))
    assert validate_model(Model.parse(model.to_bytes())) == []
    assert model.frame_count == FRAMES


def test_quantisation_rules():
    q = np.array([[0, 0, 0, 0], [2, 0, 0, 0], [-1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5]])
    raw = quantize_rotations(q)
    assert raw[0].tolist() == [0, 0, 0, 0]  # all-zero input is written unchanged
    assert raw[1].tolist() == [32767, 0, 0, 0]  # normalised
    assert raw[2].tolist() == [32767, 0, 0, 0]  # sign flipped to stay on the shortest path
    assert raw[3].tolist() == [16384, 16384, 16384, 16384]


def test_consecutive_keys_keep_the_shortest_path():
    rot, pos = sign_flips(np.random.default_rng(8), 3)
    for track in author_tracks(rot, pos):
        q = track.rot.astype(np.float64)
        assert (np.einsum("ij,ij->i", q[1:], q[:-1]) >= 0).all()


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError):
        author_tracks(np.zeros((2, 5, 4)), np.zeros((2, 4, 3)))
    with pytest.raises(ValueError):
        author_tracks(np.zeros((1, 3, 4)), np.zeros((1, 3, 3)), times=[0, 2, 1])


def test_times_other_than_consecutive_frames():
    rot, pos = smooth(np.random.default_rng(9), 1)
    times = np.arange(FRAMES) * 2.0
    anim = Animation(1, author_tracks(rot, pos, times=times))
    anim.fit_frame_count()
    assert anim.frame_count == 2 * (FRAMES - 1) + 1
    pos_err, rot_err = reproduction_error(anim, rot, pos, times)
    assert pos_err <= TOL.position and rot_err <= np.radians(TOL.rotation_deg)


def test_long_segments_are_found_whole_while_other_nodes_need_a_key_every_frame():
    """One call reduces nodes of every kind together: segments of hundreds of frames (found by doubling the
    reach, then bisecting) beside a node that needs every frame."""
    from core.animation.tracks import Track

    rng = np.random.default_rng(21)
    frames = 1500
    tracks = []
    for keys in ([0, 300, 1499], [0, 700, 701, 1200, 1499], [0, 1499]):
        times = np.array(keys, np.float32)
        quats = axis_quat(rng.normal(size=3), np.cumsum(rng.uniform(-0.8, 0.8, len(times))))
        tracks.append(Track.from_keys(times, rng.normal(size=(len(times), 3)), quantize_rotations(quats)))
    s = sample(AnimationData.from_animation(Animation(frames, tracks)), np.arange(frames))
    jerky_rot, jerky_pos = (np.resize(a, (1, frames, a.shape[-1])) for a in jerky(rng, 1))
    jerky_pos = jerky_pos + rng.normal(size=jerky_pos.shape)  # a new place every frame
    rot = np.concatenate([s.rot.astype(np.float64), jerky_rot])
    pos = np.concatenate([s.pos, jerky_pos])
    anim = author_animation(rot, pos)
    assert [t.times.tolist() for t in anim.tracks[:3]] == [t.times.tolist() for t in tracks]
    assert len(anim.tracks[3].times) == frames
    pos_err, rot_err = reproduction_error(anim, rot, pos)
    assert pos_err <= TOL.position and rot_err <= np.radians(TOL.rotation_deg)


def _greedy_one_node(times, decoded, pos, rot, tol_pos, tol_rot) -> list[int]:
    """The documented search, one node and one segment at a time: from a key, the farthest of the next
    four frames that fits; when all four fit (before the last frame), doubling, then bisection."""
    from core.animation.keys import rotation_error
    from core.animation.sampler import lerp, slerp

    def fits(s, e):
        a = ((times[s:e + 1] - times[s]) / (times[e] - times[s])).astype(np.float32)
        q = slerp(np.broadcast_to(decoded[s], (len(a), 4)), np.broadcast_to(decoded[e], (len(a), 4)), a)
        p = lerp(pos[s], pos[e], a)
        return bool((np.abs(p - pos[s:e + 1]).max(axis=-1) <= tol_pos).all()
                    and (rotation_error(q, rot[s:e + 1]) <= tol_rot).all())

    last, keys, s = len(times) - 1, [0], 0
    while s < last:
        window = [min(s + k, last) for k in range(1, 5)]
        fitting = [True] + [fits(s, e) for e in window[1:]]
        if not (fitting[-1] and window[-1] < last):
            s = max(e for e, ok in zip(window, fitting) if ok)
        else:
            good, bad = window[-1], 0
            while not bad:
                reach = min(2 * good - s, last)
                if not fits(s, reach):
                    bad = reach
                elif reach == last:
                    good = bad = last + 1  # reached the end
                else:
                    good = reach
            if good == last + 1:
                good = last
            else:
                while bad - good > 1:
                    middle = (good + bad) // 2
                    good, bad = (middle, bad) if fits(s, middle) else (good, middle)
            s = good
        keys.append(s)
    return keys


def jerky_then_smooth(rng, n=4):
    """Runs of keys at every frame broken by smooth stretches: the walk steps through runs at once."""
    rot, pos = smooth(rng, n)
    rough_rot, rough_pos = jerky(rng, n)
    rough = (np.arange(rot.shape[1]) // 17) % 2 == 0
    return np.where(rough[None, :, None], rough_rot, rot), np.where(rough[None, :, None], rough_pos, pos)


@pytest.mark.parametrize("make", [smooth, jerky, sparse, sign_flips, jerky_then_smooth])
def test_reduced_keys_are_those_of_the_documented_search(make):
    """The vectorised search (all nodes per call, windows tested ahead where keys come dense) chooses the
    keys that the plain one-segment-at-a-time search chooses."""
    from core.animation.keys import _reduced_frames
    from core.msh import streams as S

    rng = np.random.default_rng(zlib.crc32(make.__name__.encode()))
    rot, pos = make(rng, n=5)
    rot, pos = rot[:, :120].astype(np.float64), pos[:, :120].astype(np.float32)
    times = np.arange(rot.shape[1], dtype=np.float32)
    decoded = np.array([S.decode_rotations(quantize_rotations(r)) for r in rot]).reshape(rot.shape)
    tol_rot = np.radians(TOL.rotation_deg)
    found = _reduced_frames(times, decoded, pos, rot, TOL.position, tol_rot)
    for node in range(len(rot)):
        assert found[node] == _greedy_one_node(times, decoded[node], pos[node], rot[node], TOL.position, tol_rot)


def segments_fit_every_pair(times, decoded, pos, rot, rot_norm, nodes, starts, ends, tol_pos, tol_rot):
    """The segment test as it was before rotations waited for the positions: positions and rotations of every pair."""
    from core.animation.keys import rotation_error
    from core.animation.sampler import SlerpTerms, lerp, slerp_at

    fits = np.ones(len(ends), bool)
    for i, (node, s, e) in enumerate(zip(nodes, starts, ends)):
        frames = np.arange(s, e + 1)
        with np.errstate(all="ignore"):
            a = ((times[frames] - times[s]) / (times[e] - times[s])).astype(np.float32)
        q0, q1 = decoded[node, s][None], decoded[node, e][None]
        q = slerp_at(q0, q1, SlerpTerms.of(q0, q1), a)
        p = lerp(pos[node, s], pos[node, e], a)
        fits[i] = bool(((np.abs(p - pos[node, frames]).max(axis=-1) <= tol_pos)
                        & (rotation_error(q, rot[node, frames], rot_norm[node, frames]) <= tol_rot)).all())
    return fits


@pytest.mark.parametrize("make", [smooth, jerky])
def test_the_segment_test_skipping_rotations_of_failed_positions_gives_every_pairs_answers(make, monkeypatch):
    """The rotations of a segment are tested only while its positions fit (over chunks too);
    the answers are those of testing every pair."""
    from core.animation import keys
    from core.msh import streams as S

    rng = np.random.default_rng(5)
    rot, pos = make(rng, 6)
    pos = pos.astype(np.float32)
    decoded = np.array([S.decode_rotations(quantize_rotations(r)) for r in rot]).reshape(rot.shape)
    times = np.arange(FRAMES, dtype=np.float32)
    rot_norm = np.linalg.norm(rot, axis=-1)
    nodes = rng.integers(0, 6, 400)
    starts = rng.integers(0, FRAMES - 2, 400)
    ends = np.minimum(starts + rng.integers(1, 40, 400), FRAMES - 1)
    monkeypatch.setattr(keys, "CHUNK", 97)  # segments across chunks
    for tol_pos, tol_rot in ((1e-4, np.radians(0.05)), (0.02, np.radians(2.0)), (0.5, np.radians(0.01))):
        args = (times, decoded, pos, rot, rot_norm, nodes, starts, ends, tol_pos, tol_rot)
        got = keys._segments_fit(times, decoded, pos.reshape(-1, 3), rot.reshape(-1, 4), rot_norm.reshape(-1),
                                 nodes, starts, ends, tol_pos, tol_rot)  # flat over (node, frame)
        assert 0 < got.sum() < len(got) or tol_pos == 1e-4
        assert (got == segments_fit_every_pair(*args)).all()
