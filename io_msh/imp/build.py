"""Creating Blender data from import plans, in one pass (the build step after io_msh.imp.plan).

Everything created is recorded, so that a failure part-way removes it all
again: an import either completes or leaves the scene as it was.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import contextmanager

import bpy
import numpy as np
from mathutils import Matrix, Quaternion

from ...core.msh import streams as S
from ..com import compat
from ..com import conversion as C
from ..com import flags as F
from ..com import props as P
from ..com.curves import NEW_CURVE, Curve, fingerprints, pose_bone_path
from ..com.hierarchy import children_map, descendants
from .animation import rebase
from .clip_actions import build_controller, model_clip_actions, timeline_actions
from .effects import build_effects
from .hallway import build_hallway
from .material_animation import build_materials, material_actions
from .plan import BLENDER_LAST_FRAME, ChannelPlan, MeshPlan, ModelPlan, NodePlan


class Created:
    """Every datablock an import made, for cleanup on failure."""

    def __init__(self) -> None:
        self.ids: list[bpy.types.ID] = []

    def add(self, block):
        self.ids.append(block)
        return block

    def remove_all(self) -> None:
        collections = {
            bpy.types.Object: bpy.data.objects, bpy.types.Mesh: bpy.data.meshes,
            bpy.types.Material: bpy.data.materials, bpy.types.Armature: bpy.data.armatures,
            bpy.types.Action: bpy.data.actions, bpy.types.Collection: bpy.data.collections,
            bpy.types.Image: bpy.data.images,
        }
        for block in reversed(self.ids):
            for kind, data in collections.items():
                if isinstance(block, kind) and block.name in data and data[block.name] == block:
                    data.remove(block)
                    break
        self.ids.clear()


def import_root_matrix(axis_forward: str, axis_up: str, scale: float) -> Matrix:
    """The matrix of an imported model's root: MSH axes (+Y forward, +Z up) to the chosen Blender axes,
    then the scale."""
    from bpy_extras.io_utils import axis_conversion

    return axis_conversion(from_forward="Y", from_up="Z", to_forward=axis_forward,
                           to_up=axis_up).to_4x4() @ Matrix.Scale(scale, 4)


def import_plans(context: bpy.types.Context, plans: list[ModelPlan], root_matrix: Matrix,
                 set_frame_range: bool = True, progress: Callable[[int], None] | None = None) -> list[bpy.types.Object]:
    """Build every planned model; on any exception, remove what was made and re-raise."""
    created = Created()
    try:
        _leave_edit_modes(context)
        roots = [_build_root(context, plan, root_matrix, created) for plan in plans]
        bones = _build_bones([(plan, root) for plan, root in zip(plans, roots) if root.type == "ARMATURE"])
        for plan, root in zip(plans, roots):
            if root.type == "ARMATURE":
                plan.channels = on_bone_rests(plan.nodes, plan.channels, plan.controller, root, bones[root.name])
        for i, (plan, root) in enumerate(zip(plans, roots)):
            node_objects = bones[root.name] if root.type == "ARMATURE" else _build_empties(context, plan, root,
                                                                                            created)
            _build_parts(context, plan, root, node_objects, created)
            written = _build_animation(plan, root, node_objects, created)
            build_controller(plan, root, node_objects, created)
            build_effects(plan, root, node_objects, created)
            build_hallway(context, plan, root, created)
            root[P.CURVES] = fingerprints(written)  # as curves_fingerprint(root) reads them back, without the read
            if progress:
                progress(i + 1)
        if set_frame_range:
            _set_frame_range(context.scene, plans)
        # once, and over the objects this import made: every object they hold is one
        children = children_map([b for b in created.ids if isinstance(b, bpy.types.Object)])
        _select_only(context, [o for root in roots for o in (root, *descendants(root, children))], roots)
    except BaseException:
        _leave_edit_modes(context)
        created.remove_all()
        raise
    return roots


def _leave_edit_modes(context) -> None:
    active = context.view_layer.objects.active
    if active is not None and active.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")


def _link(context, obj: bpy.types.Object, collection: bpy.types.Collection | None = None) -> None:
    # context.collection is the active layer collection's, read without the view layer's resync that
    # view_layer.active_layer_collection makes after each link (a build of thousands of objects was quadratic)
    (collection or context.collection).objects.link(obj)


def _build_root(context, plan: ModelPlan, root_matrix: Matrix, created: Created) -> bpy.types.Object:
    """The model's root: an armature object (its bones come later) or an Empty, with the import's properties."""
    mode = plan.options.node_mode
    if mode == "ARMATURE":
        armature = created.add(bpy.data.armatures.new(plan.name))
        root = created.add(bpy.data.objects.new(plan.name, armature))
    else:
        root = created.add(bpy.data.objects.new(plan.name, None))
        root.empty_display_type = "PLAIN_AXES"
    _link(context, root)
    root[P.MODEL] = plan.name
    root[P.SOURCE] = plan.source
    P.store_path(root, P.SOURCE_PATH, plan.source_path)
    if plan.entry_index is not None:
        root[P.ENTRY_INDEX] = plan.entry_index
    root[P.NODE_MODE] = mode
    root[P.ANIMATION_MODE] = plan.options.animation
    root[P.SLOTS] = plan.options.slots
    root[P.SLOT_POSITION] = plan.options.slot_position
    if plan.wear is not None:
        root[P.WEAR] = plan.wear
    # Res19.attr2 is a u32; an ID property int is signed 32-bit, so larger counts are kept as (exact) floats.
    root[P.FRAME_COUNT] = plan.frame_count if plan.frame_count < 2 ** 31 else float(plan.frame_count)
    root.matrix_world = root_matrix
    return root


def _build_parts(context, plan: ModelPlan, root, node_objects, created: Created) -> None:
    lightmapped = any(m.lightmap_uvs is not None for m in plan.meshes)
    materials = build_materials(plan, root, created, lightmapped)
    slot_collections: dict[int, bpy.types.Collection] = {}
    group_collections: dict[str, bpy.types.Collection] = {}
    for mesh_plan in plan.meshes:
        collection = None
        group = F.node_group(plan.nodes[mesh_plan.node].flags)
        if mesh_plan.slot_position != plan.options.slot_position:
            collection = slot_collections.get(mesh_plan.slot_position) or _slot_collection(
                context, plan, mesh_plan.slot_position, created, slot_collections)
        elif group is not None:
            collection = group_collections.get(group) or _group_collection(context, plan, group, created,
                                                                           group_collections)
        obj = _build_mesh(context, mesh_plan, materials, created, collection)
        _attach(obj, root, node_objects, mesh_plan.node, plan.options.node_mode)


# --------------------------------------------------------------------- nodes
def _build_bones(models: list[tuple[ModelPlan, bpy.types.Object]]) -> dict[str, list[str]]:
    """Bones whose rest matrices are the nodes' rest poses, for every armature in one edit-mode session;
    returns each armature object's bone names by node index."""
    names = {}
    frames = {root.name: node_bone_frames(plan.nodes) for plan, root in models}
    with _edit_mode([root for _plan, root in models]):
        for plan, root in models:
            edit_bones = root.data.edit_bones
            bones = []
            for node, turn in zip(plan.nodes, frames[root.name]):
                bone = edit_bones.new(node.name)
                bone.head, bone.tail = (0.0, 0.0, 0.0), (0.0, node.bone_length, 0.0)
                bone.matrix = Matrix(node.rest_world.tolist()) @ Quaternion(turn.tolist()).to_matrix().to_4x4()
                if node.parent is not None:
                    bone.parent = bones[node.parent]
                bones.append(bone)
            names[root.name] = [b.name for b in bones]
    for plan, root in models:
        turns = frames[root.name]
        for node, name in zip(plan.nodes, names[root.name]):
            bone = root.data.bones[name]
            bone[P.NODE_INDEX] = node.index
            _node_flags(bone, node.flags)
            bone[P.IMPORTED_NAME] = name
            if (turns[node.index] != C.FRAME_CANDIDATES[0]).any():
                bone[P.BONE_FRAME] = turns[node.index].tolist()
            if node.original_name is not None or name != node.name:
                bone[P.NAME] = node.original_name or node.name
            root.pose.bones[name].rotation_mode = "QUATERNION"
    return names


