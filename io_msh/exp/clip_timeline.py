"""An edited clip written back into the model's timeline, so that the export writes it.

Only the curves (a node's location or rotation component) whose keys differ from what the import wrote are
written. A step shows timeline frame ``B0 + s (B1 - B0)`` alone from the phase s its import recorded
(``io_msh.imp.clips.pure_from``: 0 when its weight is 1 all through, 0.25 when the previous step's q < 1 makes
its first quarter blend) to its end: timeline frame f there is clip frame ``start + s (end - start)`` with
``s = (f - B0) / (B1 - B0)``. For every integer f of that part the edited curve is evaluated there (linear
between the clip's keys), and the timeline's keys in that part are replaced by those values. Steps that blend
two timeline frames all through (q < 1) show no one timeline frame and are left alone, with a warning.

Node 0's location, when node 0 has no parent, is root motion: the game never draws its translation (the body
moves by the stride, node 0's travel over pair B), and the clip shows what the import chose (In Place: 0,
Moving: the travel along the clip). Its edit is therefore written as a delta: the timeline's value at f plus
(the edited clip value - the value the import wrote, at the same clip time). Lifting the body in the clip
lifts the timeline's body by as much; the stride (and a stride-timed step's length) changes only where the
edit changes node 0's travel between a pair's ends.

The timeline is found through the pointer the import left on each holder (``clip_actions.timeline_of``), and
the clip through the mark on its action, so renaming the objects or the actions changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import bpy
import numpy as np

from ..com import compat
from ..com import props as P
from ..com.curves import node_fcurves, still_model_warning
from ..imp.bone_renames import follow_bone_renames, missing_bones
from ..imp.clip_actions import (
    assign,
    assignment,
    assignments_kept,
    clip_actions,
    curve_fingerprints,
    model_holders,
    show_clip,
    timeline_of,
)


class TimelineError(Exception):
    """What keeps a clip from being written (its message is the report); nothing was changed."""


def write_clip_to_timeline(root, clip: str, rebase: bool = False) -> tuple[list[int], list[str]]:
    """Write clip ``clip``'s edited nodes into the timeline action; returns the nodes written and warnings.
    TimelineError (nothing changed) when the clip is unknown or the timeline an edit needs was deleted.
    ``rebase`` (Write Clip to Timeline, not the export's copy): the clip as it is now becomes what the import
    wrote, so that the export, or a second write, does not write the same edit again (node 0's location, a
    delta, would be added twice)."""
    try:
        stored = json.loads(root.get(P.CLIP_STEPS, "{}"))
        meta = stored.get("clips", {}).get(clip)
        dict(stored.get("timeline", {}))  # a record edited by hand into another shape raises here
        if meta is not None:
            _check(meta)
    except (ValueError, TypeError, AttributeError, KeyError, IndexError):
        raise TimelineError(f"the clip data ({P.CLIP_STEPS}) of {root.name} is unreadable: re-import the model"
                            ) from None
    if meta is None:
        raise TimelineError(f"{root.name!r} has no clip {clip!r}")
    follow_bone_renames(root)
    holders = model_holders(root)
    if not any(clip_actions(h, clip) for h in holders):
        raise TimelineError(f"the action of clip {clip} was deleted")
    with assignments_kept(holders):
        show_clip(root, clip, holders)
        now = curve_fingerprints(root)
        changed = {key for key, value in now.items() if meta["curves"].get(key) != value}
        edited = sorted({int(key.split("|", 1)[0]) for key in changed})
        samples, warnings = _sample(root, clip, meta, changed)
        baseline = _baseline(root, meta, now) if rebase else None
        timelines = _timelines(root, holders, stored, {key[0] for key in samples})
        for holder in holders:  # the timeline, to write into
            assign(holder, timelines.get(holder))
        timeline = {(node, path, fc.array_index): fc for fc, node, _owner, path in node_fcurves(root)}
        for key, ranges in samples.items():
            fcurve = timeline.get(key)
            if fcurve is None:
                warnings.append(f"node {key[0]} has no timeline curve for {key[1]}[{key[2]}]: not written")
                continue
            _replace(fcurve, ranges)
        if baseline is not None:
            stored["clips"][clip] = baseline
            root[P.CLIP_STEPS] = json.dumps(stored)
    return edited, warnings


def _timelines(root, holders: list, stored: dict, nodes: set[int]) -> dict:
    """{holder: its timeline action}; TimelineError when a holder of an edited node lost its timeline."""
    by_name = stored.get("timeline", {})
    out = {}
    for holder in holders:
        action, recorded = timeline_of(holder)
        if not recorded and holder.name in by_name:  # imported before the pointer was kept
            action, recorded = bpy.data.actions.get(by_name[holder.name]), True
        node = holder.get(P.NODE_INDEX) if holder is not root else None
        needed = node in nodes if node is not None else bool(nodes)
        if action is None and recorded and needed:
            raise TimelineError(f"the timeline action of {holder.name} was deleted: nothing was written")
        if action is not None:
            out[holder] = action
    return out


def _deleted_timelines(root, holders: list) -> list[str]:
    """The warning for holders whose timeline action was deleted while others keep theirs (4.2 Empties have
    one each): their nodes are written still, as they show. When no action is left at all,
    ``still_model_warning`` says it for the model."""
    gone = [h.name for h in holders if timeline_of(h) == (None, True)]
    if not gone or len(gone) == len(holders):
        return []
    return [f"the timeline action of {', '.join(gone)} was deleted: the node(s) are written still, as they show "
            "now, without their animation"]


def _check(meta: dict) -> None:
    """ValueError, TypeError, ... when the clip's record is not as the import (or a write) made it."""
    steps = _steps(meta)
    if not steps or not all(isinstance(k, str) and isinstance(v, str) for k, v in meta["curves"].items()):
        raise ValueError("no steps, or curve fingerprints that are not text")
    if meta.get("root"):
        frames = np.asarray(meta.get("root_frames") or np.zeros(len(steps) + 1), np.float64)
        keys = np.asarray(meta["root"], np.float64)
        if frames.ndim != 1 or keys.ndim != 2 or keys.shape[0] != len(frames) or keys.shape[1] != 3:
            raise ValueError("node 0's clip values do not match the clip's times")


def _steps(meta: dict) -> list[tuple[float, float, float, float, float | None, str]]:
    """(start, end, B0, B1, pure from, state) per step; a file imported before ``pure_from`` holds a bool
    (pure all through or not) and no state."""
    out = []
    for k, step in enumerate(meta["steps"]):
        start, end, b0, b1 = (float(v) for v in step[:4])
        pure = step[4]
        if isinstance(pure, bool):
            pure = 0.0 if pure else None
        elif pure is not None:
            pure = float(pure)
        out.append((start, end, b0, b1, pure, str(step[5]) if len(step) > 5 else f"step {k}"))
    return out


def _sample(root, clip: str, meta: dict, edited: set[str]):
    """{(node, path, index): [(lo, hi, frames, values, delta)]} of the edited curves ('node|path|index') over
    the steps' parts that show frame B alone; ``delta``: values are added to the timeline's (node 0's
    location, root motion), else they replace it."""
    steps = _steps(meta)
    out: dict[tuple, list] = {}
    warnings = []
    if edited:
        blended = [state for *_frames, pure, state in steps if pure is None]
        partly = [state for *_frames, pure, state in steps if pure is not None and pure > 0]
        if blended:
            warnings.append(f"{clip}: the steps of states {', '.join(blended)} blend two timeline frames all "
                            "through; their keys are not written")
        if partly:
            warnings.append(f"{clip}: the steps of states {', '.join(partly)} blend two timeline frames in their "
                            "first quarter; only the rest of each is written")
    root_keys = meta.get("root", False)
    if root_keys:
        root_keys = np.asarray(root_keys, np.float64)
        step_frames = np.array(meta.get("root_frames") or [s[0] for s in steps] + [steps[-1][1]], np.float64)
    for fcurve, node, _owner, path in node_fcurves(root):
        if f"{node}|{path}|{fcurve.array_index}" not in edited:
            continue
        delta = node == 0 and path.lstrip(".") == "location" and root_keys is not None  # bones: ".location"
        if delta and root_keys is False:
            warnings.append(f"{clip}: node 0's location is root motion and the model was imported before its "
                            "clip values were recorded; re-import it to write it")
            continue
        for start, end, b0, b1, pure, _state in steps:
            if pure is None:
                continue
            first = b0 + pure * (b1 - b0)
            lo, hi = min(first, b1), max(first, b1)
            frames = np.arange(np.ceil(lo), np.floor(hi) + 1)
            if not len(frames):
                continue
            phase = (frames - b0) / (b1 - b0) if b1 != b0 else np.full(len(frames), pure)
            at = start + phase * (end - start)
            values = np.array([fcurve.evaluate(float(t)) for t in at])
            if delta:
                values -= np.interp(at, step_frames, root_keys[:, fcurve.array_index])
            out.setdefault((node, path, fcurve.array_index), []).append((lo, hi, frames, values, delta))
    return out, warnings


def _baseline(root, meta: dict, now: dict) -> dict:
    """The clip's record with the clip shown now as the one the import wrote: its curves' fingerprints, and
    node 0's location (root motion) at each step start and at every clip time a timeline frame is written
    from (``root_frames``), so that the delta of a later edit is exact there."""
    out = dict(meta, curves=now)
    root_keys = meta.get("root")
    if not root_keys:
        return out
    steps = _steps(meta)
    step_frames = np.array([s[0] for s in steps] + [steps[-1][1]], np.float64)
    frames = np.asarray(meta.get("root_frames", step_frames), np.float64)
    times = [step_frames]
    for start, end, b0, b1, pure, _state in steps:
        if pure is None:
            continue
        first = b0 + pure * (b1 - b0)
        timeline = np.arange(np.ceil(min(first, b1)), np.floor(max(first, b1)) + 1)
        phase = (timeline - b0) / (b1 - b0) if b1 != b0 else np.full(len(timeline), pure)
        times.append(start + phase * (end - start))
    at = np.unique(np.concatenate(times))
    old = np.asarray(root_keys, np.float64)
    values = np.stack([np.interp(at, frames, old[:, i]) for i in range(old.shape[1])], axis=1)
    for fcurve, node, _owner, path in node_fcurves(root):
        if node == 0 and path.lstrip(".") == "location" and fcurve.array_index < values.shape[1]:
            values[:, fcurve.array_index] = [fcurve.evaluate(float(t)) for t in at]
    out["root"], out["root_frames"] = values.tolist(), at.tolist()
    return out


def _replace(fcurve, ranges: list) -> None:
    """The curve's keys with those inside each range replaced by the range's samples (later ranges win); a
    delta range's samples are added to the curve's values there."""
    base = {float(f): fcurve.evaluate(float(f)) for *_span, frames, _values, delta in ranges if delta
            for f in frames}  # the timeline as it was, before any range is written
    points = fcurve.keyframe_points
    co = np.empty(2 * len(points), np.float32)
    points.foreach_get("co", co)
    interpolation = np.empty(len(points), np.int32)
    points.foreach_get("interpolation", interpolation)
    keys = {float(f): (float(v), int(i)) for (f, v), i in zip(co.reshape(-1, 2), interpolation)}
    for lo, hi, frames, values, delta in ranges:
        keys = {f: k for f, k in keys.items() if not lo <= f <= hi}
        keys.update({float(f): (float(v) + (base[float(f)] if delta else 0.0), compat.LINEAR)
                     for f, v in zip(frames, values)})
    order = sorted(keys)
    while len(points):
        points.remove(points[len(points) - 1], fast=True)
    points.add(len(order))
    points.foreach_set("co", np.array([[f, keys[f][0]] for f in order], np.float32).ravel())
    points.foreach_set("interpolation", np.array([keys[f][1] for f in order], np.int32))
    fcurve.update()


@contextmanager
def timeline_as_exported(root) -> Iterator[list[str]]:
    """The model's timeline shown while the export reads it, with every clip edited since the import written
    in: whatever clip a holder shows (assigned, or an NLA strip tweaked, soloed or unmuted),
    it gets a copy of its timeline action, into which each clip is written as Write Clip to Timeline writes it
    (only clips whose curves changed write anything). Afterwards the scene is as it was and the copies are gone:
    the export does not change the .blend. Yields the warnings of the clips written."""
    follow_bone_renames(root)
    names = [str(n) for n in root.get(P.CLIPS, [])]
    if not names:
        yield missing_bones(root) + still_model_warning(root)
        return
    holders = model_holders(root)
    try:
        stored = json.loads(root.get(P.CLIP_STEPS, "{}") or "{}")
        dict(stored.get("timeline", {}))  # a record edited by hand into another shape raises here
    except (ValueError, TypeError, AttributeError):
        stored = {}  # each clip's write says it is unreadable
    copies: dict = {}
    try:
        with assignments_kept(holders):
            shown = {holder: assignment(holder)[0] for holder in holders}
            pointers = [(holder, holder.get(P.TIMELINE)) for holder in holders]
            tracks = [(t, t.mute, t.is_solo) for h in holders if h.animation_data for t in h.animation_data.nla_tracks
                      if any(s.action is not None and P.CLIP in s.action for s in t.strips)]
            try:
                for track, _mute, solo in tracks:
                    track.mute = True
                    if solo:  # setting a track's solo (even off) clears every other track's
                        track.is_solo = False
                for holder, action in _timelines(root, holders, stored, set()).items():
                    if action not in copies:
                        copies[action] = action.copy()
                    holder[P.TIMELINE] = copies[action]
                warnings = missing_bones(root)
                for name in names:
                    if not any(clip_actions(h, name) for h in holders):
                        continue  # a clip whose action was deleted has no edits
                    try:
                        warnings += write_clip_to_timeline(root, name)[1]
                    except TimelineError as exc:
                        warnings.append(f"{name}: {exc}")
                originals = {copy: action for action, copy in copies.items()}
                for holder, action in shown.items():
                    copy = holder.get(P.TIMELINE) if holder.get(P.TIMELINE) in originals else None
                    if (action is None and copy is not None) or (action is not None and P.CLIP in action) \
                            or (copy is not None and originals[copy] == action):
                        assign(holder, copy)  # a holder showing another action of its own keeps it
                yield warnings + _deleted_timelines(root, holders) + still_model_warning(root)
            finally:
                for holder, pointer in pointers:
                    if pointer is None:
                        holder.pop(P.TIMELINE, None)
                    else:
                        holder[P.TIMELINE] = pointer
                for track, mute, solo in tracks:
                    track.mute = mute
                    if solo:
                        track.is_solo = True
    finally:  # only once each holder shows its own action again: removing one still shown moves Empties' slots
        for copy in copies.values():
            bpy.data.actions.remove(copy)
