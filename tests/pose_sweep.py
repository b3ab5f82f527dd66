"""Pose sweeps: models drawn from the whole value space, imported in every node and animation mode,
compared with the core sampler at every integer frame and exported untouched.

Shared by tests/test_pose_sweep.py (a fixed seed, a small budget) and benchmarks/pose_soak.py (the long soak).
The bound: Blender keeps every matrix in float32, so even Empties set straight to the sampler's exact local
poses show the world pose off by some rounding that grows with the chain (``float32_floor``). An import must
stay within ``FLOOR_FACTOR`` (KEYS) or ``FAITHFUL_FACTOR`` (FAITHFUL drops keys within two float32 steps)
times that floor (plus a few float32 steps of the model's size, for a floor that happens to be tiny). KEYS
is compared with the keys it promises (linear between them, as Blender interpolates), FAITHFUL and EDITING
with the runtime (EDITING within the export's key tolerance). Importing this module does not import bpy: the
functions take it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.animation.keys import Tolerance
from core.animation.pose import world_matrices
from core.animation.sampler import AnimationData, world_matrices_at
from core.animation.tracks import Animation, Track, canonical_words, read_animation
from core.authoring.build import ModelDef, NodeDef, Part, build_model
from core.authoring.synth import box, box_uvs
from core.msh import streams as S
from core.msh.model import Model

FLOOR_FACTOR = 2.5       # KEYS: the keys as they are
FAITHFUL_FACTOR = 4.0    # FAITHFUL (and EDITING's float32 part): keys dropped within two float32 steps per channel
F32_STEP = 2.0 ** -23


@dataclass
class SweepModel:
    """What a drawn model is made of (numpy arrays; see ``model_bytes``)."""

    parents: list[int | None]
    times: list[np.ndarray]       # per node: key times (one key: static, no map)
    rotations: list[np.ndarray]   # per node (k, 4) unit quaternions, file order, w first
    positions: list[np.ndarray]   # per node (k, 3)
    parts: list[int]              # the nodes with a box
    frame_count: int
    shuffle_map: bool = False     # make every map non-canonical (fractional key times show the runtime's choice)


def chain_parents(count: int, depth: int, rng: np.random.Generator) -> list[int | None]:
    """A hierarchy of ``count`` nodes whose first ``depth`` nodes form one chain; the rest hang anywhere."""
    parents: list[int | None] = [None]
    for i in range(1, count):
        parents.append(i - 1 if i < depth else int(rng.integers(0, i)))
    return parents


def quaternions(count: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """``count`` unit quaternions (w first): SPHERE uniform over the sphere; HALF turns (|w| < 0.03);
    NEAR_ONE (|w| near 1, small turns); FLIP sphere with the sign flipped between neighbouring keys."""
    if kind == "HALF":
        q = np.c_[rng.uniform(-0.03, 0.03, count), rng.normal(size=(count, 3))]
        q[:, 1:] *= np.sqrt(1 - q[:, :1] ** 2) / np.linalg.norm(q[:, 1:], axis=1, keepdims=True)
        return q
    if kind == "NEAR_ONE":
        q = np.c_[np.ones(count), rng.normal(scale=1e-3, size=(count, 3))]
        q *= rng.choice([-1.0, 1.0], (count, 1))
    else:
        q = rng.normal(size=(count, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    if kind == "FLIP":
        q[1::2] *= -1
    return q


def draw_model(rng: np.random.Generator, nodes: int, depth: int, frame_count: int, kinds: list[str],
               dense: bool = False, fractional: bool = False, shuffle_map: bool = False,
               keys: int = 6, reach: float = 3.0) -> SweepModel:
    """A random model: each node's keys of the kind ``kinds[i % len(kinds)]``; ``dense`` keys every frame."""
    parents = chain_parents(nodes, depth, rng)
    times, rotations, positions = [], [], []
    for i in range(nodes):
        if frame_count < 2 or (not dense and rng.random() < 0.2):
            count, t = 1, np.zeros(1)
        elif dense:
            t = np.arange(frame_count, dtype=np.float64)
            count = frame_count
        else:
            count = int(rng.integers(2, keys + 1))
            inner = np.sort(rng.uniform(0, frame_count - 1, count - 2)) if fractional else \
                np.sort(rng.choice(np.arange(1, frame_count - 1), min(count - 2, frame_count - 2), replace=False)) \
                if frame_count > 2 else np.zeros(0)
            first = rng.uniform(0, min(2.0, frame_count - 1.0)) if fractional and rng.random() < 0.3 else 0.0
            inner = inner[inner > first]  # a track may start after frame 0: those frames show its fallback key
            t = np.unique(np.concatenate([[first], inner, [frame_count - 1.0]]).astype(np.float32)).astype(np.float64)
            count = len(t)
        times.append(t)
        rotations.append(quaternions(count, kinds[i % len(kinds)], rng))
        positions.append(rng.uniform(-reach, reach, 3) + np.cumsum(rng.normal(scale=0.05 * reach, size=(count, 3)),
                                                                    axis=0))
    parts = [i for i in range(nodes) if i % 2 == 0 or i == nodes - 1]
    return SweepModel(parents, times, rotations, positions, parts, frame_count, shuffle_map)