REST_ROUNDING = 1e-6  # a bone rest this close to the node's (float32 rounding) needs no key of its own


def node_bone_frames(nodes: list[NodePlan]) -> np.ndarray:
    """(nodes, 4) each node's bone frame (conversion.bone_frames) from the nodes' rests."""
    world = np.zeros((len(nodes), 4))
    for i, node in enumerate(nodes):  # parents first
        world[i] = node.rest_rotation if node.parent is None else C.multiply(world[node.parent], node.rest_rotation)
    return C.bone_frames(world, [n.parent for n in nodes])


def bone_child_inverse(bone) -> Matrix:
    """matrix_parent_inverse of an object on a bone that sits on the bone's node: a bone parent places children
    at the bone's tail and in the bone's frame; back to the head, and to the node's frame."""
    turn = Quaternion(P.bone_frame(bone)).conjugated().to_matrix().to_4x4()
    return Matrix.Translation((0.0, -bone.length, 0.0)) @ turn


def bone_rests(root: bpy.types.Object, names: list[str], nodes: list[NodePlan]) -> tuple[np.ndarray, np.ndarray]:
    """The rests Blender holds for the nodes' bones (``names`` by node), relative to the parent bone: (nodes, 4)
    Blender quaternions and (nodes, 3) locations, from the bones' float32 matrices."""
    bones = root.data.bones
    flat = np.empty(len(bones) * 16, np.float32)
    bones.foreach_get("matrix_local", flat)
    world = flat.reshape(-1, 4, 4).transpose(0, 2, 1)[[bones.find(n) for n in names]].astype(np.float64)
    local = world.copy()
    children = [i for i, n in enumerate(nodes) if n.parent is not None]
    if children:
        local[children] = C.affine_inverse(world[[nodes[i].parent for i in children]]) @ world[children]
    file_rot, location = C.local_poses(local)
    return C.blender_quaternions(file_rot), location


