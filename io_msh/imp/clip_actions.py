"""Blender data for a model's controller (the plan of io_msh.imp.clips): an action per clip, kept in the file
(Clips: Actions) or also laid out as muted NLA tracks (Clips: NLA Strips), and a 0..1 slider per channel that
drives its node through the node's own timeline segment.

The model's timeline action stays assigned: a clip is shown by assigning its action (``show_clip``), or, with
NLA Strips, by soloing or tweaking its track. A slider is a custom property on the model root; each of its
node's location and rotation channels gets a driver reading it, whose F-curve maps the slider value (its x)
to the node's pose along the segment (keys at evenly spaced values, linear between; their x is the value x
(keys - 1), so that they lie 1 apart).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import bpy
import numpy as np

from ..com import compat
from ..com import props as P
from ..com.curves import fingerprint, pose_bone_path, read_curves
from ..com.hierarchy import node_empties
from ..com.sliders import add_slider, slider_fcurve
from .clip_states import build_state_properties
from .clips import ClipPlan, SliderPlan

CLIPS = P.CLIPS


def build_controller(plan, root: bpy.types.Object, node_objects: list, created) -> None:
    """The sliders and the clip actions of ``plan.controller`` (None: nothing)."""
    controller = plan.controller
    if controller is None:
        return
    for slider in controller.sliders:
        _build_slider(plan, root, node_objects, slider)
    build_clips(plan, root, node_objects, created)
    build_state_properties(root, controller, plan.frame_count, plan.options)


def build_clips(plan, root: bpy.types.Object, node_objects: list, created) -> None:
    """The clip actions of ``plan.controller`` (and their NLA tracks), the model's timeline left assigned."""
    controller = plan.controller
    holders = _holders(plan, root, node_objects)
    before = {holder.name: assignment(holder) for holder in holders}
    names, steps = [], {}
    for clip in controller.clips:
        names.append(build_clip(plan, root, node_objects, clip, created))  # '.001' when the name was taken
        steps[names[-1]] = {"steps": [[float(clip.step_frames[k]), float(clip.step_frames[k + 1]), *pair, pure,
                                       state]
                                      for k, (pair, pure, state) in enumerate(zip(clip.pair_b, clip.pure_from,
                                                                                  clip.states))],
                            "root": None if clip.root is None else clip.root.tolist(),
                            "label": clip_label(clip.name),  # the action's name may be numbered or cut
                            "curves": curve_fingerprints(root)}  # the clip's action is the assigned one now
    for holder in holders:
        restore(holder, before[holder.name])
        _mark_timeline(holder, *before[holder.name])
    root[CLIPS] = names
    timeline = {name: action.name for name, (action, _slot) in before.items() if action is not None}
    root[P.CLIP_STEPS] = json.dumps({"clips": steps, "timeline": timeline})
    if plan.options.clips == "NLA":
        for holder in holders:
            _lay_out_nla(holder, controller.clips, names)


# ------------------------------------------------------------------ clips
def _holders(plan, root, node_objects) -> list[bpy.types.ID]:
    """The IDs a clip's action animates: the armature object, or the node Empties."""
    if plan.options.node_mode == "ARMATURE":
        return [root]
    return list(node_objects)


def model_holders(root) -> list[bpy.types.ID]:
    """The IDs a model's actions animate, found from its root: the armature object, or the node Empties."""
    return [root] if root.type == "ARMATURE" else node_empties(root)


def assignment(holder) -> tuple:
    """(action, slot) the holder shows (slot None before 4.4)."""
    anim = holder.animation_data
    if anim is None:
        return None, None
    return anim.action, (anim.action_slot if compat.HAS_SLOTTED_ACTIONS else None)


def restore(holder, saved) -> None:
    """The holder shows ``saved`` (an ``assignment``) again."""
    action, slot = saved
    anim = holder.animation_data
    if anim is None:
        return
    anim.action = action
    if action is not None and slot is not None:
        anim.action_slot = slot


@contextmanager
def assignments_kept(holders: list) -> Iterator[None]:
    """The holders show other actions within the block, then what they showed before. A clip's NLA strip
    being edited (Tab) is left meanwhile (its action cannot be swapped in tweak mode) and entered again."""
    tweaking = [h for h in holders if h.animation_data and h.animation_data.use_tweak_mode]
    for holder in tweaking:
        holder.animation_data.use_tweak_mode = False
    saved = [(holder, assignment(holder)) for holder in holders]
    try:
        yield
    finally:
        for holder, shown in saved:
            restore(holder, shown)
        for holder in tweaking:
            holder.animation_data.use_tweak_mode = True


