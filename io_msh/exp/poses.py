"""Whether the F-curves alone give the nodes' poses: the import's curves left as they were (the tracks are
then kept), or curves evaluated in numpy (io_msh.exp.fcurves) instead of stepping Blender through the frames."""

from __future__ import annotations

import bpy
import numpy as np
from mathutils import Quaternion

from ...core.msh import streams as S
from ...core.msh.model import Model
from ..com import conversion as C
from ..com import props as P
from ..com.curves import Curve, action_end, fingerprint, node_fcurves, stored_fingerprints, unchanged
from .fcurves import BEZIER, evaluate, reproducible
from .scene_model import SceneNode
from .unedited import same_as_imported


def local_matrices(world: np.ndarray, nodes: list[SceneNode]) -> np.ndarray:
    """(nodes, frames, 4, 4) matrices relative to the root made relative to each node's parent."""
    local = world.copy()
    children = [i for i, n in enumerate(nodes) if n.parent is not None]
    if children:
        parents = [nodes[i].parent for i in children]
        local[children] = C.affine_inverse(world[parents]) @ world[children]
    return local


def shows_runtime_pose(root, nodes: list[SceneNode], source: bytes | None, curves: list, first_local: np.ndarray,
                 frame: float) -> bool:
    """For nodes nothing but their curves moves: whether they show the source's runtime pose at every frame
    without stepping through them (the importer's curves unchanged, and the first frame's pose the one the
    import showed: the runtime's, or for KEYS the keys', unedited.same_as_imported)."""
    stored = stored_fingerprints(root)
    if source is None or stored is None:
        return False
    if not unchanged(curves, stored):
        return False
    model = Model.parse(source, str(root.get(P.MODEL, "")))
    if model.is_legacy or [n.index for n in nodes] != list(range(model.node_count)):
        return False
    parents = [None if p == S.NO_INDEX else int(p) for p in model.nodes["parent"]]
    if [n.parent for n in nodes] != parents:
        return False
    return bool(same_as_imported(model, *C.local_poses(first_local), np.array([frame]),
                                 root.get(P.ANIMATION_MODE)).all())


def exported_action_end(root, curves: list[Curve], frame_range: str) -> float:
    """``action_end`` of the model; for a model the import wrote no F-curve for (its animation moves no node: a
    FAITHFUL import of maps that each hold one key) and that still has none, its last imported frame, as the
    action would end had the import made one: no action was deleted, none was ever made."""
    stored = stored_fingerprints(root)
    count = root.get(P.FRAME_COUNT)
    if frame_range == "ACTION" and not curves and stored is not None and stored["nodes"] == {} \
            and root.get(P.ANIMATION_MODE, "NONE") != "NONE" and P.SOURCE in root \
            and isinstance(count, int) and not isinstance(count, bool) and count > 1:
        return float(count - 1)
    return action_end(root, frame_range)


def curves_as_imported(root, nodes: list[SceneNode], curves: list[Curve]) -> set[int]:
    """The nodes (positions in ``nodes``) whose own F-curves are exactly the ones the import wrote for their
    msh_node_index (a bone copied with Shift+D carries its original's index, not its curves)."""
    stored = stored_fingerprints(root)
    if stored is None or not stored["nodes"]:
        return set()
    by_handle: dict[str, list[Curve]] = {}
    for curve in curves:
        by_handle.setdefault(curve.handle, []).append(curve)
    none = fingerprint([])
    return {i for i, node in enumerate(nodes) if node.index is not None
            and fingerprint(by_handle.get(node.handle, [])) == stored["nodes"].get(str(node.index), none)}


def read_for_evaluation(root, curves: list[Curve]) -> None:
    """Add to ``read_curves(root)`` what io_msh.exp.fcurves needs to evaluate them."""
    for curve, (fcurve, *_where) in zip(curves, node_fcurves(root), strict=True):
        if curve.left is None:  # not read ahead (io_msh.exp.live_check)
            read_evaluation(curve, fcurve)


def read_evaluation(curve: Curve, fcurve) -> None:
    """``read_for_evaluation`` of one curve."""
    curve.left, curve.right = read_handles(fcurve.keyframe_points, curve.co, curve.interpolation)
    curve.extrapolation = fcurve.extrapolation
    curve.plain = (not fcurve.mute and not fcurve.modifiers and not (fcurve.group and fcurve.group.mute)
                   and reproducible(curve.co, curve.left, curve.right, curve.interpolation))


