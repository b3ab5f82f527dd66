"""Clips for other engines: models imported with their clips, laid out as named NLA tracks that
Blender's glTF exporter (Animation mode: NLA Tracks) writes as one glTF animation each and its FBX exporter (NLA
strips) as one take each, then put back as they were. ``batch convert --clips`` and File > Export > Parkan Clips
for Engines use it.

- every clip, named as the import names it without the model (``walk 1``, ``run 2``), as its action shows it
  now (an edited clip goes out edited); the batch adds each clip with node 0 moved by the stride (MOVING root
  motion, planned again from the file) as ``walk 1 moving`` when node 0 travels;
- every channel slider's whole range, named after the slider without ``msh_`` (``channel 0 turret``): its
  node's pose at the slider driver's keys (the samples io_msh.imp.clips.plan_sliders takes), one per frame,
  value 0 at frame 0 and 1 at the last frame, so that an engine plays a value v at v times the animation's
  length. Decision: a sampled sweep, not two keys at the extremes: a turret's yaw segment may turn past 180
  degrees, which two keys interpolated by an engine would turn the short way;
- every material with a timeline animation (a lamp), named ``material <name>``, and every belt (materials
  a channel slider plays), named after its channel (``channel 2 leg_l``), one frame per millisecond of its
  track: glTF carries them through KHR_animation_pointer (base colour and emission factors, the texture
  cell as KHR_texture_transform offset and scale; the exporter's ``export_pointer_animation``); a texture
  switch (a Mix factor) has no glTF property and is left out; FBX carries no material animation.

Every glTF animation holds every node: those the track does not key at their rest pose (a channel's node in
a clip, the other nodes in a channel's animation: an engine layers them with a mask). Materials whose
alternative tracks their ``msh_track`` property picks are not animated in time and go out as they show.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

import bpy

from ..com import compat
from ..com import props as P
from ..com.sliders import is_slider_driver, muted_drivers, park_driver, slider_drivers
from ..com.undo import Undo
from ..imp.clip_actions import build_clip, clip_actions, model_holders, slot_of
from ..imp.clips import ControllerPlan
from .engine_units import part_prefix, unit_tracks

ROOT_MOTIONS = ("IN_PLACE", "MOVING", "BOTH")
MOVING_SUFFIX = " moving"


def engine_name(clip: str) -> str:
    """A clip's animation name: the import's ``<model>|walk 1`` without the model."""
    return clip.split("|", 1)[1] if "|" in clip else clip


def clip_roots(objects) -> list[bpy.types.Object]:
    """The model roots among ``objects`` that can go out with their clips: armatures imported with Clips."""
    return [o for o in objects if o.type == "ARMATURE" and P.MODEL in o and o.get(P.CLIPS)]


@contextmanager
def engine_tracks(roots: list[bpy.types.Object], moving: dict[str, tuple[ControllerPlan, object]] | None = None,
                  root_motion: str = "IN_PLACE", materials: bool = True,
                  bake_units: bool = True) -> Iterator[list[str]]:
    """Within the block, every clip, channel and animated material of the ``roots`` (armatures imported with
    Clips) as unmuted NLA tracks, the models' own actions unassigned; yields the animation names in the order
    the exporters write them. ``moving``: by root name, the controller planned with MOVING root motion and the
    import options, for the moving clips (``root_motion`` IN_PLACE leaves them out, MOVING writes them under
    the plain names instead of the clips as shown). A unit part's animations are named after the part
    (io_msh.exp.engine_units.part_prefix) but the chassis's; ``bake_units`` (glTF) bakes each animation onto
    what follows in a unit (engine_units.unit_tracks). Afterwards everything is as before."""
    undo = Undo()
    names: list[str] = []
    try:
        laid_out = {}
        for root in roots:
            laid_out[root.name] = _lay_out(root, (moving or {}).get(root.name), root_motion, undo, part_prefix(root))
            names += laid_out[root.name]
        if bake_units:
            unit_tracks(laid_out, _track, _unassign, undo)
        if materials:
            names += _material_tracks(undo)
        yield names
    finally:
        undo.run()


def _lay_out(root, moving, root_motion: str, undo: Undo, prefix: str = "") -> list[str]:
    for holder in model_holders(root):
        _unassign(holder, undo)
    for holder, fcurve in muted_drivers(root):  # the slider drivers are parked with their tracks
        park_driver(holder, fcurve, undo)
    names = []
    if root_motion != "MOVING" or moving is None:
        for clip in root.get(P.CLIPS, []):
            action = clip_actions(root, clip)
            if action is not None:
                names.append(_track(root, action, prefix + engine_name(clip), undo))
    if moving is not None and root_motion != "IN_PLACE":
        plan, options = moving
        suffix = MOVING_SUFFIX if root_motion == "BOTH" else ""
        bones = [b.name for b in sorted(root.data.bones, key=lambda b: b[P.NODE_INDEX])]
        for clip in plan.clips:
            if root_motion == "BOTH" and (clip.root is None or not (clip.root != clip.root[0]).any()):
                continue  # node 0 does not travel (no root motion, or a standing clip): the clip as shown
            renamed = dataclasses.replace(clip, name=clip.name + suffix)
            action = bpy.data.actions[build_clip(_Plan(options), root, bones, renamed, _Kept())]
            undo(lambda a=action: bpy.data.actions.remove(a))
            _unassign(root, undo)
            names.append(_track(root, action, prefix + engine_name(renamed.name), undo))
    names += _channel_tracks(root, undo, prefix)
    return names


@dataclasses.dataclass
class _Plan:
    """What ``build_clip`` reads of a model's import plan."""

    options: object