def _mark_timeline(holder, action, slot) -> None:
    """The holder's timeline action (and slot), kept as a pointer on the holder: renaming the holder or the
    action keeps it, and deleting the action empties it (``timeline_of``)."""
    if action is None:
        return
    holder[P.TIMELINE] = action
    if slot is not None:
        holder[P.TIMELINE_SLOT] = slot.handle


def timeline_of(holder) -> tuple[bpy.types.Action | None, bool]:
    """The holder's timeline action (None when it has none, or it was deleted) and whether the import recorded
    one (False on files imported before it did)."""
    if P.TIMELINE not in holder:
        return None, False
    action = holder[P.TIMELINE]
    return (action if isinstance(action, bpy.types.Action) else None), True


def _new_action(name: str, clip: ClipPlan, created) -> bpy.types.Action:
    action = created.add(bpy.data.actions.new(name))
    action[P.CLIP] = clip.name  # renamed below when Blender names the action otherwise
    action.use_fake_user = True  # kept in the file although only the NLA, or nothing, uses it
    action.use_frame_range = True
    action.frame_start, action.frame_end = 0.0, float(clip.step_frames[-1])
    action.use_cyclic = True
    return action


def clip_label(full: str) -> str:
    """The clip's name without its model ('synth_chassis.msh|walk 1' -> 'walk 1')."""
    return full.rsplit("|", 1)[-1]


def _unused_name(name: str) -> str:
    """``name``, else ``name.001``, ...: a name no action has and no clip action is marked with (an earlier
    import's clip action renamed keeps its mark, which a new clip of that name would share)."""
    taken = {a.name for a in bpy.data.actions} | {a.get(P.CLIP) for a in bpy.data.actions}
    candidate, number = name, 0
    while candidate in taken:
        number += 1
        candidate = f"{name}.{number:03d}"
    return candidate


def build_clip(plan, root, node_objects, clip: ClipPlan, created) -> str:
    """The clip's action (4.2 with Empties: one per Empty, named '<clip>|<node>'); returns the clip's name."""
    if plan.options.node_mode == "ARMATURE":
        target = compat.ChannelTarget(_new_action(_unused_name(clip.name), clip, created), root, root.name)
        for keys in clip.nodes:
            bone = node_objects[keys.node]
            _write(target, pose_bone_path(bone), bone, clip.frames, keys)
        target.action[P.CLIP] = target.action.name
        return target.action.name
    shared = _new_action(_unused_name(clip.name), clip, created) if compat.one_action_animates_many_ids() else None
    for keys in clip.nodes:
        obj = node_objects[keys.node]
        action = shared
        if action is None:
            action = _new_action(f"{clip.name}|{obj.name}", clip, created)
            action[P.CLIP_HOLDER] = obj
        imported = obj.get(P.IMPORTED_NAME)  # the slot's name, found by it (slot_of) whatever the Empty is called
        _write(compat.ChannelTarget(action, obj, imported if isinstance(imported, str) else obj.name), "", obj.name,
               clip.frames, keys)
    if shared is not None:
        shared[P.CLIP] = shared.name
    return shared.name if shared is not None else clip.name


def _write(target, prefix: str, group: str, frames: np.ndarray, keys) -> None:
    for path, values in (("location", keys.location), ("rotation_quaternion", keys.rotation)):
        for index in range(values.shape[1]):
            _linear_keys(target.new_fcurve(prefix + path, index, group), frames, values[:, index])


def _linear_keys(fcurve: bpy.types.FCurve, frames: np.ndarray, values: np.ndarray) -> None:
    points = fcurve.keyframe_points
    points.add(len(frames))
    points.foreach_set("co", np.column_stack([frames, values]).astype(np.float32).ravel())
    points.foreach_set("interpolation", np.full(len(frames), compat.LINEAR, np.int32))
    fcurve.update()


def clip_actions(holder: bpy.types.ID, name: str) -> bpy.types.Action | None:
    """The action showing clip ``name`` on ``holder`` (a 4.2 Empty has its own): the one the import marked
    with the clip's name (and its Empty), whatever it and the holder are called now; by name for files
    imported before the mark."""
    marked = [a for a in bpy.data.actions if a.get(P.CLIP) == name]
    if marked:
        return next((a for a in marked if P.CLIP_HOLDER not in a or a[P.CLIP_HOLDER] == holder), None)
    return bpy.data.actions.get(name) or bpy.data.actions.get(f"{name}|{holder.name}")


