"""The one place where MSH values become Blender values (docs/formats/: rotations, axes, UVs).

Pure numpy: no bpy, so the mapping is testable anywhere.

- Rotation: file components (r0, r1, r2, r3) become Blender's
  ``Quaternion((r0, -r1, -r2, -r3))`` (decision 1: r0 is w, and the
  conjugate turns the engine's matrix into Blender's).
- Position: as stored; Z up, +Y north, metres, no mirroring (decision 2).
- UV: Blender's V is ``1 - v``: the file's texel row 0 lies at v = 0 (as
  retail-data readers found), and io_msh.imp.materials loads pictures upright (row 0 at the top).
"""

from __future__ import annotations

import numpy as np

_CONJUGATE = np.array([1.0, -1.0, -1.0, -1.0])


def blender_quaternions(file_rot: np.ndarray) -> np.ndarray:
    """File-order rotation components (..., 4) to Blender (w, x, y, z)."""
    return np.asarray(file_rot, np.float64) * _CONJUGATE


def file_quaternions(blender_rot: np.ndarray) -> np.ndarray:
    """Blender (w, x, y, z) back to file component order: the same map (it is its own inverse)."""
    return np.asarray(blender_rot, np.float64) * _CONJUGATE


def local_poses(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nodes, frames, 4, 4) local matrices to file-order rotations and positions."""
    m = np.asarray(matrices, np.float64)
    basis = m[..., :3, :3] / np.linalg.norm(m[..., :3, :3], axis=-2, keepdims=True)
    return file_quaternions(_matrix_to_quaternion(basis)), m[..., :3, 3]


def _matrix_to_quaternion(r: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) to unit quaternions (w, x, y, z), choosing the stable branch."""
    trace = r[..., 0, 0] + r[..., 1, 1] + r[..., 2, 2]
    candidates = np.stack([
        np.stack([1 + trace, r[..., 2, 1] - r[..., 1, 2], r[..., 0, 2] - r[..., 2, 0],
                  r[..., 1, 0] - r[..., 0, 1]], -1),
        np.stack([r[..., 2, 1] - r[..., 1, 2], 1 + r[..., 0, 0] - r[..., 1, 1] - r[..., 2, 2],
                  r[..., 0, 1] + r[..., 1, 0], r[..., 0, 2] + r[..., 2, 0]], -1),
        np.stack([r[..., 0, 2] - r[..., 2, 0], r[..., 0, 1] + r[..., 1, 0],
                  1 - r[..., 0, 0] + r[..., 1, 1] - r[..., 2, 2], r[..., 1, 2] + r[..., 2, 1]], -1),
        np.stack([r[..., 1, 0] - r[..., 0, 1], r[..., 0, 2] + r[..., 2, 0], r[..., 1, 2] + r[..., 2, 1],
                  1 - r[..., 0, 0] - r[..., 1, 1] + r[..., 2, 2]], -1),
    ], axis=-2)
    pick = np.argmax(np.stack([trace, r[..., 0, 0], r[..., 1, 1], r[..., 2, 2]], -1), axis=-1)
    q = np.take_along_axis(candidates, pick[..., None, None], axis=-2)[..., 0, :]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., :1] < 0, -q, q)


# ---------------------------------------------------------------- bone frames
# Blender keeps a bone's rest as head, tail and roll, relative to its parent bone, and makes its matrix from them
# in float32 (vec_roll_to_mat3). Where the bone's Y axis (head to tail) points near -Y, of the armature or of the
# parent bone, that matrix comes out off by up to 5e-5 and not even a rotation: 1 + y loses its digits. A node
# whose rest points so gets a bone turned by one of these quarter or half turns ("bone frame": bone = node @
# frame), which puts another of the node's axes along the bone; the importer and the export take it out again.
FRAME_CANDIDATES = np.array([
    [1.0, 0, 0, 0],
    [np.sqrt(0.5), np.sqrt(0.5), 0, 0], [np.sqrt(0.5), -np.sqrt(0.5), 0, 0],  # Y to +Z, -Z
    [np.sqrt(0.5), 0, 0, np.sqrt(0.5)], [np.sqrt(0.5), 0, 0, -np.sqrt(0.5)],  # Y to -X, +X
    [0.0, 1, 0, 0],                                                           # Y to -Y
])
SAFE_FROM_MINUS_Y = 0.25  # 1 + y of a bone's axis: above this vec_roll_to_mat3 loses at most ~3e-7


