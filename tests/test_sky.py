"""``sky.ske``: read and written word for word, hostile bytes refused with a FormatError naming the section,
keyframe and byte, what the game would play oddly warned of, and the sky at a time of day as world digest
W59-W64 say."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.authoring.sky import RAIN_SOUND, synthetic_sky
from core.errors import FormatError
from core.sky.day import arc_direction, state_at
from core.sky.ske import SMALLEST_KEYFRAME, check_sky, parse_ske, validate_ske, write_ske


@pytest.fixture(scope="module")
def sky_bytes() -> bytes:
    return write_ske(synthetic_sky(2, editor_session=True))


def test_an_unedited_sky_writes_back_byte_for_byte(sky_bytes):
    sky = parse_ske(sky_bytes)
    assert write_ske(sky) == sky_bytes
    assert len(sky.sections) == 2 and [len(s.keyframes) for s in sky.sections] == [12, 12]
    # section 0's day length at offsets 64 (hours) and 68 (minutes), W57
    assert struct.unpack_from("<2I", sky_bytes, 64) == (0, 15) and sky.sections[0].day_seconds == 900
    assert check_sky(sky) == []


def test_a_colour_edit_rewrites_only_its_four_bytes(sky_bytes):
    sky = parse_ske(sky_bytes)
    key = sky.sections[1].keyframes[3]
    sky.sections[1].keyframes[3] = key.with_colour(15, (1, 2, 3, 4))
    edited = write_ske(sky)
    assert len(edited) == len(sky_bytes)
    changed = [i for i, (a, b) in enumerate(zip(sky_bytes, edited, strict=True)) if a != b]
    assert changed and max(changed) - min(changed) < 4
    assert parse_ske(edited).sections[1].keyframes[3].colour(15) == (1, 2, 3, 4)


def test_a_float_left_as_it_was_keeps_its_bits():
    sky = synthetic_sky()
    key = sky.sections[0].keyframes[0]
    nan = struct.unpack("<I", struct.pack("<I", 0x7FA0_0001))[0]  # a signalling NaN a float round trip quiets
    key = type(key)(key.version, key.time, key.opcode, key.slots, key.names, (nan, *key.floats[1:]), key.effects)
    again = key.with_values((key.values[0], 2.5, key.values[2], key.values[3]))
    assert again.floats[0] == nan and again.values[1] == 2.5


def test_versions_one_and_two_read_as_the_loader_takes_them():
    sky = synthetic_sky()
    one = sky.sections[0].keyframes[0]
    sky.sections[0].keyframes[0] = type(one)(1, one.time, one.opcode, one.slots[:20], one.names, one.floats, None)
    two = sky.sections[0].keyframes[1]
    sky.sections[0].keyframes[1] = type(two)(2, two.time, two.opcode, two.slots, two.names, two.floats, None)
    data = write_ske(sky)
    again = parse_ske(data)
    assert write_ske(again) == data and len(again.sections[0].keyframes[0].slots) == 20
    assert sum("not up to date" in f.message for f in check_sky(again)) == 2


@pytest.mark.parametrize(("edit", "message"), [
    (lambda b: b"\0\0\0\0" + b[4:], "not -1"),
    (lambda b: b[:4] + struct.pack("<I", 4) + b[8:], "version 4"),
    (lambda b: b[:8] + struct.pack("<I", 0x7FFF_FFFF) + b[12:], "sections cannot fit"),
    (lambda b: b[:16] + struct.pack("<I", 0x0FFF_FFFF) + b[20:], "keyframes cannot fit"),
    (lambda b: b[:84] + struct.pack("<I", 7) + b[88:], "version 7"),
    (lambda b: b[:-10], "ends inside"),
])
def test_broken_files_are_refused_naming_where(sky_bytes, edit, message):
    with pytest.raises(FormatError) as caught:
        parse_ske(edit(sky_bytes), "MISSIONS/M/sky.ske")
    assert message in str(caught.value) and "MISSIONS/M/sky.ske: sky.ske" in str(caught.value)


def test_every_truncation_is_refused_and_trailing_bytes_carried(sky_bytes):
    for end in range(len(sky_bytes)):
        with pytest.raises(FormatError):
            parse_ske(sky_bytes[:end])
    longer = sky_bytes + b"\1\2\3"
    assert write_ske(parse_ske(longer)) == longer
    assert any("after the last word" in f.message for f in validate_ske(longer))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.data())
def test_hostile_bytes_give_a_format_error_or_a_sky_that_writes_back(sky_bytes, data):
    mutated = bytearray(sky_bytes)
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(mutated) - 1))
        mutated[at] = data.draw(st.sampled_from([0, 0xFF, 0x7F, 0x80, data.draw(st.integers(0, 255))]))
    try:
        sky = parse_ske(bytes(mutated))
    except FormatError:
        return
    assert write_ske(sky) == bytes(mutated)
    check_sky(sky)


def test_a_count_past_the_bytes_is_refused_before_anything_is_allocated():
    huge = struct.pack("<3I", 0xFFFFFFFF, 5, 1) + struct.pack("<2I", 1, 50_000_000) + b"\0" * 64
    with pytest.raises(FormatError, match="cannot fit"):
        parse_ske(huge)
    assert SMALLEST_KEYFRAME == 160


def test_what_the_game_would_play_oddly_is_warned_of():
    sky = synthetic_sky(rain=True)
    keys = sky.sections[0].keyframes
    rain = next(k for k, key in enumerate(keys) if key.opcode == 3)
    keys[rain] = type(keys[rain])(3, keys[rain].time, 3, keys[rain].slots, keys[rain].names, keys[rain].floats, ())
    keys[0], keys[1] = keys[1], keys[0]
    messages = [f.message for f in check_sky(sky)]
    assert any("rain starts without its sound" in m for m in messages)
    assert any("not in time order" in m for m in messages)
    assert all(not f.is_error for f in check_sky(sky))
    assert synthetic_sky(rain=True).sections[0].keyframes[rain].effects == (RAIN_SOUND,)


def test_the_sun_stands_sixty_degrees_up_at_mid_life_and_below_the_horizon_at_its_ends():
    def elevation(direction):
        return math.degrees(math.asin(-direction[2]))

    assert elevation(arc_direction("sun", 0.5)) == pytest.approx(60.0)
    assert elevation(arc_direction("moon", 0.5)) == pytest.approx(40.0)
    assert elevation(arc_direction("sun", 0.0)) == pytest.approx(-15.5, abs=0.1)
    assert elevation(arc_direction("moon", 1.0)) == pytest.approx(-11.5, abs=0.1)


def test_the_sky_between_two_keyframes_is_interpolated_per_channel():
    section = synthetic_sky().sections[0]
    a, b = section.keyframes[2], section.keyframes[3]  # 03:00 and 06:00
    state = state_at(section, 4 * 60 + 30)
    assert state.colours[15] == pytest.approx(tuple((x + y) / 2 / 255 for x, y in
                                                    zip(a.colour(15), b.colour(15), strict=True)))
    assert state.values[2] == pytest.approx((a.values[2] + b.values[2]) / 2)
    assert [body.name for body in state.bodies] == ["sun"] and state.fog_end == pytest.approx(700.0)
    night = state_at(section, 20 * 60)
    assert [body.name for body in night.bodies] == ["moon"]
    assert state_at(section, 15 * 60).bodies == ()  # between the sun's stop and the moon's start
