"""Clips for other engines (``batch convert --clips``, issue 30 item 3): a model imported with its clips is laid
out as named NLA tracks that Blender's glTF exporter (Animation mode: NLA Tracks) writes as one glTF animation
each and its FBX exporter (NLA strips) as one take each:

- every clip, named as the import names it without the model (``walk 1``, ``run 2``), node 0 in place;
- every clip again with node 0 moved by the stride (MOVING root motion), named ``walk 1 moving``, when node 0
  has root motion at all (``--root-motion`` IN_PLACE, MOVING or BOTH, the default);
- every channel slider's whole range, named ``channel <index> <node>``: its node's pose at the slider's samples
  (io_msh.imp.clips.plan_sliders), one per frame, value 0 at frame 0 and 1 at the last frame, so that an
  engine plays a value v at v times the animation's length. Decision: a sampled sweep, not two keys at the
  extremes: a turret's yaw segment may turn past 180 degrees, which two keys interpolated by an engine would
  turn the short way;
- every material with a timeline animation (a lamp), named ``material <name>``: glTF carries it through
  KHR_animation_pointer (base colour and emission factors; Blender's glTF exporter writes it with
  ``export_pointer_animation``), FBX does not carry material animation.

Every glTF animation holds every node: those the track does not key at their rest pose (a channel's node in
a clip, the other nodes in a channel's animation: an engine layers them with a mask). Materials driven by a
slider (belts) or by their ``msh_track`` property (alternative tracks) are driven, not keyed: no exporter
writes drivers, so they are not exported as animations.
"""

from __future__ import annotations

import dataclasses

import bpy

from ..com import compat
from ..com import props as P
from ..imp.clip_actions import _build_clip, _write, clip_actions, slot_of
from ..imp.clips import ControllerPlan

ROOT_MOTIONS = ("IN_PLACE", "MOVING", "BOTH")
MOVING_SUFFIX = " moving"


class _Kept:
    """``created`` of the import's builders: the batch scene is thrown away after the item, nothing to undo."""

    def add(self, block):
        return block


def engine_name(clip: str) -> str:
    """A clip's animation name: the import's ``<model>|walk 1`` without the model."""
    return clip.split("|", 1)[1] if "|" in clip else clip


def lay_out_engine_clips(root: bpy.types.Object, moving: ControllerPlan | None, root_motion: str,
                         options, materials: bool = True) -> list[str]:
    """The NLA tracks of every clip, channel and animated material of an armature model imported with Clips
    (``moving``: its controller planned with MOVING root motion, for the moving clips and the sliders); returns
    the animation names, in the order the exporters write them. The model's timeline action is unassigned."""
    anim = root.animation_data or root.animation_data_create()
    anim.action = None
    bones = sorted(root.data.bones, key=lambda b: b[P.NODE_INDEX])
    node_bones = [b.name for b in bones]
    names: list[str] = []
    if root_motion in ("IN_PLACE", "BOTH"):
        for clip in root.get(P.CLIPS, []):
            names.append(_track(root, clip_actions(root, clip), engine_name(clip)))
    if moving is not None and root_motion in ("MOVING", "BOTH"):
        suffix = MOVING_SUFFIX if root_motion == "BOTH" else ""
        for clip in moving.clips:
            if root_motion == "BOTH" and (clip.root is None or not (clip.root != clip.root[0]).any()):
                continue  # node 0 does not travel (no root motion, or a standing clip): the one in place
            renamed = dataclasses.replace(clip, name=clip.name + suffix)
            action = bpy.data.actions[_build_clip(_Plan(options), root, node_bones, renamed, _Kept())]
            names.append(_track(root, action, engine_name(renamed.name)))
    if moving is not None:
        for slider in moving.sliders:
            names.append(_channel_track(root, node_bones[slider.node], slider))
    anim.action = None
    if materials:
        names += _material_tracks()
    return names


@dataclasses.dataclass
class _Plan:
    """What ``_build_clip`` reads of a model's import plan."""

    options: object


def _track(holder, action: bpy.types.Action, name: str) -> str:
    """An unmuted NLA track named ``name`` holding ``action`` from frame 0 (the exporters' animation name)."""
    anim = holder.animation_data or holder.animation_data_create()
    track = anim.nla_tracks.new()
    track.name = name
    strip = track.strips.new(name, 0, action)
    if compat.HAS_SLOTTED_ACTIONS and isinstance(holder, bpy.types.Object):
        slot = slot_of(holder, action)
        if slot is not None:
            strip.action_slot = slot
    track.mute = False
    return track.name


