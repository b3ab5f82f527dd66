"""The runtime's node sampler and pose blend, in float32 (msh-animation.md sections 3, 4, 11).

One vectorised implementation serves every caller: ``sample`` takes any
number of nodes and times at once; ``sample_node`` is the same call with
one node and one time, so the two agree bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import FormatError
from ..msh import streams as S
from ..msh.model import Model
from .pose import pose_matrix, world_matrices
from .tracks import Animation, pack

F32 = np.float32
NONE = S.NO_INDEX
SLERP_LINEAR_THRESHOLD = F32(9.9999997e-6)  # section 4.4
BRANCHES = ("fallback", "k0", "k1", "lerp")
FALLBACK, K0, K1, LERP = range(4)


@dataclass
class AnimationData:
    """What the sampler reads from a model: Res1 hdr2/hdr3, Res8, Res19, Res19.attr2."""

    map_start: np.ndarray   # uint16 (nodes,)
    fallback: np.ndarray    # uint16 (nodes,)
    times: np.ndarray       # float32 (keys,)
    pos: np.ndarray         # float32 (keys, 3)
    rot: np.ndarray         # float32 (keys, 4), file component order, decoded by the runtime's multiply
    words: np.ndarray       # uint16 (words,)
    frame_count: int
    parents: np.ndarray     # uint16 (nodes,)

    @classmethod
    def from_model(cls, model: Model) -> AnimationData:
        if model.is_legacy:
            raise FormatError.single("Res1", None, "legacy 24-byte node table cannot be sampled", model.name)
        nodes, keys = model.nodes, model.keys
        return cls(nodes["map_start"].copy(), nodes["fallback_key"].copy(), keys["time"].copy(),
                   keys["pos"].copy(), S.decode_rotations(keys["rot"]), model.map_words.copy(),
                   model.frame_count, nodes["parent"].copy())

    @classmethod
    def from_animation(cls, anim: Animation, parents: np.ndarray | None = None) -> AnimationData:
        """What the runtime would read once ``anim`` is written (core.animation.tracks.pack)."""
        packed = pack(anim)
        keys = packed.keys
        parents = np.full(len(anim.tracks), NONE, np.uint16) if parents is None else np.asarray(parents, np.uint16)
        return cls(packed.map_start, packed.fallback, keys["time"].copy(), keys["pos"].copy(),
                   S.decode_rotations(keys["rot"]), packed.words, packed.frame_count, parents)

    @property
    def node_count(self) -> int:
        return len(self.map_start)


@dataclass
class Samples:
    """Arrays shaped (nodes, times, ...): the pose, the key used and the branch taken."""

    rot: np.ndarray     # float32 (..., 4), file order
    pos: np.ndarray     # float32 (..., 3)
    key: np.ndarray     # int64: k0 for "lerp", the returned key otherwise
    branch: np.ndarray  # int8: FALLBACK, K0, K1 or LERP


def frame_index(t: np.ndarray) -> np.ndarray:
    """Section 3.1: FISTP of float32(t - 0.5) under round-to-nearest-even, as int32.

    The runtime stores through a 64-bit integer and keeps the low dword; a
    value FISTP cannot represent (NaN, infinity, |x| >= 2**63) stores the
    integer indefinite 0x8000000000000000, whose low dword is 0.
    """
    x = np.asarray(t, F32) - F32(0.5)
    representable = np.isfinite(x) & (np.abs(x.astype(np.float64)) < 2.0 ** 63)
    wide = np.where(representable, np.rint(np.where(representable, x, 0).astype(np.float64)), 0)
    return wide.astype(np.int64).astype(np.uint64).astype(np.uint32).astype(np.int32)


def slerp(q0: np.ndarray, q1: np.ndarray, a: np.ndarray) -> np.ndarray:
    """g_FastProc[17] / [22] (section 4.4), over the last axis, in float32.

    Follows the C reference: float variables, double-precision acos/sin/cos.
    No normalisation of the result.
    """
    q0, q1 = np.asarray(q0, F32), np.asarray(q1, F32)
    return slerp_at(q0, q1, SlerpTerms.of(q0, q1), a)


@dataclass
class SlerpTerms:
    """What ``slerp`` computes from the two keys alone (section 4.4), to be reused at many ``a``."""

    dot: np.ndarray
    sign: np.ndarray
    linear: np.ndarray
    theta: np.ndarray
    inv_sin_theta: np.ndarray

    @classmethod
    def of(cls, q0: np.ndarray, q1: np.ndarray) -> SlerpTerms:
        """``q0``, ``q1``: float32 keys over the last axis."""
        dot = ((q0[..., 0] * q1[..., 0] + q0[..., 1] * q1[..., 1]) + q0[..., 2] * q1[..., 2]) + q0[..., 3] * q1[..., 3]
        sign = np.where(dot < F32(0), F32(-1), F32(1))
        dot = np.where(dot < F32(0), -dot, dot)
        linear = (F32(1) - dot) <= SLERP_LINEAR_THRESHOLD
        safe_dot = np.where(linear, F32(0), dot).astype(np.float64)
        theta = np.arccos(safe_dot).astype(F32)
        inv_sin_theta = (1.0 / np.sin(theta.astype(np.float64))).astype(F32)
        return cls(dot, sign, linear, theta, inv_sin_theta)

    def take(self, index: np.ndarray) -> SlerpTerms:
        return SlerpTerms(*(v[index] for v in (self.dot, self.sign, self.linear, self.theta, self.inv_sin_theta)))


def slerp_at(q0: np.ndarray, q1: np.ndarray, terms: SlerpTerms, a: np.ndarray) -> np.ndarray:
    """``slerp(q0, q1, a)`` from its keys' ``terms``: the same float32 and float64 steps, bit for bit."""
    a = np.asarray(a, F32)
    angle = (a * terms.theta).astype(np.float64)
    w1_curve = (np.sin(angle) * terms.inv_sin_theta).astype(F32)
    w0_curve = (np.cos(angle) - w1_curve.astype(np.float64) * terms.dot.astype(np.float64)).astype(F32)
    w0 = np.where(terms.linear, F32(1) - a, w0_curve)
    w1 = np.where(terms.linear, a, w1_curve) * terms.sign
    return w0[..., None] * q0 + w1[..., None] * q1


