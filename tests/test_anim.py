"""Animation IR and the canonical writer (msh-animation.md sections 5, 6, 8, 9)."""

import numpy as np
import pytest
from fixtures import generated, static_model, triangle_model

from core.animation.sampler import AnimationData, sample
from core.animation.tracks import Animation, Track, canonical_words, pack, read_animation, write_animation
from core.authoring.build import build_model
from core.authoring.synth import random_model
from core.errors import FormatError
from core.msh.model import Model
from core.msh.validate import validate_model

I = (32767, 0, 0, 0)  # noqa: E741
NONE = 0xFFFF


def samples_at(model: Model, times):
    s = sample(AnimationData.from_model(model), times)
    return s.rot.tobytes() + s.pos.tobytes()


def test_read_decomposes_the_key_pool_per_node():
    m = Model.parse(generated(4, node_count=6, frame_count=20))
    anim = read_animation(m)
    assert len(anim.tracks) == 6 and anim.frame_count == m.frame_count == 20
    start = 0
    for node, track in zip(m.nodes, anim.tracks):
        end = int(node["fallback_key"])
        assert len(track) == end - start + 1 and track.read_start == start
        assert track.has_map == (node["map_start"] != NONE)
        np.testing.assert_array_equal(track.times, m.keys["time"][start:end + 1])
        start = end + 1
    assert anim.tracks[0].rotations.dtype == np.float32


def test_canonical_words_follow_section_5_4():
    times = np.float32([0, 2, 5])
    assert canonical_words(times, 10, 7).tolist() == [10, 10, 11, 11, 11, 12, 12]
    late = np.float32([1.5, 3])
    assert canonical_words(late, 4, 5).tolist() == [5, 5, 4, 5, 5]  # before the first key: the fallback


@pytest.mark.parametrize("seed, kw", [(1, {}), (2, {"node_count": 40, "frame_count": 300}),
                                      (3, {"fractional": True}), (4, {"every_frame": True}),
                                      (5, {"animated": 0.0})])
def test_canonical_inputs_rebuilt_from_the_ir_give_identical_bytes(seed, kw):
    data = generated(seed, **kw)
    model = Model.parse(data)
    write_animation(model, read_animation(model), rebuild=True)
    assert model.to_bytes() == data


def test_static_model_rebuilds_identically():
    data = static_model(3)
    model = Model.parse(data)
    write_animation(model, read_animation(model), rebuild=True)
    assert model.to_bytes() == data


def test_unedited_non_canonical_model_is_left_as_read():
    data = triangle_model([(0, NONE, 0, 2)], [(0, 0, 0, 0, *I), (1, 0, 0, 1.5, *I), (2, 0, 0, 3.25, *I)],
                          [0, 0xFFFF, 1, 7, 0, 0], 6)
    model = Model.parse(data)
    write_animation(model, read_animation(model))
    assert model.to_bytes() == data


def test_canonical_writer_output_passes_every_check():
    spec = random_model(9, node_count=15, frame_count=90, fractional=False)
    for track in spec.animation.tracks:
        track.edited = True
    model = build_model(spec)
    assert validate_model(model) == []


def test_editing_one_track_changes_only_what_must_move():
    data = generated(11, node_count=8, frame_count=40, animated=1.0)
    model = Model.parse(data)
    before_keys = model.keys.copy()
    before = read_animation(model)
    anim = read_animation(model)
    edited = 2
    t = anim.tracks[edited]
    anim.tracks[edited] = Track.from_keys(np.float32([0, 13, 39]), t.pos[[0, 0, -1]] + 1, t.rot[[0, 0, -1]])
    write_animation(model, anim)
    after = read_animation(model)
    assert validate_model(model) == []
    for i, (old, new) in enumerate(zip(before.tracks, after.tracks)):
        if i == edited:
            assert len(new) == 3
            continue
        np.testing.assert_array_equal(old.times, new.times)
        np.testing.assert_array_equal(old.rot, new.rot)
        shift = new.read_start - old.read_start
        assert shift == (0 if i < edited else 3 - len(before.tracks[edited]))
        if old.has_map:
            np.testing.assert_array_equal(new.read_words.astype(int), old.read_words.astype(int) + shift)
    n_before = sum(len(t) for t in before.tracks[:edited])
    assert model.keys[:n_before].tobytes() == before_keys[:n_before].tobytes()