def model_bytes(m: SweepModel) -> bytes:
    tracks = [Track.from_keys(t, p, S.encode_rotations(q)) if len(t) > 1 else
              Track.static(p[0], S.encode_rotations(q[0])) for t, q, p in zip(m.times, m.rotations, m.positions)]
    nodes = [NodeDef(f"node{i}", p) for i, p in enumerate(m.parents)]
    parts = []
    for i in m.parts:
        pos, tris = box((0.3, 0.4, 0.5), (0.1, 0.0, 0.2))
        parts.append(Part(i, pos, tris, uvs=box_uvs()))
    model = build_model(ModelDef(nodes, parts, Animation(m.frame_count, tracks), stream_name="sweep.msh"))
    if m.shuffle_map:
        model = _shuffled(model)
    return model.to_bytes()


def _shuffled(model: Model) -> Model:
    """Every map made non-canonical but valid: frames that canonically show a key show the one before it
    (within the node's own track) every other frame, and fallback frames the fallback key's neighbours above."""
    words = model.map_words.copy()
    start = 0
    for node in model.nodes:
        fallback, map_start = int(node["fallback_key"]), int(node["map_start"])
        if map_start != S.NO_INDEX:
            block = words[map_start:map_start + model.frame_count]
            times = model.keys["time"][start:fallback + 1]
            assert np.array_equal(block, canonical_words(times, start, model.frame_count))
            back = (np.arange(len(block)) % 2 == 1) & (block > start) & (block < fallback)
            block[back] -= 1
        start = fallback + 1
    model.set_stream(19, words.tobytes())
    return model


# ------------------------------------------------------------------ references
def runtime_world(model: Model, frames: np.ndarray) -> np.ndarray:
    """(nodes, frames, 4, 4) the sampler's world poses, quaternions normalised (as Blender shows them)."""
    return world_matrices_at(AnimationData.from_model(model), frames, normalize=True)


def keys_world(model: Model, frames: np.ndarray) -> np.ndarray:
    """What a KEYS import promises: each mapped node's keys, linear between them per component (Blender's
    quaternions sign-continuous, normalised when evaluated); nodes without a map at their first key."""
    tracks = read_animation(model).tracks
    local = np.zeros((len(tracks), len(frames), 4, 4))
    for i, track in enumerate(tracks):
        rot = track.rotations.astype(np.float64)
        for k in range(1, len(rot)):
            if np.dot(rot[k], rot[k - 1]) < 0:
                rot[k:] *= -1
        times = track.times.astype(np.float64) if track.has_map else np.zeros(1)
        rot, pos = (rot, track.pos.astype(np.float64)) if track.has_map else (rot[:1], track.pos[:1].astype(float))
        at = _blender_times(frames, times)
        q = np.stack([np.interp(at, times, rot[:, c]) for c in range(4)], -1)
        p = np.stack([np.interp(at, times, pos[:, c]) for c in range(3)], -1)
        q /= np.linalg.norm(q, axis=-1, keepdims=True)
        local[i] = _matrices(q, p)
    return world_matrices(local, model.nodes["parent"])


