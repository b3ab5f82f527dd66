"""Recognising animation Blender has not changed (pure numpy, no bpy).

- ``same_as_runtime``: whether a node's local poses equal the runtime's sample of its original track;
  such a node keeps its track byte for byte (a lossless export).
- ``fingerprint``: a digest of F-curves. The importer stores the one of the curves it wrote; at export,
  curves with that fingerprint, on nodes nothing else moves (no constraints, drivers or NLA), whose pose
  at the first exported frame is the runtime's (so rest poses, unkeyed channels and parenting are as
  imported), show the runtime's pose at every frame: the export keeps their tracks without stepping
  through the frames.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np

from ...core.animation.keys import rotation_error
from ...core.animation.sampler import AnimationData, sample
from ...core.msh.model import Model
from .fcurves import Curve

SAME_POSITION = 1e-4  # below these a node's pose counts as its original track's
SAME_ROTATION = 1e-4  # radians


def same_as_runtime(source: Model, rot: np.ndarray, pos: np.ndarray, times: np.ndarray,
                    same_position: float = SAME_POSITION, same_rotation: float = SAME_ROTATION) -> np.ndarray:
    """Per node, whether the local poses (``conversion.local_poses`` of (nodes, times, 4, 4) matrices), node
    i being the source's node i, equal the runtime's pose at ``times`` (msh-animation.md section 3) within
    the tolerances."""
    runtime = sample(AnimationData.from_model(source), np.asarray(times, np.float32))
    length = np.linalg.norm(runtime.rot.astype(np.float64), axis=-1, keepdims=True)
    original_rot = runtime.rot / np.where(length > 0, length, 1)
    position_ok = np.abs(pos - runtime.pos).max(axis=(1, 2), initial=0) <= same_position
    rotation_ok = rotation_error(rot, original_rot).max(axis=1, initial=0) <= same_rotation
    return position_ok & rotation_ok


def fingerprint(curves: Iterable[Curve]) -> str:
    """Digest of F-curves, in any order. Names are left out: a rename keeps the curves as imported."""
    digest = hashlib.sha1()
    for c in sorted(curves, key=lambda c: (c.node, c.path, c.index)):
        digest.update(f"{c.node}|{c.path}|{c.index}|{c.settings}|{len(c.co)}".encode())
        digest.update(np.ascontiguousarray(c.co, np.float32).tobytes())
        digest.update(np.ascontiguousarray(c.interpolation, np.int32).tobytes())
    return digest.hexdigest()
