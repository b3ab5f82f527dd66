"""Blender's evaluation of F-curves (io_msh.com.curves) in numpy (no bpy).

``evaluate`` follows Blender's evaluation of keyframes (blenkernel fcurve.cc: extrapolation, the
keyframe search with its 0.0001 threshold, constant, linear and Bezier segments, the cubic root solver)
in the same float32 and float64 steps, for many curves and frames at once. With it an export takes the
curves' values at every frame without stepping Blender through the frames. It reproduces the curves
``Curve.plain`` marks; anything else (F-modifiers, muting, the easing interpolations, handles Blender
would shorten, keys closer than the search threshold) is left to Blender.
"""

from __future__ import annotations

import numpy as np

from ..com.curves import Curve

# Keyframe.interpolation as foreach_get reads it (Blender's eBezTriple_Interpolation).
CONSTANT, LINEAR, BEZIER = 0, 1, 2
EXACT = np.float32(0.0001)    # the keyframe search's threshold: a frame this close to a key takes its value
ON_KEY = np.float32(1e-8)
FLT_EPSILON = np.float32(np.finfo(np.float32).eps)
SMALL = np.float32(-1.0e-10)  # the accepted range of a Bezier segment's parameter
END = np.float32(1.000001)
PAIRS = 1 << 18               # (curve, frame) pairs evaluated at once


def reproducible(co: np.ndarray, left: np.ndarray, right: np.ndarray, interpolation: np.ndarray) -> bool:
    """Whether ``evaluate`` gives Blender's values for keys (co, handles as flattened (frame, value) pairs):
    constant, linear and Bezier segments; keys more than twice the search threshold apart (then a frame
    near a key always finds that key, as Blender's binary search does); and Bezier handles that Blender
    does not shorten (its rule for shortening them changed between versions: BKE_fcurve_correct_bezpart)."""
    x = co[0::2]
    if not len(x) or np.any(np.diff(x) <= 2 * EXACT) or np.any(interpolation[:-1] > BEZIER):
        return False
    bezier = interpolation[:-1] == BEZIER
    handles = np.abs(x[:-1] - right[0::2][:-1]) + np.abs(x[1:] - left[0::2][1:])
    return bool(np.all(~bezier | (handles <= x[1:] - x[:-1])))