def test_unedited_words_pointing_into_another_track_move_with_it():
    # node 2's map plays node 1's keys at frames 0-1 (non-canonical); node 0 gains a key.
    nodes = [(0, NONE, NONE, 0), (0, 0, 0, 2), (0, 0, 4, 4)]
    keys = [(0, 0, 0, 0, *I), (1, 1, 1, 0, *I), (2, 2, 2, 3, *I), (7, 7, 7, 0, *I), (8, 8, 8, 3, *I)]
    model = Model.parse(triangle_model(nodes, keys, [1, 1, 1, 2, 1, 1, 3, 4], 4))
    times = np.arange(-1, 5, 0.25)
    before = sample(AnimationData.from_model(model), times, [1, 2])
    anim = read_animation(model)
    anim.tracks[0] = Track.from_keys([0, 3], [[0, 0, 0], [0, 0, 1]], [I, I])
    write_animation(model, anim)
    after = sample(AnimationData.from_model(model), times, [1, 2])
    assert after.rot.tobytes() == before.rot.tobytes() and after.pos.tobytes() == before.pos.tobytes()
    assert model.map_words[8:].tolist() == [2, 2, 4, 5]  # blocks: node 0 (now animated), 1, 2


def test_words_into_an_edited_track_fall_back_to_canonical():
    nodes = [(0, NONE, NONE, 0), (0, 0, 0, 2), (0, 0, 4, 4)]
    keys = [(0, 0, 0, 0, *I), (1, 1, 1, 0, *I), (2, 2, 2, 3, *I), (7, 7, 7, 0, *I), (8, 8, 8, 3, *I)]
    model = Model.parse(triangle_model(nodes, keys, [1, 1, 1, 2, 1, 1, 3, 4], 4))
    anim = read_animation(model)
    anim.tracks[1] = Track.from_keys([0, 1, 3], [[0, 0, 0]] * 3, [I] * 3)
    write_animation(model, anim)
    assert model.map_words[4:].tolist() == canonical_words(anim.tracks[2].times, 4, 4).tolist()


def test_rewrite_canonical_samples_identically_when_only_fallback_words_differ():
    # Fallback frames hold values above the fallback key instead of the key itself.
    nodes = [(0, NONE, NONE, 0), (0, 0, 0, 3)]
    keys = [(0, 0, 0, 0, *I), (0, 0, 0, 0, *I), (1, 0, 0, 2, 0, 32767, 0, 0), (2, 0, 0, 4, *I)]
    model = Model.parse(triangle_model(nodes, keys, [1, 1, 2, 2, 0xFFFF, 9], 6))
    times = np.concatenate([np.arange(-2, 8, 0.125), [2.5, 3.5, 4.0, 5.99, 6.0]])
    before = samples_at(model, times)
    anim = read_animation(model)
    anim.canonicalize()
    write_animation(model, anim)
    assert model.map_words.tolist() == [1, 1, 2, 2, 3, 3]
    assert samples_at(model, times) == before
    assert not any(f.is_error for f in validate_model(model))


def test_the_writer_refuses_what_cannot_be_written_before_touching_the_model():
    model = Model.parse(generated(1, node_count=3))
    data = model.to_bytes()
    anim = read_animation(model)
    anim.tracks[1] = Track.from_keys([0, 2, 1], [[0, 0, 0]] * 3, [I] * 3)
    with pytest.raises(FormatError, match="do not strictly increase"):
        write_animation(model, anim)
    anim.tracks[1] = Track(np.float32([0]), np.float32([[0, 0, 0]]), np.int16([I]), True)
    with pytest.raises(FormatError, match="has a map but fewer than 2 keys"):
        write_animation(model, anim)
    anim.tracks[1] = Track.from_keys([0, 1e30], [[0, 0, 0]] * 2, [I] * 2)
    anim.fit_frame_count()
    with pytest.raises(FormatError, match="frame count"):
        write_animation(model, anim)
    anim.tracks.pop()
    with pytest.raises(FormatError, match="2 tracks for 3 nodes"):
        write_animation(model, anim)
    assert model.to_bytes() == data


def test_too_many_keys_are_refused():
    anim = Animation(70000, [Track.from_keys(np.arange(70000), np.zeros((70000, 3)), np.tile(I, (70000, 1)))])
    with pytest.raises(FormatError, match="70000 keys; at most 65535"):
        pack(anim)


def test_fit_frame_count_is_last_key_time_plus_one():
    anim = Animation(1, [Track.static(), Track.from_keys([0, 2.5, 7.25], np.zeros((3, 3)), [I] * 3)])
    assert anim.fit_frame_count() == 8
    assert Animation(5, [Track.static()]).fit_frame_count() == 1
