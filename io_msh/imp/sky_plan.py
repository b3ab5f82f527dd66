"""The mission's sky as the map import shows it: ``sky.ske`` and ``sky.wea`` beside ``data.tma`` (found by fixed
name, openparkan docs/10-sky.md), and the keyframe shown: the one of the clock's section at or before the time of day
asked for (by default where the mission's clock starts). The sky is shown as that keyframe holds it, so
that what the user edits in Blender is that keyframe's values (io_msh.exp.map_sky)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...core.appearance.wear import parse_wear
from ...core.disk import names_in, read_input
from ...core.errors import FormatError
from ...core.sky.day import Body, state_at
from ...core.sky.ske import Keyframe, Sky, check_sky, parse_ske

SKY_FILE, SKY_MATERIALS = "sky.ske", "sky.wea"


@dataclass
class SkyPlan:
    name: str              # sky.ske as found in the mission's folder
    data: bytes            # as read
    sky: Sky
    section: int
    keyframe: int          # the shown keyframe's index in its section
    bodies: tuple[Body, ...]
    materials: list[str]   # sky.wea's nine, by role; empty without one

    @property
    def shown(self) -> Keyframe:
        return self.sky.sections[self.section].keyframes[self.keyframe]

    @property
    def label(self) -> str:
        time = self.shown.time
        return f"section {self.section} keyframe {self.keyframe} ({time.hour:02d}:{time.minute:02d})"


def plan_sky(mission_path: str | Path, minutes: int | None, warnings: list[str]) -> SkyPlan | None:
    """The sky beside the mission, or None (none there; one that does not read is a warning and is left as it
    is). ``minutes``: the time of day to show, None for the clock's start."""
    folder = Path(mission_path).parent
    found = names_in(folder)
    name = found.get(SKY_FILE)
    if name is None:
        return None
    path = folder / name
    try:
        data = read_input(path)
        sky = parse_ske(data, str(path))
    except FormatError as exc:
        warnings.append(f"{exc.describe(str(path))} (the sky is not shown; the file is left as it is)")
        return None
    except OSError as exc:
        warnings.append(f"{path}: cannot read: {exc.strerror or exc} (the sky is not shown)")
        return None
    warnings += [f.format(str(path)) for f in check_sky(sky)]
    section = min(sky.start.section, len(sky.sections) - 1)
    if section < 0 or not sky.sections[section].keyframes:
        warnings.append(f"{path}: no keyframe to show (the sky is not shown; the file is left as it is)")
        return None
    keys = sky.sections[section].keyframes
    at = sky.start.minutes if minutes is None else minutes
    order = sorted(range(len(keys)), key=lambda k: keys[k].time.minutes)  # the game's order
    earlier = [k for k in order if keys[k].time.minutes <= at]
    keyframe = earlier[-1] if earlier else order[0]
    bodies = state_at(sky.sections[section], keys[keyframe].time.minutes).bodies
    return SkyPlan(name, data, sky, section, keyframe, bodies, _materials(folder, found, warnings))


def _materials(folder: Path, found: dict[str, str], warnings: list[str]) -> list[str]:
    name = found.get(SKY_MATERIALS)
    if name is None:
        return []
    try:
        return parse_wear(read_input(folder / name), str(folder / name)).materials
    except FormatError as exc:
        warnings.append(exc.describe(str(folder / name)))
    except OSError as exc:
        warnings.append(f"{folder / name}: cannot read: {exc.strerror or exc}")
    return []


def parse_time_of_day(text: str) -> int | None:
    """``HH:MM`` as minutes after midnight; empty: None (the clock's start). ValueError otherwise."""
    text = text.strip()
    if not text:
        return None
    hours, _, minutes = text.partition(":")
    hour, minute = int(hours), int(minutes or 0)
    if not (0 <= hour <= 24 and 0 <= minute <= 59):
        raise ValueError(f"{text!r} is no time of day (HH:MM)")
    return hour * 60 + minute


__all__ = ["SKY_FILE", "SKY_MATERIALS", "SkyPlan", "parse_time_of_day", "plan_sky"]
