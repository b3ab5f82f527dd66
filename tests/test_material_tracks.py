"""The MAT0 track timeline (units-clips-digest 3): which entries and blend factor the game uses
at a time, per mode, with the worked example of the buoy HLP_RAY_R (3.4)."""

import numpy as np
import pytest

from core.appearance.mat0 import ANIM_KEY, AnimBlock, Material, parse_mat0, phase
from core.appearance.material_tracks import (
    GLIDING,
    LOOP,
    ONCE,
    PING_PONG,
    RANDOM,
    STEPPING,
    constant,
    field_steady,
    field_values,
    phase_values,
    shown_textures,
    texture_names,
    timeline,
    timeline_at_fraction,
)
from core.errors import FormatError

F32 = np.float32
AMBIENTS = [(0xDC, 0x14, 0x14), (0xF0, 0x00, 0x19), (0xFF, 0xB9, 0x7D)]  # 3.4: entries 0-2
BUOY_KEYS = [(0, 50, 0), (1, 100, 0), (2, 150, 0), (1, 200, 0)]


def buoy(mode: int = LOOP, mask: int = 0x01, keys=BUOY_KEYS) -> Material:
    """HLP_RAY_R as the digest describes it, written and read back through the MAT0 codec."""
    phases = []
    for i, ambient in enumerate(AMBIENTS):
        record = phase((0.0, 0.0, 0.0, 1.0), "SUN4.0", cell=i)
        record["p"][0:3] = ambient
        record["p"][16] = 10 * i            # power: steps
        record["p"][7] = 100 + 50 * i       # diffuse alpha: steps
        phases.append(record)
    material = Material(attr1=4, phases=np.array(phases),
                        animations=[AnimBlock(mode | mask << 3, np.array(keys, ANIM_KEY))])
    return parse_mat0(material.to_bytes(), material.attr1, material.attr2)


def ambient(entry: int) -> np.ndarray:
    return np.array(AMBIENTS[entry], F32)


def glide(a: int, b: int, f: float) -> np.ndarray:
    x, y = ambient(a), ambient(b)
    return (x + (y - x) * F32(f)).astype(F32)


def test_buoy_cell_steps_every_50_ms_while_ambient_glides():
    m = buoy()
    times = [0, 25, 50, 75, 100, 125, 150, 175, 199, 200, 225, 1000, 1075]
    tt = timeline(m.animations[0], times)
    assert tt.time.tolist() == [0, 25, 50, 75, 100, 125, 150, 175, 199, 0, 25, 0, 75]
    assert field_values(m, tt, "cell")[:, 0].tolist() == [0, 0, 1, 1, 2, 2, 1, 1, 1, 0, 0, 0, 1]
    assert texture_names(m, tt) == ["SUN4.0"] * len(times)
    assert field_values(m, tt, "power")[:, 0].tolist() == [0, 0, 10, 10, 20, 20, 10, 10, 10, 0, 0, 0, 10]
    got = field_values(m, tt, "ambient")
    # Hand-computed: halfway from #dc1414 to #f00019 is (230, 10, 22.5); #f00019 to #ffb97d (247.5, 92.5, 75).
    assert got[1].tolist() == [230.0, 10.0, 22.5]
    assert got[3].tolist() == [247.5, 92.5, 75.0]
    assert got[5].tolist() == [247.5, 92.5, 75.0]      # from entry 2 back toward entry 1
    assert got[7].tolist() == [230.0, 10.0, 22.5]      # from entry 1 toward entry 0: the loop wraps to key 0
    for row, (a, b, f) in zip(got, [(0, 1, 0), (0, 1, 0.5), (1, 2, 0), (1, 2, 0.5), (2, 1, 0), (2, 1, 0.5),
                                    (1, 0, 0), (1, 0, 0.5), (1, 0, 0.98), (0, 1, 0), (0, 1, 0.5), (0, 1, 0),
                                    (1, 2, 0.5)]):
        assert row.tobytes() == glide(a, b, f).tobytes()
    # Mask 1 glides only the ambient colour: diffuse, its alpha and the ambient alpha step.
    entry, target, factor = tt.field("diffuse")
    assert (entry == target).all() and (factor == 0).all()
    assert field_values(m, tt, "diffuse_alpha")[:, 0].tolist() == [100, 100, 150, 150, 200, 200, 150, 150, 150,
                                                                     100, 100, 100, 150]


