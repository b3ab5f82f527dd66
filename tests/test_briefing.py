"""``briefing.cfg``: kept line for line, an edit rewriting only the values it changes, what the game's loader
refuses named as an error, the rest warned of and carried, and the flythrough timed as the game plays it."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.authoring.briefing import synthetic_briefing
from core.briefing.cfg import KEYS, check_briefing, parse_briefing, validate_briefing
from core.briefing.play import orbit, stops
from core.errors import FormatError


@pytest.fixture(scope="module")
def text() -> bytes:
    return synthetic_briefing()


def test_an_unedited_briefing_writes_back_byte_for_byte(text):
    briefing = parse_briefing(text)
    assert briefing.to_bytes() == text and len(briefing.waypoints) == 6
    assert all(list(point.values) == list(KEYS) for point in briefing.waypoints)
    assert check_briefing(briefing) == []


def test_an_edit_rewrites_only_the_lines_whose_values_change(text):
    briefing = parse_briefing(text)
    edited = briefing.with_values(2, {"CameraX": 91.5, "CameraY": 40.0, "EdgeType": "spline", "WaitForSound": True})
    changed = [n for n, (a, b) in enumerate(zip(briefing.lines, edited.lines, strict=True)) if a != b]
    assert len(changed) == 2  # CameraY and WaitForSound say what they said
    again = parse_briefing(edited.to_bytes()).waypoints[2]
    assert again.number("CameraX") == 91.5 and again.text("EdgeType") == "spline"
    assert edited.to_bytes().count(b"\r\n") == text.count(b"\r\n")


def test_a_value_a_scene_holds_in_float32_is_no_edit():
    data = synthetic_briefing().replace(b"CameraX = 10.000", b"CameraX = 10.0001234")
    briefing = parse_briefing(data)
    import numpy as np

    assert briefing.with_values(0, {"CameraX": float(np.float32(10.0001234))}).to_bytes() == data
    moved = briefing.with_values(0, {"CameraX": float(np.float32(12.25))})
    assert b"CameraX = 12.250\r\n" in moved.to_bytes()


def test_what_cannot_be_written_is_refused(text):
    briefing = parse_briefing(text)
    with pytest.raises(FormatError, match="quotes"):
        briefing.with_values(0, {"TextResID": 'a"b'})
    with pytest.raises(FormatError, match="not a number"):
        briefing.with_values(0, {"CameraX": math.nan})
    with pytest.raises(FormatError, match="no Extra line"):
        briefing.with_values(0, {"Extra": 1})


@pytest.mark.parametrize(("edit", "message"), [
    (lambda t: t.replace(b"end\r\n", b"", 1), "opens inside WayPoint0"),
    (lambda t: b"end\r\n" + t, "end without an object"),
    (lambda t: t.rsplit(b"end", 1)[0], "has no end"),
    (lambda t: b"CameraX = 1\r\n" + t, "neither object, end nor"),
])
def test_broken_syntax_is_refused_naming_the_line(text, edit, message):
    with pytest.raises(FormatError, match=message) as caught:
        parse_briefing(edit(text), "MISSIONS/CAMPAIGN/briefing.cfg")
    assert "briefing.cfg: briefing.cfg[" in str(caught.value)


def test_what_the_loader_refuses_is_an_error_and_the_rest_a_warning(text):
    flyaround = text.replace(b'WaitType = "flyaround"\r\n    EdgeTime = 2.50\r\n    WaypointTime = 8.000\r\n'
                             b"    RotateTime = 8.000", b'WaitType = "flyaround"\r\n    EdgeTime = 2.50\r\n'
                             b"    WaypointTime = 8.000\r\n    RotateTime = 0.000")
    assert [f.message for f in validate_briefing(flyaround) if f.is_error] == \
        ["waypoint WayPoint2: a flyaround with a RotateTime of 0 (the game refuses it)"]
    spline = text.replace(b'EdgeType = "spline"\r\n    WaitType = "continuous"\r\n    EdgeTime = 4.00',
                          b'EdgeType = "spline"\r\n    WaitType = "continuous"\r\n    EdgeTime = 0')
    assert any("spline edge" in f.message and f.is_error for f in validate_briefing(spline))
    odd = text.replace(b"LoopIndex = -1", b"LoopIndex = 40", 1).replace(b'"jump"', b'"warp"')
    odd = odd.replace(b"    NoisePercent = 0\r\n", b"    NoisePercent = lots\r\n    Extra = 1\r\n", 1)
    findings = validate_briefing(odd)
    assert not any(f.is_error for f in findings) and parse_briefing(odd).to_bytes() == odd
    messages = " | ".join(f.message for f in findings)
    for words in ("LoopIndex 40 names no waypoint", "EdgeType 'warp'", "is no number", "unknown key(s) Extra"):
        assert words in messages


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.data())
def test_hostile_text_gives_a_format_error_or_a_briefing_that_writes_back(text, data):
    mutated = bytearray(text)
    for _ in range(data.draw(st.integers(1, 8))):
        mutated[data.draw(st.integers(0, len(mutated) - 1))] = data.draw(st.integers(0, 255))
    try:
        briefing = parse_briefing(bytes(mutated))
    except FormatError:
        return
    assert briefing.to_bytes() == bytes(mutated)
    check_briefing(briefing)
    stops(briefing)


def test_the_flythrough_is_timed_as_the_game_plays_it(text):
    played = stops(parse_briefing(text))
    assert [s.index for s in played] == [0, 1, 2, 3, 4, 5]
    assert played[2].arrive == 7.0 and played[2].leave == 15.0  # the flyaround dwells one revolution
    assert played[-1].following is None and played[-1].end == 26.0  # the last holds for its EdgeTime


def test_a_loop_back_is_played_once(text):
    looped = parse_briefing(text.replace(b"LoopIndex = -1", b"LoopIndex = 0"))
    assert [s.index for s in stops(looped)] == [0]
    tail = b"\r\nend\r\n\r\nobject WayPoint4"
    back = text.replace(b"LoopIndex = -1" + tail, b"LoopIndex = 1" + tail)
    assert [s.index for s in stops(parse_briefing(back))] == [0, 1, 2, 3]


def test_a_flyaround_orbits_its_target_level():
    point = parse_briefing(synthetic_briefing()).waypoints[2]
    start = point.camera
    quarter = orbit(point, start, 2.0)  # a quarter of an 8 s revolution
    tx, ty, _ = point.target
    assert math.hypot(quarter[0] - tx, quarter[1] - ty) == pytest.approx(math.hypot(start[0] - tx, start[1] - ty))
    assert quarter[2] == start[2]
    assert orbit(point, start, 8.0) == pytest.approx(start)
