"""Import planning of animation: the F-curve keys of every node, in the node mode's terms.

KEYS: one key per MSH key of every node with a frame map.

FAITHFUL and EDITING, in bounded memory: the runtime is sampled (core.animation.sampler,
msh-animation.md section 3) at every frame 0 .. frame_count + 1, one block of
at most ``BLOCK_SAMPLES`` node-frames at a time. Of those frames only the ones
Blender's linear F-curves cannot reproduce within a tolerance are keyed
(FAITHFUL: float32 precision; EDITING: the export's key tolerance): constant
runs, linear position runs and slerps close to a straight line collapse to a
few keys. Nodes without a frame map show their fallback key at every frame
(section 3.2) and are sampled once. Memory is bounded by the block and the
keys kept, never by nodes x frames.

No bpy: pure numpy on top of core.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.animation.keys import Tolerance
from ...core.animation.sampler import AnimationData, sample
from ...core.animation.tracks import canonical_words, read_animation, track_starts
from ...core.msh import streams as S
from ...core.msh.model import Model
from ..com import conversion as C

BLOCK_SAMPLES = 1 << 18  # node-frames sampled and reduced at once
CHUNK_FRAMES = 1 << 16   # frames per block; every chunk's last frame is kept as a key


@dataclass(frozen=True)
class KeyTolerance:
    """How far a dropped frame may lie from the linear interpolation of the kept keys."""

    rotation: float  # quaternion components
    location: float
    relative: bool   # location relative to max(1, |location|) of the node over the chunk


# FAITHFUL: about two float32 steps, the precision an F-curve stores anyway.
FAITHFUL_TOLERANCE = KeyTolerance(2.5e-7, 2.5e-7, relative=True)
# EDITING: the export's default key tolerance (core.animation.keys.Tolerance: 0.1 mm, 0.05 degree; a quaternion
# component error e turns a rotation by at most 4e radians), so that few keys remain to edit.
EDITING_TOLERANCE = KeyTolerance(np.radians(Tolerance().rotation_deg) / 4, Tolerance().position, relative=False)


@dataclass
class ChannelPlan:
    """One node's keyed values, already in the node mode's terms (local, or pose basis for bones)."""

    node: int
    frames: np.ndarray         # (k,) Blender frames
    location: np.ndarray       # (k, 3)
    rotation: np.ndarray       # (k, 4) Blender quaternions, sign-continuous


def plan_channels(model: Model, nodes: list, animation: str, node_mode: str) -> list[ChannelPlan]:
    """Keys for ``nodes`` (NodePlans). ``animation`` FAITHFUL, EDITING (FAITHFUL within the export's
    tolerance: few keys) or KEYS; ``node_mode`` EMPTIES keys the local pose, ARMATURE the pose relative to
    the bone's rest."""
    if animation in ("FAITHFUL", "EDITING"):
        return bake(model, nodes, node_mode, FAITHFUL_TOLERANCE if animation == "FAITHFUL" else EDITING_TOLERANCE)
    tracks = read_animation(model).tracks
    return [_keys(n, tracks[n.index].times.astype(np.float64), tracks[n.index].rotations, tracks[n.index].pos,
                  node_mode) for n in nodes if tracks[n.index].has_map]


def has_non_canonical_maps(model: Model) -> bool:
    words, frame_count = model.map_words, model.frame_count
    for start, node in zip(track_starts(model), model.nodes):
        map_start = int(node["map_start"])
        if map_start == S.NO_INDEX:
            continue
        expected = canonical_words(model.keys["time"][start:int(node["fallback_key"]) + 1], start, frame_count)
        if not np.array_equal(words[map_start:map_start + frame_count], expected):
            return True
    return False


def bake(model: Model, nodes: list, node_mode: str, tolerance: KeyTolerance = FAITHFUL_TOLERANCE
         ) -> list[ChannelPlan]:
    """Keys for every node whose pose at some frame differs from its first key (its rest), reproducing the
    runtime's pose at every integer frame within ``tolerance``."""
    data = AnimationData.from_model(model)
    first = model.keys[track_starts(model)]
    first_rot, first_pos = S.decode_rotations(first["rot"]), first["pos"]
    mapped = [n for n in nodes if data.map_start[n.index] != S.NO_INDEX]
    unmapped = [n for n in nodes if data.map_start[n.index] == S.NO_INDEX]
    baked = []
    if unmapped:  # section 3.2: every frame shows the fallback key
        ids = [n.index for n in unmapped]
        still = sample(data, [0.0], ids)
        for row, node in enumerate(unmapped):
            rot, pos = still.rot[row], still.pos[row]
            if (rot != first_rot[node.index]).any() or (pos != first_pos[node.index]).any():
                baked.append(_keys(node, np.zeros(1), rot, pos, node_mode))
    last_frame = data.frame_count + 1  # frames frame_count and frame_count + 1 show the fallback key
    chunk = min(CHUNK_FRAMES, last_frame)
    group = max(1, BLOCK_SAMPLES // (chunk + 1))
    for g in range(0, len(mapped), group):
        baked += _bake_group(data, mapped[g:g + group], first_rot, first_pos, last_frame, chunk, node_mode,
                             tolerance)
    return sorted(baked, key=lambda b: b.node)


def _bake_group(data: AnimationData, nodes: list, first_rot, first_pos, last_frame: int, chunk: int,
                node_mode: str, tolerance: KeyTolerance) -> list[ChannelPlan]:
    ids = np.array([n.index for n in nodes])
    moving = np.zeros(len(nodes), bool)
    kept: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in nodes]
    previous_rot = None
    for start in range(0, max(last_frame, 1), chunk):
        end = min(start + chunk, last_frame)
        frames = np.arange(start, end + 1, dtype=np.float32)
        s = sample(data, frames, ids)
        moving |= ((s.rot != first_rot[ids][:, None]).any(axis=(1, 2))
                   | (s.pos != first_pos[ids][:, None]).any(axis=(1, 2)))
        location, rotation = _node_terms(nodes, C.blender_quaternions(s.rot), s.pos.astype(np.float64), node_mode)
        rotation = C.continuous(rotation, axis=1)
        if previous_rot is not None:  # the chunk's first frame is the previous chunk's last: same sign
            flip = (rotation[:, 0] * previous_rot).sum(-1) < 0
            rotation[flip] *= -1
        previous_rot = rotation[:, -1]
        values = np.concatenate([location, rotation], axis=2)
        keep = linear_keys(values, _tolerance(location, tolerance))
        if start > 0:
            keep[:, 0] = False  # already kept as the previous chunk's last frame
        for row in range(len(nodes)):
            at = np.flatnonzero(keep[row])
            kept[row].append((start + at, values[row, at]))
    out = []
    for row, node in enumerate(nodes):
        if moving[row]:
            frames = np.concatenate([f for f, _ in kept[row]]).astype(np.float64)
            values = np.concatenate([v for _, v in kept[row]])
            count = _without_trailing_repeats(values)
            out.append(ChannelPlan(node.index, frames[:count], values[:count, :3], values[:count, 3:]))
    return out


