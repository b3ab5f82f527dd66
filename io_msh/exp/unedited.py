"""Recognising animation Blender has not changed (pure numpy, no bpy): ``same_as_runtime``, whether a node's
local poses equal the runtime's sample of its original track; such a node keeps its track byte for byte (a
lossless export). The F-curves' fingerprints (io_msh.com.curves) tell which curves are still the import's.
"""

from __future__ import annotations

import numpy as np

from ...core.animation.keys import rotation_error
from ...core.animation.sampler import AnimationData, sample
from ...core.animation.tracks import read_animation
from ...core.msh.model import Model
from ..com.conversion import normalized
from .options import SAME_POSITION, SAME_ROTATION

POSITION_ROUNDING = 4e-6  # relative: float32 matrix products, about 32 ulp


def same_as_runtime(source: Model, rot: np.ndarray, pos: np.ndarray, times: np.ndarray,
                    same_position: float = SAME_POSITION, same_rotation: float = SAME_ROTATION) -> np.ndarray:
    """Per node, whether the local poses (``conversion.local_poses`` of (nodes, times, 4, 4) matrices), node
    i being the source's node i, equal the runtime's pose at ``times`` (msh-animation.md section 3) within
    the tolerances."""
    return _within(_deviation(AnimationData.from_model(source), rot, pos, times, None), same_position, same_rotation)


def same_as_imported(source: Model, rot: np.ndarray, pos: np.ndarray, times: np.ndarray, animation: str | None,
                      same_position: float = SAME_POSITION, same_rotation: float = SAME_ROTATION) -> np.ndarray:
    """``same_as_runtime``, or for a KEYS import (``animation``) whether the poses are the ones its keys show:
    a KEYS import shows each key at its own time, linear between, and before a track's first key that key,
    where the runtime may show another (a first key after frame 0, whose frames show the fallback key; a
    non-canonical map)."""
    if animation != "KEYS":
        return same_as_runtime(source, rot, pos, times, same_position, same_rotation)
    keys_rot, keys_pos = keys_poses(source, np.asarray(times, np.float64))
    worst = np.stack([np.abs(pos - keys_pos).max(axis=(1, 2), initial=0),
                      np.abs(keys_pos).max(axis=(1, 2), initial=0),
                      rotation_error(rot, keys_rot).max(axis=1, initial=0)])
    return _within(worst, same_position, same_rotation)


def keys_poses(source: Model, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nodes, times, 4) file-order unit quaternions and (nodes, times, 3) positions a KEYS import shows: each
    mapped node's keys linear between them (quaternions sign-continuous, normalised, as Blender shows them),
    a node without a map its first key."""
    tracks = read_animation(source).tracks
    rot = np.zeros((len(tracks), len(times), 4))
    pos = np.zeros((len(tracks), len(times), 3))
    for i, track in enumerate(tracks):
        count = len(track) if track.has_map else 1
        at = track.times[:count].astype(np.float64)
        q = track.rotations[:count].astype(np.float64)
        flips = np.concatenate([[False], (q[1:] * q[:-1]).sum(-1) < 0])
        q *= np.where(np.cumsum(flips) % 2 == 1, -1.0, 1.0)[:, None]
        rot[i] = np.stack([np.interp(times, at, q[:, c]) for c in range(4)], -1)
        pos[i] = np.stack([np.interp(times, at, track.pos[:count, c].astype(np.float64)) for c in range(3)], -1)
        if len(at) > 1 and (np.diff(at) == 0).any():  # keys sharing a time: Blender shows one of them there
            for column, key in shown_keys(at, times):
                rot[i, column], pos[i, column] = q[key], track.pos[key]
    return normalized(rot), pos  # an all-zero key shows as no turn, as the import shows it


KEY_SEARCH = 0.0001  # Blender's keyframe search threshold (fcurve_eval_keyframes_interpolate)


def shown_keys(at: np.ndarray, times: np.ndarray) -> list[tuple[int, int]]:
    """(column of ``times``, key) where Blender shows one key of the keys at times ``at`` as it is: at or before
    the first key its first, at or after the last its last, else the key its binary keyframe search lands on
    within the threshold (BKE_fcurve_bezt_binarysearch_index_ex). np.interp takes the last of keys sharing a
    time; Blender's search may take another."""
    out = []
    for column, t in enumerate(np.asarray(times, np.float64)):
        if t <= at[0]:
            out.append((column, 0))
        elif t >= at[-1]:
            out.append((column, len(at) - 1))
        elif abs(t - at[0]) <= KEY_SEARCH:
            out.append((column, 0))
        elif abs(t - at[-1]) <= KEY_SEARCH:
            out.append((column, len(at) - 1))
        else:
            start, end = 0, len(at)
            for _ in range(2 * len(at)):
                if start > end:
                    break
                mid = start + (end - start) // 2
                if abs(t - at[mid]) <= KEY_SEARCH:
                    out.append((column, mid))
                    break
                start, end = (mid + 1, end) if t > at[mid] else (start, mid - 1)
    return out


def same_in_blocks(source: Model, poses_at, nodes: np.ndarray, times: np.ndarray, blocks: list[slice],
                   same_position: float = SAME_POSITION, same_rotation: float = SAME_ROTATION) -> np.ndarray:
    """``same_as_runtime`` of the source's ``nodes`` (their poses given by ``poses_at(nodes, columns)``), a
    block of frames at a time: the same answer, without holding every frame."""
    data = AnimationData.from_model(source)
    worst = np.zeros((3, len(nodes)))
    for block in blocks:
        rot, pos = poses_at(nodes, block)
        worst = np.maximum(worst, _deviation(data, rot, pos, times[block], nodes))
    return _within(worst, same_position, same_rotation)


def _deviation(data: AnimationData, rot, pos, times, nodes) -> np.ndarray:
    """Per node: the largest position difference from the runtime's, its largest position coordinate, and
    the largest rotation difference (radians)."""
    runtime = sample(data, np.asarray(times, np.float32), nodes)
    original_rot = normalized(runtime.rot)  # an all-zero key shows as no turn, as the import shows it
    return np.stack([np.abs(pos - runtime.pos).max(axis=(1, 2), initial=0),
                     np.abs(runtime.pos).max(axis=(1, 2), initial=0),
                     rotation_error(rot, original_rot).max(axis=1, initial=0)])


def _within(worst: np.ndarray, same_position: float, same_rotation: float) -> np.ndarray:
    # float32 poses round relative to their coordinates: a far node's rounding alone must not count as an edit.
    rounding = POSITION_ROUNDING * worst[1]
    return (worst[0] <= same_position + rounding) & (worst[2] <= same_rotation)
