"""Creating a unit in Blender from its plan (io_msh.imp.unit_plan): each part imported by the model importer
into the unit's collection, external parts mounted at their sockets, internal parts in a hidden collection,
control points as Empties, damage rows as node properties. All or nothing, as the model import."""

from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

from ..com import compat
from ..com import props as P
from ..com.hierarchy import layer_collection
from .build import Created, bone_child_inverse, import_plans, remove_models, write_keys
from .effects import build_unit_effects
from .hallway import build_unit_ground_plans
from .plan import BLENDER_LAST_FRAME
from .unit_plan import PartPlan, PointPlan, UnitPlan


def import_unit(context, plan: UnitPlan, root_matrix: Matrix, set_frame_range: bool = True) -> list:
    """The unit's part roots (by component; None where not imported). On failure nothing is left."""
    collections, roots, actions = [], [None] * len(plan.parts), []
    active = context.view_layer.active_layer_collection
    try:
        unit = _collection(context, active, plan.name, collections)
        P.store_path(unit, P.UNIT, plan.path)
        unit[P.UNIT_TREE] = plan.source
        external = [p for p in plan.parts if p.model is not None and p.external]
        devices = [p for p in plan.parts if p.model is not None and not p.external]
        internal = None
        if devices:
            internal = _collection(context, layer_collection(context, unit), f"{plan.name} internal parts", collections)
        for parts, target in ((external, unit), (devices, internal)):
            if not parts:
                continue
            # One build for all the parts of a collection: one edit-mode session for every armature (a build
            # per part entered it once per part, each time slower as the scene grew)
            context.view_layer.active_layer_collection = layer_collection(context, target)
            made = import_plans(context, [p.model for p in parts], root_matrix, set_frame_range=False)
            for part, root in zip(parts, made):
                roots[part.component] = root
                _part_properties(root, part)
                if part.parent is not None:
                    root.matrix_world = Matrix()
        unit[P.UNIT_PARTS] = [p.component for p in plan.parts if roots[p.component] is not None]
        if internal is not None:  # hidden once filled: Blender moves the active collection off a hidden one
            layer_collection(context, internal).hide_viewport = True
            internal.hide_render = True
        template = _mount_template()
        try:
            for part in plan.parts:
                if roots[part.component] is not None and part.parent is not None:
                    _mount(roots, part, actions, unit if part.external else internal, template)
        finally:
            bpy.data.objects.remove(template)
        for part in plan.parts:
            if roots[part.component] is not None:
                _damage(roots[part.component], part)
        if plan.points:
            points = _collection(context, layer_collection(context, unit), f"{plan.name} control points", collections)
            for component, point in plan.points:
                _point(points, roots, component, point)
        build_unit_effects(plan, roots, node_handles)
        build_unit_ground_plans(context, plan, roots, Created())
        if set_frame_range:
            _frame_range(context.scene, plan)
    except BaseException:
        remove_models([r for r in roots if r is not None])
        for action in actions:
            bpy.data.actions.remove(action)
        for collection in reversed(collections):
            for obj in list(collection.objects):
                bpy.data.objects.remove(obj)
            bpy.data.collections.remove(collection)
        raise
    finally:
        context.view_layer.active_layer_collection = active
    return roots


def _collection(context, parent_layer, name: str, made: list) -> bpy.types.Collection:
    collection = bpy.data.collections.new(name)
    made.append(collection)
    parent_layer.collection.children.link(collection)
    return collection




def _part_properties(root, part: PartPlan) -> None:
    root[P.UNIT_COMPONENT] = part.component
    root[P.UNIT_RECORD] = part.record
    root[P.UNIT_ATTACH] = part.attach
    root[P.UNIT_DISPLAY] = part.display
    root[P.UNIT_EXTERNAL] = part.external


def node_handles(root) -> dict[int, object]:
    """Each node index of an imported model -> its bone (armature) or Empty."""
    if root.type == "ARMATURE":
        return {int(b[P.NODE_INDEX]): b for b in root.data.bones if P.NODE_INDEX in b}
    return {int(o[P.NODE_INDEX]): o for o in root.children_recursive if o.type == "EMPTY" and P.NODE_INDEX in o}


def _mount_template() -> bpy.types.Object:
    """An Empty (in no scene) holding the mount constraint as every mount gets it: named, identity inverse.
    Each mount copies it: naming a constraint makes Blender fix the animation paths of every animated datablock,
    and setting its inverse costs as much, so done per mount both made the import quadratic in the parts."""
    template = bpy.data.objects.new("io_msh mount", None)
    constraint = template.constraints.new("CHILD_OF")
    constraint.name = P.UNIT_MOUNT
    constraint.inverse_matrix = Matrix()
    return template


