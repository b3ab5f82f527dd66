"""Import planning of animation: the F-curve keys of every node, in the node mode's terms.

KEYS: one key per MSH key of every node with a frame map.

FAITHFUL and EDITING, in bounded memory: the runtime is sampled (core.animation.sampler,
msh-animation.md section 3) at every frame 0 .. frame_count + 1, one block of
at most ``BLOCK_SAMPLES`` node-frames at a time. Of those frames only the ones
Blender's linear F-curves cannot reproduce within a tolerance are keyed:
FAITHFUL to float32 precision per channel (constant runs, linear position
runs and slerps close to a straight line collapse to a few keys); EDITING
within the export's key tolerance measured as the export measures it
(core.animation.keys: the rotation angle after Blender normalises the interpolated
quaternion, and the position distance), keys chosen greedily as far apart as
that allows, as the export's *Reduced* does. Nodes without a frame map show their fallback key at every frame
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
from ...core.errors import FormatError
from ...core.msh import streams as S
from ...core.msh.model import Model
from ..com import conversion as C

BLOCK_SAMPLES = 1 << 18  # node-frames sampled and reduced at once
CHUNK_FRAMES = 1 << 16   # frames per block; every chunk's last frame is kept as a key
# EDITING's greedy search takes a step per key, each step testing all the block's nodes at once: shorter chunks put
# more nodes in a block, so that a long dense track takes fewer steps (a model of 300 nodes x 65,535 frames of dense
# motion was refused after 78 s, now 12 s); animations up to this length are one chunk, as before.
GREEDY_CHUNK_FRAMES = 1 << 12


@dataclass(frozen=True)
class KeyTolerance:
    """How far a dropped frame may lie from the linear interpolation of the kept keys."""

    rotation: float  # quaternion components; with ``angular`` the rotation angle (radians)
    location: float  # per component; with ``angular`` the distance
    relative: bool   # location relative to max(1, |location|) of the node over the chunk
    angular: bool = False  # measured as the export measures (core.animation.keys), keys chosen by ``greedy_keys``


# FAITHFUL: about two float32 steps, the precision an F-curve stores anyway.
FAITHFUL_TOLERANCE = KeyTolerance(2.5e-7, 2.5e-7, relative=True)
# EDITING: the export's default key tolerance (core.animation.keys.Tolerance: 0.1 mm, 0.05 degree), less 5% for the
# float32 values an F-curve stores and evaluates, so that few keys remain to edit.
EDITING_MARGIN = 0.95
EDITING_TOLERANCE = KeyTolerance(np.radians(Tolerance().rotation_deg) * EDITING_MARGIN,
                                 Tolerance().position * EDITING_MARGIN, relative=False, angular=True)
GREEDY_WINDOW = 8          # key candidates tried at once from each key
GREEDY_PAIRS = 1 << 18     # (segment, frame) pairs tested at once


@dataclass
class ChannelPlan:
    """One node's keyed values, already in the node mode's terms (local, or pose basis for bones)."""

    node: int
    frames: np.ndarray         # (k,) Blender frames
    location: np.ndarray       # (k, 3)
    rotation: np.ndarray       # (k, 4) Blender quaternions, sign-continuous


def plan_channels(model: Model, nodes: list, animation: str, node_mode: str,
                  count: KeyCount | None = None) -> list[ChannelPlan]:
    """Keys for ``nodes`` (NodePlans). ``animation`` FAITHFUL, EDITING (FAITHFUL within the export's
    tolerance: few keys) or KEYS; ``node_mode`` EMPTIES keys the local pose, ARMATURE the pose relative to
    the bone's rest. ``count`` refuses, as the keys are chosen, more than it allows."""
    if animation in ("FAITHFUL", "EDITING"):
        return bake(model, nodes, node_mode, FAITHFUL_TOLERANCE if animation == "FAITHFUL" else EDITING_TOLERANCE,
                    count)
    tracks = read_animation(model).tracks
    if count is not None:
        count.add(sum(len(tracks[n.index].times) for n in nodes if tracks[n.index].has_map))
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