def on_bone_rests(nodes: list[NodePlan], channels: list[ChannelPlan], controller, root: bpy.types.Object,
                  names: list[str]) -> list[ChannelPlan]:
    """The planned pose-bone values (channels, and the controller's clips and sliders, changed in place) made
    relative to the bones as Blender holds them (``animation.rebase``: their frames, and the rests Blender made
    of the rest matrices); a node without keys whose bone shows it off by more than float32 rounding gets one
    key holding its rest. Returns the channels."""
    rot, loc = bone_rests(root, names, nodes)
    turns = np.array([P.bone_frame(root.data.bones[n]) for n in names])
    parent_turns = np.array([turns[n.parent] if n.parent is not None else C.FRAME_CANDIDATES[0] for n in nodes])
    maps = rebase((np.array([n.rest_rotation for n in nodes]).reshape(-1, 4),
                   np.array([n.rest_location for n in nodes]).reshape(-1, 3)),
                  (rot, loc), parent_turns.reshape(-1, 4), turns.reshape(-1, 4))
    row = {n.index: i for i, n in enumerate(nodes)}
    for channel in channels:
        channel.location, channel.rotation = maps.apply(row[channel.node], channel.location, channel.rotation)
    keyed = {c.node for c in channels}
    for node in nodes:
        if node.index in keyed:
            continue
        location, rotation = maps.apply(row[node.index], np.zeros((1, 3)), np.array([[1.0, 0, 0, 0]]))
        off = max(np.abs(rotation - [1.0, 0, 0, 0]).max(),
                  np.abs(location).max() / max(1.0, float(np.abs(node.rest_location).max())))
        if off > REST_ROUNDING:
            channels.append(ChannelPlan(node.index, np.zeros(1), location, rotation))
    if controller is not None:
        for clip in controller.clips:
            for keys in clip.nodes:
                keys.location, keys.rotation = maps.apply(row[keys.node], keys.location, keys.rotation)
            if clip.root is not None:
                clip.root = maps.apply(row[0], clip.root, None)[0]
        for slider in controller.sliders:
            slider.location, slider.rotation = maps.apply(row[slider.node], slider.location, slider.rotation)
    return sorted(channels, key=lambda c: c.node)


