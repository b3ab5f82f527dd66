"""Key authoring for the exporter (issue: runtime-faithful animation core, item 6).

From a pose per integer frame (rotation and position of every node) build
tracks: one key per frame, or the fewest keys for which the runtime sampler
reproduces every input frame within a tolerance. Every result is checked by
sampling it with ``core.animation.sampler`` exactly as the game would.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..msh import streams as S
from .sampler import AnimationData, lerp, sample, slerp
from .tracks import Animation, Track


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
    # Each key is flipped when it points away from the previous one as written: a flip carries on along
    # the keys, and a key at a right angle to the previous one (dot 0) starts unflipped.
    dots = np.einsum("ij,ij->i", q[1:], q[:-1])
    flips = np.concatenate([[0], np.cumsum(dots < 0)])
    since = np.maximum.accumulate(np.where(np.concatenate([[True], dots == 0]), np.arange(len(q)), 0))
    return S.encode_rotations(np.where(((flips - flips[since]) % 2 == 1)[:, None], -q, q))


def rotation_error(sampled: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Angle in radians between sampled and target rotations (sign-insensitive, lengths ignored)."""
    a = np.asarray(sampled, np.float64)
    b = np.asarray(target, np.float64)
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    degenerate = (na == 0) | (nb == 0)
    dot = np.abs((a * b).sum(-1)) / np.where(degenerate, 1, na * nb)
    angle = 2 * np.arccos(np.clip(dot, 0, 1))
    return np.where(degenerate, np.where((na == 0) & (nb == 0), 0.0, np.pi), angle)


WINDOW = 4         # segment ends first tried at once per key
CHUNK = 1 << 16    # (segment, frame) pairs per vectorised test


def _segments_fit(times, decoded, pos, rot, nodes, starts, ends, tol_pos, tol_rot) -> np.ndarray:
    """For each candidate segment (node, start key, end key), whether keys at its two ends reproduce every
    frame between them (section 3.3 math), the runtime's slerp and lerp in float32. Only each segment's own
    frames are tested, at most CHUNK pairs at a time."""
    lengths = ends - starts + 1
    stops = np.cumsum(lengths)
    fits = np.ones(len(ends), bool)
    for first in range(0, int(stops[-1]) if len(stops) else 0, CHUNK):
        flat = np.arange(first, min(first + CHUNK, int(stops[-1])))
        owner = np.searchsorted(stops, flat, side="right")
        frames = starts[owner] + flat - (stops - lengths)[owner]
        node, s, e = nodes[owner], starts[owner], ends[owner]
        t0, t1 = times[s], times[e]
        with np.errstate(all="ignore"):
            a = ((times[frames] - t0) / (t1 - t0)).astype(np.float32)
        q = slerp(decoded[node, s], decoded[node, e], a)
        p = lerp(pos[node, s], pos[node, e], a)
        ok = (np.abs(p - pos[node, frames]).max(axis=-1) <= tol_pos) & (rotation_error(q, rot[node, frames]) <= tol_rot)
        fits[owner[~ok]] = False
    return fits


def _reduced_frames(times, decoded, pos, rot, tol_pos, tol_rot) -> list[list[int]]:
    """Greedy for every node at once: from each key, a far next key whose segment reproduces every frame
    between (``decoded`` (nodes, frames, 4) the quantised rotations, ``rot`` the wanted ones).

    From a key, a node first tries the next WINDOW frames at once and takes the farthest that fits. When
    all of them fit, it doubles the reach until an end fails, then bisects between the last end that fit
    and the first that failed. All nodes take one step per round, tested in one vectorised call. Every
    accepted segment has been checked on all of its frames, so the result is always within tolerance.
    """
    count, last = len(decoded), len(times) - 1
    chosen = [[0] for _ in range(count)]
    start = np.zeros(count, np.int64)
    good = np.zeros(count, np.int64)  # past the window: the farthest end known to fit
    bad = np.zeros(count, np.int64)   # once an end failed past the window: the nearest that failed

    def accept(nodes, ends):
        for node, end in zip(nodes.tolist(), ends.tolist()):
            chosen[node].append(end)
        start[nodes] = good[nodes] = ends
        bad[nodes] = 0

    while True:
        narrowed = np.flatnonzero((bad > 0) & (bad - good <= 1))
        accept(narrowed, good[narrowed])
        active = np.flatnonzero(start < last)
        if not len(active):
            return chosen
        opening = active[good[active] == start[active]]
        growing = active[(good[active] > start[active]) & (bad[active] == 0)]
        narrowing = active[bad[active] > 0]
        window = np.minimum(start[opening, None] + np.arange(1, WINDOW + 1), last)
        reach = np.minimum(2 * good[growing] - start[growing], last)
        middle = (good[narrowing] + bad[narrowing]) // 2
        nodes = np.concatenate([np.repeat(opening, WINDOW), growing, narrowing])
        fits = _segments_fit(times, decoded, pos, rot, nodes, start[nodes],
                             np.concatenate([window.ravel(), reach, middle]), tol_pos, tol_rot)
        opened = fits[:window.size].reshape(-1, WINDOW)
        grown, split = np.split(fits[window.size:], [len(growing)])
        opened[:, 0] = True  # the next frame is always a valid end
        farthest = window[np.arange(len(opening)), WINDOW - 1 - np.argmax(opened[:, ::-1], axis=1)]
        onward = opened[:, -1] & (window[:, -1] < last)
        good[opening[onward]] = window[onward, -1]
        accept(opening[~onward], farthest[~onward])
        good[growing[grown]] = reach[grown]
        bad[growing[~grown]] = reach[~grown]
        done = grown & (reach == last)
        accept(growing[done], reach[done])
        good[narrowing[split]] = middle[split]
        bad[narrowing[~split]] = middle[~split]


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
