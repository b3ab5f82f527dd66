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


def _segment_ok(times, rot_keys, pos_keys, rot, pos, i, j, tol_pos, tol_rot) -> bool:
    """Whether keys at frames i and j reproduce every frame between them (section 3.3 math)."""
    t = times[i:j + 1]
    a = ((t - times[i]) / (times[j] - times[i])).astype(np.float32)
    q = slerp(np.broadcast_to(rot_keys[0], (len(t), 4)), np.broadcast_to(rot_keys[1], (len(t), 4)), a)
    p = lerp(np.broadcast_to(pos_keys[0], (len(t), 3)), np.broadcast_to(pos_keys[1], (len(t), 3)), a)
    return bool(np.all(np.abs(p - pos[i:j + 1]).max(axis=-1) <= tol_pos)
                and np.all(rotation_error(q, rot[i:j + 1]) <= tol_rot))


def _reduced_frames(times, raw_rot, pos, rot, tol_pos, tol_rot) -> list[int]:
    """Greedy: from each key, the farthest next key whose segment reproduces every frame between.

    Galloping then bisecting on the segment end; every accepted segment is
    checked on all of its frames, so the result is always within tolerance.
    """
    decoded = S.decode_rotations(raw_rot)
    last = len(times) - 1
    chosen, i = [0], 0
    while i < last:
        def ok(j, i=i):
            return _segment_ok(times, decoded[[i, j]], pos[[i, j]], rot, pos, i, j, tol_pos, tol_rot)

        good, step = i + 1, 1
        while good + step <= last and ok(good + step):
            good += step
            step *= 2
        bad = min(good + step, last + 1)
        while bad - good > 1:
            mid = (good + bad) // 2
            if ok(mid):
                good = mid
            else:
                bad = mid
        chosen.append(good)
        i = good
    return chosen


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
    tracks = []
    for node in range(rot.shape[0]):
        raw = quantize_rotations(rot[node])
        decoded = S.decode_rotations(raw)
        p = pos[node]
        if (np.abs(p - p[0]).max() <= tolerance.position
                and rotation_error(np.broadcast_to(decoded[0], decoded.shape), rot[node]).max() <= tol_rot):
            tracks.append(Track(times[:1].copy(), p[:1].copy(), raw[:1].copy(), False))
            continue
        frames = _reduced_frames(times, raw, p, rot[node], tolerance.position, tol_rot) if reduce \
            else list(range(len(times)))
        keys_raw = quantize_rotations(rot[node][frames])
        tracks.append(Track(times[frames].copy(), p[frames].copy(), keys_raw, True))
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
