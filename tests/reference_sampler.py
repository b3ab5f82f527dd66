"""An independent scalar transcription of msh-animation.md section 11, for cross-checking core.animation.sampler.

Plain Python over numpy float32 scalars, one branch per line of the spec's
pseudocode. Deliberately written apart from core.animation.sampler.
"""

from __future__ import annotations

import math
import struct

import numpy as np

f32 = np.float32


def fistp_low_dword(x: np.float32) -> int:
    representable = math.isfinite(float(x)) and abs(float(x)) < 2.0 ** 63
    # Python's round() is round-half-even, like FISTP under RC=00; else the integer indefinite.
    wide = round(float(x)) if representable else -(2 ** 63)
    low = wide & 0xFFFFFFFF
    return low - (1 << 32) if low >= 1 << 31 else low


def decode_quat(raw) -> list:
    return [f32(v) * (f32(1.0) / f32(32767.0)) for v in raw]


def fastproc_interp(q0, q1, a):
    dot = ((q0[0] * q1[0] + q0[1] * q1[1]) + q0[2] * q1[2]) + q0[3] * q1[3]
    sign = f32(1.0)
    if dot < f32(0.0):
        dot = -dot
        sign = f32(-1.0)
    if f32(1.0) - dot <= f32(9.9999997e-6):
        w0 = f32(1.0) - a
        w1 = a
    else:
        theta = f32(math.acos(float(dot)))
        inv_sin_theta = f32(1.0 / math.sin(float(theta)))
        w1 = f32(math.sin(float(f32(a * theta))) * float(inv_sin_theta))
        w0 = f32(math.cos(float(f32(a * theta))) - float(w1) * float(dot))
    w1 = w1 * sign
    return [w0 * q0[i] + w1 * q1[i] for i in range(4)]


def sample_node_pose(res1: bytes, res8: bytes, res19: bytes, frame_cnt: int, node_idx: int, t: float):
    """Returns (quat, pos, key_idx, branch)."""
    t = f32(t)
    _, _, map_start, fallback = struct.unpack_from("<4H", res1, node_idx * 38)
    frame = fistp_low_dword(t - f32(0.5))

    def key(i):
        x, y, z, time, *rot = struct.unpack_from("<4f4h", res8, i * 24)
        return [f32(x), f32(y), f32(z)], f32(time), decode_quat(rot)

    def word(i):
        return struct.unpack_from("<H", res19, i * 2)[0]

    if (frame & 0xFFFFFFFF) >= frame_cnt or map_start == 0xFFFF or word(map_start + (frame & 0xFFFFFFFF)) >= fallback:
        pos, _, quat = key(fallback)
        return quat, pos, fallback, "fallback"
    key_idx = word(map_start + frame)
    p0, t0, q0 = key(key_idx)
    if t == t0:
        return q0, p0, key_idx, "k0"
    p1, t1, q1 = key(key_idx + 1)
    if t == t1:
        return q1, p1, key_idx + 1, "k1"
    a = (t - t0) / (t1 - t0)
    pos = [p0[i] + (p1[i] - p0[i]) * a for i in range(3)]
    return fastproc_interp(q0, q1, a), pos, key_idx, "lerp"
