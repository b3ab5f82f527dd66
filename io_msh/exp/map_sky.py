"""The mission's sky read back from the scene: the World's ``slot N`` colours, its mist, and the sun lamps'
colour and strength the map import made (io_msh.imp.sky), written into the keyframe the World shows. A value
is an edit when it differs from what Blender held right after the import (``SKY_AS_SHOWN``): one left alone
keeps its word, so an unedited sky writes back byte for byte. A World or lamp deleted leaves what it showed as
read. Colours are written as display bytes (the inverse of the import's linear colours), alpha kept: a colour
node has none."""

from __future__ import annotations

from dataclasses import dataclass, field

import bpy
import numpy as np

from ...core.errors import FormatError
from ...core.sky.day import COUNTER_LIGHT, FOG_SCALE, SUN_LIGHT
from ...core.sky.ske import Keyframe, parse_ske, write_ske
from ..com.colours import linear_to_srgb
from ..imp import sky as S


@dataclass
class SkyRead:
    name: str                   # sky.ske as found in the mission's folder
    stored: bytes               # as the import read it
    data: bytes                 # as the scene shows it
    edited: int = 0             # words changed
    warnings: list[str] = field(default_factory=list)


def read_sky(top) -> SkyRead | None:
    """The sky of the map collection ``top``, None when its import showed none."""
    if S.SKY not in top:
        return None
    stored = bytes(top[S.SKY])
    result = SkyRead(str(top[S.SKY_NAME]), stored, stored)
    sky = parse_ske(stored, result.name)
    section, index = (int(v) for v in top[S.SKY_SHOWN])
    before = key = sky.sections[section].keyframes[index]
    record = {name: list(values) for name, values in top[S.SKY_AS_SHOWN].items()}
    world = top.get(S.SKY_WORLD)
    if world is None or world.node_tree is None:
        result.warnings.append(f"{result.name}: the sky's World was deleted: the sky is written as read")
        now = {}
    else:
        now = S.shown_values(world, {})
        missing = sorted(name for name in record if name.startswith("slot ") and name not in now)
        if missing:  # renamed or deleted: an edit of it could not be read
            raise FormatError.single("sky", section, f"{result.name}: the World {world.name} has no colour node "
                                                     f"named {', '.join(missing)} (renamed or deleted): name it so "
                                                     "again")
    _copies(top, result.name, world, now or record)
    lamps = {role: lamp for role, lamp in (top.get(S.SKY_LAMPS) or {}).items()
             if lamp is not None and lamp.type == "LIGHT"}
    now.update({role: [*lamp.data.color, lamp.data.energy] for role, lamp in lamps.items()})
    lamp_edits: dict[str, tuple[str, list[float]]] = {}  # slot 19 / 21 and the light: the lamp that set it
    for name, values in now.items():
        if name not in record or _same(values, record[name]):
            continue
        if any(np.isnan(values[:3])) and name != "mist":
            what = lamps[name].name if name in lamps else name
            raise FormatError.single("sky", section, f"{result.name}: {what}'s colour is not a number (NaN): the "
                                                     "sky's colours are bytes")
        if name.startswith("slot "):
            key = written_colour(key, int(name.split()[1]), values)
        elif name == "mist":
            (start, depth), (shown_start, shown_depth) = values, record[name]
            if not _same([start], [shown_start]):
                key = key.with_slot(5, _f32_word(start / FOG_SCALE))
            # the end moves with the start in Blender (start + depth), unless the file's end lies before its start
            # (shown as depth 0): then only an edit of the depth is one of the end
            behind = before.number(6) < before.number(5)
            if not _same([depth], [shown_depth]) or (not behind and not _same([start], [shown_start])):
                key = key.with_slot(6, _f32_word((start + depth) / FOG_SCALE))
        else:
            main = name.split()[0] == "main"
            slot = SUN_LIGHT if main else COUNTER_LIGHT
            parts = [("colour", values[:3], record[name][:3])]
            if main:
                parts.append(("strength", values[3:], record[name][3:]))
            for part, edited, shown in parts:
                if _same(edited, shown):
                    continue
                if slot >= len(key.slots):
                    raise FormatError.single("sky", section, f"{result.name}: {lamps[name].name}'s colour: the "
                                                             f"shown keyframe (version {key.version}) has no slot "
                                                             f"{slot} to hold it (the game makes it of slot 19)")
                other = lamp_edits.setdefault(f"{slot} {part}", (name, edited))
                if not _same(other[1], edited):
                    raise FormatError.single("sky", section, f"{result.name}: {lamps[other[0]].name} and "
                                                             f"{lamps[name].name} show one {part} of the keyframe, "
                                                             "edited to different values")
                if part == "colour":
                    key = written_colour(key, slot, edited)
                else:
                    light = key.values
                    key = key.with_values((light[0], light[1], float(np.float32(edited[0])), light[3]))
    result.edited = sum(a != b for a, b in zip(before.slots, key.slots, strict=True)) + \
        sum(a != b for a, b in zip(before.floats, key.floats, strict=True))
    if result.edited:
        sky.sections[section].keyframes[index] = key
        result.data = write_ske(sky)
    return result


def _copies(top, name: str, world, values: dict) -> None:
    """A copy of the sky's World (World > New copies the scene's) edited apart from it: its edits would not be
    written."""
    token = top.get(S.SKY_TOKEN)
    for other in bpy.data.worlds:
        if token is None or other == world or other.get(S.SKY_TOKEN) != token or other.node_tree is None:
            continue
        shown = S.shown_values(other, {})
        if any(key in values and not _same(shown[key], values[key]) for key in shown):
            raise FormatError.single("sky", None, f"{name}: the World {other.name} is a copy of the sky's World "
                                                  f"{world.name if world is not None else '(deleted)'}, edited "
                                                  "apart: only the sky's World is written (edit it, or delete the "
                                                  "copy)")


def written_colour(key: Keyframe, slot: int, rgb) -> Keyframe:
    """Linear ``rgb`` (as Blender holds it) into ``slot`` as display bytes, the slot's alpha kept."""
    display = np.clip(np.rint(linear_to_srgb(np.clip(np.asarray(rgb[:3], float), 0.0, None)) * 255.0), 0, 255)
    return key.with_colour(slot, (*(int(c) for c in display), key.colour(slot)[3]))


def _same(values, record) -> bool:
    return np.array_equal(np.float32(values), np.float32(record), equal_nan=True)


def _f32_word(value: float) -> int:
    return int(np.float32(value).view(np.uint32))


__all__ = ["SkyRead", "read_sky", "written_colour"]