def bone_frames(rest_world: np.ndarray, parents: list[int | None]) -> np.ndarray:
    """(nodes, 4) Blender quaternions: each node's bone frame (FRAME_CANDIDATES), the identity wherever the
    node's own Y axis is safe both in the armature and in its parent's bone; parents first. ``rest_world``
    (nodes, 4) the nodes' rest rotations relative to the root (Blender quaternions)."""
    world = matrices(rest_world, np.zeros((len(parents), 3)))[:, :3, :3]
    turns = matrices(FRAME_CANDIDATES, np.zeros((len(FRAME_CANDIDATES), 3)))[:, :3, :3]
    axes = turns[:, :, 1]                        # each candidate's bone axis in the node: (6, 3)
    chosen = np.zeros(len(parents), np.int64)
    bone_world = np.empty_like(world)
    for i, parent in enumerate(parents):
        along = axes @ world[i].T                 # the candidates' bone axes in the armature
        safety = 1 + along[:, 1]
        if parent is not None:
            safety = np.minimum(safety, 1 + (along @ bone_world[parent])[:, 1])  # in the parent bone
        chosen[i] = 0 if safety[0] >= SAFE_FROM_MINUS_Y else int(np.argmax(safety))
        bone_world[i] = world[i] @ turns[chosen[i]]
    return FRAME_CANDIDATES[chosen]


def blender_uvs(uv: np.ndarray) -> np.ndarray:
    out = np.array(uv, np.float64)
    out[..., 1] = 1.0 - out[..., 1]
    return out


def file_uvs(uv: np.ndarray) -> np.ndarray:
    return blender_uvs(uv)


# ---------------------------------------------------------------- quaternion helpers (Blender convention)
def normalized(q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, np.float64)
    length = np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(length > 0, q / np.where(length > 0, length, 1), np.array([1.0, 0, 0, 0]))


def multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a * b over the last axis."""
    aw, ax, ay, az = np.moveaxis(np.asarray(a, np.float64), -1, 0)
    bw, bx, by, bz = np.moveaxis(np.asarray(b, np.float64), -1, 0)
    return np.stack([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ], axis=-1)


def conjugate(q: np.ndarray) -> np.ndarray:
    return np.asarray(q, np.float64) * _CONJUGATE


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors v by unit quaternions q (Blender convention)."""
    qv = np.concatenate([np.zeros((*np.shape(v)[:-1], 1)), v], axis=-1)
    return multiply(multiply(q, qv), conjugate(q))[..., 1:]


def matrices(q: np.ndarray, t: np.ndarray) -> np.ndarray:
    """4x4 matrices from Blender quaternions (normalised here, as Blender does) and translations."""
    w, x, y, z = np.moveaxis(normalized(q), -1, 0)
    m = np.zeros((*np.shape(w), 4, 4))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - w * z)
    m[..., 0, 2] = 2 * (x * z + w * y)
    m[..., 1, 0] = 2 * (x * y + w * z)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - w * x)
    m[..., 2, 0] = 2 * (x * z - w * y)
    m[..., 2, 1] = 2 * (y * z + w * x)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    m[..., :3, 3] = t
    m[..., 3, 3] = 1
    return m