def test_ping_pong_plays_forward_then_back():
    m = buoy(PING_PONG)
    tt = timeline(m.animations[0], [0, 75, 199, 200, 225, 350, 399, 400, 475])
    assert tt.time.tolist() == [0, 75, 199, 200, 175, 50, 1, 0, 75]
    assert tt.key.tolist() == [0, 1, 3, 3, 3, 1, 0, 0, 1]
    # At the turn the last interval has ended: the glide reached key 0's entry, the step fields key 3's.
    assert tt.factor.tolist()[3] == 1.0
    assert field_values(m, tt, "ambient")[3].tolist() == ambient(0).tolist()
    assert field_values(m, tt, "cell")[:, 0].tolist() == [0, 1, 1, 1, 1, 1, 0, 0, 1]


def test_once_holds_the_last_key():
    m = buoy(ONCE)
    tt = timeline(m.animations[0], [0, 125, 199, 200, 201, 10 ** 7])
    assert field_values(m, tt, "cell")[:, 0].tolist() == [0, 2, 1, 1, 1, 1]
    assert tt.factor.tolist()[3:] == [0.0, 0.0, 0.0]
    assert (field_values(m, tt, "ambient")[3:] == ambient(1)).all()   # key 3 names entry 1


def test_random_mode_is_a_loop_started_at_the_drawn_offset():
    m = buoy(RANDOM)
    tt = timeline(m.animations[0], [30, 80, 230, 1000], random_offset=30)
    assert tt.time.tolist() == [0, 50, 0, 170]
    per_time = timeline(m.animations[0], [100, 100], random_offset=[0, 75])
    assert per_time.time.tolist() == [100, 25]
    # The game's clock is unsigned: a time before the stamp wraps through 2**32 first.
    assert timeline(m.animations[0], [0], random_offset=30).time.tolist() == [(2 ** 32 - 30) % 200]


def test_the_clock_is_unsigned_milliseconds_since_the_start_stamp():
    block = buoy().animations[0]
    assert timeline(block, [1000, 1049.9, 1050], start_ms=1000).time.tolist() == [0, 49, 50]
    assert timeline(block, [999], start_ms=1000).time.tolist() == [(2 ** 32 - 1) % 200]
    with pytest.raises(FormatError, match="finite"):
        timeline(block, [float("nan")])


def test_the_fraction_clock():
    block = buoy().animations[0]
    tt = timeline_at_fraction(block, [0.0, 0.25, 0.5, 0.999, 1.0, 1.5, -0.1, float("nan")])
    assert tt.time.tolist() == [0, 50, 100, 199, 0, 100, 100, 100]   # outside 0..1 (or NaN) is 0.5
    assert tt.key.tolist() == [0, 1, 2, 3, 0, 2, 2, 2]


def test_one_key_or_a_zero_period_is_static():
    for keys in ([(2, 120, 0)], [(1, 0, 0), (2, 0, 0)]):
        m = buoy(keys=keys)
        tt = timeline(m.animations[0], [0, 60, 500])
        assert tt.entry.tolist() == [keys[0][0]] * 3 and (tt.factor == 0).all()


def test_ambient_alpha_glides_with_mask_0x10_and_every_colour_with_0x1f():
    m = buoy(mask=0x10)
    m.phases["p"][:, 3] = (20, 60, 100)
    tt = timeline(m.animations[0], [25, 75])
    assert field_values(m, tt, "ambient_alpha")[:, 0].tolist() == [40.0, 80.0]
    assert field_values(m, tt, "ambient")[:, 0].tolist() == [0xDC, 0xF0]      # bit 1 clear: steps
    m = buoy(mask=0x1F)
    tt = timeline(m.animations[0], [25])
    for name in ("ambient", "diffuse", "specular", "emissive", "ambient_alpha"):
        entry, target, factor = tt.field(name)
        assert (entry.tolist(), target.tolist(), factor.tolist()) == ([0], [1], [0.5])
    entry, target, factor = tt.field("cell")
    assert (entry.tolist(), target.tolist(), factor.tolist()) == ([0], [0], [0.0])


