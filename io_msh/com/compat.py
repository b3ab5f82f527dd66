"""Every difference between the supported Blender versions, detected by feature, in one module.

- Actions: 4.2 has legacy actions (``Action.fcurves``, one animated ID per
  action); 4.4+ has slotted actions (layers, strips, a channelbag per slot, so
  one action can animate many objects); 5.0 removed ``Action.fcurves``.
- Name lengths: 63 bytes for IDs up to 4.5, 255 from 5.0; bones stay at 63.
- Materials and worlds: 4.x creates the node tree on ``use_nodes``; 5.0 always has one.
- Keys: 5.0 copies an F-curve (``new_from_fcurve``), the fastest way to a curve of linear keys (or of any
  one interpolation and modifier); 4.x adds the keys and sets their interpolation.
"""

from __future__ import annotations

from collections.abc import Iterable

import bpy
import numpy as np

HAS_SLOTTED_ACTIONS = "slots" in bpy.types.Action.bl_rna.properties
ID_NAME_BYTES = bpy.types.ID.bl_rna.properties["name"].length_max - 1
BONE_NAME_BYTES = bpy.types.Bone.bl_rna.properties["name"].length_max - 1
LINEAR = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items["LINEAR"].value
# 4.4 and 4.5 channelbags create F-curves without a group argument; 5.0 takes group_name.
_CHANNELBAG_NEW_TAKES_GROUP = HAS_SLOTTED_ACTIONS and "group_name" in (
    bpy.types.ActionChannelbagFCurves.bl_rna.functions["new"].parameters)
# 5.0 copies an F-curve, keys and all, into a channelbag: a copy of a linear curve with as many keys needs only
# its ``co`` set, not the keys added and their interpolation set
CHANNELBAG_COPIES_FCURVES = HAS_SLOTTED_ACTIONS and "new_from_fcurve" in (
    bpy.types.ActionChannelbagFCurves.bl_rna.functions)


def node_name_bytes(node_mode: str) -> int:
    """The longest name Blender keeps for a node: a bone's (ARMATURE), else an Empty's (an ID's)."""
    return BONE_NAME_BYTES if node_mode == "ARMATURE" else ID_NAME_BYTES


class ChannelTarget:
    """Where the F-curves animating one ID go: a channelbag (4.4+) or the action itself (4.2)."""

    def __init__(self, action: bpy.types.Action, id_block: bpy.types.ID, slot_name: str,
                 keyed: dict[tuple, bpy.types.FCurve] | None = None) -> None:
        """``keyed``: the curves ``keyed_fcurve`` copies, shared by targets made together (curves that stay while
        they are used: an import's)."""
        self.action = action
        self._templates: dict[int, bpy.types.FCurve] = {}  # key count -> a linear curve to copy (5.0)
        # (key count, interpolation, cyclic) -> a curve to copy
        self._keyed: dict[tuple, bpy.types.FCurve] = {} if keyed is None else keyed
        self._groups: dict[str, bpy.types.ActionGroup] = {}
        anim = id_block.animation_data or id_block.animation_data_create()
        anim.action = action
        if HAS_SLOTTED_ACTIONS:
            slot = action.slots.new(id_type=id_block.id_type, name=slot_name)
            anim.action_slot = slot
            layer = action.layers[0] if action.layers else action.layers.new("Layer")
            strip = layer.strips[0] if layer.strips else layer.strips.new(type="KEYFRAME")
            self._bag = strip.channelbags.new(slot)
            self._fcurves = self._bag.fcurves
        else:
            self._fcurves = action.fcurves

    def linear_fcurve(self, data_path: str, index: int, group: str, co: np.ndarray) -> bpy.types.FCurve:
        """A new F-curve of linear keys at ``co`` (float32 (frame, value) pairs, flattened, frames increasing),
        handles recalculated. Not ``fcurve.update()``: it also merges keys less than 0.01 frame apart."""
        count = len(co) // 2
        template = self._templates.get(count) if CHANNELBAG_COPIES_FCURVES else None
        if template is None:
            fcurve = self.new_fcurve(data_path, index, group)
            points = fcurve.keyframe_points
            points.add(count)
            points.foreach_set("co", co)
            points.foreach_set("interpolation", np.full(count, LINEAR, np.int32))
            if CHANNELBAG_COPIES_FCURVES:
                self._templates[count] = fcurve
        else:
            fcurve = self._copy(template, data_path, index, group)
            points = fcurve.keyframe_points
            points.foreach_set("co", co)
        points.handles_recalc()
        return fcurve

    def keyed_fcurve(self, data_path: str, index: int, group: str, co: np.ndarray, interpolation: int,
                     cyclic: bool) -> bpy.types.FCurve:
        """A new F-curve as ``key_fcurve`` makes it; on 5.0 a copy of an earlier one with as many keys of that
        interpolation and cyclic (no interpolation or modifier written per curve)."""
        count, kind = len(co) // 2, (len(co) // 2, interpolation, cyclic)
        template = self._keyed.get(kind)
        if template is None:
            fcurve = key_fcurve(self.new_fcurve(data_path, index, group), co, interpolation, cyclic)
            if CHANNELBAG_COPIES_FCURVES and len(fcurve.keyframe_points) == count:  # none merged
                self._keyed[kind] = fcurve
            return fcurve
        fcurve = self._copy(template, data_path, index, group)
        fcurve.keyframe_points.foreach_set("co", co)
        fcurve.update()
        return fcurve

    def _copy(self, template: bpy.types.FCurve, data_path: str, index: int, group: str) -> bpy.types.FCurve:
        """A copy of ``template`` (keys, interpolation, modifiers) animating ``data_path[index]`` (5.0)."""
        # The copy keeps the template's index: made under a path no curve has, then moved to its own, so that it
        # never meets an existing (path, index); then put in its group, as ``new`` would.
        fcurve = self._fcurves.new_from_fcurve(template, data_path=data_path + "#io_msh")
        if fcurve.array_index != index:
            fcurve.array_index = index
        fcurve.data_path = data_path
        fcurve.group = self._group(group)
        return fcurve

    def _group(self, name: str) -> bpy.types.ActionGroup:
        group = self._groups.get(name)
        if group is None:
            group = self._groups[name] = self._bag.groups.get(name) or self._bag.groups.new(name)
        return group

    def new_fcurve(self, data_path: str, index: int, group: str) -> bpy.types.FCurve:
        if not HAS_SLOTTED_ACTIONS:
            return self._fcurves.new(data_path, index=index, action_group=group)
        if _CHANNELBAG_NEW_TAKES_GROUP:
            return self._fcurves.new(data_path, index=index, group_name=group)
        fcurve = self._fcurves.new(data_path, index=index)
        fcurve.group = self._group(group)
        return fcurve