def read_handles(points, co: np.ndarray, interpolation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The keys' (left, right) handles as ``fcurves.evaluate`` needs them: read for a curve with a Bezier key;
    for the others the keys themselves (constant and linear keys, and their extrapolation, read no handle)."""
    if not (interpolation == BEZIER).any():
        return co, co
    left, right = np.empty(len(co), np.float32), np.empty(len(co), np.float32)
    points.foreach_get("handle_left", left)
    points.foreach_get("handle_right", right)
    return left, right


CHANNELS = {"location": 3, "rotation_quaternion": 4, "scale": 3}  # what moves a node (quaternion mode)


SAME_POSE = 1e-5  # how close the curves' pose must be to the one Blender shows (relative to its size)


def curve_poses(root, nodes: list[SceneNode], mode: str, curves: list[Curve]):
    """For nodes nothing but their curves moves: a function giving their local matrices (nodes, frames, 4, 4)
    at any frames (of any of the nodes) from the F-curves alone (io_msh.exp.fcurves), without Blender stepping
    through them; None when a curve is not one ``fcurves.evaluate`` reproduces."""
    read_for_evaluation(root, curves)
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
        offsets = local_matrices(rest[:, None].astype(np.float64), nodes)[:, 0]  # each bone's rest in its parent's
        untwist = frame_inverses(root, nodes)  # a bone's matrix is its node's @ its frame: back to the nodes'
        twist = np.swapaxes(untwist, -1, -2)
        offsets = np.array([offsets[i] if n.parent is None else twist[n.parent] @ offsets[i]
                            for i, n in enumerate(nodes)])
    else:
        objects = [bpy.data.objects[n.handle] for n in nodes]
        parents = [root if n.parent is None else objects[n.parent] for n in nodes]
        if any(o.parent != p or o.parent_type != "OBJECT" for o, p in zip(objects, parents)):
            return None
        static = {name: np.array([_static_rotation(o) if name == "rotation_quaternion" else getattr(o, name)
                                  for o in objects], np.float64) for name in CHANNELS}
        offsets = np.array([o.matrix_parent_inverse for o in objects], np.float64)
        untwist = None

    def poses(frames, nodes=None) -> np.ndarray:
        """(len(nodes), len(frames), 4, 4); ``nodes`` positions in the node list, default all. Each node's
        matrices depend on its own curves alone, so a subset gives the same values as all of them."""
        frames = np.asarray(frames, np.float64)
        chosen = np.arange(len(offsets)) if nodes is None else np.asarray(nodes, np.int64).reshape(-1)
        row = {int(n): i for i, n in enumerate(chosen)}
        values = {name: np.repeat(v[chosen][:, None], len(frames), axis=1) for name, v in static.items()}
        picked = [k for k, (node, _path, _index) in enumerate(channels) if node in row]
        for k, curve_values in zip(picked, evaluate([animated[k] for k in picked], frames)):
            node, path, index = channels[k]
            values[path][row[node], :, index] = curve_values
        basis = C.matrices(values["rotation_quaternion"], values["location"])
        basis[..., :3, :3] *= values["scale"][..., None, :]
        local = offsets[chosen][:, None] @ basis
        return local if untwist is None else local @ untwist[chosen][:, None]
    # Quaternions are normalised: only scale curves can make a node's matrix other than a rotation at some frame.
    poses.scale_curves = any(path == "scale" for _node, path, _index in channels)
    return poses


def _static_rotation(obj) -> tuple[float, ...]:
    """An Empty's rotation as a quaternion in whatever mode it is set (a mode other than quaternions only on an
    Empty without animation: ``moved_by_more_than_curves``), as Blender turns it."""
    if obj.rotation_mode == "QUATERNION":
        return tuple(obj.rotation_quaternion)
    if obj.rotation_mode == "AXIS_ANGLE":
        angle, *axis = obj.rotation_axis_angle
        return tuple(Quaternion(axis, angle))
    return tuple(obj.rotation_euler.to_quaternion())


def frame_inverses(root, nodes: list[SceneNode]) -> np.ndarray:
    """(nodes, 4, 4) the inverse of each bone's frame (io_msh.com.conversion.bone_frames): a bone's matrix
    times it is its node's."""
    bones = root.data.bones
    turns = np.array([P.bone_frame(bones[n.handle]) for n in nodes]).reshape(-1, 4)
    return C.matrices(C.conjugate(turns), np.zeros((len(nodes), 3)))


def same_pose(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.all(np.abs(a - b) <= SAME_POSE * (1 + np.abs(b))))


def moved_by_more_than_curves(root, nodes: list[SceneNode], mode: str) -> set[int]:
    """The nodes (positions in ``nodes``) that anything but the action's F-curves may move: constraints,
    drivers, NLA tracks, a blended action, or (for bones) inheritance settings other than the importer's. What
    holds on the root (or the armature) may move every node."""
    everything = set(range(len(nodes)))
    if mode == "ARMATURE":
        if _moved_by_animation(root) or _moved_by_animation(root.data) or root.data.pose_position != "POSE":
            return everything  # (the rest position shows every bone at rest, whatever its curves say)
        bones, pose_bones = root.data.bones, root.pose.bones
        odd = {b.name for b in bones if not b.use_inherit_rotation or b.inherit_scale != "FULL"
               or not b.use_local_location or b.use_relative_parent or b.use_connect}
        odd |= {pb.name for pb in pose_bones if pb.constraints or pb.rotation_mode != "QUATERNION"}
        return {i for i, n in enumerate(nodes) if n.handle in odd}
    if _moved_by_animation(root):
        return everything
    moved = set()
    for i, node in enumerate(nodes):
        obj = bpy.data.objects[node.handle]
        # An Empty turned in Euler or axis-angle mode (a new Empty's default) is read as it stands while nothing
        # animates it; keyed, its curves are not the quaternion curves io_msh.exp.fcurves evaluates.
        if obj.constraints or (obj.rotation_mode != "QUATERNION" and obj.animation_data is not None) \
                or _moved_by_animation(obj) or _has_delta(obj):
            moved.add(i)
    return moved


def _has_delta(obj) -> bool:
    """Delta transforms: an offset the curves know nothing of."""
    return any(abs(v) > 0 for v in obj.delta_location) or any(abs(v) > 0 for v in obj.delta_rotation_euler) \
        or any(abs(v - w) > 0 for v, w in zip(obj.delta_rotation_quaternion, (1, 0, 0, 0), strict=True)) \
        or any(abs(v - 1) > 0 for v in obj.delta_scale)


def _moved_by_animation(holder) -> bool:
    """Drivers, NLA tracks, tweak mode or a blended action on ``holder`` (muted ones have no effect)."""
    anim = holder.animation_data
    if anim is None:
        return False
    return bool([d for d in anim.drivers if not d.mute] or [t for t in anim.nla_tracks if not t.mute]
                or anim.use_tweak_mode or anim.action_influence != 1.0 or anim.action_blend_type != "REPLACE")
