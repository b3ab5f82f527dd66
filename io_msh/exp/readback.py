"""Reading a model back out of Blender for export: its nodes, their evaluated poses, its meshes.

Everything is returned as plain numpy data (``SceneModel``), so that the
decisions of the export (io_msh.exp.plan) need no Blender.
"""

from __future__ import annotations

import heapq
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

import bpy
import numpy as np

from ...core.errors import FormatError
from ...core.msh import streams as S
from ...core.msh.model import Model
from ..com import conversion as C
from ..com import props as P
from ..imp.materials import LIGHTMAP_UV
from .fcurves import Curve, evaluate, reproducible
from .unedited import fingerprint, same_as_runtime


@dataclass
class SceneNode:
    name: str
    parent: int | None          # position in SceneModel.nodes
    index: int | None           # msh_node_index when the node came from an import
    handle: str                 # bone name, or object name
    renamed: bool = False       # an imported node the user renamed: ``name`` is the new one


@dataclass
class SceneImage:
    name: str
    texture: str | None          # msh_texture: 'library|entry' when it came from a game library
    pixels: np.ndarray | None    # RGBA8, row 0 at the top (read only for images not from a library)


@dataclass
class SceneMaterial:
    """A material as the export needs it: its import properties, or what a new MAT0 would hold."""

    name: str                    # the Blender name ('' for faces without a material)
    wear_index: int | None = None  # msh_material: the WEAR row it was imported from
    wear_name: str | None = None   # msh_wear_name: that row's name
    lightmap: int | None = None    # msh_lightmap
    diffuse: tuple[float, float, float, float] = (0.8, 0.8, 0.8, 1.0)
    blend: str = "OPAQUE"
    image: SceneImage | None = None


@dataclass
class SceneMesh:
    """One mesh object: as stored (for the lossless check) and evaluated, split per MSH vertex."""

    name: str
    node: int                   # position in SceneModel.nodes
    slot: int
    stored_positions: np.ndarray    # the mesh's own vertex coordinates (object space)
    stored_triangles: np.ndarray | None  # (m, 3) when every polygon is a triangle, else None
    stored_uvs: np.ndarray | None   # per loop, as stored
    positions: np.ndarray       # (n, 3) node-local, evaluated and triangulated
    normals: np.ndarray         # (n, 3)
    uvs: np.ndarray             # (n, 2) Blender convention
    triangles: np.ndarray       # (m, 3)
    face_materials: np.ndarray  # (m,) material keys (see SceneModel.materials)
    # The object's evaluated placement relative to its node (identity as imported), and whether modifiers
    # or shape keys make the evaluated mesh differ from the stored one.
    offset: np.ndarray = field(default_factory=lambda: np.eye(4))
    modified: bool = False


@dataclass
class SceneModel:
    root_name: str
    model_name: str
    source: bytes | None
    node_mode: str
    frames: np.ndarray          # integer Blender frames sampled
    nodes: list[SceneNode]
    local_matrices: np.ndarray  # (nodes, frames, 4, 4): each node relative to its parent (or the root)
    meshes: list[SceneMesh]
    materials: list[SceneMaterial] = field(default_factory=list)  # by the key in SceneMesh.face_materials
    keyframes: dict[int, np.ndarray] = field(default_factory=dict)  # node -> Blender keyframe times
    slots_imported: str = "ALL"  # which slots the import made meshes for (P.SLOTS)
    slot_position: int = 0       # the slot shown when one was chosen (P.SLOT_POSITION)
    wear: bytes | None = None    # the WEAR text the import read (P.WEAR)
    # The nodes show the source's runtime pose at every frame (io_msh.exp.unedited); then ``frames`` and
    # ``local_matrices`` hold the first frame only.
    as_imported: bool = False
    animation_mode: str | None = None  # the import's Animation option (P.ANIMATION_MODE)
    warnings: list[str] = field(default_factory=list)