def affine_inverse(m: np.ndarray) -> np.ndarray:
    """Inverses of affine 4x4 matrices (..., 4, 4): the 3x3 part by its adjugate, all at once."""
    m = np.asarray(m, np.float64)
    a = m[..., :3, :3]
    adjugate = np.empty_like(a)
    for i in range(3):
        for j in range(3):
            r0, r1 = [r for r in range(3) if r != j]
            c0, c1 = [c for c in range(3) if c != i]
            adjugate[..., i, j] = (-1) ** (i + j) * (a[..., r0, c0] * a[..., r1, c1] - a[..., r0, c1] * a[..., r1, c0])
    det = (a[..., 0, :] * adjugate[..., :, 0]).sum(-1)
    inverse = np.zeros_like(m)
    inverse[..., :3, :3] = adjugate / det[..., None, None]
    inverse[..., :3, 3] = -(inverse[..., :3, :3] @ m[..., :3, 3:])[..., 0]
    inverse[..., 3, 3] = 1.0
    return inverse


def continuous(q: np.ndarray, axis: int = -2) -> np.ndarray:
    """Flip signs along ``axis`` so that consecutive quaternions have a non-negative dot product.

    Blender interpolates quaternion F-curves per component, so a sign jump
    between keys would spin the long way round.
    """
    q = np.array(q, np.float64)
    moved = np.moveaxis(q, axis, 0)
    if len(moved) < 2:
        return q
    flips = (moved[1:] * moved[:-1]).sum(-1) < 0
    moved[1:][np.cumsum(flips, axis=0, dtype=np.int64) % 2 == 1] *= -1  # in place: ``moved`` is a view of the copy
    return q


# MSH nodes have no scale (io_msh.exp.scene_read.bake_node_scale)
SCALE_TOLERANCE = 1e-5  # below this a node's matrix counts as unscaled (float32 matrices round near 1e-7)
# Each level of a chain composes one more float32 matrix product: the rounding a node's matrix relative to the
# root may show grows with its depth, and the tolerance with it (a node at depth d: (1 + d) * SCALE_TOLERANCE).


def has_scale(local: np.ndarray, parents: list[int | None]) -> bool:
    """Whether any node's matrix relative to the root (from (nodes, frames, 4, 4) ``local`` matrices, parents
    first) is not a rotation: scaled, mirrored or sheared."""
    return bool(scaled_nodes(node_worlds(local, parents), parents).any())


def node_worlds(local: np.ndarray, parents: list[int | None]) -> np.ndarray:
    """(nodes, frames, 4, 4) matrices relative to the root from ones relative to each parent (parents first)."""
    world = np.array(local, np.float64)
    for i, parent in enumerate(parents):  # parents come first
        if parent is not None:
            world[i] = world[parent] @ world[i]
    return world


def chain_depths(parents: list[int | None]) -> np.ndarray:
    """Per node (parents first): how many parents it has above it."""
    depth = np.zeros(len(parents), np.int64)
    for i, parent in enumerate(parents):
        if parent is not None:
            depth[i] = depth[parent] + 1
    return depth


def scale_tolerances(parents: list[int | None]) -> np.ndarray:
    """Per node: how far its matrix relative to the root may stray from a rotation by float32 rounding alone."""
    return SCALE_TOLERANCE * (1 + chain_depths(parents))


def scaled_nodes(world: np.ndarray, parents: list[int | None]) -> np.ndarray:
    """Per node, whether its matrix at any frame is not a rotation (scaled, mirrored or sheared) by more than
    the rounding of its chain (``scale_tolerances``)."""
    basis = world[..., :3, :3]
    gram = np.swapaxes(basis, -1, -2) @ basis
    deviation = np.abs(gram - np.eye(3)).max(axis=(-1, -2)).reshape(len(world), -1).max(axis=1)
    # A pure reflection (scale -1, 1, 1) keeps the Gram matrix the identity: only its determinant tells.
    mirrored = (np.linalg.det(basis) < 0).reshape(len(world), -1).any(axis=1)
    return (deviation > 2 * scale_tolerances(parents)) | mirrored