def bake(model: Model, nodes: list, node_mode: str, tolerance: KeyTolerance = FAITHFUL_TOLERANCE,
         count: KeyCount | None = None) -> list[ChannelPlan]:
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
    chunk = min(GREEDY_CHUNK_FRAMES if tolerance.angular else CHUNK_FRAMES, last_frame)
    group = max(1, BLOCK_SAMPLES // (chunk + 1))
    for g in range(0, len(mapped), group):
        baked += _bake_group(data, mapped[g:g + group], first_rot, first_pos, last_frame, chunk, node_mode,
                             tolerance, count)
    return sorted(baked, key=lambda b: b.node)


def _bake_group(data: AnimationData, nodes: list, first_rot, first_pos, last_frame: int, chunk: int,
                node_mode: str, tolerance: KeyTolerance, count: KeyCount | None = None) -> list[ChannelPlan]:
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
        rotation = _continuous(rotation)
        if previous_rot is not None:  # the chunk's first frame is the previous chunk's last: same sign
            flip = (rotation[:, 0] * previous_rot).sum(-1) < 0
            rotation[flip] *= -1
        previous_rot = rotation[:, -1]
        values = np.concatenate([location, rotation], axis=2)
        if tolerance.angular:  # Blender shows the normalised quaternion: key unit quaternions
            values[..., 3:] /= np.linalg.norm(values[..., 3:], axis=2, keepdims=True)
            keep = greedy_keys(values, tolerance.location, tolerance.rotation)
        else:
            keep = linear_keys(values, _tolerance(location, tolerance))
        if start > 0:
            keep[:, 0] = False  # already kept as the previous chunk's last frame
        if count is not None:
            count.add(int(keep.sum()))
        # every row's kept frames and values at once, then sliced by row (every frame kept: no copy)
        if keep.all():
            frames_kept = np.tile(np.arange(start, start + keep.shape[1]), len(nodes))
            values_kept = values.reshape(-1, values.shape[2])
        else:
            _row_at, at = np.nonzero(keep)
            frames_kept, values_kept = start + at, values[keep]
        bounds = [0, *np.cumsum(keep.sum(axis=1)).tolist()]
        for row in range(len(nodes)):
            kept[row].append((frames_kept[bounds[row]:bounds[row + 1]], values_kept[bounds[row]:bounds[row + 1]]))
    out = []
    for row, node in enumerate(nodes):
        if moving[row]:
            pieces = kept[row]
            frames = (pieces[0][0] if len(pieces) == 1 else np.concatenate([f for f, _ in pieces])).astype(np.float64)
            values = pieces[0][1] if len(pieces) == 1 else np.concatenate([v for _, v in pieces])
            count = _without_trailing_repeats(values)
            out.append(ChannelPlan(node.index, frames[:count], values[:count, :3], values[:count, 3:]))
    return out


def _continuous(rotation: np.ndarray) -> np.ndarray:
    """``conversion.continuous`` along the frames of (nodes, frames, 4) quaternions, in place: the same signs (the
    dot products summed in the same order, the flips exact), without a reduction over the short last axis."""
    if rotation.shape[1] < 2:
        return rotation
    after, before = rotation[:, 1:], rotation[:, :-1]
    dot = after[..., 0] * before[..., 0]
    for channel in (1, 2, 3):
        dot += after[..., channel] * before[..., channel]
    odd = np.cumsum(dot < 0, axis=1, dtype=np.int64) % 2 == 1
    if odd.any():
        after *= np.where(odd, -1.0, 1.0)[..., None]
    return rotation


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
    inverse = C.conjugate(np.array([n.rest_rotation for n in nodes]))
    rest = np.array([n.rest_location for n in nodes])[:, None]
    # contiguous matrices: the same products, faster
    turn = np.ascontiguousarray(_rotations(inverse).transpose(0, 2, 1))
    return (location - rest) @ turn, rotation @ np.ascontiguousarray(_left(inverse).transpose(0, 2, 1))


@dataclass(frozen=True)
class Rebase:
    """Per node, the constant linear maps that make pose-bone values planned against the node's rest relative
    to the rest Blender holds for its bone (``rebase``): location -> location @ turn.T + offset, rotation ->
    rotation @ spin.T."""

    turn: np.ndarray    # (nodes, 3, 3)
    offset: np.ndarray  # (nodes, 3)
    spin: np.ndarray    # (nodes, 4, 4)

    def apply(self, node: int, location: np.ndarray, rotation: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray | None]:
        """``location`` (..., 3) and ``rotation`` (..., 4) or None of node ``node``, rebased."""
        moved = np.asarray(location, np.float64) @ self.turn[node].T + self.offset[node]
        return moved, None if rotation is None else np.asarray(rotation, np.float64) @ self.spin[node].T


def rebase(intended: tuple[np.ndarray, np.ndarray], actual: tuple[np.ndarray, np.ndarray],
           parent_frame: np.ndarray, frame: np.ndarray) -> Rebase:
    """The maps of every node's bone: ``intended`` the nodes' rests ((nodes, 4) Blender quaternions and (nodes, 3)
    locations relative to the parent node), ``actual`` the rests Blender holds for their bones (relative to the
    parent bone), each bone turned by ``frame`` (nodes, 4) and its parent's by ``parent_frame``
    (conversion.bone_frames).

    Blender makes a bone's rest matrix from head, tail and roll in float32, a little off the node's rest. The
    pose Blender shows is parent bone @ actual @ basis, and must be the parent node @ local @ frame, so basis' =
    actual^-1 @ parent_frame^-1 @ intended @ basis @ frame: a constant linear map of the channel values, which
    keeps linear interpolation between keys (and quaternion lengths and signs) as it was."""
    unturned = _rotations(actual[0]).transpose(0, 2, 1)
    turn = unturned @ _rotations(parent_frame).transpose(0, 2, 1)
    offset = (turn @ intended[1][..., None] - unturned @ actual[1][..., None])[..., 0]
    before = C.multiply(C.conjugate(actual[0]), C.multiply(C.conjugate(parent_frame), intended[0]))
    return Rebase(turn @ _rotations(intended[0]), offset, _left(before) @ _right(frame))


def _rotations(q: np.ndarray) -> np.ndarray:
    return C.matrices(q, np.zeros((len(q), 3)))[:, :3, :3]


def _left(a: np.ndarray) -> np.ndarray:
    """The 4x4 matrices of q -> a * q (Hamilton product, (w, x, y, z)), for every row of ``a`` (n, 4)."""
    w, x, y, z = a.T
    return np.stack([w, -x, -y, -z, x, w, -z, y, y, z, w, -x, z, -y, x, w], axis=-1).reshape(-1, 4, 4)


def _right(b: np.ndarray) -> np.ndarray:
    """The 4x4 matrices of q -> q * b."""
    w, x, y, z = b.T
    return np.stack([w, -x, -y, -z, x, w, z, -y, y, -z, w, x, z, y, -x, w], axis=-1).reshape(-1, 4, 4)


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
    pairs = _pairs(scaled)
    start = 0
    while count - 1 - start >= 2:  # every piece starts at an even frame: its pairs are the whole range's
        size = 1 << int(np.log2(count - 1 - start))
        keep[:, start:start + size + 1] |= _power_of_two_keys(scaled[:, start:start + size + 1],
                                                              (pairs[0][:, start // 2:(start + size) // 2],
                                                               *pairs[1:]))
        start += size
    return keep


def _pairs(scaled: np.ndarray) -> tuple[np.ndarray, float, bool]:
    """What ``_power_of_two_keys`` knows of every pair of steps from an even frame (a block of two): (how far its
    middle frame lies from the line between its ends (rows, pairs), as the block's own test computes it; the
    distance beyond which no larger block holding the pair fits; whether every value is finite and far below
    the largest float).

    A block that fits has every frame within 1 of its line, so the middle of each pair in it lies within 2 of the
    line between the pair's ends (the lines differ by a line, which is 0 at the three frames' middle), give or
    take the rounding of both tests: a few float64 steps of the largest value, within the bound's margin. A pair
    farther off rules out every larger block holding it without testing it. Infinities leave the bound infinite."""
    starts, middle, ends = scaled[:, 0:-2:2], scaled[:, 1:-1:2], scaled[:, 2::2]
    with np.errstate(invalid="ignore", over="ignore"):
        off = np.subtract(ends, starts)  # then in place, as _within_line: the line at the middle, the distance
        off *= 0.5
        off += starts
        np.subtract(middle, off, out=off)
        np.abs(off, out=off)
        distance = off[..., 0].copy() if off.shape[2] else np.zeros(off.shape[:2])
        for channel in range(1, off.shape[2]):  # the largest channel's (a short axis reduces slowly)
            np.maximum(distance, off[..., channel], out=distance)
        largest = float(np.fmax.reduce(np.abs(scaled), axis=None, initial=0.0))
    bound = 2.0 + 1e-9 + 1e-12 * largest if np.isfinite(largest) else np.inf
    return distance, bound, largest < 1e300


def _power_of_two_keys(scaled: np.ndarray, pairs: tuple | None = None) -> np.ndarray:
    """``linear_keys`` for 2^p + 1 frames of values already divided by their tolerance (``pairs``: ``_pairs`` of
    them, when known).

    Blocks of 2^k frames are tried from the whole range down to single steps, all rows and blocks of
    one size in one vectorised pass; a block whose interior lies within 1 of the line between its two
    ends, and that no larger block already covers, keeps only its ends. A block holding a pair of steps whose
    middle lies too far off (``_pairs``) is not tested; a block of two is judged by its pair's distance (the same
    test), and a block of one step always fits when the values are finite and far from overflowing (its only
    frame besides its end is its start).
    """
    rows, count, channels = scaled.shape
    last = count - 1
    distance, bound, finite = pairs if pairs is not None else _pairs(scaled)
    ruled_out = distance > bound
    keep = np.zeros((rows, count), bool)
    covered = np.zeros((rows, 1), bool)  # per block of the previous (twice larger) size
    size = last
    while size >= 1:
        blocks = last // size
        inherited = np.repeat(covered, 2, axis=1) if size < last else covered
        active = ~inherited
        if not active.any():
            break
        if size == 2 or (size == 1 and finite):
            fits = active & (distance <= 1.0) if size == 2 else active
            keep[:, :last:size] |= fits
            keep[:, size::size] |= fits
            covered = inherited | fits
            size //= 2
            continue
        if size > 2:
            active &= ~ruled_out.reshape(rows, blocks, size // 2).any(axis=2)
        fraction = np.arange(size) / size
        # A block whose middle frame is off the line cannot fit: the rest is tested only where it is on. In
        # blocks of one or two frames the middle is the only frame that can be off the line (the first is on).
        starts, ends, middle = scaled[:, :last:size], scaled[:, size::size], scaled[:, size // 2:last:size]
        at = fraction[size // 2:size // 2 + 1]
        if 2 * active.sum() > active.size:  # most blocks open: their first channel tested where it lies, no copies
            active = active & _within_line(starts[..., :1], ends[..., :1], middle[..., None, :1], at)
        if 2 * active.sum() > active.size:
            candidates = active & _within_line(starts, ends, middle[..., None, :], at)
        else:
            candidates = active.copy()
            candidates[active] = _within_line(starts[active], ends[active], middle[active][..., None, :], at)
        if size <= 2:
            fits = candidates
        else:
            fits = np.zeros((rows, blocks), bool)
            fits[candidates] = _within_line(starts[candidates], ends[candidates],
                                            scaled[:, :last].reshape(rows, blocks, size, channels)[candidates],
                                            fraction)
        keep[:, :last:size] |= fits
        keep[:, size::size] |= fits
        covered = inherited | fits
        size //= 2
    return keep


def _within_line(starts: np.ndarray, ends: np.ndarray, inside: np.ndarray, fraction: np.ndarray) -> np.ndarray:
    """Whether every frame of each block (``inside`` (..., size, channels)) lies within 1 of the line from its
    start to its end (``starts``, ``ends`` (..., channels)) at ``fraction`` of the block."""
    off = (ends - starts)[..., None, :] * fraction[:, None]  # then in place: the line, and the distance to it
    off += starts[..., None, :]
    np.subtract(inside, off, out=off)
    return np.abs(off, out=off).max(axis=(-2, -1)) <= 1.0


def greedy_keys(values: np.ndarray, distance: float, angle: float) -> np.ndarray:
    """Which frames to key so that Blender's linear F-curves reproduce every frame within ``distance`` (the
    location, channels 0-2) and ``angle`` (radians, between the normalised quaternion of channels 3-6 and
    the frame's unit quaternion): a (rows, frames) mask keeping the first and last frame.

    From each key, every row tries the next ``GREEDY_WINDOW`` frames at once and takes the farthest that
    fits; when all of them fit it doubles its reach until an end fails, then bisects between the farthest
    end that fitted and the nearest that failed (to within 1/256 of the segment: a long segment may end
    that much early, for fewer tests). All rows take one step per
    round, in one vectorised test; every accepted segment has been tested on all of its frames.
    """
    rows, count, _ = values.shape
    last = count - 1
    keep = np.zeros((rows, count), bool)
    keep[:, [0, last]] = True
    start = np.zeros(rows, np.int64)
    good = np.minimum(start + 1, last)  # the farthest end known to fit (the next frame always does)
    bad = np.full(rows, -1)             # the nearest end known to fail past ``good``; -1: none yet
    opening = np.ones(rows, bool)       # the first step from a key: the window
    every = np.arange(rows)
    while True:
        close = (bad >= 0) & (bad - good <= np.maximum(1, (good - start) // 256))
        settled = (start < last) & ~opening & ((good == last) | close)
        keep[settled, good[settled]] = True
        start[settled] = good[settled]
        good[settled] = np.minimum(start[settled] + 1, last)
        bad[settled], opening[settled] = -1, True
        active = start < last
        if not active.any():
            return keep
        window = every[active & opening]
        galloping = every[active & ~opening]
        ends = np.minimum(start[window, None] + np.arange(2, GREEDY_WINDOW + 2), last)
        reach = np.where(bad[galloping] < 0, np.minimum(last, 2 * good[galloping] - start[galloping]),
                         (good[galloping] + bad[galloping]) // 2)
        fits = _segments_fit(values, np.concatenate([np.repeat(window, GREEDY_WINDOW), galloping]),
                             np.concatenate([np.repeat(start[window], GREEDY_WINDOW), start[galloping]]),
                             np.concatenate([ends.ravel(), reach]), distance, angle)
        opened = fits[:ends.size].reshape(-1, GREEDY_WINDOW)
        farthest = np.where(opened.any(axis=1),
                            ends[np.arange(len(window)), GREEDY_WINDOW - 1 - np.argmax(opened[:, ::-1], axis=1)],
                            good[window])
        good[window] = farthest
        onward = opened.all(axis=1) & (ends[:, -1] < last)
        bad[window] = np.where(onward, -1, good[window] + 1)  # a window that did not all fit ends the search
        opening[window] = False
        grown = fits[ends.size:]
        good[galloping[grown]] = reach[grown]
        bad[galloping[~grown]] = reach[~grown]


COARSE_STEP = 64  # long segments are first tested at every 64th frame: most that fail, fail there


def _segments_fit(values: np.ndarray, rows: np.ndarray, starts: np.ndarray, ends: np.ndarray, distance: float,
                  angle: float) -> np.ndarray:
    """For each segment (row, start, end), whether linear interpolation between its two ends (the quaternion
    normalised afterwards, as Blender does) lies within ``distance`` and ``angle`` of every frame between.
    The rotations of ``values`` are unit quaternions."""
    fits = np.ones(len(rows), bool)
    origin = values[rows, starts].astype(np.float32).astype(np.float64)  # the keys as an F-curve stores them
    slope = values[rows, ends].astype(np.float32).astype(np.float64) - origin
    cos_half = np.cos(angle / 2) ** 2
    long = np.flatnonzero(ends - starts > 4 * COARSE_STEP)
    for step, candidates in ((COARSE_STEP, long), (1, None)):
        chosen = np.flatnonzero(fits) if candidates is None else candidates
        lengths = np.maximum((ends[chosen] - starts[chosen] - 1) // step, 0)  # tested frames strictly between
        stops = np.cumsum(lengths)
        total = int(stops[-1]) if len(stops) else 0
        for first in range(0, total, GREEDY_PAIRS):
            flat = np.arange(first, min(first + GREEDY_PAIRS, total))
            local = np.searchsorted(stops, flat, side="right")
            owner = chosen[local]
            offset = (flat - (stops - lengths)[local]) * step + 1
            a = (offset / (ends[owner] - starts[owner]))[:, None]
            line = origin[owner] + slope[owner] * a
            target = values[rows[owner], starts[owner] + offset]
            miss = line[:, :3] - target[:, :3]
            near = np.einsum("ij,ij->i", miss, miss) <= distance * distance
            q = line[:, 3:]
            dot = np.einsum("ij,ij->i", q, target[:, 3:])
            turned = dot * dot >= cos_half * np.einsum("ij,ij->i", q, q)  # the angle to the unit target
            fits[owner[~(near & turned)]] = False
    return fits


def _without_trailing_repeats(values: np.ndarray) -> int:
    """How many keys to keep: trailing keys equal to the one before them add nothing."""
    keep = len(values)
    while keep > 1 and np.array_equal(values[keep - 1], values[keep - 2]):
        keep -= 1
    return keep


# --------------------------------------------------------------------- how many keys
KEY_LIMIT = 2_097_152  # node-keys (7 F-curve keys each) an import writes at most: the export's HELD_LIMIT (retail:
#                        38 nodes at most, 34 049 keys over all models: spec/retail-envelope.md 4.2)


class KeyCount:
    """The node-keys an import has chosen so far; past KEY_LIMIT a FormatError that says what to do, raised
    while the keys are chosen (before more are held, and before any Blender data)."""

    def __init__(self, animation: str, limit: int = KEY_LIMIT) -> None:
        self.animation, self.limit, self.total = animation, limit, 0

    def add(self, keys: int) -> None:
        self.total += keys
        if self.total > self.limit:
            shown = {"FAITHFUL": "Faithful", "EDITING": "For Editing", "KEYS": "Keys"}.get(self.animation,
                                                                                        self.animation)
            remedy = {"FAITHFUL": "import with Animation: Keys or For Editing",
                      "EDITING": "import with Animation: Keys"}.get(self.animation, "import with Animation: None")
            raise FormatError.single("animation", None, f"Animation: {shown} keys the nodes at more than "
                                                        f"{self.limit:,} node-frames, more than an import writes: "
                                                        f"{remedy}")
