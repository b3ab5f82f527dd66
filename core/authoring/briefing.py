"""A synthetic ``briefing.cfg`` in the shipped shape (openparkan docs/21-briefing.md): every waypoint with all 24
keys in the shipped order, the three edge types and a flyaround, opening and closing black (each change of FadePercent
carried by a FadeTime on the earlier waypoint), LoopIndex -1 everywhere."""

from __future__ import annotations

from ..briefing.cfg import KEYS

# (camera, target, EdgeType, WaitType, EdgeTime, WaypointTime, RotateTime, FadeTime, FadePercent)
PATH = (((10.0, 10.0, 40.0), (60.0, 60.0, 0.0), "linear", "continuous", 3.0, 0.0, 0.0, 3.0, 100),
        ((40.0, 20.0, 30.0), (60.0, 60.0, 0.0), "spline", "continuous", 4.0, 0.0, 0.0, 0.0, 0),
        ((90.0, 40.0, 25.0), (64.0, 64.0, 2.0), "linear", "flyaround", 2.5, 8.0, 8.0, 0.0, 0),
        ((100.0, 100.0, 35.0), (70.0, 80.0, 0.0), "jump", "stay", 2.0, 1.5, 0.0, 0.0, 0),
        ((20.0, 110.0, 45.0), (60.0, 60.0, 0.0), "linear", "continuous", 3.0, 0.0, 0.0, 3.0, 0),
        ((15.0, 100.0, 50.0), (60.0, 60.0, 0.0), "linear", "continuous", 2.0, 0.0, 0.0, 0.0, 100))


def _values(row: tuple, index: int) -> dict[str, str]:
    camera, target, edge, wait, edge_time, dwell, rotate, fade_time, fade = row
    text = f'"B01_T{index:02d}"'
    return {"CameraX": f"{camera[0]:.3f}", "CameraY": f"{camera[1]:.3f}", "CameraZ": f"{camera[2]:.3f}",
            "TargetX": f"{target[0]:.3f}", "TargetY": f"{target[1]:.3f}", "TargetZ": f"{target[2]:.3f}",
            "EdgeType": f'"{edge}"', "WaitType": f'"{wait}"', "EdgeTime": f"{edge_time:.2f}",
            "WaypointTime": f"{dwell:.3f}", "RotateTime": f"{rotate:.3f}", "FadeTime": f"{fade_time:.3f}",
            "ZoomTime": "0.000", "WaitForText": "false", "WaitForSound": "true",
            "WaitForTime": "true" if dwell else "false", "WaitForClick": "false", "TextResID": text,
            "SoundResID": text, "NoisePercent": "0", "FadePercent": str(fade), "ZoomOn": "false",
            "NightVisionOn": "false", "LoopIndex": "-1"}


def synthetic_briefing(path: tuple = PATH, scale: float = 1.0) -> bytes:
    """The flythrough of ``path``, its positions times ``scale`` (the bundled sample's map is 400 across)."""
    path = tuple((tuple(c * scale for c in row[0]), tuple(c * scale for c in row[1]), *row[2:]) for row in path)
    lines = []
    for index, row in enumerate(path):
        values = _values(row, index)
        lines += [f"object WayPoint{index}", *(f"    {key} = {values[key]}" for key in KEYS), "end", ""]
    return "\r\n".join(lines).encode("ascii")


__all__ = ["PATH", "synthetic_briefing"]