@contextmanager
def _edit_mode(armatures: list[bpy.types.Object]):
    """Edit Mode on all ``armatures`` at once, entered in a temporary scene that holds only them: the mode
    switch updates the view layer it runs in, and the user's may hold any number of models."""
    if not armatures:
        yield
        return
    scene = bpy.data.scenes.new("io_msh import")
    try:
        view_layer = scene.view_layers[0]
        for obj in armatures:
            scene.collection.objects.link(obj)
        with bpy.context.temp_override(scene=scene, view_layer=view_layer, active_object=armatures[0],
                                       object=armatures[0], selected_objects=armatures,
                                       selected_editable_objects=armatures):
            view_layer.objects.active = armatures[0]
            for obj in armatures:
                obj.select_set(True, view_layer=view_layer)
            bpy.ops.object.mode_set(mode="EDIT")
            try:
                yield
            finally:
                bpy.ops.object.mode_set(mode="OBJECT")
    finally:
        bpy.data.scenes.remove(scene)


def _build_empties(context, plan: ModelPlan, root: bpy.types.Object, created: Created) -> list[bpy.types.Object]:
    empties = []
    size = max(0.05, float(np.median([n.bone_length for n in plan.nodes])) if plan.nodes else 0.1)
    for node in plan.nodes:
        obj = created.add(bpy.data.objects.new(node.name, None))
        _link(context, obj)
        obj.empty_display_type = "ARROWS"
        obj.empty_display_size = size
        obj.parent = root if node.parent is None else empties[node.parent]
        obj.rotation_mode = "QUATERNION"
        obj.location = node.rest_location.tolist()
        obj.rotation_quaternion = node.rest_rotation.tolist()
        obj[P.NODE_INDEX] = node.index
        _node_flags(obj, node.flags)
        obj[P.IMPORTED_NAME] = obj.name
        if node.original_name is not None or obj.name != node.name:
            obj[P.NAME] = node.original_name or node.name
        empties.append(obj)
    return empties


def _node_flags(target, word: int) -> None:
    """The node's Res1 flag word and its named bits as custom properties (io_msh.com.flags)."""
    target[F.NODE_WORD] = word
    for name, bit in F.NODE_BITS.items():
        target[name] = bool(word & bit)


# --------------------------------------------------------------------- meshes
def _group_collection(context, plan, group: str, created, cache) -> bpy.types.Collection:
    """The collection of the shown parts of interior or cockpit nodes, shown."""
    collection = created.add(bpy.data.collections.new(f"{plan.name} {group}"))
    collection[F.NODE_GROUP] = group
    context.view_layer.active_layer_collection.collection.children.link(collection)
    cache[group] = collection
    return collection


def _slot_collection(context, plan, position, created, cache) -> bpy.types.Collection:
    collection = created.add(bpy.data.collections.new(f"{plan.name} {S.slot_label(position)}"))
    collection[P.SLOT] = position
    parent = context.view_layer.active_layer_collection
    parent.collection.children.link(collection)
    # Hidden the way the Outliner shows and toggles (its eye icon): the view layer's layer collection.
    # Collection.hide_viewport (disabled in viewports) is not shown by the default Outliner.
    parent.children[collection.name].hide_viewport = True
    collection.hide_render = True
    cache[position] = collection
    return collection


def triangle_mesh(name: str, positions: np.ndarray, triangles: np.ndarray, face_materials: np.ndarray
                  ) -> bpy.types.Mesh:
    """A smooth-shaded mesh of ``triangles`` (T, 3) over ``positions`` (V, 3), each face's material index set."""
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(positions))
    mesh.vertices.foreach_set("co", positions.astype(np.float32).ravel())
    mesh.loops.add(triangles.size)
    mesh.loops.foreach_set("vertex_index", triangles.astype(np.int32).ravel())
    mesh.polygons.add(len(triangles))
    mesh.polygons.foreach_set("loop_start", np.arange(0, triangles.size, 3, dtype=np.int32))
    mesh.polygons.foreach_set("material_index", face_materials.astype(np.int32))
    mesh.polygons.foreach_set("use_smooth", np.ones(len(triangles), bool))
    return mesh


