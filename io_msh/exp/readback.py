"""Reading a model back out of Blender for export: its nodes, their evaluated poses, its meshes.

Everything is returned as plain numpy data (io_msh.exp.scene_model), so that the decisions of the export
(io_msh.exp.plan) need no Blender. Where the F-curves alone give the poses (io_msh.exp.poses), no frame is
stepped through."""

from __future__ import annotations

import heapq
from collections.abc import Generator
from contextlib import ExitStack, contextmanager
from typing import TypeVar

import bpy
import numpy as np

from ...core.errors import FormatError
from ..com import conversion as C
from ..com import props as P
from ..com.curves import Curve, read_curves
from ..com.hierarchy import descendants, node_empties
from ..com.sliders import muted_drivers, slider_drivers, sliders_muted
from .frames import check_held
from .game_fields import node_flags
from .hallway import read_shown_hallway
from .meshes import read_meshes
from .poses import (
    curve_poses,
    curves_as_imported,
    frame_inverses,
    local_matrices,
    moved_by_more_than_curves,
    same_pose,
    shows_runtime_pose,
)
from .scene_model import SceneModel, SceneNode

T = TypeVar("T")


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
    instanced = _instanced_model(context.active_object)
    if instanced is not None:
        raise FormatError.single("scene", None, f"{context.active_object.name!r} is an instance of the collection "
                                                f"{instanced.name!r} (as the Asset Browser's Link places an asset), "
                                                "which cannot be exported: drag the asset in with the Import Method "
                                                "Append, and export that")
    roots = [o for o in context.scene.objects if P.MODEL in o]
    if len(roots) == 1:
        return roots[0]
    active = context.active_object
    if active is not None and active.type in ("ARMATURE", "EMPTY"):
        return active
    what = "several models are in the scene" if roots else "no model root (an armature or an Empty) is selected"
    raise FormatError.single("scene", None, f"{what}; select the model to export")


def read_scene(context, root: bpy.types.Object, frames: np.ndarray, keyframes: bool = False,
               curves: list | None = None, meshes: dict | None = None) -> SceneModel:
    """The model under ``root`` at ``frames``; ``curves`` are its read_curves when already read; with
    ``keyframes`` the frames of each node's keyframes too. ``meshes``: ``read_mesh`` of mesh objects already
    read from the user's depsgraph (by name), used when the scene is read from it."""
    return completed(scene_steps(context, root, frames, keyframes, curves, meshes))