def _channel_track(root: bpy.types.Object, bone: str, slider) -> str:
    """The channel's sweep keyed on its bone (its drivers muted: a driver overrides every action)."""
    name = slider.property.replace(P.CHANNEL, "channel", 1)
    prefix = f'pose.bones["{bone}"].'
    for driver in root.animation_data.drivers:
        if driver.data_path.startswith(prefix):
            driver.mute = True
    action = bpy.data.actions.new(name)
    target = compat.ChannelTarget(action, root, root.name)
    frames = slider.values * (len(slider.values) - 1)
    _write(target, prefix, bone, frames, slider)
    return _track(root, action, name)


def _material_tracks() -> list[str]:
    """An NLA track on the node tree of every material animated by an action (not by drivers), named after it."""
    names = []
    for material in bpy.data.materials:
        tree = material.node_tree
        anim = tree.animation_data if tree is not None else None
        if anim is None or anim.action is None:
            continue
        action, anim.action = anim.action, None
        names.append(_track(tree, action, f"material {material.name}"))
    return names


def gltf_options(path: str, materials: bool = True) -> dict:
    """The glTF exporter's options for the tracks: one animation per track, sampled at every frame, every bone in
    each (a bone the track does not key at its rest pose: the exporter resets the pose before each track; leaving
    constant bones out fails in the exporter when no bone moves, as in a standing clip); material animation as
    KHR_animation_pointer where the exporter has it."""
    options = {"filepath": path, "export_format": "GLB", "export_animations": True,
               "export_animation_mode": "NLA_TRACKS", "export_reset_pose_bones": True}
    if materials and compat.gltf_exports_pointer_animation():
        options["export_pointer_animation"] = True
    return options


def fbx_options(path: str) -> dict:
    """The FBX exporter's options for the tracks: one take per NLA strip, no take of the scene's timeline."""
    return {"filepath": path, "bake_anim": True, "bake_anim_use_nla_strips": True,
            "bake_anim_use_all_actions": False, "bake_anim_force_startend_keying": True,
            "embed_textures": True, "path_mode": "COPY"}


def convert_with_clips(worker, item, path: str) -> None:
    """``convert --clips`` of one item to ``path`` (.glb or .fbx): the model imported with Clips (as armature,
    at the scene's frame rate, so that a glTF second is a game second), its tracks laid out, then exported."""
    from ...core.errors import FormatError
    from ..imp.plan import plan_file

    args = worker.args
    scene = bpy.context.scene
    rate = scene.render.fps / scene.render.fps_base
    plans = worker._load(item, clips="ACTIONS", root_motion="IN_PLACE", frame_rate=rate)
    roots = [o for o in bpy.data.objects if P.MODEL in o and o.type == "ARMATURE"]
    for plan in plans:
        root = next((r for r in roots if r[P.MODEL] == plan.name), None)
        if root is None or plan.controller is None:
            continue  # no controller: the import's warning says so; the model's timeline is written
        roots.remove(root)
        moving = None
        if args.root_motion != "IN_PLACE":
            try:
                again = plan_file(item.source, dataclasses.replace(plan.options, root_motion="MOVING"))
            except FormatError as exc:
                raise ValueError(exc.describe(item.source)) from None
            moving = next((p.controller for p in again if p.name == plan.name), None)
        else:
            moving = dataclasses.replace(plan.controller, clips=[])  # the sliders only
        lay_out_engine_clips(root, moving, args.root_motion, plan.options, args.material_animation)
    with worker._writing(path.rsplit("/", 1)[-1], item.output):
        if args.format == "glb":
            bpy.ops.export_scene.gltf(**gltf_options(path, args.material_animation))
        else:
            from ..imp.materials import textures_for_fbx

            with textures_for_fbx(bpy.data.materials):  # FBX follows no Mix node: textures go straight in
                bpy.ops.export_scene.fbx(**fbx_options(path))


UNIT_CLIPS_WARNING = ("--clips: a unit (.dat) is written with its timeline only: Import Unit does not make clips "
                      "yet")