def clip_name(action: bpy.types.Action | None, names: list[str]) -> str:
    """The clip (of ``names``) an action shows, '' for none."""
    if action is None:
        return ""
    if action.get(P.CLIP) in names:
        return action[P.CLIP]
    return next((n for n in names if action.name == n or action.name.startswith(n + "|")), "")


def timeline_actions(objects: list) -> set:
    """The timeline actions the import kept on these holders (what removing the model removes too)."""
    return {timeline_of(o)[0] for o in objects} - {None}


def model_clip_actions(roots: list, objects: list) -> set:
    """Every clip action of the models (what removing them, or Update Clips, removes too)."""
    found = set()
    for root in roots:
        for name in root.get(CLIPS, []):
            found |= {a for a in (clip_actions(o, name) for o in objects) if a is not None}
    return found


def show_clip(root: bpy.types.Object, name: str | None, node_objects: list | None = None) -> None:
    """Assign clip ``name``'s action to the model (None: nothing; the model's timeline action is then gone
    from the assignment too, as in Blender's Action editor)."""
    holders = [root] if root.type == "ARMATURE" else list(node_objects or [])
    for holder in holders:
        assign(holder, clip_actions(holder, name) if name else None)


def assign(holder, action) -> None:
    """``action`` on ``holder``, with its slot named after the holder (as the import makes them)."""
    anim = holder.animation_data or holder.animation_data_create()
    anim.action = action
    if action is not None and compat.HAS_SLOTTED_ACTIONS:
        # None too: a holder the action has no slot for (an Empty a clip does not key) would otherwise get
        # whatever slot Blender picks for it, another node's curves (once its timeline action was deleted).
        anim.action_slot = slot_of(holder, action)


def slot_of(holder, action):
    """The slot of ``action`` the import made for ``holder``: the timeline's recorded one, else the one named
    after the holder as it was named at import, else (a file imported before that name was kept) as it is
    named now, else the only slot of an action of the armature. The name at import comes first: an Empty
    renamed to another Empty's import name (leg_r renamed, then body renamed leg_r) must not show the other's
    curves."""
    slots = list(action.slots)
    if timeline_of(holder)[0] == action and P.TIMELINE_SLOT in holder:
        found = next((s for s in slots if s.handle == holder[P.TIMELINE_SLOT]), None)
        if found is not None:
            return found
    imported = holder.get(P.IMPORTED_NAME)
    for name in (imported,) if isinstance(imported, str) else (holder.name,):
        found = next((s for s in slots if s.name_display == name), None)
        if found is not None:
            return found
    # The only slot: an armature's (the root object carries no import name); an Empty's slot was looked for above.
    return slots[0] if len(slots) == 1 and not isinstance(imported, str) else None


def _lay_out_nla(holder, clips: list[ClipPlan], names: list[str]) -> None:
    """One muted NLA track per clip, its strip at frame 0 (solo or tweak a track to see the clip)."""
    anim = holder.animation_data or holder.animation_data_create()
    for clip, name in zip(clips, names):
        action = clip_actions(holder, name)
        if action is None:
            continue
        track = anim.nla_tracks.new()
        track.name = clip.name
        strip = track.strips.new(clip.name, 0, action)
        if compat.HAS_SLOTTED_ACTIONS:
            slot = slot_of(holder, action)
            if slot is not None:
                strip.action_slot = slot
        strip.action_frame_start, strip.action_frame_end = 0.0, float(clip.step_frames[-1])
        track.mute = True


def curve_fingerprints(root) -> dict[str, str]:
    """The fingerprint of each node curve in the assigned action(s), by 'node|path|index'."""
    return {f"{c.node}|{c.path}|{c.index}": fingerprint([c]) for c in read_curves(root) if c.node >= 0}


# ------------------------------------------------------------------ sliders
def _build_slider(plan, root, node_objects, slider: SliderPlan) -> None:
    add_slider(root, slider.property, slider.initial,
               f"Controller channel {slider.index}: 0..1 along its node's own timeline segment")
    if plan.options.node_mode == "ARMATURE":
        holder, prefix = root, pose_bone_path(node_objects[slider.node])
    else:
        holder, prefix = node_objects[slider.node], ""
    # The driver gives value x (keys - 1): keys at 0..1 would lie closer than Blender keeps two keys apart
    # (0.01, com.key_frames) from 101 keys on, and FCurve.update would merge them.
    scale = float(len(slider.values) - 1)
    for path, values in (("location", slider.location), ("rotation_quaternion", slider.rotation)):
        for index in range(values.shape[1]):
            _linear_keys(slider_fcurve(holder, prefix + path, index, root, slider.property, scale),
                         slider.values * scale, values[:, index])
