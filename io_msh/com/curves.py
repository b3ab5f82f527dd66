"""The model's F-curves, as the import writes them and the export reads them back: which curves animate the
model's nodes, their keys, and fingerprints that tell whether they are still the ones the import wrote.

The importer stores the fingerprints of the curves it wrote (``curves_fingerprint``: of each node's); at export,
curves with the same fingerprints, on nodes nothing else moves, whose pose at the first exported frame is the
runtime's, show the runtime's pose at every frame (io_msh.exp.poses)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

import bpy
import numpy as np

from ...core.errors import FormatError
from . import props as P
from .hierarchy import node_empties


@dataclass
class Curve:
    """One F-curve as read back: whose it is, what it drives, and its keys."""

    node: int                 # msh_node_index, -1 for the root or a node made in Blender
    handle: str               # the bone or Empty it animates ('' for the root object)
    path: str                 # the property, without the pose bone prefix
    index: int                # array index
    co: np.ndarray            # float32 (frame, value) pairs, flattened
    interpolation: np.ndarray  # int32 per key
    settings: str             # extrapolation, mute and modifier count as text
    # Read for evaluation only:
    left: np.ndarray | None = None   # float32 handle pairs, flattened
    right: np.ndarray | None = None
    extrapolation: str = "CONSTANT"
    plain: bool = False       # ``evaluate`` gives Blender's values: not muted, no modifier, ``reproducible``


def read_curves(root) -> list[Curve]:
    """Every F-curve that animates the root or a node (a bone, or an Empty below the root)."""
    return [read_curve(*where) for where in node_fcurves(root)]


def still_read(root, curves: list[Curve]) -> bool:
    """Whether ``curves`` (read earlier) are still the root's F-curves, one for one (the same holders, paths
    and key counts): what moves them without a depsgraph update (a bone rename followed) makes them read again."""
    where = list(node_fcurves(root))
    return len(where) == len(curves) and all(
        (c.node, c.handle, c.path, c.index, len(c.co)) == (t, o, p, f.array_index, 2 * len(f.keyframe_points))
        for c, (f, t, o, p) in zip(curves, where))


def read_curve(fcurve, target: int, owner: str, path: str) -> Curve:
    """One F-curve of ``node_fcurves`` as ``read_curves`` reads it."""
    points = fcurve.keyframe_points
    co = np.empty(2 * len(points), np.float32)
    points.foreach_get("co", co)
    interpolation = np.empty(len(points), np.int32)
    points.foreach_get("interpolation", interpolation)
    settings = curve_settings(fcurve.extrapolation, fcurve.mute, len(fcurve.modifiers))
    return Curve(target, owner, path, fcurve.array_index, co, interpolation, settings)


POSE_BONES = 'pose.bones["'


def pose_bone_path(bone: str, rest: str = ".") -> str:
    """The data path of a pose bone followed by ``rest`` (``pose.bones["name"].`` by default), the name escaped as
    Blender escapes it (quotes, backslashes, control characters)."""
    return f'{POSE_BONES}{bpy.utils.escape_identifier(bone)}"]{rest}'


def pose_bone_of(path: str) -> tuple[str | None, str]:
    """(the bone a pose bone path names, the rest of the path: ``.location``); (None, path) for other paths."""
    if not path.startswith(POSE_BONES):
        return None, path
    i = len(POSE_BONES)
    while i < len(path) and path[i] != '"':
        i += 2 if path[i] == "\\" else 1
    if path[i:i + 2] != '"]':
        return None, path
    return bpy.utils.unescape_identifier(path[len(POSE_BONES):i]), path[i + 2:]


def node_fcurves(root):
    """(F-curve, msh_node_index, bone or Empty name, property path) for every F-curve animating the root
    ('' and -1) or a node, in a fixed order."""
    from ..com import compat

    index_of = {b.name: b.get(P.NODE_INDEX, -1) for b in root.data.bones} if root.type == "ARMATURE" else {}
    for id_block, handle in animated_ids(root):
        node = id_block.get(P.NODE_INDEX, -1) if handle else -1
        for fcurve in compat.assigned_fcurves(id_block):
            path, target, owner = fcurve.data_path, node, handle
            if root.type == "ARMATURE":
                bone, rest = pose_bone_of(path)
                if bone is not None:
                    path, owner, target = rest, bone, index_of.get(bone, -1)
            yield fcurve, target, owner, path


def animated_ids(root) -> list[tuple[bpy.types.ID, str]]:
    """What actions animating the model hang on, with the Empty's name ('' for the root): the root (an
    armature's actions animate its bones), and for Empties every Empty below it."""
    if root.type == "ARMATURE":
        return [(root, "")]
    return [(root, "")] + [(o, o.name) for o in node_empties(root)]


