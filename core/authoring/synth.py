"""Synthetic models: the bundled sample, and generated models for tests and benchmarks.

No retail data is available; everything here is built with the project's
own writer (core.authoring.build), deterministically from a seed.
"""

from __future__ import annotations

import numpy as np

from ..animation.tracks import Animation, Track
from ..appearance.mat0 import ADD, BLEND, MAT0_TYPE_ID, OPAQUE, Material, blend_attr1, phase
from ..appearance.texm import TEXM_TYPE_ID, encode_texm
from ..appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID
from ..container.nres import Archive
from ..msh import streams as S
from .build import ModelDef, NodeDef, Part, build_model

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
    """Quaternions [w, x, y, z] (file order: w first, as retail-data readers read it) for angles (radians)
    about an axis."""
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


def unmapped_model(frame_count: int) -> bytes:
    """A small animated model with no frame map at all and Res19.attr2 = ``frame_count`` (any u32).

    Every node then shows its fallback (last) key at every frame (section 3.2), so the runtime's poses
    do not depend on the frame count however large it is.
    """
    spec = random_model(5, node_count=8, frame_count=41, animated=1.0, name="unmapped.msh")
    for track in spec.animation.tracks:
        track.has_map = False
    model = build_model(spec)
    model.set_stream(19, b"", attr2=frame_count)
    return model.to_bytes()


WEAR_TEXT = b"2\r\n0 SAMPLE_BODY\r\n1 SAMPLE_METAL\r\n"


def sample_archive(model_bytes: bytes) -> Archive:
    """An .rlb-like archive: the model, its material list, and a texture of its own."""
    archive = Archive()
    archive.add("sample.msh", model_bytes)
    archive.add("sample.wea", WEAR_TEXT, WEAR_TYPE_ID, **WEAR_ATTRS)
    archive.add("sample.tex", encode_texm(checker(8, (40, 40, 40, 255), (200, 200, 200, 255)), 565).to_bytes(),
                TEXM_TYPE_ID)
    return archive


def checker(size: int, a, b, cells: int = 4) -> np.ndarray:
    """An RGBA8 checkerboard of ``cells`` x ``cells`` squares; top-left square is ``a``."""
    index = (np.arange(size) * cells // size)
    board = (index[:, None] + index[None, :]) % 2
    return np.where(board[..., None] == 0, np.array(a, np.uint8), np.array(b, np.uint8)).astype(np.uint8)


def gradient(width: int, height: int) -> np.ndarray:
    """RGBA8 with red rising left to right, green top to bottom, blue constant, alpha rising top to bottom."""
    x = np.linspace(0, 255, width).round().astype(np.uint8)
    y = np.linspace(0, 255, height).round().astype(np.uint8)
    out = np.zeros((height, width, 4), np.uint8)
    out[..., 0], out[..., 1], out[..., 2], out[..., 3] = x[None, :], y[:, None], 90, y[:, None]
    return out


def library(entries: list[tuple[str, bytes, int, dict]]) -> Archive:
    archive = Archive()
    for name, data, type_id, attrs in entries:
        archive.add(name, data, type_id, **attrs)
    return archive


def material_entry(name: str, diffuse, texture: str = "", blend: str = OPAQUE, lit_skin: bool = False,
                   cell: int = -1) -> tuple[str, bytes, int, dict]:
    material = Material(blend_attr1(blend, lit_skin), phases=np.array([phase(diffuse, texture, cell)]))
    return name, material.to_bytes(), MAT0_TYPE_ID, {"attr1": material.attr1, "attr2": material.attr2}


def sample_libraries() -> dict[str, Archive]:
    """Material.lib, Textures.lib and LightMap.lib for the sample walker (and the tests).

    SAMPLE_BODY shows cell 2 of an 8888 atlas (its second Page rectangle); SAMPLE_METAL a 565
    checker tinted by its diffuse; GLASS alpha-blends a 4444 texture; GLOW is additive; SKIN is
    "lit skin"; DEFAULT has no texture.
    """
    atlas = encode_texm(gradient(16, 16), 8888, rects=[(0, 8, 0, 8), (8, 8, 0, 16)])
    textures = library([
        ("BODY.0", atlas.to_bytes(), TEXM_TYPE_ID, {}),
        ("METAL.0", encode_texm(checker(8, (90, 90, 100, 255), (160, 160, 170, 255)), 565).to_bytes(),
         TEXM_TYPE_ID, {}),
        ("GLASS.0", encode_texm(gradient(8, 4), 4444).to_bytes(), TEXM_TYPE_ID, {}),
    ])
    materials = library([
        material_entry("DEFAULT", (0.5, 0.5, 0.5, 1.0)),
        material_entry("SAMPLE_BODY", (1.0, 1.0, 1.0, 1.0), "BODY.0", cell=2),
        material_entry("SAMPLE_METAL", (0.8, 0.9, 1.0, 1.0), "METAL.0"),
        material_entry("GLASS", (1.0, 1.0, 1.0, 0.5), "GLASS.0", BLEND),
        material_entry("GLOW", (1.0, 0.6, 0.2, 1.0), "GLASS.0", ADD),
        material_entry("SKIN", (1.0, 1.0, 1.0, 1.0), "GLASS.0", OPAQUE, lit_skin=True),
    ])
    lightmaps = library([("LM_SAMPLE.0", encode_texm(gradient(8, 8), 565, mips=False).to_bytes(), TEXM_TYPE_ID, {})])
    return {"Material.lib": materials, "Textures.lib": textures, "LightMap.lib": lightmaps}


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