def find_root(context) -> bpy.types.Object:
    """The model to export: a selected or active model root, or the one in the scene, or a new model's root.

    Raises FormatError (stream "scene") with a message for the user when none or several qualify.
    """
    def model_root(obj):
        while obj is not None:
            if P.MODEL in obj:
                return obj
            obj = obj.parent
        return None

    candidates = {model_root(o) for o in [context.active_object, *context.selected_objects] if o is not None}
    candidates.discard(None)
    if len(candidates) == 1:
        return candidates.pop()
    if len(candidates) > 1:
        names = ", ".join(sorted(o.name for o in candidates))
        raise FormatError.single("scene", None, f"several models are selected ({names}); select one")
    roots = [o for o in context.scene.objects if P.MODEL in o]
    if len(roots) == 1:
        return roots[0]
    active = context.active_object
    if active is not None and active.type in ("ARMATURE", "EMPTY"):
        return active
    what = "several models are in the scene" if roots else "no model root (an armature or an Empty) is selected"
    raise FormatError.single("scene", None, f"{what}; select the model to export")


def read_scene(context, root: bpy.types.Object, frames: np.ndarray, keyframes: bool = False,
               curves: list | None = None) -> SceneModel:
    """The model under ``root`` at ``frames``; ``curves`` are its read_curves when already read; with
    ``keyframes`` the frames of each node's keyframes too."""
    mode = "ARMATURE" if root.type == "ARMATURE" else "EMPTIES"
    nodes = _armature_nodes(root) if mode == "ARMATURE" else _empty_nodes(root)
    if not nodes:
        raise FormatError.single("scene", None, f"{root.name!r} has no nodes: add bones or child Empties")
    source = root.get(P.SOURCE)
    source = bytes(source) if source is not None else None
    with ExitStack() as stack:
        scene = None
        if _shown_at(context, root, frames[0]):  # the user's depsgraph already holds the first frame
            depsgraph = context.evaluated_depsgraph_get()
        else:
            scene, depsgraph = stack.enter_context(_evaluation_scene(context, root, frames[0]))
        shown = _world_reader(root, nodes, mode, depsgraph)()
        meshes, materials, warnings = _meshes(depsgraph, root, nodes, mode, shown)
        curves = read_curves(root) if curves is None else curves
        local = _local(shown[:, None], nodes)
        moved = _moved_by_more_than_curves(root, nodes, mode)
        as_imported = not moved and _as_imported(root, nodes, source, curves, local, frames[0])
        from_curves = None if as_imported or moved else _curve_poses(root, nodes, mode, curves)
        if as_imported:
            frames = frames[:1]
        elif from_curves is not None and _same_pose(from_curves(frames[:1]), local):
            # The curves give the pose Blender shows (rest poses, parenting and unkeyed channels as it has
            # them), so they give every frame's.
            local = from_curves(frames)
        else:
            if scene is None:
                scene, depsgraph = stack.enter_context(_evaluation_scene(context, root, frames[0]))
            # Only the nodes are needed from here on: the meshes leave the scene (so the frames do not
            # evaluate them; anything a node depends on still comes along through the depsgraph).
            for obj in [o for o in scene.collection.objects if o.type == "MESH"]:
                scene.collection.objects.unlink(obj)
            read = _world_reader(root, nodes, mode, depsgraph)
            local = _local(np.stack([_world_at(scene, read, f) for f in frames], axis=1), nodes)
    wear = root.get(P.WEAR)
    return SceneModel(
        root.name, str(root.get(P.MODEL) or f"{root.name}.msh"), source,
        mode, np.asarray(frames, np.float64), nodes, local, meshes, materials,
        _keyframe_times(curves, nodes) if keyframes else {}, str(root.get(P.SLOTS, "ALL")),
        int(root.get(P.SLOT_POSITION, 0)), bytes(wear) if wear is not None else None, as_imported,
        root.get(P.ANIMATION_MODE), warnings)


def _set_frame(scene, frame: float) -> None:
    scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))


def _world_at(scene, read, frame: float) -> np.ndarray:
    _set_frame(scene, frame)
    return read()


