"""Key authoring for the exporter (the runtime-faithful animation core).

From a pose per integer frame (rotation and position of every node) build
tracks: one key per frame, or the fewest keys for which the runtime sampler
reproduces every input frame within a tolerance. Every result is checked by
sampling it with ``core.animation.sampler`` exactly as the game would.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..msh import streams as S
from .sampler import AnimationData, SlerpTerms, lerp, sample, slerp_at
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


def rotation_error(sampled: np.ndarray, target: np.ndarray, target_norm: np.ndarray | None = None) -> np.ndarray:
    """Angle in radians between sampled and target rotations (sign-insensitive, lengths ignored).
    ``target_norm``: the targets' lengths when already known (``sqrt(_dot4(target, target))``)."""
    a = np.asarray(sampled, np.float64)
    b = np.asarray(target, np.float64)
    na = np.sqrt(_dot4(a, a))
    nb = np.sqrt(_dot4(b, b)) if target_norm is None else target_norm
    degenerate = (na == 0) | (nb == 0)
    dot = np.abs(_dot4(a, b)) / np.where(degenerate, 1, na * nb)
    angle = 2 * np.arccos(np.clip(dot, 0, 1))
    return np.where(degenerate, np.where((na == 0) & (nb == 0), 0.0, np.pi), angle)


def _dot4(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot products over the last axis (4), summed left to right as ``np.sum`` does here, spelled out: a
    reduction over so short an axis is slow, and this order does not depend on the CPU's vector units."""
    return ((a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]) + a[..., 2] * b[..., 2]) + a[..., 3] * b[..., 3]


WINDOW = 4         # segment ends first tried at once per key
CHUNK = 1 << 16    # (segment, frame) pairs per vectorised test


def _segments_fit(times, decoded, pos, rot, rot_norm, nodes, starts, ends, tol_pos, tol_rot) -> np.ndarray:
    """For each candidate segment (node, start key, end key), whether keys at its two ends reproduce every
    frame between them (section 3.3 math), the runtime's slerp and lerp in float32. Only each segment's own
    frames are tested, at most CHUNK pairs at a time; what the slerp takes from the keys alone is computed
    once per segment. ``pos``, ``rot`` and ``rot_norm`` are flat over (node, frame): row node * frames + frame."""
    lengths = ends - starts + 1
    fits = np.ones(len(ends), bool)
    q0, q1 = decoded[nodes, starts], decoded[nodes, ends]
    p0, p1 = pos[nodes * len(times) + starts], pos[nodes * len(times) + ends]
    terms = SlerpTerms.of(q0, q1)
    owners = np.repeat(np.arange(len(ends)), lengths)
    steps = np.arange(len(owners)) - np.repeat(np.cumsum(lengths) - lengths, lengths)  # frames into its segment
    for first in range(0, len(owners), CHUNK):
        owner = owners[first:first + CHUNK]
        frames = starts[owner] + steps[first:first + CHUNK]
        row = nodes[owner] * len(times) + frames
        t0, t1 = times[starts[owner]], times[ends[owner]]
        with np.errstate(all="ignore"):
            a = ((times[frames] - t0) / (t1 - t0)).astype(np.float32)
        p = lerp(p0[owner], p1[owner], a)
        off = np.abs(p - pos[row]) <= tol_pos  # per axis (a NaN is off), not .max(axis=-1): slow over 3 values
        fits[owner[~(off[:, 0] & off[:, 1] & off[:, 2])]] = False
        # the rotations (slerp, angles: most of the cost) only where every position so far fitted; each pair's
        # test is elementwise, so the answers are those of testing every pair
        alive = np.flatnonzero(fits[owner])
        owner, row, a = owner[alive], row[alive], a[alive]
        q = slerp_at(q0[owner], q1[owner], terms.take(owner), a)
        fits[owner[~(rotation_error(q, rot[row], rot_norm[row]) <= tol_rot)]] = False
    return fits


def _reduced_frames(times, decoded, pos, rot, tol_pos, tol_rot) -> list[list[int]]:
    """Greedy for every node at once: from each key, a far next key whose segment reproduces every frame
    between (``decoded`` (nodes, frames, 4) the quantised rotations, ``rot`` the wanted ones).

    From a key, a node first tries the next WINDOW frames at once and takes the farthest that fits
    (``_Openings``, which tests the windows of several keys ahead where keys come dense). When all of them
    fit, it doubles the reach until an end fails, then bisects between the last end that fit and the first
    that failed. The growing and narrowing steps of all nodes are tested in one vectorised call per round.
    Every accepted segment has been checked on all of its frames, so the result is always within tolerance.
    """
    count, last = len(decoded), len(times) - 1
    rot = np.asarray(rot, np.float64).reshape(-1, 4)
    rot_norm = np.sqrt(_dot4(rot, rot))
    pos = np.asarray(pos).reshape(-1, 3)

    def fit(nodes, starts, ends):
        return _segments_fit(times, decoded, pos, rot, rot_norm, nodes, starts, ends, tol_pos, tol_rot)

    chosen = [[0] for _ in range(count)]
    start = np.zeros(count, np.int64)
    good = np.zeros(count, np.int64)  # past the window: the farthest end known to fit
    bad = np.zeros(count, np.int64)   # once an end failed past the window: the nearest that failed
    openings = _Openings(fit, count, last)

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
        for node, reached, onward in openings.walk(opening, start[opening], chosen):
            start[node] = reached
            good[node] = min(reached + WINDOW, last) if onward else reached
        growing = active[(good[active] > start[active]) & (bad[active] == 0)]
        narrowing = active[bad[active] > 0]
        if not len(growing) + len(narrowing):
            continue
        reach = np.minimum(2 * good[growing] - start[growing], last)
        middle = (good[narrowing] + bad[narrowing]) // 2
        nodes = np.concatenate([growing, narrowing])
        grown, split = np.split(fit(nodes, start[nodes], np.concatenate([reach, middle])), [len(growing)])
        good[growing[grown]] = reach[grown]
        bad[growing[~grown]] = reach[~grown]
        done = grown & (reach == last)
        accept(growing[done], reach[done])
        good[narrowing[split]] = middle[split]
        bad[narrowing[~split]] = middle[~split]