def evaluate(curves: list[Curve], frames: np.ndarray) -> np.ndarray:
    """(curves, frames) float32: each curve's value at each frame, as Blender evaluates it."""
    frames = np.asarray(frames, np.float32)
    out = np.empty((len(curves), len(frames)), np.float32)
    if not curves or not len(frames):
        return out
    keys = _Keys(curves)
    step = max(1, PAIRS // len(curves))
    for first in range(0, len(frames), step):
        t = frames[first:first + step]
        curve = np.repeat(np.arange(len(curves)), len(t))
        out[:, first:first + step] = keys.values(curve, np.tile(t, len(curves))).reshape(len(curves), -1)
    return out


class _Keys:
    """Every curve's keys in flat arrays (curve after curve)."""

    def __init__(self, curves: list[Curve]) -> None:
        co = np.concatenate([c.co for c in curves]).astype(np.float32)
        left = np.concatenate([c.left for c in curves]).astype(np.float32)
        right = np.concatenate([c.right for c in curves]).astype(np.float32)
        self.x, self.y = co[0::2], co[1::2]
        self.left_x, self.left_y, self.right_x, self.right_y = left[0::2], left[1::2], right[0::2], right[1::2]
        self.interpolation = np.concatenate([c.interpolation for c in curves]).astype(np.int64)
        self.count = np.array([len(c.co) // 2 for c in curves])
        self.first = np.cumsum(self.count) - self.count
        self.last = self.first + self.count - 1
        self.linear_extrapolation = np.array([c.extrapolation == "LINEAR" for c in curves])

    def values(self, curve: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Curve ``curve[i]`` at frame ``t[i]``; each curve's frames in one run."""
        first, last = self.first[curve], self.last[curve]
        out = np.zeros(len(t), np.float32)
        before = t <= self.x[first]
        after = ~before & (t >= self.x[last])
        out[before] = self._extrapolate(curve[before], t[before], first[before], 1)
        out[after] = self._extrapolate(curve[after], t[after], last[after], -1)
        inside = ~(before | after)
        out[inside] = self._interpolate(curve[inside], t[inside])
        return out

    def _extrapolate(self, curve, t, end, step):
        x, y, kind = self.x[end], self.y[end], self.interpolation[end]
        linear = kind == LINEAR
        # The first key extends along its left handle, the last along its right one.
        handle_x, handle_y = (self.left_x[end], self.left_y[end]) if step > 0 else (self.right_x[end],
                                                                                   self.right_y[end])
        neighbour = np.where(linear & (self.count[curve] > 1), end + step, end)
        span = np.where(linear, self.x[neighbour] - x, x - handle_x)
        rise = np.where(linear, self.y[neighbour] - y, y - handle_y)
        hold = ((kind == CONSTANT) | ~self.linear_extrapolation[curve] | (linear & (self.count[curve] == 1))
                | (span == 0))
        with np.errstate(all="ignore"):
            return np.where(hold, y, y - (rise / span) * (x - t))

    def _interpolate(self, curve, t):
        """Frames strictly between a curve's first and last keys (fcurve_eval_keyframes_interpolate)."""
        # The curve's first key after t, by one search per curve (each curve's frames are one run).
        runs = np.flatnonzero(np.diff(curve, prepend=-1))
        index = np.empty(len(t), np.int64)
        for begin, end in zip(runs, [*runs[1:], len(t)]):
            c = curve[begin]
            x = self.x[self.first[c]:self.last[c] + 1]
            index[begin:end] = self.first[c] + np.searchsorted(x, t[begin:end], side="right")
        before, after = index - 1, index

        def near(a):
            x = self.x[a]
            return np.where(t > x, t - x, x - t) <= EXACT

        on_before, on_after = near(before), near(after)
        key = np.where(on_before, before, after)
        on_key = on_before | on_after | (np.abs(self.x[after] - t) < ON_KEY)
        out = np.where(on_key, self.y[key], np.float32(0))
        previous, kind = before, self.interpolation[before]
        duration = self.x[after] - self.x[previous]
        begin, change, time = self.y[previous], self.y[after] - self.y[previous], t - self.x[previous]
        constant = ~on_key & ((kind == CONSTANT) | (duration == 0))
        out = np.where(constant, begin, out)
        linear = ~on_key & ~constant & (kind == LINEAR)
        with np.errstate(all="ignore"):
            out = np.where(linear, (change * time) / duration + begin, out)
        bezier = np.flatnonzero(~on_key & ~constant & (kind == BEZIER))
        if len(bezier):
            a, b = previous[bezier], after[bezier]
            out[bezier] = _bezier(self.x[a], self.y[a], self.right_x[a], self.right_y[a], self.left_x[b],
                                  self.left_y[b], self.x[b], self.y[b], t[bezier])
        return out


def _bezier(x1, y1, x2, y2, x3, y3, x4, y4, t):
    """A Bezier segment per frame: the parameter where its time is ``t`` (findzero), then the value there
    (berekeny); 0 where no root lies in range, as in Blender."""
    flat = (np.abs(y1 - y4) < FLT_EPSILON) & (np.abs(y2 - y3) < FLT_EPSILON) & (np.abs(y3 - y4) < FLT_EPSILON)
    three, two = np.float32(3), np.float32(2)
    c0 = (x1 - t).astype(np.float64)
    c1 = (three * (x2 - x1)).astype(np.float64)
    c2 = (three * (x1 - two * x2 + x3)).astype(np.float64)
    c3 = (x4 - x1 + three * (x2 - x3)).astype(np.float64)
    root, found = _first_root(c0, c1, c2, c3)
    d1 = three * (y2 - y1)
    d2 = three * (y1 - two * y2 + y3)
    d3 = y4 - y1 + three * (y2 - y3)
    value = y1 + root * d1 + root * root * d2 + root * root * root * d3
    return np.where(flat, y1, np.where(found, value, np.float32(0)))


def _cube_root(d: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        magnitude = np.exp(np.log(np.abs(d)) / 3)
    return np.where(d == 0, 0.0, np.where(d < 0, -magnitude, magnitude))


def _first_root(c0, c1, c2, c3) -> tuple[np.ndarray, np.ndarray]:
    """solve_cubic for c0 + c1 s + c2 s^2 + c3 s^3 = 0: its first root in [SMALL, END] (as float32), in
    the order Blender tries them, and whether there is one."""
    with np.errstate(all="ignore"):
        cubic = c3 != 0
        a = c2 / c3 / 3
        b = c1 / c3
        c = c0 / c3
        p = b / 3 - a * a
        q = (2 * a * a * a - a * b + c) / 2
        d = q * q + p * p * p
        t = np.sqrt(d)
        s = _cube_root(-q)
        phi = np.arccos(-q / np.sqrt(-(p * p * p)))
        r = np.sqrt(-p)
        cp = np.cos(phi / 3)
        sq = np.sqrt(3 - 3 * cp * cp)
        trig = cubic & (d < 0)
        quadratic = ~cubic & (c2 != 0)
        disc = c1 * c1 - 4 * c2 * c0
        root = np.sqrt(disc)
        linear = ~cubic & (c2 == 0) & (c1 != 0)
        candidates = [  # (root, whether Blender tries it) in Blender's order
            (_cube_root(-q + t) + _cube_root(-q - t) - a, cubic & (d > 0)),
            (2 * s - a, cubic & (d == 0)), (-s - a, cubic & (d == 0)),
            (2 * r * cp - a, trig), (-r * (cp + sq) - a, trig), (-r * (cp - sq) - a, trig),
            ((-c1 - root) / (2 * c2), quadratic & (disc > 0)), ((-c1 + root) / (2 * c2), quadratic & (disc > 0)),
            (-c1 / (2 * c2), quadratic & (disc == 0)),
            (-c0 / c1, linear), (np.zeros_like(c0), ~cubic & (c2 == 0) & (c1 == 0) & (c0 == 0)),
        ]
    found = np.zeros(len(c0), bool)
    out = np.zeros(len(c0), np.float32)
    for value, tried in candidates:
        value = value.astype(np.float32)
        take = tried & ~found & (value >= SMALL) & (value <= END)
        out[take] = value[take]
        found |= take
    return out, found