def _shown_at(context, root, frame: float) -> bool:
    """Whether the user's view layer shows the whole model at ``frame`` now, so that its evaluated state
    can be read without a temporary scene (whose removal makes Blender rebuild every scene's relations)."""
    scene, view_layer = context.scene, context.view_layer
    return (scene.frame_current == frame and scene.frame_subframe == 0.0
            and all(o.visible_get(view_layer=view_layer) for o in (root, *root.children_recursive)))


def _local(world: np.ndarray, nodes: list[SceneNode]) -> np.ndarray:
    """(nodes, frames, 4, 4) matrices relative to the root made relative to each node's parent."""
    local = world.copy()
    children = [i for i, n in enumerate(nodes) if n.parent is not None]
    if children:
        parents = [nodes[i].parent for i in children]
        local[children] = C.affine_inverse(world[parents]) @ world[children]
    return local


# --------------------------------------------------------------------- unedited animation
def _as_imported(root, nodes: list[SceneNode], source: bytes | None, curves: list, first_local: np.ndarray,
                 frame: float) -> bool:
    """For nodes nothing but their curves moves: whether they show the source's runtime pose at every frame
    without stepping through them (the importer's curves unchanged, and the first frame's pose the
    runtime's)."""
    stored = root.get(P.CURVES)
    if source is None or stored is None:
        return False
    if fingerprint(curves) != stored:
        return False
    model = Model.parse(source, str(root.get(P.MODEL, "")))
    if model.is_legacy or [n.index for n in nodes] != list(range(model.node_count)):
        return False
    parents = [None if p == S.NO_INDEX else int(p) for p in model.nodes["parent"]]
    if [n.parent for n in nodes] != parents:
        return False
    return bool(same_as_runtime(model, *C.local_poses(first_local), np.array([frame])).all())


def curves_fingerprint(root: bpy.types.Object) -> str:
    """The fingerprint (io_msh.exp.unedited) of the F-curves animating the model's nodes."""
    return fingerprint(read_curves(root))


def read_curves(root) -> list[Curve]:
    """Every F-curve that animates the root or a node (a bone, or an Empty below the root)."""
    curves = []
    for fcurve, target, owner, path in _node_fcurves(root):
        points = fcurve.keyframe_points
        co = np.empty(2 * len(points), np.float32)
        points.foreach_get("co", co)
        interpolation = np.empty(len(points), np.int32)
        points.foreach_get("interpolation", interpolation)
        settings = f"{fcurve.extrapolation}|{fcurve.mute}|{len(fcurve.modifiers)}"
        curves.append(Curve(target, owner, path, fcurve.array_index, co, interpolation, settings))
    return curves


def _read_for_evaluation(root, curves: list[Curve]) -> None:
    """Add to ``read_curves(root)`` what io_msh.exp.fcurves needs to evaluate them."""
    for curve, (fcurve, *_where) in zip(curves, _node_fcurves(root), strict=True):
        points = fcurve.keyframe_points
        curve.left, curve.right = np.empty(len(curve.co), np.float32), np.empty(len(curve.co), np.float32)
        points.foreach_get("handle_left", curve.left)
        points.foreach_get("handle_right", curve.right)
        curve.extrapolation = fcurve.extrapolation
        curve.plain = (not fcurve.mute and not fcurve.modifiers and not (fcurve.group and fcurve.group.mute)
                       and reproducible(curve.co, curve.left, curve.right, curve.interpolation))


def _node_fcurves(root):
    """(F-curve, msh_node_index, bone or Empty name, property path) for every F-curve animating the root
    ('' and -1) or a node, in a fixed order."""
    from ..com import compat

    index_of = {b.name: b.get(P.NODE_INDEX, -1) for b in root.data.bones} if root.type == "ARMATURE" else {}
    for id_block, handle in _animated_ids(root):
        node = id_block.get(P.NODE_INDEX, -1) if handle else -1
        for fcurve in compat.assigned_fcurves(id_block):
            path, target, owner = fcurve.data_path, node, handle
            if root.type == "ARMATURE" and path.startswith('pose.bones["'):
                bone, path = path[12:].split('"]', 1)
                owner = bone.replace('\\"', '"').replace("\\\\", "\\")
                target = index_of.get(owner, -1)
            yield fcurve, target, owner, path