def lerp(p0: np.ndarray, p1: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Key position interpolation; section 3.3 names lerp without its formula: p0 + (p1 - p0) * a."""
    return p0 + (p1 - p0) * np.asarray(a, F32)[..., None]


def sample(data: AnimationData, times, nodes=None) -> Samples:
    """Sample ``nodes`` (default: all) at every time of ``times`` (section 3).

    Raises FormatError where the runtime would read outside Res8 or Res19.
    """
    t = np.asarray(times, F32).reshape(-1)
    node_ids = np.arange(data.node_count) if nodes is None else np.asarray(nodes, np.int64).reshape(-1)
    if len(node_ids) and (node_ids.min() < 0 or node_ids.max() >= data.node_count):
        raise FormatError.single("Res1", None, f"node index out of range ({data.node_count} nodes)")
    shape = (len(node_ids), len(t))
    frame_u32 = (frame_index(t).astype(np.int64) & 0xFFFFFFFF)[None, :]
    map_start = data.map_start[node_ids].astype(np.int64)[:, None]
    fallback = data.fallback[node_ids].astype(np.int64)[:, None]
    mapped = (frame_u32 < data.frame_count) & (map_start != NONE)
    word_at = np.where(mapped, map_start + frame_u32, 0)
    _require(~mapped | (word_at < len(data.words)), "Res19", node_ids, "map word past the end of Res19")
    word = np.take(data.words, word_at).astype(np.int64) if len(data.words) else np.zeros(shape, np.int64)
    mapped &= word < fallback
    key = np.where(mapped, word, fallback)
    _require(key < len(data.times), "Res8", node_ids, "key index past the end of Res8")
    _require(~mapped | (key + 1 < len(data.times)), "Res8", node_ids, "next key past the end of Res8")
    k0 = key
    k1 = key + mapped
    t_all = t[None, :]
    t0, t1 = np.take(data.times, k0), np.take(data.times, k1)
    is_k0 = mapped & (t_all == t0)
    is_k1 = mapped & ~is_k0 & (t_all == t1)
    is_lerp = mapped & ~is_k0 & ~is_k1
    # The key shown where none is interpolated, then the interpolation where it is: np.take, as a fancy index
    # (data.pos[k0]) gathers several times slower.
    shown = np.where(is_k1, k1, k0)
    pos, rot = np.take(data.pos, shown, axis=0), np.take(data.rot, shown, axis=0)
    at = np.flatnonzero(is_lerp)
    if len(at):
        k0_at, k1_at = np.take(k0, at), np.take(k1, at)
        t0_at = np.take(t0, at)
        with np.errstate(all="ignore"):
            a = ((np.take(t, at % len(t)) - t0_at) / (np.take(t1, at) - t0_at)).astype(F32)
            pos.reshape(-1, 3)[at] = lerp(np.take(data.pos, k0_at, axis=0), np.take(data.pos, k1_at, axis=0), a)
            rot.reshape(-1, 4)[at] = slerp(np.take(data.rot, k0_at, axis=0), np.take(data.rot, k1_at, axis=0), a)
    branch = np.select([~mapped, is_k0, is_k1], [FALLBACK, K0, K1], LERP).astype(np.int8)
    return Samples(rot, pos, shown, branch)


def _require(ok: np.ndarray, stream: str, node_ids: np.ndarray, message: str) -> None:
    if not np.all(ok):
        n, i = np.argwhere(~ok)[0]
        raise FormatError.single(stream, None, f"node {int(node_ids[n])}, sample {int(i)}: {message}")


def sample_node(data: AnimationData, node: int, t: float) -> tuple[np.ndarray, np.ndarray, int, str]:
    """One node at one time: (rot[4], pos[3], key, branch name)."""
    s = sample(data, [t], [node])
    return s.rot[0, 0], s.pos[0, 0], int(s.key[0, 0]), BRANCHES[s.branch[0, 0]]


def blend(data: AnimationData, node: int, t_a: float, t_b: float, weight: float) -> np.ndarray | None:
    """Section 4 (sub_10012560): the blended 4x4 matrix, translation in elements 3/7/11.

    None for the branch the original leaves undefined (neither sample taken).
    """
    pose = blend_pose(data, node, t_a, t_b, weight)
    return None if pose is None else pose_matrix(*pose)


def blend_pose(data: AnimationData, node: int, t_a: float, t_b: float, weight: float
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """``blend``'s quaternion (file order, not normalised) and position, float32, before the matrix is made."""
    w = F32(weight)
    has_a = bool(w < F32(1)) and bool(F32(t_a) >= F32(0))
    has_b = bool(w > F32(0)) and bool(F32(t_b) >= F32(0))
    if not (has_a or has_b):
        return None
    s = sample(data, [t_a, t_b], [node])
    (q_a, q_b), (p_a, p_b) = s.rot[0], s.pos[0]
    if has_a != has_b:
        return (q_a, p_a) if has_a else (q_b, p_b)
    plus, minus = q_a + q_b, q_a - q_b
    if _dot4(plus, plus) < _dot4(minus, minus):
        q_b = -q_b
    q = slerp(q_a, q_b, w)
    p = (F32(1) - w) * p_a + w * p_b
    return q, p


def blend_poses(data: AnimationData, nodes, t_a, t_b, weight) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``blend_pose`` of every node in ``nodes`` at every (t_a[i], t_b[i], weight[i]), bit for bit, in one call:
    (rot (nodes, times, 4), pos (nodes, times, 3), shown (nodes, times)); NaN and ``shown`` False where
    ``blend_pose`` gives None (neither sample taken)."""
    t_a, t_b, w = (np.asarray(v, F32).reshape(-1) for v in (t_a, t_b, weight))
    node_ids = np.asarray(nodes, np.int64).reshape(-1)
    has_a = (w < F32(1)) & (t_a >= F32(0))
    has_b = (w > F32(0)) & (t_b >= F32(0))
    s_a, s_b = sample(data, t_a, node_ids), sample(data, t_b, node_ids)
    q_a, q_b, p_a, p_b = s_a.rot, s_b.rot, s_a.pos, s_b.pos
    plus, minus = q_a + q_b, q_a - q_b
    flip = _dot4(plus.T, plus.T).T < _dot4(minus.T, minus.T).T
    with np.errstate(all="ignore"):
        q = slerp(q_a, np.where(flip[..., None], -q_b, q_b), w)
        p = (F32(1) - w)[:, None] * p_a + w[:, None] * p_b
    only_a, only_b = (has_a & ~has_b)[:, None], (has_b & ~has_a)[:, None]
    rot = np.where(only_a, q_a, np.where(only_b, q_b, q))
    pos = np.where(only_a, p_a, np.where(only_b, p_b, p))
    shown = np.broadcast_to(has_a | has_b, (len(node_ids), len(w)))
    rot = np.where(shown[..., None], rot, F32(np.nan)).astype(F32)
    pos = np.where(shown[..., None], pos, F32(np.nan)).astype(F32)
    return rot, pos, shown.copy()


def _dot4(a: np.ndarray, b: np.ndarray) -> np.float32:
    return ((a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]) + a[3] * b[3]


def world_matrices_at(data: AnimationData, times, normalize: bool = False) -> np.ndarray:
    """Every node's model-space matrix at each time, (nodes, times, 4, 4) in float64.

    Composes the sampled local matrices through the parents (parent @ child);
    raises FormatError for a bad parent index or a cycle. The runtime builds
    its matrix from the unnormalised quaternion (i16 keys are off unit length
    by up to ~6e-5); ``normalize`` gives the rigid transform a viewer that
    normalises (Blender) shows instead.
    """
    s = sample(data, times)
    rot = s.rot
    if normalize:
        length = np.linalg.norm(rot.astype(np.float64), axis=-1, keepdims=True)
        rot = np.where(length > 0, rot / np.where(length > 0, length, 1), rot)
    return world_matrices(pose_matrix(rot, s.pos), data.parents)
