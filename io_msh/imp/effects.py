"""The effects a model's controller attaches, as Empties (io_msh.imp.effect_plan plans them): one per record, at
its node's origin (action 3; an explosion of action 27 at the node it explodes), or at the model's root for
effects on three control points (action 4) or at a building's construction sphere (action 5). Each carries the
effect's name, where it attaches, its record and its parameters as custom properties (io_msh.com.props); an
effect's lights (emitter type 1) are previewed as point lights under it. Read-only: nothing here is exported."""

from __future__ import annotations

import bpy
from mathutils import Matrix, Quaternion

from ..com import props as P
from .effect_plan import EffectPlan

DISPLAY = {"node": "SPHERE", "explode": "SPHERE", "points": "CUBE", "sphere": "CIRCLE"}
LIGHT_TYPE = 1


def build_effects(plan, root, node_objects, created) -> list[bpy.types.Object]:
    """An Empty per planned effect of ``plan`` (a ModelPlan), parented into the model ``root``."""
    made = []
    collection = root.users_collection[0] if root.users_collection else bpy.context.collection
    for effect in getattr(plan, "effects", ()):
        obj = created.add(bpy.data.objects.new(effect.name, None))
        collection.objects.link(obj)
        obj.empty_display_type = DISPLAY.get(effect.place, "PLAIN_AXES")
        obj.empty_display_size = 0.25
        _parent(obj, root, node_objects, effect.node, plan.options.node_mode)
        _properties(obj, effect)
        if effect.params is not None:
            _lights(obj, effect, collection, created)
        made.append(obj)
    return made


def _parent(obj, root, node_objects, node: int | None, mode: str) -> None:
    if node is None:
        obj.parent = root
    elif mode == "EMPTIES":
        obj.parent = node_objects[node]
    else:
        bone = root.data.bones[node_objects[node]]
        obj.parent, obj.parent_type, obj.parent_bone = root, "BONE", bone.name
        # at the bone's head, in the node's frame (a bone parent places children at the tail, in the bone's frame)
        turn = Quaternion(P.bone_frame(bone)).conjugated().to_matrix().to_4x4()
        obj.matrix_parent_inverse = Matrix.Translation((0.0, -bone.length, 0.0)) @ turn


def _properties(obj, effect: EffectPlan) -> None:
    obj[P.EFFECT] = effect.reference
    obj[P.EFFECT_PLACE] = effect.place
    obj[P.EFFECT_RECORD] = list(effect.record)
    for key, value in effect.values.items():
        obj[f"{P.EFFECT}_{key}"] = value
    obj[P.EFFECT_FOUND] = effect.params is not None
    if effect.params is None:
        obj[P.EFFECT_PROBLEM] = effect.problem
        return
    obj[P.EFFECT_PARAMS] = effect.params_text
    params = effect.params
    if "emitters" in params:  # an FXID
        obj[f"{P.EFFECT}_time_mode"] = params["mode"]
        obj[f"{P.EFFECT}_duration"] = params["duration"]
        obj[f"{P.EFFECT}_flags"] = ", ".join(params["flag_names"])
        obj[f"{P.EFFECT}_emitters"] = ", ".join(b["type_name"] for b in params["blocks"])
    else:  # an explosion
        for key in ("kind", "damage", "radius", "placement"):
            obj[f"{P.EFFECT}_{key}"] = params[key]


def _lights(obj, effect: EffectPlan, collection, created) -> None:
    for i, block in enumerate(effect.params.get("blocks", ())):
        if block["type"] != LIGHT_TYPE:
            continue
        colour = [v if isinstance(v, float) else 0.0 for v in block["colour_start"][:3]]
        brightest = max(max(colour), 1e-6)
        data = created.add(bpy.data.lights.new(f"{effect.name} light {i}", "POINT"))
        data.color = [max(0.0, min(1.0, c / brightest)) for c in colour]
        data.energy = 100.0 * brightest
        reach = block["range_start"]
        if isinstance(reach, float) and reach > 0:
            data.use_custom_distance = True
            data.cutoff_distance = reach
        light = created.add(bpy.data.objects.new(data.name, data))
        collection.objects.link(light)
        light.parent = obj
        light[P.EFFECT] = effect.reference
        light[f"{P.EFFECT}_emitter"] = i