CHANNELS = {"location": 3, "rotation_quaternion": 4, "scale": 3}  # what moves a node (quaternion mode)
SAME_POSE = 1e-5  # how close the curves' pose must be to the one Blender shows (relative to its size)


def _curve_poses(root, nodes: list[SceneNode], mode: str, curves: list[Curve]):
    """For nodes nothing but their curves moves: a function giving their local matrices (nodes, frames, 4, 4)
    at any frames from the F-curves alone (io_msh.exp.fcurves), without Blender stepping through them; None when
    a curve is not one ``fcurves.evaluate`` reproduces."""
    _read_for_evaluation(root, curves)
    if not all(c.plain for c in curves):
        return None
    position = {n.handle: i for i, n in enumerate(nodes)}
    animated = [c for c in curves if c.handle in position]
    channels = [(position[c.handle], c.path.lstrip("."), c.index) for c in animated]  # '.location' on bones
    if any(path not in CHANNELS for _node, path, _index in channels):
        return None
    if mode == "ARMATURE":
        if root.data.pose_position != "POSE":
            return None
        bones = root.pose.bones
        order = [bones.find(n.handle) for n in nodes]
        static = {}
        for name, size in CHANNELS.items():
            flat = np.empty(len(bones) * size, np.float32)
            bones.foreach_get(name, flat)
            static[name] = flat.reshape(-1, size)[order].astype(np.float64)
        flat = np.empty(len(bones) * 16, np.float32)
        root.data.bones.foreach_get("matrix_local", flat)
        rest = flat.reshape(-1, 4, 4).transpose(0, 2, 1)[[root.data.bones.find(n.handle) for n in nodes]]
        offsets = _local(rest[:, None].astype(np.float64), nodes)[:, 0]  # each bone's rest in its parent's
    else:
        objects = [bpy.data.objects[n.handle] for n in nodes]
        parents = [root if n.parent is None else objects[n.parent] for n in nodes]
        if any(o.parent != p or o.parent_type != "OBJECT" for o, p in zip(objects, parents)):
            return None
        static = {name: np.array([getattr(o, name) for o in objects], np.float64) for name in CHANNELS}
        offsets = np.array([o.matrix_parent_inverse for o in objects], np.float64)

    def poses(frames) -> np.ndarray:
        frames = np.asarray(frames, np.float64)
        values = {name: np.repeat(v[:, None], len(frames), axis=1) for name, v in static.items()}
        for (node, path, index), curve_values in zip(channels, evaluate(animated, frames)):
            values[path][node, :, index] = curve_values
        basis = C.matrices(values["rotation_quaternion"], values["location"])
        basis[..., :3, :3] *= values["scale"][..., None, :]
        return offsets[:, None] @ basis
    return poses


def _same_pose(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.all(np.abs(a - b) <= SAME_POSE * (1 + np.abs(b))))


def keyframe_frames(curves: list[Curve]) -> np.ndarray:
    """The frames of every keyframe of ``curves``."""
    frames = [c.co[0::2] for c in curves]
    return np.concatenate(frames).astype(np.float64) if frames else np.zeros(0)


def _animated_ids(root) -> list[tuple[bpy.types.ID, str]]:
    """What actions animating the model hang on, with the Empty's name ('' for the root): the root (an
    armature's actions animate its bones), and for Empties every Empty below it."""
    if root.type == "ARMATURE":
        return [(root, "")]
    return [(root, "")] + [(o, o.name) for o in root.children_recursive if o.type == "EMPTY"]


def action_end(root: bpy.types.Object) -> float:
    """The last frame of the actions animating the model (their manual frame range when they have one,
    as the importer sets it, else their last keyframe); 0 without animation."""
    actions = {h.animation_data.action for h, _name in _animated_ids(root)
               if h.animation_data and h.animation_data.action}
    return max((float(a.frame_range[1]) for a in actions), default=0.0)


