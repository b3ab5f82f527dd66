"""Synthetic models: the bundled sample, and generated models for tests and benchmarks.

No retail data is available; everything here is built with the project's
own writer (core.build), deterministically from a seed.
"""

from __future__ import annotations

import numpy as np

from . import streams as S
from .anim import Animation, Track
from .build import ModelDef, NodeDef, Part
from .nres import Archive
from .wear import WEAR_TYPE_ID

BOX_TRIANGLES = np.array([
    [0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
    [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5],
])


def box(size=(1.0, 1.0, 1.0), center=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """Eight corners (bit 0: +x, bit 1: +y, bit 2: +z) and twelve outward triangles."""
    half = np.asarray(size, np.float32) / 2
    corners = np.array([[(c >> axis) & 1 for axis in range(3)] for c in range(8)], np.float32) * 2 - 1
    return (corners * half + np.asarray(center, np.float32)).astype(np.float32), BOX_TRIANGLES.copy()


def box_uvs() -> np.ndarray:
    return np.array([[(c & 1) * 0.5, ((c >> 1) & 1) * 0.5 + (c >> 2) * 0.25] for c in range(8)], np.float32)


def axis_quat(axis, angle) -> np.ndarray:
    """Quaternions [w, x, y, z] (file order, digest decision 1) for angles (radians) about an axis."""
    angle = np.asarray(angle, np.float64)
    axis = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    return np.concatenate([np.cos(angle / 2)[..., None], np.sin(angle / 2)[..., None] * axis], axis=-1)


def continuous(q: np.ndarray) -> np.ndarray:
    """Flip signs so that consecutive quaternions keep the shortest path."""
    q = np.array(q, np.float64)
    for i in range(1, len(q)):
        if np.dot(q[i], q[i - 1]) < 0:
            q[i] = -q[i]
    return q


def keyed_track(times, pos, quats) -> Track:
    return Track.from_keys(times, pos, S.encode_rotations(continuous(quats)))


def sample_model() -> ModelDef:
    """A small walker: a bobbing body, a turning turret with a gun and an antenna, two swinging legs."""
    nodes = [
        NodeDef("body"), NodeDef("turret", 0, label="top"), NodeDef("gun", 1),
        NodeDef("antenna", 1), NodeDef("leg_l", 0), NodeDef("leg_r", 0),
    ]
    parts = []
    for node, (size, center, material) in enumerate([
        ((2.0, 1.2, 0.8), (0, 0, 0), 0), ((1.2, 1.0, 0.5), (0, 0, 0.25), 0), ((0.2, 1.4, 0.2), (0, 0.7, 0), 1),
        ((0.05, 0.05, 0.8), (0, 0, 0.4), 1), ((0.3, 0.3, 1.2), (0, 0, -0.6), 1), ((0.3, 0.3, 1.2), (0, 0, -0.6), 1),
    ]):
        pos, tris = box(size, center)
        parts.append(Part(node, pos, tris, uvs=box_uvs(), material=material))
    frames = np.arange(0, 41, 4, dtype=np.float32)  # keys every 4 frames; frame_count 41
    phase = frames / 40 * 2 * np.pi
    body = keyed_track(frames, np.c_[np.zeros_like(phase), np.zeros_like(phase), 1.6 + 0.1 * np.sin(2 * phase)],
                       axis_quat((0, 0, 1), np.zeros_like(phase)))
    turret_times = np.array([0, 10, 20, 30, 40], np.float32)
    turret = keyed_track(turret_times, np.tile([0, 0, 0.4], (5, 1)),
                         axis_quat((0, 0, 1), np.radians([0, 60, 120, 60, 0])))
    legs = [keyed_track(frames, np.tile([side * 0.6, 0, -0.3], (len(frames), 1)),
                        axis_quat((1, 0, 0), sign * 0.5 * np.sin(phase)))
            for side, sign in ((-1, 1), (1, -1))]
    tracks = [body, turret, Track.static((0, 0.5, 0.3)), Track.static((0.4, -0.3, 0.5)), *legs]
    anim = Animation(1, tracks)
    anim.fit_frame_count()
    return ModelDef(nodes, parts, anim, stream_name="sample.msh")


WEAR_TEXT = b"2\r\n0 SAMPLE_BODY\r\n1 SAMPLE_METAL\r\n"
TEXM_TYPE_ID = int.from_bytes(b"Texm", "little")


def sample_archive(model_bytes: bytes) -> Archive:
    """An .rlb-like archive: the model, its material list, and a texture placeholder."""
    archive = Archive()
    archive.add("sample.msh", model_bytes)
    archive.add("sample.wea", WEAR_TEXT, WEAR_TYPE_ID)
    archive.add("sample.tex", bytes(range(64)), TEXM_TYPE_ID, attr1=8, attr2=8)
    return archive


def random_model(seed: int, node_count: int = 12, frame_count: int = 60, animated: float = 0.5,
                 every_frame: bool = False, fractional: bool = False, name: str = "gen.msh") -> ModelDef:
    """A generated hierarchy with a box per node and smooth random animation.

    ``animated`` is the fraction of animated nodes; ``every_frame`` keys every
    frame, else keys at random integer (or, with ``fractional``, fractional) times.
    """
    rng = np.random.default_rng(seed)
    nodes, parts, tracks = [], [], []
    for i in range(node_count):
        parent = None if i == 0 else int(rng.integers(0, i))
        nodes.append(NodeDef(f"node_{i:02d}", parent, label=f"L{i}" if i % 3 == 0 else None))
        pos, tris = box(rng.uniform(0.2, 1.0, 3), rng.uniform(-0.5, 0.5, 3))
        parts.append(Part(i, pos, tris, uvs=box_uvs(), material=int(rng.integers(0, 3))))
        offset = rng.uniform(-1, 1, 3)
        if (i and rng.random() >= animated) or frame_count < 2:
            tracks.append(Track.static(offset, S.encode_rotations(axis_quat(rng.normal(size=3), rng.uniform(-1, 1)))))
            continue
        if every_frame:
            times = np.arange(frame_count, dtype=np.float64)
        else:
            inner = rng.choice(np.arange(1, frame_count - 1), size=min(frame_count - 2, int(rng.integers(1, 8))),
                               replace=False) if frame_count > 2 else np.array([])
            times = np.sort(np.concatenate([[0.0, frame_count - 1.0], inner])).astype(np.float64)
            if fractional:
                times[1:-1] += rng.uniform(-0.45, 0.45, len(times) - 2)
                times = np.sort(times)
        axis = rng.normal(size=3)
        angles = np.cumsum(rng.uniform(-0.6, 0.6, len(times)))
        pos = offset + np.cumsum(rng.normal(scale=0.1, size=(len(times), 3)), axis=0)
        tracks.append(keyed_track(times, pos, axis_quat(axis, angles)))
    anim = Animation(frame_count, tracks)
    return ModelDef(nodes, parts, anim, stream_name=name)
