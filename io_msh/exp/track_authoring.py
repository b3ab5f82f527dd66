"""The export's third stage in plain Python: new tracks for the nodes the decisions (io_msh.exp.node_decisions)
found edited or new, from their poses at the exported frames (io_msh.exp.frames, the block the comparison held
where it held one): keys reduced within tolerance, at every frame, or at the Blender keyframes
(core.animation.keys), written later by the canonical rules (docs/export-pipeline.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...core.animation.keys import author_tracks, quantize_rotations
from ...core.animation.tracks import Track
from ...core.errors import FormatError
from .frames import Held, Poses
from .node_decisions import Decisions
from .options import ExportOptions
from .scene_model import SceneModel
from .scene_read import SceneRead

if TYPE_CHECKING:
    from .check_cache import PlanMemo


@dataclass
class AuthoredTracks:
    tracks: dict[int, Track]  # by node position: the new track of each edited or new node


def author_node_tracks(read: SceneRead, decisions: Decisions, options: ExportOptions,
                       memo: PlanMemo | None = None) -> AuthoredTracks:
    """``memo``: what the last export check authored, for the next check (io_msh.exp.check_cache)."""
    nodes = decisions.authored
    return AuthoredTracks(dict(zip(nodes, _authored(nodes, read.scene, decisions.poses, read.times, options, memo),
                                   strict=True)))


def _authored(nodes: list[int], scene: SceneModel, poses: Poses | Held, times, options: ExportOptions,
              memo: PlanMemo | None = None) -> list[Track]:
    if options.keys == "BLENDER_KEYS":
        return [_at_blender_keys(i, scene, poses, times) for i in nodes]
    if not nodes:
        return []

    def author(rot, pos):  # all nodes in one call: the key reduction tests them together
        return author_tracks(rot, pos, times, reduce=options.keys == "REDUCED", tolerance=options.tolerance)
    if memo is None:
        return author(*poses.at(nodes))
    common = (np.asarray(times, np.float32).tobytes(), options.keys, options.tolerance)
    return memo.tracks(*poses.at(nodes), common, author)


def _at_blender_keys(node: int, scene: SceneModel, poses: Poses | Held, times) -> Track:
    frames = scene.frames
    keyed = scene.keyframes.get(node, np.zeros(0))
    off_grid = keyed[np.abs(keyed - np.round(keyed)) > 1e-3]
    if len(off_grid):
        raise FormatError.single("scene", None, f"node {scene.nodes[node].name!r} has a keyframe at frame "
                                                f"{off_grid[0]:g}, not on an integer frame; export with "
                                                "reduced or per-frame keys instead")
    wanted = np.unique(np.concatenate([[frames[0]], np.round(keyed)]))
    columns = np.searchsorted(frames, wanted[(wanted >= frames[0]) & (wanted <= frames[-1])])
    (rot,), (pos,) = poses.at([node], columns)
    if len(columns) == 1:
        return Track(times[:1].copy(), pos[:1].astype(np.float32), quantize_rotations(rot[:1]), False)
    return Track.from_keys(times[columns], pos, quantize_rotations(rot))