def _moved_by_more_than_curves(root, nodes: list[SceneNode], mode: str) -> bool:
    """Whether anything but the action's F-curves may move a node: constraints, drivers, NLA tracks, a
    blended action, or (for bones) inheritance settings other than the importer's."""
    if mode == "ARMATURE":
        holders = [root, root.data]
        bones = root.data.bones
        if any(not b.use_inherit_rotation or b.inherit_scale != "FULL" or not b.use_local_location
               or b.use_relative_parent or b.use_connect for b in bones):
            return True
        pose_bones = root.pose.bones
        if any(pb.constraints or pb.rotation_mode != "QUATERNION" for pb in pose_bones):
            return True
    else:
        holders = [root, *(bpy.data.objects[n.handle] for n in nodes)]
        if any(o.constraints or o.rotation_mode != "QUATERNION" for o in holders[1:]):
            return True
    for holder in holders:
        anim = holder.animation_data
        if anim is not None and (anim.drivers or anim.nla_tracks or anim.use_tweak_mode
                                 or anim.action_influence != 1.0 or anim.action_blend_type != "REPLACE"):
            return True
    return False


# --------------------------------------------------------------------- nodes
def _armature_nodes(root) -> list[SceneNode]:
    bones = list(root.data.bones)
    order = _parents_first(bones, lambda b: b.parent, lambda b: b.get(P.NODE_INDEX))
    position = {b.name: i for i, b in enumerate(order)}
    return [_scene_node(b, position[b.parent.name] if b.parent else None) for b in order]


def _empty_nodes(root) -> list[SceneNode]:
    empties = [o for o in root.children_recursive if o.type == "EMPTY"]
    in_set = {o.name for o in empties}

    def node_parent(obj):
        parent = obj.parent
        while parent is not None and parent.name not in in_set:
            parent = parent.parent
        return parent

    order = _parents_first(empties, node_parent, lambda o: o.get(P.NODE_INDEX))
    position = {o.name: i for i, o in enumerate(order)}
    return [_scene_node(o, position[node_parent(o).name] if node_parent(o) else None) for o in order]


def _scene_node(item, parent: int | None) -> SceneNode:
    """A bone or an Empty as a node: a renamed one (its name differs from the import's) takes its new name."""
    renamed = P.IMPORTED_NAME in item and item.name != item[P.IMPORTED_NAME]
    name = item.name if renamed else item.get(P.NAME, item.name)
    return SceneNode(name, parent, item.get(P.NODE_INDEX), item.name, renamed)


def _parents_first(items, parent_of, index_of) -> list:
    """Imported nodes in their msh_node_index order, new ones after; every parent before its children."""
    def key(item):
        index = index_of(item)
        return (0, index, "") if isinstance(index, int) else (1, 0, item.name)

    # Always the first item (in that order) whose parent is placed: a heap of the placeable ones.
    pending = sorted(items, key=key)
    position = {item.name: i for i, item in enumerate(pending)}
    children: dict[str, list[int]] = {}
    ready = []
    for i, item in enumerate(pending):
        parent = parent_of(item)
        if parent is None or parent.name not in position:
            ready.append(i)
        else:
            children.setdefault(parent.name, []).append(i)
    heapq.heapify(ready)
    order = []
    while ready:
        item = pending[heapq.heappop(ready)]
        order.append(item)
        for child in children.pop(item.name, []):
            heapq.heappush(ready, child)
    if len(order) != len(pending):  # cannot happen for Blender hierarchies; kept as a guard
        raise FormatError.single("scene", None, "node hierarchy has a cycle")
    return order


@contextmanager
def _evaluation_scene(context, root, frame: float):
    """A temporary scene holding only the model's objects, evaluated at ``frame``, so that stepping through
    frames evaluates just them (dependencies outside the model, such as constraint targets, come along
    through the depsgraph). Without it every frame would evaluate the whole scene, however many models it
    holds."""
    scene = bpy.data.scenes.new("io_msh export")
    try:
        scene.render.fps, scene.render.fps_base = context.scene.render.fps, context.scene.render.fps_base
        for obj in (root, *root.children_recursive):
            scene.collection.objects.link(obj)
        _set_frame(scene, frame)  # also builds the view layer's depsgraph
        yield scene, scene.view_layers[0].depsgraph
    finally:
        bpy.data.scenes.remove(scene)


