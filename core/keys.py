"""Key authoring for the exporter (issue: runtime-faithful animation core, item 6).

From a pose per integer frame (rotation and position of every node) build
tracks: one key per frame, or the fewest keys for which the runtime sampler
reproduces every input frame within a tolerance. Every result is checked by
sampling it with ``core.sampler`` exactly as the game would.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import streams as S
from .anim import Animation, Track
from .sampler import AnimationData, lerp, sample, slerp


@dataclass(frozen=True)
class Tolerance:
    """Largest accepted difference between an input frame and the runtime's sample of the keys.

    The defaults are far below what shows on screen: 0.1 mm, and 0.05 degree
    (the i16 quantisation itself moves a rotation by up to about 0.004 degree).
    """

    position: float = 1e-4
    rotation_deg: float = 0.05


def quantize_rotations(q: np.ndarray) -> np.ndarray:
    """Quaternions (file order) to i16 keys: normalised, consecutive keys on the shortest path.

    All-zero input rotations are written unchanged (as zeros), per the issue.
    """
    q = np.array(q, np.float64).reshape(-1, 4)
    length = np.linalg.norm(q, axis=1, keepdims=True)
    q = np.where(length > 0, q / np.where(length > 0, length, 1), 0.0)
    for i in range(1, len(q)):
        if np.dot(q[i], q[i - 1]) < 0:
            q[i] = -q[i]
    return S.encode_rotations(q)


def rotation_error(sampled: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Angle in radians between sampled and target rotations (sign-insensitive, lengths ignored)."""
    a = np.asarray(sampled, np.float64)
    b = np.asarray(target, np.float64)
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    degenerate = (na == 0) | (nb == 0)
    dot = np.abs((a * b).sum(-1)) / np.where(degenerate, 1, na * nb)
    angle = 2 * np.arccos(np.clip(dot, 0, 1))
    return np.where(degenerate, np.where((na == 0) & (nb == 0), 0.0, np.pi), angle)


WINDOW = 4       # segment ends first tried at once per node
MAX_WINDOW = 64   # beyond this a node's longer segments are found by galloping alone
BATCH = 1 << 16   # node x end x frame triples per vectorised test


def _segments_ok(times, decoded, pos, rot, nodes, starts, ends, tol_pos, tol_rot) -> np.ndarray:
    """For each node and candidate end (``ends`` (n, w)), whether keys at ``starts`` and that end reproduce
    every frame between them (section 3.3 math): (n, w) booleans."""
    k = np.arange(int((ends - starts[:, None]).max(initial=0)) + 1)
    frames = np.minimum(starts[:, None] + k, len(times) - 1)                     # (n, f)
    inside = k[None, None, :] <= (ends - starts[:, None])[:, :, None]           # (n, w, f)
    t0, t1, t = times[starts][:, None, None], times[ends][:, :, None], times[frames][:, None, :]
    with np.errstate(all="ignore"):
        a = np.where(inside, (t - t0) / (t1 - t0), 0).astype(np.float32)
    rows = nodes[:, None]
    q = slerp(decoded[nodes, starts][:, None, None], decoded[rows, ends][:, :, None], a)
    p = lerp(pos[nodes, starts][:, None, None], pos[rows, ends][:, :, None], a)
    fits = ((np.abs(p - pos[rows, frames][:, None]).max(axis=-1) <= tol_pos)
            & (rotation_error(q, rot[rows, frames][:, None]) <= tol_rot))
    return (fits | ~inside).all(axis=-1)


