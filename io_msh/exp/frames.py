"""The nodes' poses at the exported frames, a bounded block at a time.

Where the F-curves alone give the poses (SceneModel.poses), the export holds every frame only of the nodes it
writes new tracks for (what gets written): whether a node still shows its original track is tested a block of
frames at a time, and a node whose curves are the import's costs one frame. Elsewhere (Blender stepped through
the frames, or a scale to bake) every node's poses at every frame are held, and are read from there.
"""

from __future__ import annotations

import numpy as np

from ...core.errors import FormatError
from ..com import conversion as C
from .scene_model import SceneModel

BLOCK = 262_144  # node-frames evaluated at once (as the import's sampling)
HELD_LIMIT = 2_097_152  # node-frames held at once where every node's pose at every frame is needed (~1 GB)


class Poses:
    """File-order rotations and positions (conversion.local_poses) of chosen nodes at chosen frames."""

    def __init__(self, scene: SceneModel) -> None:
        self.count, self.frames, self._curves = len(scene.nodes), scene.frames, scene.poses
        if self._curves is None:
            self._rot, self._pos = C.local_poses(scene.local_matrices)

    def at(self, nodes=None, columns=None) -> tuple[np.ndarray, np.ndarray]:
        """(rot (n, f, 4), pos (n, f, 3)) of ``nodes`` (positions; default all) at ``columns`` of the frames
        (indices or a slice; default all)."""
        if self._curves is None:
            rot, pos = self._rot, self._pos
            if nodes is not None:
                rot, pos = rot[nodes], pos[nodes]
            return (rot, pos) if columns is None else (rot[:, columns], pos[:, columns])
        chosen = np.arange(self.count) if nodes is None else np.asarray(nodes, np.int64).reshape(-1)
        frames = self.frames if columns is None else self.frames[columns]
        rot, pos = np.empty((len(chosen), len(frames), 4)), np.empty((len(chosen), len(frames), 3))
        for block in blocks(len(chosen), len(frames)):
            rot[:, block], pos[:, block] = C.local_poses(self._curves(frames[block], chosen))
        return rot, pos


class Held:
    """The poses of some nodes at every frame, evaluated once: where they fit in one block, the comparison
    with the runtime and the new keys read the same poses (``Poses.at`` for those nodes)."""

    def __init__(self, poses: Poses, nodes: np.ndarray) -> None:
        self.row = {int(n): i for i, n in enumerate(nodes)}
        self.rot, self.pos = poses.at(nodes)

    def at(self, nodes, columns=None) -> tuple[np.ndarray, np.ndarray]:
        rows = [self.row[int(n)] for n in np.asarray(nodes).reshape(-1)]
        rot, pos = self.rot[rows], self.pos[rows]
        return (rot, pos) if columns is None else (rot[:, columns], pos[:, columns])


def blocks(nodes: int, frames: int) -> list[slice]:
    """Consecutive frame slices holding at most BLOCK node-frames each (at least one frame)."""
    step = max(1, BLOCK // max(1, nodes))
    return [slice(first, min(first + step, frames)) for first in range(0, frames, step)] or [slice(0, 0)]


def hold_every_frame(scene: SceneModel) -> None:
    """Where a node's matrix may be scaled at some frame (scale curves, or scaled at the first frame), the
    scale is baked from every frame (scene_read.bake_node_scale): the poses of every node are evaluated and held."""
    if scene.poses is None:
        return
    parents = [n.parent for n in scene.nodes]
    if scene.poses.scale_curves or (scene.scale_set and C.has_scale(scene.local_matrices[:, :1], parents)):
        check_held(len(scene.nodes), len(scene.frames), "a node's scale is keyed or set (MSH nodes have no scale: "
                                                        "it is baked from every frame of every node)",
                   "remove the scale or its keys")
        scene.local_matrices, scene.poses = scene.poses(scene.frames), None


def check_held(nodes: int, frames: int, why: str, remedy: str) -> None:
    """Refuse, before the work, to hold every node's pose at more than HELD_LIMIT node-frames."""
    if nodes * frames > HELD_LIMIT:
        raise FormatError.single("scene", None, f"{why}, so the export would hold {nodes} nodes at each of "
                                                f"{frames:,} frames ({nodes * frames:,} poses, more than "
                                                f"{HELD_LIMIT:,}): {remedy}, or export a shorter range "
                                                "(Frame Range: Custom)")