def _world_reader(root, nodes: list[SceneNode], mode: str, depsgraph):
    """A function giving each node's evaluated matrix relative to the root object, at the current frame."""
    if mode == "ARMATURE":
        order = [root.pose.bones.find(n.handle) for n in nodes]

        def read() -> np.ndarray:
            bones = root.evaluated_get(depsgraph).pose.bones
            flat = np.empty(len(bones) * 16, np.float32)
            bones.foreach_get("matrix", flat)  # each matrix column by column
            return flat.reshape(-1, 4, 4).transpose(0, 2, 1)[order].astype(np.float64)
        return read
    objects = [bpy.data.objects[n.handle] for n in nodes]

    def read() -> np.ndarray:
        inverse = np.linalg.inv(np.array(root.evaluated_get(depsgraph).matrix_world))
        return np.array([inverse @ np.array(o.evaluated_get(depsgraph).matrix_world) for o in objects])
    return read


def _keyframe_times(curves: list[Curve], nodes: list[SceneNode]) -> dict[int, np.ndarray]:
    """Per node (position in ``nodes``): the frames of its keyframes."""
    position = {n.handle: i for i, n in enumerate(nodes)}
    times: dict[int, set] = {}
    for curve in curves:
        if curve.handle in position:
            times.setdefault(position[curve.handle], set()).update(curve.co[0::2].astype(np.float64).round(4).tolist())
    return {node: np.array(sorted(t)) for node, t in times.items()}


# --------------------------------------------------------------------- meshes
def _meshes(depsgraph, root, nodes, mode, node_world) -> tuple[list[SceneMesh], list[SceneMaterial], list[str]]:
    root_inverse = np.linalg.inv(np.array(root.evaluated_get(depsgraph).matrix_world))
    node_inverse = C.affine_inverse(node_world)
    by_handle = {n.handle: i for i, n in enumerate(nodes)}
    keys_by_name: dict[str, int] = {}
    materials: list[SceneMaterial] = []

    def key_of(material) -> int:
        name = material.name if material is not None else ""
        if name not in keys_by_name:
            keys_by_name[name] = len(materials)
            materials.append(_scene_material(material))
        return keys_by_name[name]

    meshes, warnings = [], []
    for obj in root.children_recursive:
        if obj.type != "MESH":
            continue
        strongest = _strongest_bones(obj, root, by_handle) if mode == "ARMATURE" else None
        node = _mesh_node(obj, root, by_handle, mode) if strongest is None else 0
        evaluated = obj.evaluated_get(depsgraph)
        mesh_in_root = root_inverse @ np.array(evaluated.matrix_world)
        mesh = evaluated.to_mesh()
        try:
            split = _split_vertices(mesh, obj.name)
            keys = [key_of(slot) for slot in mesh.materials] or [key_of(None)]
            face_keys = np.array(keys)[np.minimum(split["face_slots"], len(keys) - 1)]
        finally:
            evaluated.to_mesh_clear()
        stored = _stored(obj.data)
        modified = any(m.show_viewport for m in obj.modifiers) or obj.data.shape_keys is not None
        if strongest is None:
            meshes.append(_scene_mesh(obj, node, stored, split, face_keys, node_inverse, mesh_in_root, modified))
            continue
        corner_nodes = strongest[split["vertices"]][split["triangles"]]
        # A triangle goes to the bone two of its corners share, else to its first corner's.
        triangle_nodes = np.where(corner_nodes[:, 1] == corner_nodes[:, 2], corner_nodes[:, 1], corner_nodes[:, 0])
        used = np.unique(triangle_nodes)
        warnings.append(f"mesh {obj.name!r} is skinned to {len(used)} bones; MSH parts move rigidly with one "
                        "node, so it is split into one part per bone, each triangle going to the bone with the "
                        "strongest weight at its corners")
        for part_node in used.tolist():
            chosen = triangle_nodes == part_node
            vertices, triangles = np.unique(split["triangles"][chosen], return_inverse=True)
            part = {**split, "positions": split["positions"][vertices], "normals": split["normals"][vertices],
                    "uvs": split["uvs"][vertices], "triangles": triangles.reshape(-1, 3)}
            meshes.append(_scene_mesh(obj, part_node, stored, part, face_keys[chosen], node_inverse, mesh_in_root,
                                      True))
    return meshes, materials, warnings


