"""How the game plays a briefing (openparkan docs/21-briefing.md, "How the player runs it"): a
dwell at waypoint i (``WaypointTime`` when ``WaitForTime`` is set, else none), then the edge leaving i (its
``EdgeType`` over its ``EdgeTime``) to the next stop (``LoopIndex`` unless -1, else i + 1). The last waypoint's
edge has nowhere to go: the camera holds for its ``EdgeTime`` and the briefing ends. A loop back is played
once: the pass ends when a waypoint would be visited again."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .cfg import NO_LOOP, Briefing, Waypoint


@dataclass(frozen=True)
class Stop:
    index: int
    arrive: float       # seconds from the briefing's start
    leave: float        # the dwell's end
    end: float          # the edge's end: the next stop's arrival (or the briefing's end)
    following: int | None  # the stop the edge goes to; None: the last


def stops(briefing: Briefing) -> list[Stop]:
    points = briefing.waypoints
    out: list[Stop] = []
    seen: set[int] = set()
    index, now = 0, 0.0
    while points and index not in seen:
        seen.add(index)
        point = points[index]
        dwell = max(0.0, point.number("WaypointTime")) if point.flag("WaitForTime") else 0.0
        edge = max(0.0, point.number("EdgeTime"))
        loop = int(point.number("LoopIndex")) if "LoopIndex" in point.values else NO_LOOP
        following = loop if loop != NO_LOOP and 0 <= loop < len(points) else index + 1
        if following >= len(points) or following in seen:
            out.append(Stop(index, now, now + dwell, now + dwell + edge, None))
            break
        out.append(Stop(index, now, now + dwell, now + dwell + edge, following))
        index, now = following, now + dwell + edge
    return out


def orbit(point: Waypoint, start: tuple[float, float, float], seconds: float) -> tuple[float, float, float]:
    """Where a flyaround puts the camera ``seconds`` into its dwell: level around the waypoint's target, at the
    camera's height and horizontal distance on arrival, from its bearing, 2 pi / RotateTime radians a second."""
    period = point.number("RotateTime")
    tx, ty, _ = point.target
    dx, dy = start[0] - tx, start[1] - ty
    radius, bearing = math.hypot(dx, dy), math.atan2(dy, dx)
    angle = bearing + (2 * math.pi * seconds / period if period > 0 else 0.0)
    return tx + radius * math.cos(angle), ty + radius * math.sin(angle), start[2]


__all__ = ["Stop", "orbit", "stops"]