def _build_mesh(context, plan: MeshPlan, materials, created: Created, collection) -> bpy.types.Object:
    mesh = created.add(triangle_mesh(plan.name, plan.positions, plan.triangles, plan.face_materials))
    for index in plan.materials:
        mesh.materials.append(materials[index])
    mesh.uv_layers.new(name=P.BASE_UV).data.foreach_set("uv", plan.uvs.astype(np.float32).ravel())
    if plan.lightmap_uvs is not None:
        mesh.uv_layers.new(name=P.LIGHTMAP_UV).data.foreach_set("uv", plan.lightmap_uvs.astype(np.float32).ravel())
    _face_flags(mesh, plan.face_flags if plan.face_flags is not None else np.zeros(len(plan.triangles), np.int64))
    mesh.update()
    mesh.validate(clean_customdata=False)
    mesh.normals_split_custom_set_from_vertices(plan.normals.astype(np.float32).tolist())
    obj = created.add(bpy.data.objects.new(plan.name, mesh))
    _link(context, obj, collection)
    obj[P.NODE_INDEX] = plan.node
    obj[P.SLOT] = plan.slot_position
    return obj


def _face_flags(mesh, words: np.ndarray) -> None:
    """A boolean face attribute per named Res7 bit, and the whole word when it has bits without a name."""
    for name, values in F.face_bits(words).items():
        mesh.attributes.new(name, "BOOLEAN", "FACE").data.foreach_set("value", values)
    if np.any(np.asarray(words) & ~F.FACE_NAMED):
        mesh.attributes.new(F.FACE_WORD, "INT", "FACE").data.foreach_set("value", np.asarray(words, np.int32))


def _attach(obj, root, node_objects, node: int, mode: str) -> None:
    """Rigid attachment to the node (vertices belong to one node, no weights): child of its Empty, or of its bone."""
    if mode == "EMPTIES":
        obj.parent = node_objects[node]
        return
    bone = root.data.bones[node_objects[node]]
    obj.parent = root
    obj.parent_type = "BONE"
    obj.parent_bone = bone.name
    obj.matrix_parent_inverse = bone_child_inverse(bone)


# --------------------------------------------------------------------- animation
def _build_animation(plan: ModelPlan, root, node_objects, created: Created) -> list[Curve]:
    """The model's actions; returns the F-curves written, as io_msh.com.curves reads them back."""
    if not plan.channels:
        return []

    def new_action(name: str) -> bpy.types.Action:
        """An action whose manual frame range is the model's frames 0 .. frame_count - 1 (what the export's
        default Action range writes back)."""
        action = created.add(bpy.data.actions.new(name))
        action.use_frame_range = True
        action.frame_start, action.frame_end = 0, min(max(plan.frame_count - 1, 0), BLENDER_LAST_FRAME)
        return action

    written = []
    if plan.options.node_mode == "ARMATURE":
        target = compat.ChannelTarget(new_action(action_name(plan.name)), root, root.name)
        for channel in plan.channels:
            bone = node_objects[channel.node]
            written += _write_channel(target, pose_bone_path(bone), bone, channel,
                                      plan.nodes[channel.node].index, ".")
        return written
    shared = new_action(action_name(plan.name)) if compat.one_action_animates_many_ids() else None
    for channel in plan.channels:
        obj = node_objects[channel.node]
        action = shared or new_action(f"{plan.name}|{obj.name}")
        written += _write_channel(compat.ChannelTarget(action, obj, obj.name), "", obj.name, channel,
                                  plan.nodes[channel.node].index, "")
    return written


def _write_channel(target: compat.ChannelTarget, prefix: str, group: str, channel: ChannelPlan, node: int,
                   read_prefix: str) -> list[Curve]:
    """The channel's F-curves; returns them as io_msh.com.curves.read_curves reads them back (``read_prefix``:
    what it leaves of ``prefix``, '.' of a pose bone's path)."""
    linear = np.full(len(channel.frames), compat.LINEAR, np.int32)
    written = []
    columns = np.concatenate([channel.location, channel.rotation], axis=1).T  # every curve's keys at once
    keys = np.empty((len(columns), len(channel.frames), 2), np.float32)
    keys[:, :, 0], keys[:, :, 1] = channel.frames, columns
    curves = [("location", index) for index in range(channel.location.shape[1])] + \
        [("rotation_quaternion", index) for index in range(channel.rotation.shape[1])]
    for (path, index), co in zip(curves, keys.reshape(len(columns), -1)):
        target.linear_fcurve(prefix + path, index, group, co)
        written.append(Curve(node, group, read_prefix + path, index, co, linear, NEW_CURVE))
    return written


