"""An edited clip written back into the model's timeline (issue 21 item 7), so that the export writes it.

Only the curves (a node's location or rotation component) whose keys differ from what the import wrote are
written. A step plays timeline frames B0 .. B1 (pair B) over its Blender frames when its weight is 1 all
through it (the step's q and the previous step's are 1; ``io_msh.imp.clips``): timeline frame f is clip
frame ``start + (f - B0) / (B1 - B0) x (end - start)``. For every integer f between B0 and B1 the edited
curve is evaluated there (linear between the clip's keys), and the timeline's keys between B0 and B1 are
replaced by those values. Blended steps (weight < 1) show two timeline frames at once and are left alone;
node 0's location is the clip's root motion, not the timeline's, and is left alone too.
"""

from __future__ import annotations

import json

import bpy
import numpy as np

from ..com import compat
from ..com import props as P
from ..com.curves import node_fcurves
from ..com.hierarchy import descendants
from ..imp.clip_actions import assign, curve_fingerprints, show_clip


def write_clip_to_timeline(root, clip: str) -> tuple[list[int], list[str]]:
    """Write clip ``clip``'s edited nodes into the timeline action; returns the nodes written and warnings."""
    stored = json.loads(root.get(P.CLIP_STEPS, "{}"))
    meta = stored.get("clips", {}).get(clip)
    if meta is None:
        raise KeyError(f"{root.name!r} has no clip {clip!r}")
    empties = [o for o in descendants(root) if o.type == "EMPTY"] if root.type != "ARMATURE" else []
    holders = [root] if root.type == "ARMATURE" else empties
    saved = [(h, h.animation_data.action if h.animation_data else None,
              h.animation_data.action_slot if h.animation_data and compat.HAS_SLOTTED_ACTIONS else None)
             for h in holders]
    try:
        show_clip(root, clip, empties)
        now = curve_fingerprints(root)
        changed = {key for key, value in now.items() if meta["curves"].get(key) != value}
        edited = sorted({int(key.split("|", 1)[0]) for key in changed})
        samples, warnings = _sample(root, meta["steps"], changed)
        for holder in holders:  # the timeline, to write into
            assign(holder, bpy.data.actions.get(stored.get("timeline", {}).get(holder.name, "")))
        timeline = {(node, path, fc.array_index): fc for fc, node, _owner, path in node_fcurves(root)}
        for key, ranges in samples.items():
            fcurve = timeline.get(key)
            if fcurve is None:
                warnings.append(f"node {key[0]} has no timeline curve for {key[1]}[{key[2]}]: not written")
                continue
            _replace(fcurve, ranges)
    finally:
        for holder, action, slot in saved:
            anim = holder.animation_data
            if anim is not None:
                anim.action = action
                if action is not None and slot is not None:
                    anim.action_slot = slot
    return edited, warnings


def _sample(root, steps: list, edited: set[str]):
    """{(node, path, index): [(lo, hi, frames, values)]} of the edited curves ('node|path|index') over the pure
    steps."""
    out: dict[tuple, list] = {}
    blended = sum(1 for step in steps if not step[4])
    warnings = [f"{blended} of the clip's {len(steps)} steps blend two timeline frames: their keys are not "
                "written back"] if blended and edited else []
    for fcurve, node, _owner, path in node_fcurves(root):
        if f"{node}|{path}|{fcurve.array_index}" not in edited or (node == 0 and path == "location"):
            continue
        for start, end, b0, b1, pure in steps:
            if not pure:
                continue
            lo, hi = min(b0, b1), max(b0, b1)
            frames = np.arange(np.ceil(lo), np.floor(hi) + 1)
            if not len(frames):
                continue
            at = start + ((frames - b0) / (b1 - b0) if b1 != b0 else 0 * frames) * (end - start)
            values = np.array([fcurve.evaluate(float(t)) for t in at])
            out.setdefault((node, path, fcurve.array_index), []).append((lo, hi, frames, values))
    return out, warnings


def _replace(fcurve, ranges: list) -> None:
    """The curve's keys with those inside each range replaced by the range's samples (later ranges win)."""
    points = fcurve.keyframe_points
    co = np.empty(2 * len(points), np.float32)
    points.foreach_get("co", co)
    interpolation = np.empty(len(points), np.int32)
    points.foreach_get("interpolation", interpolation)
    keys = {float(f): (float(v), int(i)) for (f, v), i in zip(co.reshape(-1, 2), interpolation)}
    for lo, hi, frames, values in ranges:
        keys = {f: k for f, k in keys.items() if not lo <= f <= hi}
        keys.update({float(f): (float(v), compat.LINEAR) for f, v in zip(frames, values)})
    order = sorted(keys)
    while len(points):
        points.remove(points[len(points) - 1], fast=True)
    points.add(len(order))
    points.foreach_set("co", np.array([[f, keys[f][0]] for f in order], np.float32).ravel())
    points.foreach_set("interpolation", np.array([keys[f][1] for f in order], np.int32))
    fcurve.update()