class _Kept:
    """``created`` of the import's builders: the lay-out's own undo removes what it made."""

    def add(self, block):
        return block


def _unassign(holder, undo: Undo) -> None:
    """The holder shows no action (an assigned action would override its NLA tracks in the exporters)."""
    anim = holder.animation_data
    if anim is None or anim.action is None:
        return
    action = anim.action
    slot = anim.action_slot if compat.HAS_SLOTTED_ACTIONS else None

    def back():
        anim.action = action
        if slot is not None:
            anim.action_slot = slot
    undo(back)
    anim.action = None


def _track(holder, action: bpy.types.Action, name: str, undo: Undo) -> str:
    """An unmuted NLA track named ``name`` holding ``action`` from frame 0 (the exporters' animation name): the
    import's own track of the clip (Clips: NLA Strips) renamed and unmuted meanwhile, else a new one."""
    anim = holder.animation_data or holder.animation_data_create()
    track = next((t for t in anim.nla_tracks if len(t.strips) == 1 and t.strips[0].action == action), None)
    if track is not None:
        before = track.name, track.mute
        undo(lambda: (setattr(track, "name", before[0]), setattr(track, "mute", before[1])))
        track.name, track.mute = name, False
        return track.name
    track = anim.nla_tracks.new()
    track.name = name
    strip = track.strips.new(name, 0, action)
    if compat.HAS_SLOTTED_ACTIONS and isinstance(holder, bpy.types.Object):
        slot = slot_of(holder, action)
        if slot is not None:
            strip.action_slot = slot
    undo(lambda: anim.nla_tracks.remove(track))
    return track.name


def _channel_tracks(root, undo: Undo, prefix: str = "") -> list[str]:
    """Each channel slider's sweep: its drivers' keys (slider value x (keys - 1) -> pose) as an action on the
    armature, the drivers muted meanwhile (a driver overrides every action)."""
    by_slider: dict[str, list] = {}
    for holder, fcurve in slider_drivers(root):
        if holder == root:
            target = fcurve.driver.variables[0].targets[0].data_path
            by_slider.setdefault(target[2:-2], []).append(fcurve)
    names = []
    for slider, fcurves in sorted(by_slider.items(), key=lambda item: _channel_index(item[0])):
        name = prefix + slider.replace(P.CHANNEL, "channel", 1)
        names.append(_driver_track(root, root.name, name, name, fcurves, undo))
    return names


