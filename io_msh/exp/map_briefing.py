"""The briefing read back from the scene: each waypoint's two Empties (where the camera stands, where it looks)
and the camera Empty's properties, the import made them (io_msh.imp.briefing). A value is an edit when it
differs from what Blender held right after the import; an edit rewrites that key's line (core.briefing.cfg),
everything else keeps its text. What the file cannot hold is refused, naming the waypoint: a waypoint deleted
or copied (waypoints are neither removed nor added), a value of the wrong kind. The flythrough camera is a
preview, rebuilt by the import: it is not read."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.briefing.cfg import FLAG_KEYS, TEXT_KEYS, parse_briefing
from ...core.errors import FormatError
from ..imp import briefing as B


@dataclass
class BriefingRead:
    name: str        # briefing.cfg as found in the mission's folder
    stored: bytes    # as the import read it
    data: bytes      # as the scene shows it
    edited: int = 0  # values changed


def read_briefing(top) -> BriefingRead | None:
    if B.BRIEFING not in top:
        return None
    stored = bytes(top[B.BRIEFING])
    name = str(top[B.BRIEFING_NAME])
    briefing = parse_briefing(stored, name)
    points = top[B.BRIEFING_POINTS]
    record = top[B.BRIEFING_AS_SHOWN]
    result = BriefingRead(name, stored, stored)
    _copies(top, points)
    for index, point in enumerate(briefing.waypoints):
        camera, target = points.get(f"{index} camera"), points.get(f"{index} target")
        if camera is None or target is None:
            raise FormatError.single("briefing", index, f"{name}: waypoint {point.name}'s "
                                                        f"{'camera' if camera is None else 'target'} Empty was "
                                                        "deleted: the export cannot remove a waypoint (undo, or "
                                                        "import the mission again)")
        now, shown = B.shown_values(camera, target), dict(record[str(index)])
        changed = {key: value for key, value in now.items() if key in shown and not _same(value, shown[key])}
        for key in shown:
            if key not in now:
                raise FormatError.single("briefing", index, f"{name}: waypoint {point.name}'s {key} property was "
                                                            "deleted: the export cannot remove a key")
        for key in now:
            if key not in shown:
                raise FormatError.single("briefing", index, f"{name}: waypoint {point.name} has no {key} line: "
                                                            f"the export cannot add a key (delete the {key} "
                                                            "property)")
        if changed:
            _check_kinds(name, point.name, index, changed)
            briefing = briefing.with_values(index, changed)
            result.edited += len(changed)
    if result.edited:
        result.data = briefing.to_bytes()
    return result


def _copies(top, points) -> None:
    """A waypoint Empty copied (Shift+D keeps its custom properties) would be a waypoint the file cannot add."""
    made = {obj.name for obj in points.values() if obj is not None}
    for obj in top.all_objects:
        if B.WAYPOINT in obj and obj.name not in made:
            raise FormatError.single("briefing", int(obj[B.WAYPOINT]),
                                     f"{obj.name} copies a briefing waypoint: the export cannot add waypoints "
                                     "(delete the copy)")


def _check_kinds(name: str, waypoint: str, index: int, changed: dict) -> None:
    for key, value in changed.items():
        if key in TEXT_KEYS:
            wanted, ok = "text", isinstance(value, str)
        elif key in FLAG_KEYS:
            wanted, ok = "true or false", isinstance(value, bool)
        else:
            wanted, ok = "a number", isinstance(value, (int, float)) and not isinstance(value, bool)
        if not ok:
            raise FormatError.single("briefing", index, f"{name}: waypoint {waypoint}'s {key} is {value!r}, "
                                                        f"not {wanted}")


def _same(value, shown) -> bool:
    if isinstance(value, (int, float)) and isinstance(shown, (int, float)) and not isinstance(value, bool):
        with np.errstate(over="ignore"):  # beyond float32: inf, refused when written
            return bool(np.float32(value) == np.float32(shown))
    return value == shown


__all__ = ["BriefingRead", "read_briefing"]