BLENDER_SAME_FRAME = 1e-4  # an F-curve evaluated this close to a key shows the key (fcurve_eval_keyframes)


def _blender_times(frames: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The times an F-curve shows at ``frames``: a key's own time within BLENDER_SAME_FRAME of it."""
    nearest = times[np.abs(frames[:, None] - times[None, :]).argmin(axis=1)]
    return np.where(np.abs(nearest - frames) < BLENDER_SAME_FRAME, nearest, frames)


def _matrices(q: np.ndarray, p: np.ndarray) -> np.ndarray:
    """float64 matrices of file-order unit quaternions (the runtime's layout, as pose_matrix)."""
    w, x, y, z = np.moveaxis(q, -1, 0)
    m = np.zeros((*q.shape[:-1], 4, 4))
    m[..., 0, :3] = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)], -1)
    m[..., 1, :3] = np.stack([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)], -1)
    m[..., 2, :3] = np.stack([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)], -1)
    m[..., :3, 3] = p
    m[..., 3, 3] = 1
    return m


def reference(model: Model, animation: str, frames: np.ndarray) -> np.ndarray:
    return keys_world(model, frames) if animation == "KEYS" else runtime_world(model, frames)


def allowance(model: Model, animation: str) -> float:
    """What the animation mode itself may differ by, beyond float32 (EDITING: the export's key tolerance,
    its rotation turned into a distance at the model's reach)."""
    if animation != "EDITING":
        return 0.0
    tolerance = Tolerance()
    reach = float(np.abs(world_extent(model)).max()) + 1.0
    depth = chain_depth(model)
    return (depth + 1) * (tolerance.position + np.radians(tolerance.rotation_deg) * reach)


def world_extent(model: Model) -> np.ndarray:
    data = AnimationData.from_model(model)
    return world_matrices_at(data, [0.0])[:, 0, :3, 3]


def chain_depth(model: Model) -> int:
    parents = [None if p == S.NO_INDEX else int(p) for p in model.nodes["parent"]]
    depth = [0] * len(parents)
    for i, p in enumerate(parents):
        depth[i] = 0 if p is None else depth[p] + 1
    return max(depth, default=0)


# ------------------------------------------------------------------ Blender
def shown_worlds(bpy, root) -> np.ndarray:
    """(nodes, 4, 4) every node's evaluated matrix relative to the root, by msh_node_index."""
    if root.type == "ARMATURE":
        bones = root.pose.bones
        flat = np.empty(len(bones) * 16, np.float32)
        bones.foreach_get("matrix", flat)
        order = np.argsort([root.data.bones[b.name]["msh_node_index"] for b in bones])
        shown = flat.reshape(-1, 4, 4).transpose(0, 2, 1)[order].astype(np.float64)
        # A bone turned from its node (msh_bone_frame) shows the node @ that turn: the node's parts sit on the node.
        turns = [root.data.bones[bones[int(i)].name].get("msh_bone_frame", (1.0, 0, 0, 0)) for i in order]
        return shown @ np.array([_untwist(t) for t in turns])
    empties = sorted((o for o in root.children_recursive if o.type == "EMPTY" and "msh_node_index" in o),
                     key=lambda o: o["msh_node_index"])
    inverse = np.linalg.inv(np.array(root.matrix_world))
    return np.array([inverse @ np.array(o.matrix_world) for o in empties])


def _untwist(turn) -> np.ndarray:
    w, x, y, z = np.asarray(turn, np.float64)
    m = np.eye(4)
    m[:3, :3] = _matrices(np.array([w, x, y, z]), np.zeros(3))[:3, :3]  # file-order layout: the transpose
    return m