def _driver_track(holder, owner: str, action_name: str, name: str, drivers: list, undo: Undo) -> str:
    """The keys of ``drivers`` (on ``holder``, named ``owner`` in the action's slot) as a new action on an NLA
    track named ``name``, the drivers muted meanwhile; the track's name."""
    action = bpy.data.actions.new(action_name)
    undo(lambda a=action: bpy.data.actions.remove(a))
    target = compat.ChannelTarget(action, holder, owner)
    for driver in drivers:
        _copy_keys(driver, target.new_fcurve(driver.data_path, driver.array_index, name))
        park_driver(holder, driver, undo)
    _unassign(holder, undo)
    return _track(holder, action, name, undo)


def _channel_index(slider: str) -> int:
    word = slider.split(" ")[1] if " " in slider else ""
    return int(word) if word.isdigit() else -1


def _copy_keys(source: bpy.types.FCurve, fcurve: bpy.types.FCurve) -> None:
    """``source``'s keys (x, value, interpolation) on ``fcurve``."""
    points = fcurve.keyframe_points
    count = len(source.keyframe_points)
    co, kind = [0.0] * (2 * count), [0] * count
    source.keyframe_points.foreach_get("co", co)
    source.keyframe_points.foreach_get("interpolation", kind)
    points.add(count)
    points.foreach_set("co", co)
    points.foreach_set("interpolation", kind)
    fcurve.update()


def _material_tracks(undo: Undo) -> list[str]:
    """An NLA track on the node tree of every material animated by an action, named ``material <name>``, and of
    every belt material (driven by a channel slider: io_msh.imp.material_animation), named after the slider
    (``channel 2 leg_l``, a unit part's prefixed as its clips; the belt's materials in one animation): its
    drivers' keys (slider value x the track's period in ms -> value) as an action, one frame per millisecond,
    the drivers muted meanwhile."""
    names = []
    for material in bpy.data.materials:
        tree = material.node_tree
        anim = tree.animation_data if tree is not None else None
        if anim is None:
            continue
        if anim.action is not None:
            action = anim.action
            _unassign(tree, undo)
            names.append(_track(tree, action, f"material {material.name}", undo))
        by_slider: dict[tuple[str, str], list] = {}
        for driver in anim.drivers:
            if is_slider_driver(driver):
                target = driver.driver.variables[0].targets[0]
                prefix = part_prefix(target.id) if target.id is not None else ""
                by_slider.setdefault((prefix, target.data_path[2:-2]), []).append(driver)
        for (prefix, slider), drivers in by_slider.items():
            name = prefix + slider.replace(P.CHANNEL, "channel", 1)
            _driver_track(tree, material.name, f"{name} {material.name}", name, drivers, undo)
            if name not in names:
                names.append(name)
    return names


def gltf_options(path: str, materials: bool = True) -> dict:
    """The glTF exporter's options for the tracks: one animation per track, sampled at every frame, every bone in
    each (a bone the track does not key at its rest pose: the exporter resets the pose before each track; leaving
    constant bones out fails in the exporter when no bone moves, as in a standing clip), every object a track
    keys too (a unit's mount Empty standing still in an animation: left out, it would show the node's pose at
    the export, not its pose in the animation); the other objects out of the depsgraph while one is sampled
    (every track plays on its own object alone: a unit's followers are baked, engine_units; the synthetic unit
    with two parts with clips: 18 s -> 4 s); material animation as KHR_animation_pointer where the exporter
    has it."""
    options = {"filepath": path, "export_format": "GLB", "export_animations": True,
               "export_animation_mode": "NLA_TRACKS", "export_reset_pose_bones": True,
               "export_optimize_animation_keep_anim_object": True, "export_optimize_disable_viewport": True}
    if materials and compat.gltf_exports_pointer_animation():
        options["export_pointer_animation"] = True
    return options


def fbx_options(path: str) -> dict:
    """The FBX exporter's options for the tracks: one take per NLA strip, no take of the scene's timeline."""
    return {"filepath": path, "bake_anim": True, "bake_anim_use_nla_strips": True,
            "bake_anim_use_all_actions": False, "bake_anim_force_startend_keying": True,
            "embed_textures": True, "path_mode": "COPY"}