def _scene_mesh(obj, node: int, stored, split, face_keys, node_inverse, mesh_in_root, modified) -> SceneMesh:
    """The mesh (or one rigid part of it) in its node's space (``node_inverse``: each node's inverse matrix)."""
    to_node = node_inverse[node] @ mesh_in_root
    positions = split["positions"] @ to_node[:3, :3].T + to_node[:3, 3]
    normals = split["normals"] @ np.linalg.inv(to_node[:3, :3])
    return SceneMesh(obj.name, node, int(obj.get(P.SLOT, 0)), *stored, positions, normals, split["uvs"],
                     split["triangles"], face_keys, to_node, modified)


def _strongest_bones(obj, root, by_handle) -> np.ndarray | None:
    """For a mesh skinned to several bones (an armature child, not bone-parented, whose vertex groups name
    two or more bones): each vertex's node, the bone of its largest weight. None for a rigid mesh."""
    if obj.parent != root or obj.parent_type == "BONE":
        return None
    group_node = {g.index: by_handle[g.name] for g in obj.vertex_groups if g.name in by_handle}
    if len(group_node) < 2:
        return None
    strongest = np.full(len(obj.data.vertices), -1, np.int64)
    for vertex in obj.data.vertices:
        weights = [(g.weight, group_node[g.group]) for g in vertex.groups if g.group in group_node and g.weight > 0]
        if weights:
            strongest[vertex.index] = max(weights)[1]
    if (strongest < 0).any():
        raise FormatError.single("scene", None, f"mesh {obj.name!r}: {int((strongest < 0).sum())} vertices have no "
                                                f"weight on a bone (vertex groups: "
                                                f"{', '.join(sorted(g.name for g in obj.vertex_groups))})")
    return strongest