def test_many_times_at_once_agree_with_one_at_a_time():
    for mode in (LOOP, PING_PONG, ONCE, RANDOM):
        block = buoy(mode).animations[0]
        times = np.arange(-500, 2000, 7)
        whole = timeline(block, times, random_offset=13)
        for i in range(0, len(times), 37):
            one = timeline(block, [times[i]], random_offset=13)
            for name in ("time", "key", "entry", "next_entry", "factor"):
                assert getattr(one, name)[0] == getattr(whole, name)[i]


def test_key_times_out_of_order_and_bad_tracks():
    # Intervals: key 0 [0, 100), key 1 [100, 50) empty, key 2 [50, 150): the largest i holding t wins.
    m = buoy(keys=[(0, 100, 0), (1, 50, 0), (2, 150, 0)])
    tt = timeline(m.animations[0], [20, 60, 120])
    assert tt.key.tolist() == [0, 2, 2]
    assert tt.factor.tolist() == [F32(20) / F32(100), F32(10) / F32(100), F32(70) / F32(100)]
    # a track without keys (every retail track has one; the game's reading unknown) holds the first entry
    empty = timeline(AnimBlock(0, np.zeros(0, ANIM_KEY)), [0, 90])
    assert empty.entry.tolist() == [0, 0] and empty.factor.tolist() == [0, 0]
    far = buoy(keys=[(0, 50, 0), (7, 100, 0)])
    with pytest.raises(FormatError, match="entry 7; the material has 3"):
        field_values(far, timeline(far.animations[0], [25]), "ambient")


def drawn_material(rng) -> Material:
    """Phases whose fields are sometimes shared by every entry, sometimes not; keys out of order, repeated times and
    unused entries now and then; several textures."""
    count = int(rng.integers(1, 5))
    phases = []
    for i in range(count):
        record = phase((0.0, 0.0, 0.0, 1.0), ["SUN4.0", "BODY.0", "SUN4.0", ""][int(rng.integers(0, 4))], cell=i % 3)
        shared = rng.random(18) < 0.6
        record["p"][:18] = np.where(shared, 7, rng.integers(0, 256, 18))
        phases.append(record)
    n = int(rng.integers(1, 6))
    ends = np.sort(rng.integers(0, 300, n)) if rng.random() < 0.8 else rng.integers(0, 300, n)
    keys = [(int(rng.integers(0, count)), int(t), 0) for t in ends]
    material = Material(attr1=4, phases=np.array(phases),
                        animations=[AnimBlock(int(rng.integers(0, 4)) | int(rng.integers(0, 32)) << 3,
                                              np.array(keys, ANIM_KEY))])
    return parse_mat0(material.to_bytes(), material.attr1, material.attr2)


def test_linear_constant_checks_give_what_unique_gave():
    """``constant`` is ``len(np.unique(values, axis=0)) == 1``, a steady field's values are
    constant, and ``shown_textures`` is ``texture_names`` grouped, on drawn materials and times."""
    rng = np.random.default_rng(32)
    for _ in range(300):
        m = drawn_material(rng)
        tt = timeline(m.animations[0], np.arange(int(rng.integers(1, 700))), random_offset=int(rng.integers(0, 50)))
        for name in [*GLIDING, *STEPPING]:
            values = field_values(m, tt, name)
            assert constant(values) == (len(np.unique(values, axis=0)) == 1)
            if field_steady(m, tt, name):
                assert constant(values)
        names, index = shown_textures(m, tt)
        assert [names[i] for i in index] == texture_names(m, tt)
        assert names == list(dict.fromkeys(texture_names(m, tt)))


def test_phase_values_are_every_field_values_at_once():
    """``phase_values`` gives, column for column, what ``field_values`` gives each field (bytes,
    glide or step as the mask says), and refuses the entries it refuses."""
    rng = np.random.default_rng(4)
    for _ in range(300):
        m = drawn_material(rng)
        tt = timeline(m.animations[0], np.arange(int(rng.integers(1, 700))), random_offset=int(rng.integers(0, 50)))
        values = phase_values(m, tt)
        assert values.dtype == F32 and values.shape == (len(tt.entry), 18)
        for name, where in [*((n, w) for n, (_bit, w) in GLIDING.items()), *STEPPING.items()]:
            assert values[:, where].tobytes() == field_values(m, tt, name).tobytes(), name
    m = buoy(keys=[(0, 50, 0), (5, 100, 0)])
    with pytest.raises(FormatError, match="names entry 5"):
        phase_values(m, timeline(m.animations[0], [0, 75]))