def evaluate(bpy, frame: int) -> None:
    bpy.context.scene.frame_set(int(frame))


def worst_error(bpy, root, expected: np.ndarray, frames: np.ndarray) -> float:
    worst = 0.0
    for c, frame in enumerate(frames):
        evaluate(bpy, frame)
        worst = max(worst, float(np.abs(shown_worlds(bpy, root) - expected[:, c]).max()))
    return worst


def float32_floor(bpy, model: Model, expected: np.ndarray, frames: np.ndarray) -> float:
    """The error of a reference scene: Empties (no importer) set at every frame to the exact local poses of
    ``expected`` (the world poses the import should show), as Blender's float32 holds them."""
    parents = [None if p == S.NO_INDEX else int(p) for p in model.nodes["parent"]]
    root = bpy.data.objects.new("float32 reference", None)
    bpy.context.scene.collection.objects.link(root)
    empties = []
    try:
        for i, parent in enumerate(parents):
            obj = bpy.data.objects.new(f"reference {i}", None)
            bpy.context.scene.collection.objects.link(obj)
            obj.parent = root if parent is None else empties[parent]
            obj.rotation_mode = "QUATERNION"
            empties.append(obj)
        local = expected.copy()
        children = [i for i, p in enumerate(parents) if p is not None]
        local[children] = np.linalg.inv(expected[[parents[i] for i in children]]) @ expected[children]
        rotation = _quaternions_of(local[..., :3, :3])
        worst = 0.0
        for c in range(len(frames)):
            for i, obj in enumerate(empties):
                obj.location = local[i, c, :3, 3].tolist()
                obj.rotation_quaternion = rotation[i, c].tolist()
            bpy.context.view_layer.update()
            shown = np.array([np.array(o.matrix_world) for o in empties])
            worst = max(worst, float(np.abs(shown - expected[:, c]).max()))
        return worst
    finally:
        for obj in [*empties, root]:
            bpy.data.objects.remove(obj)


def _quaternions_of(r: np.ndarray) -> np.ndarray:
    """Blender (w, x, y, z) quaternions of rotation matrices (column vectors), float64."""
    from io_msh_ext.io_msh.com.conversion import _matrix_to_quaternion
    return _matrix_to_quaternion(r)


def bound(model: Model, floor: float, animation: str) -> float:
    size = float(np.abs(world_extent(model)).max()) + 1.0
    factor = FLOOR_FACTOR if animation == "KEYS" else FAITHFUL_FACTOR
    return factor * max(floor, 8 * F32_STEP * size) + allowance(model, animation)


def frames_of(model: Model) -> np.ndarray:
    return np.arange(model.frame_count + 2, dtype=np.float64)


def measure(blender, folder, data: bytes, animations=("FAITHFUL", "EDITING", "KEYS"),
            node_modes=("ARMATURE", "EMPTIES")) -> dict:
    """Per (animation, node mode): (worst world-pose error at every integer frame, its bound, the float32 floor,
    whether the untouched export wrote the file's bytes). An operator that fails raises."""
    bpy = blender.bpy
    model = Model.parse(data)
    frames = frames_of(model)
    path = folder / "sweep.msh"
    path.write_bytes(data)
    out = folder / "out.msh"
    measured = {}
    for animation in animations:
        expected = reference(model, animation, frames)
        blender.clean_scene()
        floor = float32_floor(bpy, model, expected, frames)
        limit = bound(model, floor, animation)
        for node_mode in node_modes:
            blender.clean_scene()
            result = bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode, animation=animation)
            assert result == {"FINISHED"}, f"import {node_mode} {animation}: {result}"
            (root,) = [o for o in bpy.data.objects if "msh_model" in o]
            error = worst_error(bpy, root, expected, frames)
            result = bpy.ops.export_scene.parkan_msh(filepath=str(out))
            assert result == {"FINISHED"}, f"export {node_mode} {animation}: {result}"
            measured[(animation, node_mode)] = (error, limit, floor, out.read_bytes() == data)
    blender.clean_scene()
    return measured