def key_fcurve(fcurve: bpy.types.FCurve, co: np.ndarray, interpolation: int, cyclic: bool) -> bpy.types.FCurve:
    """``fcurve`` (without keys) keyed at ``co`` (float32 (frame, value) pairs, flattened, frames increasing), every
    key of ``interpolation``, repeated by a Cycles modifier when ``cyclic``; then ``update``, which also merges
    keys less than 0.01 frame apart, as Blender does to keys set by hand."""
    count = len(co) // 2
    points = fcurve.keyframe_points
    points.add(count)
    points.foreach_set("co", co)
    points.foreach_set("interpolation", np.full(count, interpolation, np.int32))
    if cyclic:
        fcurve.modifiers.new("CYCLES")
    fcurve.update()
    return fcurve


def node_tree(owner: bpy.types.Material | bpy.types.World) -> bpy.types.NodeTree:
    """A material's or world's node tree: 5.0 always has one; 4.x makes it on ``use_nodes`` (deprecated in
    5.0)."""
    if owner.node_tree is None:
        owner.use_nodes = True
    return owner.node_tree


def one_action_animates_many_ids() -> bool:
    """Whether one action can hold different F-curves for several objects (slots, 4.4+)."""
    return HAS_SLOTTED_ACTIONS


def assigned_fcurves(id_block: bpy.types.ID) -> Iterable[bpy.types.FCurve]:
    """The F-curves that animate ``id_block`` through its assigned action (and slot)."""
    anim = id_block.animation_data
    if anim is None or anim.action is None:
        return []
    if not HAS_SLOTTED_ACTIONS:
        return list(anim.action.fcurves)
    slot = anim.action_slot
    for layer in anim.action.layers:
        for strip in layer.strips:
            bag = strip.channelbag(slot) if slot is not None else None
            if bag is not None:
                return list(bag.fcurves)
    return []


def action_fcurves(action: bpy.types.Action) -> list[bpy.types.FCurve]:
    """Every F-curve of ``action``: of each slot's channelbag (4.4+), or of the action (4.2)."""
    if not HAS_SLOTTED_ACTIONS:
        return list(action.fcurves)
    return [f for layer in action.layers for strip in layer.strips for bag in strip.channelbags for f in bag.fcurves]


def gltf_exports_pointer_animation() -> bool:
    """Whether Blender's glTF exporter (enabled) writes material animation as KHR_animation_pointer
    (``export_pointer_animation``, in NLA Tracks mode), looked up on the exporter's operator: the exporters of
    4.2, 4.5 and 5.0 have it and write the same pointers (base colour and emission factors) for our materials."""
    try:
        properties = bpy.ops.export_scene.gltf.get_rna_type().properties
    except (AttributeError, KeyError):
        return False
    return "export_pointer_animation" in properties


def gltf_convert_options(path: str, baked: bool) -> dict:
    """Blender's glTF exporter as ``batch convert --format glb`` runs it on an imported model: its timeline as the
    one animation. The import's keys are exported as they are (``export_force_sampling`` off): the exporter's
    default samples every bone at every frame, animated or not, then searches the samples for keys to drop,
    which was half its time on the game's models. ``baked``: the scene has constraints to follow (a unit's
    mounted parts on their sockets), sampled and baked as before."""
    options = {"filepath": path, "export_format": "GLB", "export_animations": True, "export_bake_animation": baked}
    if not baked:
        options.update(export_force_sampling=False, export_optimize_animation_size=False)
    return options
