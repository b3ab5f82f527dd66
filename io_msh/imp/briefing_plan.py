"""The campaign mission's briefing flythrough as the map import shows it: ``briefing.cfg`` beside ``data.tma``
(openparkan docs/21-briefing.md), read and timed (core.briefing)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...core.briefing.cfg import Briefing, check_briefing, parse_briefing
from ...core.briefing.play import Stop, stops
from ...core.disk import names_in, read_input
from ...core.errors import FormatError

BRIEFING_FILE = "briefing.cfg"


@dataclass
class BriefingPlan:
    name: str                 # briefing.cfg as found in the mission's folder
    data: bytes               # as read
    briefing: Briefing
    played: list[Stop]


def plan_briefing(mission_path: str | Path, warnings: list[str]) -> BriefingPlan | None:
    """The briefing beside the mission, or None (none there; one that does not read, or that the game would
    refuse, is a warning and is left as it is)."""
    folder = Path(mission_path).parent
    name = names_in(folder).get(BRIEFING_FILE)
    if name is None:
        return None
    path = folder / name
    try:
        data = read_input(path)
        briefing = parse_briefing(data, str(path))
    except FormatError as exc:
        warnings.append(f"{exc.describe(str(path))} (the briefing is not shown; the file is left as it is)")
        return None
    except OSError as exc:
        warnings.append(f"{path}: cannot read: {exc.strerror or exc} (the briefing is not shown)")
        return None
    warnings += [f.format(str(path)) for f in check_briefing(briefing)]
    if not briefing.waypoints:
        return None
    return BriefingPlan(name, data, briefing, stops(briefing))


__all__ = ["BRIEFING_FILE", "BriefingPlan", "plan_briefing"]