def _mount(roots, part: PartPlan, actions: list, collection, template) -> None:
    """An external part: its root hangs on a mount Empty that follows the socket's bone or Empty (a Child Of
    constraint) and carries the inverse of the part's node-0 pose (keyed when node 0 moves), so that node
    n >= 1 lands on socket_world @ local(n); the part's own model and animation stay as imported. An internal
    part (a device of its parent's controller, whose node the controller names) follows its parent's root."""
    root, host = roots[part.component], roots[part.parent]
    if host is None:
        return
    mount = bpy.data.objects.new(f"{root.name} {P.UNIT_MOUNT.lower()}", None)
    collection.objects.link(mount)  # the part's collection (Object.users_collection scans every collection)
    mount.empty_display_type = "PLAIN_AXES"
    mount.empty_display_size = 0.05
    mount[P.UNIT_COMPONENT] = part.component
    constraint = mount.constraints.copy(template.constraints[P.UNIT_MOUNT])
    if part.external and part.socket is not None:
        socket = node_handles(host).get(part.socket)
        if host.type == "ARMATURE" and socket is not None:
            constraint.target, constraint.subtarget = host, socket.name
        else:
            constraint.target = socket or host
    else:
        constraint.target = host
    if constraint.subtarget and P.BONE_FRAME in socket:  # a bone turned from its node (imp.animation): follow the node
        constraint.inverse_matrix = Quaternion(P.bone_frame(socket)).conjugated().to_matrix().to_4x4()
    mount.rotation_mode = "QUATERNION"
    if part.root_inverse is not None:
        mount.matrix_basis = Matrix(part.root_inverse[0].tolist())
        if len(part.root_frames) > 1:
            actions.append(_key_mount(mount, part))
    root.parent = mount
    root.matrix_parent_inverse = Matrix()
    root.matrix_basis = Matrix()


def _key_mount(mount, part: PartPlan) -> bpy.types.Action:
    """Keys on the mount Empty at every frame of an animated node 0 (the inverse of its pose)."""
    values = [Matrix(m.tolist()).decompose() for m in part.root_inverse]
    location = np.array([tuple(v[0]) for v in values])
    rotation = np.array([tuple(v[1]) for v in values])
    for i in range(1, len(rotation)):  # the shortest path between consecutive keys
        if np.dot(rotation[i], rotation[i - 1]) < 0:
            rotation[i] = -rotation[i]
    action = bpy.data.actions.new(mount.name)
    target = compat.ChannelTarget(action, mount, mount.name)
    for path, data in (("location", location), ("rotation_quaternion", rotation)):
        for index in range(data.shape[1]):
            write_keys(target.new_fcurve(path, index, P.UNIT_MOUNT), part.root_frames, data[:, index])
    return action


def _damage(root, part: PartPlan) -> None:
    """The part's .ndp rows on its nodes (a mounted part's row 0, its dropped root, is not shown)."""
    handles = node_handles(root)
    for node, row in part.damage.items():
        handle = handles.get(node)
        if handle is None:
            continue
        handle["msh_ndp_row"] = row.row
        P.store_u32(handle, "msh_ndp_flags", row.flags & 0xFFFFFFFF)  # the file's i32, as its 32 bits
        handle["msh_hit_points"] = row.hit_points
        handle["msh_density"] = row.density
        handle["msh_explosion"] = row.explosion


def _point(collection, roots, component: int, point: PointPlan) -> None:
    """A control point: an Empty on its node (a single arrow along the point's vector, as long as the vector),
    with its name, flags, carrier and vector as properties."""
    if point.owner is None or roots[point.owner[0]] is None:
        return
    owner_root = roots[point.owner[0]]
    handle = node_handles(owner_root).get(point.owner[1])
    if handle is None:
        return
    obj = bpy.data.objects.new(point.name, None)
    collection.objects.link(obj)
    obj.empty_display_type = "SINGLE_ARROW"
    length = float(np.linalg.norm(point.vector))
    obj.empty_display_size = length if length > 0 else 0.1
    if owner_root.type == "ARMATURE":
        obj.parent, obj.parent_type, obj.parent_bone = owner_root, "BONE", handle.name
        obj.matrix_parent_inverse = bone_child_inverse(handle)
    else:
        obj.parent = handle
    obj.location = point.position.tolist()
    obj.rotation_mode = "QUATERNION"
    if length > 0:
        obj.rotation_quaternion = Vector((0.0, 0.0, 1.0)).rotation_difference(Vector(point.vector.tolist()))
    obj[P.CONTROL_POINT] = point.index
    obj["msh_cpt_component"] = component
    obj["msh_cpt_name"] = point.name
    P.store_u32(obj, "msh_cpt_flags", point.flags)  # a u32: the top bit is set on retail points
    obj["msh_cpt_vector"] = point.vector.tolist()
    if point.carrier is not None:
        obj["msh_cpt_carrier"] = list(point.carrier)


def _frame_range(scene, plan: UnitPlan) -> None:
    counts = [p.model.frame_count for p in plan.parts if p.model is not None and p.model.channels]
    if counts:
        scene.frame_start = 0
        scene.frame_end = min(max(counts) - 1, BLENDER_LAST_FRAME)
        scene.frame_current = 0