def _key_co(frames: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Keyframe (frame, value) pairs as ``keyframe_points`` holds them: float32, flattened."""
    co = np.empty((len(frames), 2), np.float32)
    co[:, 0], co[:, 1] = frames, values
    return co.ravel()


def write_keys(fcurve: bpy.types.FCurve, frames: np.ndarray, values: np.ndarray) -> None:
    """All keys of one F-curve at once, linear (keyframe_points.add + foreach_set), ``frames`` increasing.

    Not ``fcurve.update()``: it also merges keys less than 0.01 frame apart (keeping the later one), and a
    track may hold keys that close (fractional key times): KEYS would show the wrong key at the earlier
    time and the unedited export would no longer find the import's curves."""
    points = fcurve.keyframe_points
    points.add(len(frames))
    points.foreach_set("co", _key_co(frames, values))
    points.foreach_set("interpolation", np.full(len(frames), compat.LINEAR, np.int32))
    points.handles_recalc()


# --------------------------------------------------------------------- scene
def _set_frame_range(scene, plans: list[ModelPlan]) -> None:
    animated = [p.frame_count for p in plans if p.channels]
    if animated:
        scene.frame_start = 0
        scene.frame_end = min(max(max(animated) - 1, 0), BLENDER_LAST_FRAME)
        if scene.frame_current != 0:  # the first frame, where the model shows its rest (its first keys)
            scene.frame_current = 0


def action_name(model: str) -> str:
    """The name of a model's action: ``<model>|Action`` (the model's name, a separator, what it holds), as
    glTF-Blender-IO names its actions ``<object>|<clip>``; Empties that each need their own action (Blender
    before 4.4) get ``<model>|<Empty>``. Blender may add a ``.001`` suffix; the export does not read the name."""
    return f"{model}|Action"


def _select_only(context, objects, roots) -> None:
    """Select every object the import made (in a hidden slot collection too) and make the first root active."""
    view_layer = context.view_layer
    for obj in list(view_layer.objects.selected):  # hidden ones too (an earlier import's slot meshes)
        obj.select_set(False)
    for obj in objects:
        # not `obj.name in view_layer.objects`, a look-up by name that walks every object of the view layer;
        # an object in an excluded slot collection is not in it
        with contextlib.suppress(RuntimeError):
            obj.select_set(True, view_layer=view_layer)
    if roots:
        view_layer.objects.active = roots[0]


def remove_model(root: bpy.types.Object) -> None:
    """Remove an imported model and every datablock only it used: the inverse of an import."""
    remove_models([root])


def remove_models(roots: list[bpy.types.Object]) -> None:
    """Remove imported models and every datablock only they used (objects, meshes, armatures, actions,
    materials, images, their slot collections). One batch removal, so that Blender rebuilds its dependency
    graph once, not once per datablock or model."""
    children = children_map()
    objects = [o for root in roots for o in (root, *descendants(root, children))]
    objects += [o for o in bpy.data.objects if o.get(P.HALLWAY) in roots]  # their navigation (hall way, plan)
    data = {o.data for o in objects if o.data is not None}
    actions = {o.animation_data.action for o in objects if o.animation_data and o.animation_data.action}
    actions |= model_clip_actions(roots, objects) | timeline_actions(objects)
    materials = {m for block in data if isinstance(block, bpy.types.Mesh) for m in block.materials if m}
    images = {n.image for m in materials if m.node_tree for n in m.node_tree.nodes
              if n.type == "TEX_IMAGE" and n.image is not None}
    users = bpy.data.user_map(subset=data | actions | materials | images)
    doomed = set(objects)
    for group in (data, actions, materials):  # materials after meshes: their users are meshes
        doomed |= {block for block in group if users[block] <= doomed}
    doomed |= material_actions(m for m in materials if m in doomed)  # their animated colours and cells
    # An image's users are the node trees of the materials showing it.
    trees = {m.node_tree for m in materials if m in doomed and m.node_tree}
    doomed |= {image for image in images if users[image] <= doomed | trees}
    # Slot collections left with none of their own objects (Object.users_collection would scan every
    # collection once per object).
    doomed |= {c for c in bpy.data.collections if (P.SLOT in c or F.NODE_GROUP in c or P.HALLWAY in c)
               and c.all_objects
               and set(c.all_objects) <= doomed}
    bpy.data.batch_remove(list(doomed))
