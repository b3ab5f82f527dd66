"""Pose math of the runtime (msh-animation.md 4.4): the quaternion matrix and parent composition.

A node's matrix is ``quat_to_matrix(q)`` with the position in elements
3, 7, 11 (row-major, column vectors): a point p of the node maps to
``M @ [p, 1]`` in its parent's space. Quaternions are in file order.
"""

from __future__ import annotations

import numpy as np

from ..errors import FormatError

NONE = 0xFFFF


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """g_FastProc[14] for q = [w, x, y, z] (any leading shape) in float32, as 4x4."""
    q = np.asarray(q, np.float32)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    two = np.float32(2.0)
    one = np.float32(1.0)
    m = np.zeros((*q.shape[:-1], 4, 4), np.float32)
    m[..., 0, 0] = one - two * (y * y + z * z)
    m[..., 0, 1] = two * (x * y + w * z)
    m[..., 0, 2] = two * (x * z - w * y)
    m[..., 1, 0] = two * (x * y - w * z)
    m[..., 1, 1] = one - two * (x * x + z * z)
    m[..., 1, 2] = two * (y * z + w * x)
    m[..., 2, 0] = two * (x * z + w * y)
    m[..., 2, 1] = two * (y * z - w * x)
    m[..., 2, 2] = one - two * (x * x + y * y)
    m[..., 3, 3] = one
    return m


def pose_matrix(rot: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The 4x4 local matrix of a pose: rotation matrix, translation in elements 3/7/11."""
    m = quat_to_matrix(rot)
    m[..., :3, 3] = np.asarray(pos, np.float32)
    return m


def parent_order(parents: np.ndarray) -> list[int]:
    """Nodes ordered so that every parent precedes its children.

    Raises FormatError for a parent index out of range or a cycle.
    """
    parents = [int(p) for p in parents]
    count = len(parents)
    for i, p in enumerate(parents):
        if p != NONE and not 0 <= p < count:
            raise FormatError.single("Res1", i, f"parent {p} is out of range ({count} nodes)")
    if all(p == NONE or p < i for i, p in enumerate(parents)):
        return list(range(count))
    order, state = [], [0] * count
    for start in range(count):
        chain, node = [], start
        while node != NONE and state[node] == 0:
            state[node] = 1
            chain.append(node)
            node = parents[node]
        if node != NONE and state[node] == 1:
            raise FormatError.single("Res1", node, "node is its own ancestor (parent cycle)")
        for n in reversed(chain):
            state[n] = 2
            order.append(n)
    return order


def world_matrices(local: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """Compose local matrices (nodes on axis 0, any trailing batch axes before 4x4) through parents."""
    world = np.array(local, np.float64)
    with np.errstate(all="ignore"):  # a NaN pose (from NaN key data) stays NaN, silently
        for i in parent_order(parents):
            p = int(parents[i])
            if p != NONE:
                world[i] = world[p] @ world[i]
    return world