def _reduced_frames(times, decoded, pos, rot, tol_pos, tol_rot) -> list[list[int]]:
    """Greedy for every node at once: from each key, the farthest next key whose segment reproduces every
    frame between (``decoded`` (nodes, frames, 4) the quantised rotations, ``rot`` the wanted ones).

    All nodes advance together: each tries every end within its window in one vectorised test and takes
    the farthest that fits; a node whose whole window fits doubles it, up to MAX_WINDOW, then gallops and
    bisects alone. Every accepted segment is checked on all of its frames, so the result is always within
    tolerance.
    """
    count, last = len(decoded), len(times) - 1
    chosen = [[0] for _ in range(count)]
    start = np.zeros(count, np.int64)
    window = np.full(count, WINDOW)
    while True:
        active = np.flatnonzero(start < last)
        if not len(active):
            return chosen
        for width in np.unique(window[active]).tolist():
            same_width = active[window[active] == width]
            group = max(1, BATCH // (width * (width + 1)))
            for g in range(0, len(same_width), group):
                _advance(times, decoded, pos, rot, same_width[g:g + group], width, start, window, chosen,
                         tol_pos, tol_rot)


def _advance(times, decoded, pos, rot, nodes, width, start, window, chosen, tol_pos, tol_rot) -> None:
    """One greedy step for ``nodes``: each tries the ends within ``width`` of its last key at once."""
    last = len(times) - 1
    ends = np.minimum(start[nodes, None] + np.arange(1, width + 1), last)
    fits = _segments_ok(times, decoded, pos, rot, nodes, start[nodes], ends, tol_pos, tol_rot)
    fits[:, 0] = True  # the next frame is always a valid end
    farthest = width - 1 - np.argmax(fits[:, ::-1], axis=1)
    for node, at, end in zip(nodes, farthest, ends[np.arange(len(nodes)), farthest]):
        if at == width - 1 and end < last:
            if window[node] < MAX_WINDOW:
                window[node] *= 2
                continue
            end = _gallop(times, decoded, pos, rot, node, int(start[node]), int(end), tol_pos, tol_rot)
        chosen[node].append(int(end))
        start[node] = end


def _gallop(times, decoded, pos, rot, node, start, good, tol_pos, tol_rot) -> int:
    """The farthest end past ``good`` (known to fit): ends at doubling steps tried at once, then the gap
    between the last fitting and the first failing one narrowed by 16 evenly spaced ends at a time."""
    last = len(times) - 1

    def first_failure(ends: np.ndarray) -> int:
        fits = _segments_ok(times, decoded, pos, rot, np.array([node]), np.array([start]), ends[None], tol_pos,
                            tol_rot)[0]
        return int(np.argmin(fits)) if not fits.all() else len(ends)

    ends = np.unique(np.minimum(good + (1 << np.arange(int(np.log2(max(last - good, 1))) + 2)), last))
    while len(ends):
        failed = first_failure(ends)
        good = int(ends[failed - 1]) if failed else good
        bad = int(ends[failed]) if failed < len(ends) else last + 1
        ends = np.unique(np.linspace(good + 1, bad - 1, min(16, bad - good - 1)).astype(np.int64))
    return good


def author_tracks(rot: np.ndarray, pos: np.ndarray, times=None, reduce: bool = True,
                  tolerance: Tolerance = Tolerance()) -> list[Track]:
    """Tracks for every node from per-frame poses.

    ``rot`` (nodes, frames, 4) in file order and ``pos`` (nodes, frames, 3)
    hold the pose at each of ``times`` (default 0, 1, 2, ...; increasing,
    starting at 0). A node whose every frame is within tolerance of its first
    is static: one key, no map. Otherwise keys at every frame, or with
    ``reduce`` the greedy fewest. Raises ValueError for inconsistent shapes.
    """
    rot = np.asarray(rot, np.float64)
    pos = np.asarray(pos, np.float32)
    if rot.ndim != 3 or rot.shape[-1] != 4 or pos.shape != (*rot.shape[:2], 3):
        raise ValueError(f"poses must be (nodes, frames, 4) and (nodes, frames, 3), got {rot.shape}, {pos.shape}")
    times = np.arange(rot.shape[1], dtype=np.float32) if times is None else np.asarray(times, np.float32)
    if len(times) != rot.shape[1] or not len(times) or np.any(np.diff(times) <= 0):
        raise ValueError("times must be increasing, one per frame")
    tol_rot = np.radians(tolerance.rotation_deg)
    decoded = np.array([S.decode_rotations(quantize_rotations(r)) for r in rot]).reshape(rot.shape)
    static = [bool(np.abs(pos[n] - pos[n, 0]).max() <= tolerance.position
                   and rotation_error(np.broadcast_to(decoded[n, 0], decoded[n].shape), rot[n]).max() <= tol_rot)
              for n in range(len(rot))]
    moving = np.flatnonzero(~np.array(static, bool))
    if reduce:
        reduced = _reduced_frames(times, decoded[moving], pos[moving], rot[moving], tolerance.position, tol_rot)
    else:
        reduced = [list(range(len(times)))] * len(moving)
    frames_of = dict(zip(moving.tolist(), reduced))
    tracks = []
    for node in range(rot.shape[0]):
        if static[node]:
            tracks.append(Track(times[:1].copy(), pos[node, :1].copy(), quantize_rotations(rot[node, :1]), False))
            continue
        frames = frames_of[node]
        tracks.append(Track(times[frames].copy(), pos[node, frames].copy(), quantize_rotations(rot[node][frames]),
                            True))
    return tracks


def author_animation(rot: np.ndarray, pos: np.ndarray, times=None, reduce: bool = True,
                     tolerance: Tolerance = Tolerance()) -> Animation:
    """An Animation of authored tracks with the canonical frame count."""
    anim = Animation(1, author_tracks(rot, pos, times, reduce, tolerance))
    anim.fit_frame_count()
    return anim


def reproduction_error(anim: Animation, rot: np.ndarray, pos: np.ndarray, times=None) -> tuple[float, float]:
    """Largest position and rotation (radians) difference between the runtime's samples and the input."""
    times = np.arange(np.asarray(rot).shape[1], dtype=np.float32) if times is None else np.asarray(times, np.float32)
    s = sample(AnimationData.from_animation(anim), times)
    position = float(np.abs(s.pos - np.asarray(pos, np.float32)).max()) if s.pos.size else 0.0
    rotation = float(rotation_error(s.rot, rot).max()) if s.rot.size else 0.0
    return position, rotation