def _scene_material(material) -> SceneMaterial:
    if material is None:
        return SceneMaterial("")
    image = _base_image(material)
    principled = next((n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None) \
        if material.node_tree else None
    diffuse = tuple(material.diffuse_color)
    if principled is not None and not principled.inputs["Base Color"].is_linked:
        diffuse = (*principled.inputs["Base Color"].default_value[:3], principled.inputs["Alpha"].default_value)
    return SceneMaterial(
        material.name, material.get(P.MATERIAL), material.get(P.WEAR_NAME), material.get(P.LIGHTMAP),
        tuple(float(c) for c in diffuse), _blend(material), image)


def _blend(material) -> str:
    """ADD for an emission-over-transparency tree, BLEND for blended materials, else OPAQUE."""
    kinds = {n.type for n in material.node_tree.nodes} if material.node_tree else set()
    if {"ADD_SHADER", "EMISSION", "BSDF_TRANSPARENT"} <= kinds:
        return "ADD"
    blended = material.blend_method == "BLEND" or material.surface_render_method == "BLENDED"
    return "BLEND" if blended else "OPAQUE"


def _base_image(material) -> SceneImage | None:
    """The first image of the tree that is not on the lightmap UV map, with its pixels if it is new."""
    if not material.node_tree:
        return None
    for node in material.node_tree.nodes:
        if node.type != "TEX_IMAGE" or node.image is None:
            continue
        uv = node.inputs["Vector"].links[0].from_node if node.inputs["Vector"].is_linked else None
        if uv is not None and uv.type == "UVMAP" and uv.uv_map == LIGHTMAP_UV:
            continue
        image = node.image
        key = image.get(P.TEXTURE)
        return SceneImage(image.name, key, None if key else _pixels(image))
    return None


def _pixels(image) -> np.ndarray | None:
    width, height = image.size[:2]
    if not width or not height:
        return None
    flat = np.zeros(width * height * 4, np.float32)
    image.pixels.foreach_get(flat)
    return np.flipud(np.rint(np.clip(flat, 0, 1) * 255).astype(np.uint8).reshape(height, width, 4))


def _mesh_node(obj, root, by_handle, mode) -> int:
    if mode == "ARMATURE":
        if obj.parent == root and obj.parent_type == "BONE" and obj.parent_bone in by_handle:
            return by_handle[obj.parent_bone]
        groups = [g.name for g in obj.vertex_groups if g.name in by_handle]
        if obj.parent == root and len(groups) == 1:
            return by_handle[groups[0]]
        named = f"; its vertex groups ({', '.join(sorted(g.name for g in obj.vertex_groups))}) name no bone" \
            if obj.vertex_groups and not groups else ""
        raise FormatError.single("scene", None, f"mesh {obj.name!r} is not attached to a node: parent it to a "
                                                f"bone or weight it to bones (MSH parts move rigidly with one "
                                                f"node){named}")
    parent = obj.parent
    while parent is not None and parent.name not in by_handle:
        parent = parent.parent
    if parent is None:
        raise FormatError.single("scene", None, f"mesh {obj.name!r} is not attached to a node: "
                                                "parent it to one of the model's Empties")
    return by_handle[parent.name]


def _stored(mesh) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    co = np.zeros(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    loops = np.zeros(len(mesh.loops), np.int64)
    mesh.loops.foreach_get("vertex_index", loops)
    totals = np.zeros(len(mesh.polygons), np.int64)
    mesh.polygons.foreach_get("loop_total", totals)
    triangles = loops.reshape(-1, 3) if np.all(totals == 3) else None
    uvs = None
    if mesh.uv_layers:
        uvs = np.zeros(len(mesh.loops) * 2)
        mesh.uv_layers[0].data.foreach_get("uv", uvs)
        uvs = uvs.reshape(-1, 2)
    return co.reshape(-1, 3), triangles, uvs


def _split_vertices(mesh, name: str) -> dict[str, np.ndarray]:
    """Triangulate and give every distinct (vertex, normal, uv) corner its own MSH vertex."""
    mesh.calc_loop_triangles()
    count = len(mesh.loop_triangles)
    if count == 0 and len(mesh.polygons):
        raise FormatError.single("scene", None, f"mesh {name!r} has polygons that cannot be triangulated")
    loops = np.zeros(count * 3, np.int64)
    mesh.loop_triangles.foreach_get("loops", loops)
    face_slots = np.zeros(count, np.int64)
    mesh.loop_triangles.foreach_get("material_index", face_slots)
    vertex_of_loop = np.zeros(len(mesh.loops), np.int64)
    mesh.loops.foreach_get("vertex_index", vertex_of_loop)
    co = np.zeros(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    normals = np.zeros(len(mesh.loops) * 3)
    mesh.corner_normals.foreach_get("vector", normals)
    normals = normals.reshape(-1, 3)
    uvs = np.zeros((len(mesh.loops), 2))
    if mesh.uv_layers:
        flat = np.zeros(len(mesh.loops) * 2)
        mesh.uv_layers.active.data.foreach_get("uv", flat)
        uvs = flat.reshape(-1, 2)
    corner_key = np.column_stack([vertex_of_loop[loops], np.round(normals[loops] * 127), np.round(uvs[loops] * 1024)])
    # Rows compared as bytes (+ 0.0 turns -0.0 into 0.0): faster than np.unique(axis=0), which compares
    # column by column; then put in the order of their values (vertex index first), as that gave them.
    rows = np.ascontiguousarray(corner_key + 0.0).view(np.dtype((np.void, corner_key.dtype.itemsize * 6)))[:, 0]
    _unique, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.lexsort(corner_key[first].T[::-1])
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first, inverse = first[order], rank[inverse.ravel()]
    chosen = loops[first]
    return {
        "positions": co[vertex_of_loop[chosen]],
        "normals": normals[chosen],
        "uvs": uvs[chosen],
        "triangles": inverse.reshape(-1, 3),
        "face_slots": face_slots,
        "vertices": vertex_of_loop[chosen],
    }
