"""Posing an imported unit as a whole: the clip to show on every part that has one of that
name (the chassis's clips move the mounted parts through their sockets: each hangs on a mount Empty with a
Child Of constraint on its socket's bone or Empty), the timeline back, and each part's channel sliders.

A mounted part is not driven by the chassis's states: a channel plays its node's own segment whatever state
the body is in (docs/formats/units.md, a unit's clips), so a turret or gun shows its own clip of the
same name when it has one, and otherwise keeps what it shows."""

from __future__ import annotations

import json
import math

import bpy

from ...core.errors import FormatError
from ..com import props as P
from .clip_actions import assign, clip_actions, clip_label, model_holders, show_clip, timeline_of

TIMELINE = ""  # the clip name that shows each part's timeline again


def unit_parts(unit: bpy.types.Collection) -> list[bpy.types.Object]:
    """The unit's part roots, by component."""
    roots = [o for o in unit.all_objects if P.MODEL in o and P.UNIT_COMPONENT in o]
    return sorted(roots, key=lambda o: (P.shown_int(o, P.UNIT_COMPONENT), o.name))


def part_clips(root) -> dict[str, str]:
    """The part's clips: label -> the name its clip actions are marked with (none when msh_clips was edited
    into something else: the export check names it). The label is the one the import recorded: the name of a
    clip's actions is numbered when it was taken, and cut to Blender's length."""
    try:
        names = P.text_list_property(root, P.CLIPS)
    except FormatError:
        return {}
    try:
        records = json.loads(str(root.get(P.CLIP_STEPS, "{}"))).get("clips", {})
        labels = {name: str(record["label"]) for name, record in records.items() if "label" in record}
    except (ValueError, TypeError, AttributeError):
        labels = {}
    return {labels.get(name) or clip_label(name): name for name in names}


def unit_clip_labels(unit: bpy.types.Collection) -> list[str]:
    """Every clip label of the unit's parts, the chassis's (component 0) first, in clip order."""
    out: list[str] = []
    for root in unit_parts(unit):
        out += [label for label in part_clips(root) if label not in out]
    return out


def show_unit_clip(scene, unit: bpy.types.Collection, label: str) -> list[bpy.types.Object]:
    """Show clip ``label`` on every part that has it (``TIMELINE``: every part's timeline again), the scene's
    frame range set to what is shown; returns the parts that show the clip."""
    shown, span = [], None
    for root in unit_parts(unit):
        holders = model_holders(root)
        if label == TIMELINE:
            actions = [timeline_of(holder)[0] for holder in holders]
            for holder, action in zip(holders, actions):
                if action is not None:
                    assign(holder, action)
        else:
            name = part_clips(root).get(label)
            if name is None:
                continue
            show_clip(root, name, holders)
            shown.append(root)
            actions = [clip_actions(holder, name) for holder in holders]
        for action in actions:
            if action is not None:
                start, end = action.frame_range
                span = (min(span[0], start), max(span[1], end)) if span else (start, end)
    if span is not None:
        scene.frame_start, scene.frame_end = int(span[0]), max(math.ceil(span[1]), int(span[0]) + 1)
    return shown


def part_label(root) -> str:
    return str(root.get(P.UNIT_DISPLAY) or root.name)
