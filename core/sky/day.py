"""The sky at a time of day: a section's keyframes interpolated around the clock (colours per channel, floats
linearly, openparkan docs/10-sky.md) and the sun and moon on their arcs."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from .ske import FLOAT_SLOTS, SLOTS, Keyframe, Section

FOG_SCALE = 700.0  # slots 5 and 6 hold fog start and end / 700
# where the bodies stand: constants of Terrain.dll, not of the file: azimuth A and tilt B, degrees
BODIES = {"sun": (90.0, 30.0), "moon": (0.0, 50.0)}
# each dome ring's colour slots at compass quarters 0..3 (k x 90 degrees from +y toward +x), from ring 4 (the
# horizon, also the fog's colour) up to the apex
RINGS = ((2, 3, 1, 4), (7, 10, 8, 9), (11, 14, 12, 13), (15, 15, 15, 15))
SUN_LIGHT, COUNTER_LIGHT = 19, 21


@dataclass(frozen=True)
class Body:
    name: str  # sun or moon
    fraction: float  # of its lifetime run, 0..1
    direction: tuple[float, float, float]  # the light's travel, world axes (z up)

    @property
    def elevation(self) -> float:
        """Degrees above the horizon the body stands."""
        return math.degrees(math.asin(max(-1.0, min(1.0, -self.direction[2]))))


@dataclass(frozen=True)
class SkyState:
    colours: tuple[tuple[float, float, float, float], ...]  # per slot, 0..1 RGBA (float slots: zeros)
    fog_start: float
    fog_end: float
    values: tuple[float, ...]  # extent across, extent up, light, weather intensity
    bodies: tuple[Body, ...]


def state_at(section: Section, minutes: float) -> SkyState:
    """The sky ``minutes`` after midnight of ``section``'s day. Between two keyframes it is interpolated;
    before the first and after the last it holds that keyframe (our reading: the sources do not say how the
    game runs past a day's last stamp). A section without keyframes gives black."""
    keys = sorted(section.keyframes, key=lambda k: k.time.minutes)  # the game sorts each section
    if not keys:
        return SkyState(((0.0, 0.0, 0.0, 0.0),) * SLOTS, 0.0, 0.0, (0.0,) * 4, ())
    before, after, t = _around(keys, minutes)
    colours = []
    for slot in range(SLOTS):
        if slot in FLOAT_SLOTS or slot >= len(before.slots) or slot >= len(after.slots):
            colours.append((0.0, 0.0, 0.0, 0.0))
            continue
        a, b = before.colour(slot), after.colour(slot)
        colours.append(tuple((x + (y - x) * t) / 255.0 for x, y in zip(a, b, strict=True)))
    fog = [_lerp(before.number(s), after.number(s), t) * FOG_SCALE for s in FLOAT_SLOTS]
    values = tuple(_lerp(x, y, t) for x, y in zip(before.values, after.values, strict=True))
    return SkyState(tuple(colours), fog[0], fog[1], values, tuple(_bodies(keys, minutes)))


def _around(keys: list[Keyframe], minutes: float) -> tuple[Keyframe, Keyframe, float]:
    if minutes <= keys[0].time.minutes:
        return keys[0], keys[0], 0.0
    for before, after in itertools.pairwise(keys):
        if before.time.minutes <= minutes < after.time.minutes:
            return before, after, (minutes - before.time.minutes) / (after.time.minutes - before.time.minutes)
    return keys[-1], keys[-1], 0.0


def _bodies(keys: list[Keyframe], minutes: float) -> list[Body]:
    """Each body up at ``minutes``: started by an opcode-0 keyframe naming it, living to the first later
    opcode-1 keyframe of the section, not wrapping; its arc theta = (1.2 f - 0.1) pi, the light along
    R_z(A) R_x(B) (cos theta, 0, -sin theta)."""
    found = []
    for k, key in enumerate(keys):
        if key.opcode != 0 or key.time.minutes > minutes:
            continue
        stop = next((later for later in keys[k + 1:] if later.opcode == 1), None)
        if stop is None or stop.time.minutes <= minutes or stop.time.minutes == key.time.minutes:
            continue
        fraction = (minutes - key.time.minutes) / (stop.time.minutes - key.time.minutes)
        name = "sun" if key.body == "sun" else "moon"
        found.append(Body(name, fraction, arc_direction(name, fraction)))
    return found


def arc_direction(name: str, fraction: float) -> tuple[float, float, float]:
    azimuth, tilt = (math.radians(a) for a in BODIES[name])
    theta = (1.2 * fraction - 0.1) * math.pi
    x, y, z = math.cos(theta), 0.0, -math.sin(theta)
    y, z = y * math.cos(tilt) - z * math.sin(tilt), y * math.sin(tilt) + z * math.cos(tilt)  # R_x(B)
    x, y = x * math.cos(azimuth) - y * math.sin(azimuth), x * math.sin(azimuth) + y * math.cos(azimuth)  # R_z(A)
    return x, y, z


def _lerp(a: float, b: float, t: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b)):
        return a if t < 0.5 else b
    return a + (b - a) * t


__all__ = ["BODIES", "COUNTER_LIGHT", "FOG_SCALE", "RINGS", "SUN_LIGHT", "Body", "SkyState", "arc_direction",
           "state_at"]