class _Openings:
    """The window step of ``_reduced_frames``: from key ``s`` the ends s+1 .. s+WINDOW (clipped to the last
    frame) are tried, and the answer is the farthest that fits, or "onward" when the last of them fits and
    lies before the last frame. The answer depends on the key alone, so the windows of the keys after a
    node's key are tested with it: first one, then twice as many each time a node steps through all it
    has (dense keys), at most MAX_AHEAD; a node whose window is "onward" starts again from one."""

    MAX_AHEAD = 64

    def __init__(self, fit, count: int, last: int) -> None:
        self.fit, self.last = fit, last
        self.ahead = np.ones(count, np.int64)
        self.first = np.zeros(count, np.int64)               # the first key of each node's tested run
        self.answers: list[list[tuple[int, bool]]] = [[] for _ in range(count)]  # (farthest, onward) per key
        self.plain_until: list[list[int]] = [[] for _ in range(count)]

    def _test(self, nodes: np.ndarray, firsts: np.ndarray) -> None:
        ahead = self.ahead[nodes]
        keys = np.repeat(firsts - np.cumsum(ahead) + ahead, ahead) + np.arange(int(ahead.sum()))
        keys = np.minimum(keys, self.last)
        ends = np.minimum(keys[:, None] + np.arange(1, WINDOW + 1), self.last)
        tried = ends[:, 1:]  # the next frame is always a valid end: not tested
        fits = self.fit(np.repeat(np.repeat(nodes, ahead), WINDOW - 1), np.repeat(keys, WINDOW - 1), tried.ravel())
        fits = np.column_stack([np.ones(len(keys), bool), fits.reshape(-1, WINDOW - 1)])
        farthest = ends[np.arange(len(keys)), WINDOW - 1 - np.argmax(fits[:, ::-1], axis=1)]
        onward = fits[:, -1] & (ends[:, -1] < self.last)
        answers = list(zip(farthest.tolist(), onward.tolist()))
        # A plain answer steps to the next frame and goes on; ``plain_until[p]``: the first position at or
        # after p whose answer is not plain, so that the walk steps through a run of them at once.
        positions = np.arange(len(keys))
        not_plain = np.where((farthest == keys + 1) & ~onward, len(keys), positions)
        self.first[nodes] = firsts
        for node, stop, size in zip(nodes.tolist(), np.cumsum(ahead).tolist(), ahead.tolist()):
            self.answers[node] = answers[stop - size:stop]
            until = np.minimum.accumulate(np.minimum(not_plain[stop - size:stop], stop)[::-1])[::-1]
            self.plain_until[node] = (until - (stop - size)).tolist()

    def walk(self, nodes: np.ndarray, starts: np.ndarray, chosen: list[list[int]]):
        """For each node standing on a key: (node, key reached, onward). It takes window steps, adding each
        key to ``chosen``, until a window is "onward", the last frame is reached, or its tested keys end."""
        offset = starts - self.first[nodes]
        stale = (offset < 0) | (offset >= [len(self.answers[n]) for n in nodes.tolist()])
        if stale.any():
            self._test(nodes[stale], starts[stale])
        for node, key in zip(nodes.tolist(), starts.tolist()):
            first, answers, plain_until = int(self.first[node]), self.answers[node], self.plain_until[node]
            while True:
                # a run of plain steps at once, up to where a check below could stop the walk; else one step
                run_end = first + min(plain_until[key - first], self.last - first, len(answers))
                if run_end > key:
                    chosen[node].extend(range(key + 1, run_end + 1))
                    key = run_end
                else:
                    farthest, onward = answers[key - first]
                    if onward:
                        self.ahead[node] = 1
                        yield node, key, True
                        break
                    key = farthest
                    chosen[node].append(key)
                if key >= self.last:
                    yield node, key, False
                    break
                if key - first >= len(answers):
                    self.ahead[node] = min(2 * self.ahead[node], self.MAX_AHEAD)
                    yield node, key, False
                    break


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