def action_end(root: bpy.types.Object, frame_range: str = "ACTION") -> float:
    """The last frame of the actions animating the model (their manual frame range when they have one,
    as the importer sets it, else their last keyframe); 0 without animation. For the Action range, an
    imported animated model that no action animates any more (its timeline action deleted or unassigned) is
    refused: its range would be frame 0 alone, while its tracks and its controller play more."""
    actions = _assigned_actions(root)
    last = _imported_last_frame(root)
    if not actions and last and frame_range == "ACTION":
        raise FormatError.single("scene", None, f"no action animates {root.name!r} (its timeline action was deleted "
                                                f"or unassigned), so the Action frame range is frame 0 alone, while "
                                                f"the model's tracks and controller play frames 0..{last}: undo the "
                                                "deletion (Ctrl+Z) or assign the timeline action; to write the nodes "
                                                "still, as they show, choose Frame Range: Scene or Custom")
    return max((float(a.frame_range[1]) for a in actions), default=0.0)


def _assigned_actions(root: bpy.types.Object) -> set:
    return {h.animation_data.action for h, _name in animated_ids(root)
            if h.animation_data and h.animation_data.action}


def _imported_last_frame(root: bpy.types.Object) -> int:
    """The last frame of an imported model whose animation the import brought in (0 otherwise)."""
    count = root.get(P.FRAME_COUNT)
    if P.SOURCE not in root or root.get(P.ANIMATION_MODE, "NONE") == "NONE" \
            or not isinstance(count, (int, float)) or isinstance(count, bool) or not count > 1:
        return 0
    return int(count) - 1


def still_model_warning(root: bpy.types.Object) -> list[str]:
    """The warning for an imported animated model no action animates, exported over a range chosen (Scene or
    Custom; ``action_end`` refuses the Action range), else none."""
    last = _imported_last_frame(root)
    if _assigned_actions(root) or not last:
        return []
    return [f"no action animates {root.name!r} (its timeline action was deleted or unassigned): its nodes are "
            "written still, as they show now; undo the deletion (Ctrl+Z) or assign the timeline action to keep "
            "the animation"]


def keyframe_frames(curves: list[Curve]) -> np.ndarray:
    """The frames of every keyframe of ``curves``."""
    frames = [c.co[0::2] for c in curves]
    return np.concatenate(frames).astype(np.float64) if frames else np.zeros(0)


def fingerprint(curves: Iterable[Curve]) -> str:
    """Digest of F-curves, in any order. Names are left out: a rename keeps the curves as imported."""
    digest = hashlib.sha1()
    for c in sorted(curves, key=lambda c: (c.node, c.path, c.index)):
        digest.update(f"{c.node}|{c.path}|{c.index}|{c.settings}|{len(c.co)}".encode())
        digest.update(np.ascontiguousarray(c.co, np.float32))  # the array's bytes, not copied
        digest.update(np.ascontiguousarray(c.interpolation, np.int32))
    return digest.hexdigest()


def curve_settings(extrapolation: str, mute: bool, modifiers: int) -> str:
    """What a Curve records of an F-curve's settings (its ``settings`` text)."""
    return f"{extrapolation}|{mute}|{modifiers}"


NEW_CURVE = curve_settings("CONSTANT", False, 0)  # an F-curve as FCurves.new makes it


def curves_fingerprint(root: bpy.types.Object) -> str:
    """The fingerprints of the F-curves animating the model's nodes (``fingerprints``)."""
    return fingerprints(read_curves(root))


def node_fingerprints(curves: list[Curve]) -> dict[str, str]:
    """The fingerprint of each node's ``curves``, by msh_node_index (a text)."""
    by_node: dict[int, list[Curve]] = {}
    for curve in curves:
        by_node.setdefault(curve.node, []).append(curve)
    return {str(n): fingerprint(c) for n, c in by_node.items()}


def fingerprints(curves: list[Curve]) -> str:
    """What the import stores of ``curves`` (P.CURVES): each node's fingerprint, as JSON. Equal for two sets of
    curves exactly when the fingerprint of all of them is (a .blend of an earlier version stored that one too)."""
    return json.dumps({"nodes": node_fingerprints(curves)}, sort_keys=True)


def unchanged(curves: list[Curve], stored: dict) -> bool:
    """Whether ``curves`` are the ones whose fingerprints were ``stored`` (``stored_fingerprints``)."""
    if stored["nodes"] is None:
        return fingerprint(curves) == stored["all"]
    return node_fingerprints(curves) == stored["nodes"]


def stored_fingerprints(root) -> dict | None:
    """What the import stored (P.CURVES): {"nodes": each node's fingerprint or None, "all": the whole one or None}.
    This version stores the nodes' (``fingerprints``); earlier ones stored the whole one beside them, or before
    per-node fingerprints, alone as a text."""
    stored = root.get(P.CURVES)
    if stored is None:
        return None
    try:
        parsed = json.loads(str(stored))
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("nodes"), dict):
        return {"nodes": parsed["nodes"], "all": parsed.get("all")}
    if isinstance(parsed, dict) and "all" in parsed:
        return {"nodes": None, "all": str(parsed["all"])}
    return {"nodes": None, "all": str(stored)}