def completed(steps: Generator[None, None, T]) -> T:
    """What a generator of steps (``scene_steps``) returns, its steps run at once."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def scene_steps(context, root: bpy.types.Object, frames: np.ndarray, keyframes: bool = False,
                curves: list | None = None, meshes: dict | None = None,
                pause: bool = False) -> Generator[None, None, SceneModel]:
    """``read_scene`` as a generator returning its result. With ``pause`` it yields between parts of the read
    (the live check returns to Blender there; the caller drops the read when the scene changes meanwhile),
    only while the read changed nothing in Blender: no driver parked, the user's own depsgraph read (no
    evaluation scene made); otherwise, and without ``pause``, it never yields."""
    mode = "ARMATURE" if root.type == "ARMATURE" else "EMPTIES"
    nodes = _armature_nodes(root) if mode == "ARMATURE" else _empty_nodes(root)
    if not nodes:
        raise FormatError.single("scene", None, f"{root.name!r} has no nodes: add bones or child Empties")
    source = root.get(P.SOURCE)
    source = bytes(source) if source is not None else None
    with ExitStack() as stack:
        stack.enter_context(sliders_muted(root))  # a controller's channel sliders are not the model's pose
        scene = None
        if _shown_at(context, root, frames[0]):  # the user's depsgraph already holds the first frame
            depsgraph = context.evaluated_depsgraph_get()
        else:
            scene, depsgraph = stack.enter_context(_evaluation_scene(context, root, frames[0]))
        shown = _world_reader(root, nodes, mode, depsgraph)()
        meshes, materials, warnings = read_meshes(depsgraph, root, nodes, mode, shown,
                                                  meshes if scene is None else None)
        pause = pause and scene is None and not slider_drivers(root) and not muted_drivers(root)
        if pause:
            yield
        curves = read_curves(root) if curves is None else curves
        local = local_matrices(shown[:, None], nodes)
        moved_nodes = moved_by_more_than_curves(root, nodes, mode)
        moved = bool(moved_nodes)
        node_scaled = scale_set(root, nodes, mode, curves)
        scaled = moved or node_scaled
        # A scaled node is exported as it shows (scene_read.bake_node_scale): every frame is needed.
        as_imported = not moved and not (scaled and C.has_scale(local, [n.parent for n in nodes])) \
            and shows_runtime_pose(root, nodes, source, curves, local, frames[0])
        if pause:
            yield
        from_curves = None if as_imported or moved else curve_poses(root, nodes, mode, curves)
        untouched: set[int] = set()
        poses = None
        if as_imported:
            frames = frames[:1]
        elif from_curves is not None and same_pose(first := from_curves(frames[:1]), local):
            # The curves give the pose Blender shows (rest poses, parenting and unkeyed channels as it has
            # them), so they give every frame's: the export evaluates the nodes and frames it needs.
            local, poses = first, from_curves
            if pause:
                yield
            untouched = curves_as_imported(root, nodes, curves)
        else:
            check_held(len(nodes), len(frames), "something other than plain F-curves moves the nodes (a "
                       "constraint, driver, NLA track, F-curve modifier, or a pose not keyed), so Blender is stepped "
                       "through every frame", "bake it into keyframes (Pose > Animation > Bake Action, with "
                       "Visual Keying and Clear Constraints)")
            if scene is None:
                scene, depsgraph = stack.enter_context(_evaluation_scene(context, root, frames[0]))
            # Only the nodes are needed from here on: the meshes leave the scene (so the frames do not
            # evaluate them; anything a node depends on still comes along through the depsgraph).
            for obj in [o for o in scene.collection.objects if o.type == "MESH"]:
                scene.collection.objects.unlink(obj)
            read = _world_reader(root, nodes, mode, depsgraph)
            local = local_matrices(np.stack([_world_at(scene, read, f) for f in frames], axis=1), nodes)
            if not node_scaled:  # a node only its own curves, as imported, move keeps its keys beside the others
                untouched = curves_as_imported(root, nodes, curves) - moved_nodes
    wear = root.get(P.WEAR)
    return SceneModel(
        root.name, str(root.get(P.MODEL) or f"{root.name}.msh"), source,
        mode, np.asarray(frames, np.float64), nodes, local, meshes, materials,
        _keyframe_times(curves, nodes) if keyframes else {}, str(root.get(P.SLOTS, "ALL")),
        int(root.get(P.SLOT_POSITION, 0)), bytes(wear) if wear is not None else None, as_imported,
        root.get(P.ANIMATION_MODE), warnings, untouched, poses, scaled, hallway=read_shown_hallway(root))


SET_SCALE = 1e-6  # a scale value (float32) this close to 1 is 1


def scale_set(root, nodes: list[SceneNode], mode: str, curves: list[Curve]) -> bool:
    """Whether something the user sets scales a node relative to the root: a scale or delta scale channel of a
    node other than 1, keyed or not, or (Empties) a parent inverse that is not a rotation. Judged on the
    values the user sets, not on the float32 matrices, whose rounding grows down a chain."""
    handles = {n.handle for n in nodes}
    if any(c.handle in handles and c.path.lstrip(".") in ("scale", "delta_scale") for c in curves):
        return True
    if mode == "ARMATURE":
        bones = root.pose.bones
        flat = np.empty(len(bones) * 3, np.float32)
        bones.foreach_get("scale", flat)
        return bool(np.abs(flat - 1).max(initial=0) > SET_SCALE)
    objects = [bpy.data.objects[n.handle] for n in nodes]
    allowed = {root.name, *(o.name for o in objects)}
    if any(o.parent is None or o.parent.name not in allowed for o in objects):
        return True  # an object between two nodes may be scaled: judged on the matrices
    values = np.array([[*o.scale, *o.delta_scale] for o in objects], np.float64).reshape(-1, 6)
    inverse = np.array([np.array(o.matrix_parent_inverse)[:3, :3] for o in objects]).reshape(-1, 3, 3)
    gram = np.swapaxes(inverse, -1, -2) @ inverse
    return bool(np.abs(values - 1).max(initial=0) > SET_SCALE
                or np.abs(gram - np.eye(3)).max(initial=0) > 2 * C.SCALE_TOLERANCE
                or (np.linalg.det(inverse) < 0).any())


def _set_frame(scene, frame: float) -> None:
    scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))


def _world_at(scene, read, frame: float) -> np.ndarray:
    _set_frame(scene, frame)
    return read()


def _instanced_model(obj) -> bpy.types.Collection | None:
    """The collection ``obj`` instances when a model is in it (a linked asset), else None."""
    if obj is None or obj.instance_type != "COLLECTION" or obj.instance_collection is None:
        return None
    collection = obj.instance_collection
    return collection if any(P.MODEL in o for o in collection.all_objects) else None


def _shown_at(context, root, frame: float) -> bool:
    """Whether the user's view layer shows the whole model at ``frame`` now, so that its evaluated state
    can be read without a temporary scene (whose removal makes Blender rebuild every scene's relations)."""
    scene, view_layer = context.scene, context.view_layer
    return (scene.frame_current == frame and scene.frame_subframe == 0.0
            and all(o.visible_get(view_layer=view_layer) for o in (root, *descendants(root))))


def _armature_nodes(root) -> list[SceneNode]:
    bones = list(root.data.bones)
    order = _parents_first(bones, lambda b: b.parent, lambda b: b.get(P.NODE_INDEX))
    position = {b.name: i for i, b in enumerate(order)}
    return [_scene_node(b, position[b.parent.name] if b.parent else None) for b in order]


def _empty_nodes(root) -> list[SceneNode]:
    empties = node_empties(root)
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
    return SceneNode(name, parent, item.get(P.NODE_INDEX), item.name, renamed, node_flags(item))


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


EVALUATION_SCENE = "io_msh_evaluation"  # a custom property marking ``_evaluation_scene``'s scene


@contextmanager
def _evaluation_scene(context, root, frame: float):
    """A temporary scene holding only the model's objects, evaluated at ``frame``, so that stepping through
    frames evaluates just them (dependencies outside the model, such as constraint targets, come along
    through the depsgraph). Without it every frame would evaluate the whole scene, however many models it
    holds."""
    scene = bpy.data.scenes.new("io_msh export")
    scene[EVALUATION_SCENE] = True
    try:
        scene.render.fps, scene.render.fps_base = context.scene.render.fps, context.scene.render.fps_base
        for obj in (root, *descendants(root)):
            scene.collection.objects.link(obj)
        _set_frame(scene, frame)  # also builds the view layer's depsgraph
        yield scene, scene.view_layers[0].depsgraph
    finally:
        bpy.data.scenes.remove(scene)


def _world_reader(root, nodes: list[SceneNode], mode: str, depsgraph):
    """A function giving each node's evaluated matrix relative to the root object, at the current frame."""
    if mode == "ARMATURE":
        order = [root.pose.bones.find(n.handle) for n in nodes]
        untwist = frame_inverses(root, nodes)

        def read() -> np.ndarray:
            bones = root.evaluated_get(depsgraph).pose.bones
            flat = np.empty(len(bones) * 16, np.float32)
            bones.foreach_get("matrix", flat)  # each matrix column by column
            return flat.reshape(-1, 4, 4).transpose(0, 2, 1)[order].astype(np.float64) @ untwist
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
