"""The effects a model's controller attaches, and a unit's damage-table explosions, as Empties
(io_msh.imp.effect_plan plans the model's): one per record, at its node's origin (action 3; an explosion of
action 27 at the bounding-sphere centre of the node it explodes, where the game plays it), or at the model's
root for effects on three control points (action 4) or at a building's construction sphere (action 5). Each
carries the effect's name, where it attaches, its record and its parameters as custom properties
(io_msh.com.props); an effect's lights (emitter type 1) are previewed as point lights and its sounds (type 2) as
speakers under it. In a unit, an effect on three control points sits in their frame (origin their centroid, axes
their vectors: depth, width, height), and each node whose .ndp row names an explosion that is found gets an
Empty with its fields, at the node's bounding-sphere centre. An explosion's kind, damage, radius and placement
are written back by the export (io_msh.exp.effects); effects stay read-only."""

from __future__ import annotations

import json

import bpy
from mathutils import Matrix, Quaternion, Vector

from ...core.effects.library import Archives
from ...core.effects.scene import explosion_params, nearby_loader
from ..com import props as P
from .effect_plan import EffectPlan
from .effect_previews import build_previews

DISPLAY = {"node": "SPHERE", "explode": "SPHERE", "points": "CUBE", "sphere": "CIRCLE"}
LIGHT_TYPE, SOUND_TYPE = 1, 2


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
        if effect.place == "explode":
            _at_sphere(obj, plan.node_spheres, effect.node)
        _properties(obj, effect)
        if effect.params is not None:
            _lights(obj, effect, collection, created)
            if "blocks" in effect.params:
                build_previews(obj, effect, created)
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


def _at_sphere(obj, spheres: dict, node: int | None) -> None:
    """An explosion's Empty where the game plays it: at its node's bounding-sphere centre (in the node's frame,
    the frame _parent gives the Empty); a node with no slot keeps it at the origin."""
    if node in spheres:
        obj.location = spheres[node][0]


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
        P.store_u32(obj, f"{P.EFFECT}_time_mode", params["mode"])  # a u32 of the file
        obj[f"{P.EFFECT}_duration"] = params["duration"]
        obj[f"{P.EFFECT}_flags"] = ", ".join(params["flag_names"])
        obj[f"{P.EFFECT}_emitters"] = ", ".join(b["type_name"] for b in params["blocks"])
    else:  # an explosion: its fields are edited here, and Export writes them into effect.file
        _explosion_fields(obj, params, effect.file)


def _explosion_fields(obj, params: dict, file: str) -> None:
    for key in ("kind", "damage", "radius", "placement"):
        obj[f"{P.EFFECT}_{key}"] = params[key]
    if file:
        P.store_path(obj, P.EFFECT_FILE, file)


def _lights(obj, effect: EffectPlan, collection, created) -> None:
    """Lights as point lights (colour start, range as the cut-off), sounds as speakers (near and far distance);
    the other emitters have no Blender counterpart here."""
    for i, block in enumerate(effect.params.get("blocks", ())):
        if block["type"] == SOUND_TYPE:
            _speaker(obj, effect, i, block, collection, created)
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


def build_unit_effects(plan, roots: list, handles_of) -> None:
    """After a unit's parts, mounts and control points are made: each part's effects on three control points moved
    into the points' frame, and an Empty per node whose damage row names an explosion that is found.
    ``handles_of(root)``: a part's node index -> its bone or Empty (io_msh.imp.unit.node_handles)."""
    points = {(int(o["msh_cpt_component"]), int(o[P.CONTROL_POINT])): o for o in bpy.data.objects
              if P.CONTROL_POINT in o and "msh_cpt_component" in o}
    on_points = [(part.component, o) for part in plan.parts if roots[part.component] is not None
                 for o in roots[part.component].children if o.get(P.EFFECT_PLACE) == "points"]
    if on_points:
        bpy.context.view_layer.update()  # the points' world matrices, with their mounts
        for component, obj in on_points:
            _into_frame(obj, [points.get((component, int(i))) for i in obj.get(f"{P.EFFECT}_points", ())])
    load = nearby_loader(plan.path)
    archives = Archives(load)
    for part in plan.parts:
        root = roots[part.component]
        if root is None or not part.damage:
            continue
        handles = handles_of(root)
        collection = root.users_collection[0] if root.users_collection else bpy.context.collection
        for node, row in part.damage.items():
            archive, _, member = row.explosion.partition(":")
            params, _problem = explosion_params(archives, archive, member)
            if params is None or node not in handles:
                continue  # the node's msh_explosion names it either way
            obj = bpy.data.objects.new(member, None)
            collection.objects.link(obj)
            obj.empty_display_type, obj.empty_display_size = "SPHERE", 0.25
            handle = handles[node]
            if root.type == "ARMATURE":
                _parent(obj, root, {node: handle.name}, node, "ARMATURE")
            else:
                obj.parent = handle
            _at_sphere(obj, part.model.node_spheres if part.model else {}, node)
            obj[P.EFFECT], obj[P.EFFECT_PLACE], obj[P.EFFECT_FOUND] = f"{archive}/{member}", "damage", True
            obj[f"{P.EFFECT}_node"] = node
            obj[P.EFFECT_PARAMS] = json.dumps(params, sort_keys=True)
            _explosion_fields(obj, params, load.file_of(archive))


def _into_frame(obj, points: list) -> None:
    """The effect's world matrix: origin the points' centroid, axes their vectors (world), kept when the points
    are parented; three equal vectors (most retail records) give one direction: that axis, unit scale."""
    if len(points) != 3 or any(p is None for p in points):
        return
    origin = sum((p.matrix_world.translation for p in points), Vector()) / 3
    # a point's Empty turns its +Z onto the point's vector
    axes = [p.matrix_world.to_3x3() @ Vector((0.0, 0.0, Vector(p["msh_cpt_vector"]).length)) for p in points]
    frame = Matrix((axes[0], axes[1], axes[2])).transposed()  # columns: depth, width, height
    if abs(frame.determinant()) < 1e-9:
        direction = axes[0] if axes[0].length > 0 else Vector((1.0, 0.0, 0.0))
        frame = Vector((1.0, 0.0, 0.0)).rotation_difference(direction.normalized()).to_matrix()
    world = frame.to_4x4()
    world.translation = origin
    parent = points[0]
    obj.parent = parent
    obj.matrix_parent_inverse = parent.matrix_world.inverted_safe()
    obj.matrix_basis = world


def _speaker(obj, effect: EffectPlan, index: int, block: dict, collection, created) -> None:
    data = created.add(bpy.data.speakers.new(f"{effect.name} sound {index}"))
    near, far = block["near"], block["far"]
    if isinstance(near, float) and isinstance(far, float) and 0 <= near <= far:
        data.distance_reference, data.distance_max = near, max(far, near)
    speaker = created.add(bpy.data.objects.new(data.name, data))
    collection.objects.link(speaker)
    speaker.parent = obj
    speaker[P.EFFECT] = effect.reference
    speaker[f"{P.EFFECT}_emitter"] = index
    speaker[f"{P.EFFECT}_sound"] = "/".join(block.get("reference", ()))