def _keys(node, frames: np.ndarray, file_rot: np.ndarray, pos: np.ndarray, node_mode: str) -> ChannelPlan:
    location, rotation = _node_terms([node], C.blender_quaternions(file_rot)[None], pos.astype(np.float64)[None],
                                     node_mode)
    return ChannelPlan(node.index, frames, location[0], C.continuous(rotation[0]))


def _node_terms(nodes: list, rotation: np.ndarray, location: np.ndarray, node_mode: str):
    """Empties take the local pose; pose bones take it relative to the bone's rest (rest^-1 @ local).

    ``rotation`` (nodes, frames, 4) Blender quaternions and ``location`` (nodes, frames, 3).
    """
    if node_mode == "EMPTIES":
        return location, rotation
    inverse = C.conjugate(np.array([n.rest_rotation for n in nodes]))[:, None]
    rest = np.array([n.rest_location for n in nodes])[:, None]
    return C.rotate(inverse, location - rest), C.multiply(inverse, rotation)


def _tolerance(location: np.ndarray, tolerance: KeyTolerance) -> np.ndarray:
    """Per node and channel (nodes, 1, 7)."""
    scale = np.maximum(1.0, np.abs(location).max(axis=(1, 2)))[:, None, None] if tolerance.relative else \
        np.ones((len(location), 1, 1))
    return np.concatenate([np.broadcast_to(tolerance.location * scale, (len(location), 1, 3)),
                           np.full((len(location), 1, 4), tolerance.rotation)], axis=2)


def linear_keys(values: np.ndarray, tolerance: np.ndarray) -> np.ndarray:
    """Which frames to key so that linear interpolation reproduces every frame within ``tolerance``.

    ``values`` (rows, frames, channels) at consecutive frames; returns a (rows, frames) mask that keeps
    the first and last frame. The range is cut into power-of-two pieces (their ends are kept), each
    searched by ``_power_of_two_keys``.
    """
    rows, count, _ = values.shape
    keep = np.zeros((rows, count), bool)
    keep[:, [0, count - 1]] = True
    scaled = values / tolerance
    start = 0
    while count - 1 - start >= 2:
        size = 1 << int(np.log2(count - 1 - start))
        keep[:, start:start + size + 1] |= _power_of_two_keys(scaled[:, start:start + size + 1])
        start += size
    return keep


def _power_of_two_keys(scaled: np.ndarray) -> np.ndarray:
    """``linear_keys`` for 2^p + 1 frames of values already divided by their tolerance.

    Blocks of 2^k frames are tried from the whole range down to single steps, all rows and blocks of
    one size in one vectorised pass; a block whose interior lies within 1 of the line between its two
    ends, and that no larger block already covers, keeps only its ends.
    """
    rows, count, channels = scaled.shape
    last = count - 1
    keep = np.zeros((rows, count), bool)
    covered = np.zeros((rows, 1), bool)  # per block of the previous (twice larger) size
    size = last
    while size >= 1:
        blocks = last // size
        inherited = np.repeat(covered, 2, axis=1) if size < last else covered
        active = ~inherited
        if not active.any():
            break
        starts, ends = scaled[:, :last:size][active], scaled[:, size::size][active]  # (m, channels)
        inside = scaled[:, :last].reshape(rows, blocks, size, channels)[active]    # (m, size, channels)
        fraction = (np.arange(size) / size)[None, :, None]
        line = starts[:, None] + (ends - starts)[:, None] * fraction
        fits = np.zeros((rows, blocks), bool)
        fits[active] = np.abs(inside - line).max(axis=(1, 2)) <= 1.0
        keep[:, :last:size] |= fits
        keep[:, size::size] |= fits
        covered = inherited | fits
        size //= 2
    return keep


def _without_trailing_repeats(values: np.ndarray) -> int:
    """How many keys to keep: trailing keys equal to the one before them add nothing."""
    keep = len(values)
    while keep > 1 and np.array_equal(values[keep - 1], values[keep - 2]):
        keep -= 1
    return keep
