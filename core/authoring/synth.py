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


# --------------------------------------------------------------------- robot looks: shapes and painted textures
# The bundled samples (scripts/make_sample.py) wear these instead of plain boxes: each node's part is a few solids
# (a hull with cut corners, a turret with a hatch, a barrel with a muzzle brake, legs with knees and feet) in the
# box the plain sample gives it, and the textures are painted plates (panel lines, rivets, hazard stripes, a
# number). Still generated here, deterministically; the tests' own models keep their boxes.

Mesh = tuple[np.ndarray, np.ndarray, np.ndarray]   # positions (n, 3), triangles (m, 3), uvs (n, 2)
AXES = {"x": (1, 2, 0), "y": (2, 0, 1), "z": (0, 1, 2)}   # where the outline's (a, b) and the height h go


def prism(outline, low: float, high: float, axis: str = "z", offset=(0.0, 0.0, 0.0)) -> Mesh:
    """A convex ``outline`` (points (a, b), in order) extruded from ``low`` to ``high`` along ``axis``: side quads
    (u along the outline, v along the height) and two capped fans (mapped over the outline's box), outward."""
    outline = np.asarray(outline, np.float64)
    n = len(outline)
    span = np.ptp(outline, axis=0)
    span[span == 0] = 1
    perimeter = np.r_[0, np.cumsum(np.linalg.norm(np.roll(outline, -1, axis=0) - outline, axis=1))]
    local, uvs, tris = [], [], []
    for i in range(n):   # each side its own four corners: sharp edges between sides
        a, b = outline[i], outline[(i + 1) % n]
        base = len(local)
        local += [(*a, low), (*b, low), (*b, high), (*a, high)]
        u0, u1 = perimeter[i] / perimeter[-1], perimeter[i + 1] / perimeter[-1]
        uvs += [(u0, 1), (u1, 1), (u1, 0), (u0, 0)]
        tris += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
    for h in (low, high):
        base = len(local)
        local += [(*p, h) for p in outline]
        uvs += [tuple((p - outline.min(axis=0)) / span) for p in outline]
        tris += [(base, base + k, base + k + 1) for k in range(1, n - 1)]
    local = np.array(local)
    pos = np.zeros_like(local)
    for source, target in enumerate(AXES[axis]):
        pos[:, target] = local[:, source]
    pos += np.asarray(offset, np.float64)
    tris = np.array(tris, np.int64)
    centre = pos.mean(axis=0)
    normal = np.cross(pos[tris[:, 1]] - pos[tris[:, 0]], pos[tris[:, 2]] - pos[tris[:, 0]])
    inward = np.einsum("ij,ij->i", normal, pos[tris].mean(axis=1) - centre) < 0
    tris[inward] = tris[inward][:, ::-1]
    return pos.astype(np.float32), tris, np.array(uvs, np.float32)


def slab(size, centre=(0.0, 0.0, 0.0), cut: float = 0.0, axis: str = "z") -> Mesh:
    """A box of ``size`` at ``centre`` whose four edges along ``axis`` are cut off by ``cut`` (0: a plain box)."""
    size = np.asarray(size, np.float64)
    a, b, h = (size[AXES[axis].index(k)] / 2 for k in range(3))
    c = min(cut, a * 0.9, b * 0.9)
    outline = [(-a, -b), (a, -b), (a, b), (-a, b)] if c <= 0 else [
        (-a + c, -b), (a - c, -b), (a, -b + c), (a, b - c), (a - c, b), (-a + c, b), (-a, b - c), (-a, -b + c)]
    return prism(outline, -h, h, axis, centre)


def cylinder(radius: float, length: float, centre=(0.0, 0.0, 0.0), axis: str = "z", sides: int = 6) -> Mesh:
    angles = (np.arange(sides) + 0.5) * 2 * np.pi / sides
    return prism(np.c_[np.cos(angles), np.sin(angles)] * radius, -length / 2, length / 2, axis, centre)


def merge(*meshes: Mesh) -> Mesh:
    """Several solids as one part's geometry."""
    offsets = np.cumsum([0] + [len(m[0]) for m in meshes[:-1]])
    return (np.concatenate([m[0] for m in meshes]), np.concatenate([m[1] + o for m, o in zip(meshes, offsets)]),
            np.concatenate([m[2] for m in meshes]))


def hull(size, centre=(0.0, 0.0, 0.0)) -> Mesh:
    """A robot's body in the box ``size`` at ``centre`` (front: +y): an armoured hull with a sloped nose (its side
    profile extruded across), a deck on top, an engine block at the back, hip joints at the sides and a sensor
    block at the front."""
    w, d, h = size
    x, y, z = centre
    profile = [(-d / 2, -h * 0.3), (d * 0.3, -h / 2), (d / 2, -h * 0.1), (d * 0.3, h * 0.3), (-d * 0.4, h * 0.3),
               (-d / 2, h * 0.1)]
    return merge(prism(profile, -w * 0.36, w * 0.36, "x", centre),
                 slab((w * 0.5, d * 0.5, h * 0.15), (x, y - d * 0.05, z + h * 0.37), cut=w * 0.08),
                 slab((w * 0.55, d * 0.18, h * 0.35), (x, y - d * 0.5, z + h * 0.05)),
                 *[cylinder(h * 0.28, w * 0.12, (x + side * w * 0.42, y, z - h * 0.1), "x", sides=8)
                   for side in (-1, 1)],
                 slab((w * 0.3, d * 0.08, h * 0.2), (x, y + d * 0.46, z + h * 0.1)))


def turret(size, centre=(0.0, 0.0, 0.0)) -> Mesh:
    """A turret in the box ``size`` at ``centre``: an eight-sided ring, a hatch on top, a mantlet at the front."""
    w, d, h = size
    x, y, z = centre
    return merge(slab((w, d * 0.85, h * 0.7), (x, y - d * 0.05, z - h * 0.15), cut=min(w, d) * 0.28),
                 cylinder(min(w, d) * 0.16, h * 0.3, (x - w * 0.18, y - d * 0.15, z + h * 0.35)),
                 slab((w * 0.4, d * 0.2, h * 0.6), (x, y + d * 0.38, z - h * 0.1)))


def barrel(size, centre=(0.0, 0.0, 0.0)) -> Mesh:
    """A gun along +y in the box ``size`` at ``centre``: a breech block, the barrel and a muzzle brake."""
    w, d, h = size
    x, y, z = centre
    r = min(w, h) / 2
    return merge(slab((w, d * 0.2, h), (x, y - d * 0.4, z)),
                 cylinder(r * 0.55, d * 0.75, (x, y + d * 0.05, z), "y"),
                 cylinder(r * 0.85, d * 0.1, (x, y + d * 0.45, z), "y"))


def mast(size, centre=(0.0, 0.0, 0.0)) -> Mesh:
    """An antenna: a foot, a thin mast and a tip."""
    w, d, h = size
    x, y, z = centre
    r = max(min(w, d) / 2, 0.01)
    return merge(slab((r * 3, r * 3, h * 0.08), (x, y, z - h * 0.46)), slab((r, r, h * 0.9), (x, y, z)),
                 slab((r * 2, r * 2, r * 2), (x, y, z + h * 0.48)))


def leg(size, centre=(0.0, 0.0, 0.0)) -> Mesh:
    """A leg hanging down through the box ``size`` at ``centre``: a hip joint, a thigh, a knee, a shin, a foot."""
    w, d, h = size
    x, y, z = centre
    top = z + h / 2
    return merge(cylinder(w * 0.7, w * 1.3, (x, y, top - w * 0.2), "x"),
                 slab((w * 1.1, d * 1.2, h * 0.42), (x, y, top - h * 0.25), cut=w * 0.2, axis="x"),
                 cylinder(w * 0.55, w * 1.4, (x, y, top - h * 0.5), "x"),
                 slab((w * 0.9, d * 1.0, h * 0.4), (x, y - d * 0.1, top - h * 0.72)),
                 slab((w * 1.6, d * 2.2, h * 0.1), (x, y + d * 0.25, top - h * 0.95), cut=w * 0.3))


def bunker(size, centre=(0.0, 0.0, 0.0)) -> Mesh:
    """A building in the box ``size`` at ``centre``: sloped walls (a cut slab), a roof deck, a door block."""
    w, d, h = size
    x, y, z = centre
    return merge(slab((w, d, h * 0.7), (x, y, z - h * 0.15), cut=min(w, d) * 0.2),
                 slab((w * 0.7, d * 0.7, h * 0.3), (x, y, z + h * 0.35)),
                 slab((w * 0.3, d * 0.1, h * 0.45), (x, y - d * 0.52, z - h * 0.27)))


def dress(spec: ModelDef, shapes: dict[str, object]) -> ModelDef:
    """Each part of a node named in ``shapes`` rebuilt as ``shapes[name](size, centre)`` in its box (the part's
    node, material and slot kept): the robot look of the bundled samples."""
    for part in spec.parts:
        shape = shapes.get(spec.nodes[part.node].name)
        if shape is None:
            continue
        lo, hi = part.positions.min(axis=0), part.positions.max(axis=0)
        part.positions, part.triangles, part.uvs = shape(tuple(hi - lo), tuple((lo + hi) / 2))
        part.normals = None
    return spec


WALKER_SHAPES = {"body": hull, "turret": turret, "gun": barrel, "antenna": mast, "leg_l": leg, "leg_r": leg}


def tower_block(size, centre=(0.0, 0.0, 0.0)) -> Mesh:
    """A tower's storey: walls with cut corners and a band round the top."""
    w, d, h = size
    x, y, z = centre
    return merge(slab((w, d, h * 0.9), (x, y, z - h * 0.05), cut=min(w, d) * 0.22),
                 slab((w * 1.06, d * 1.06, h * 0.1), (x, y, z + h * 0.45), cut=min(w, d) * 0.25))


TOWER_SHAPES = {"base": tower_block, "top": turret, "antenna": mast}


# 3 x 5 digits for the markings, a row of 3 bits each (bit 2 at the left)
DIGITS = {"0": "75557", "1": "26227", "2": "71747", "3": "71717", "4": "55711", "5": "74717", "6": "74757",
          "7": "71111", "8": "75757", "9": "75717"}


def _smooth_noise(shape, seed: int, cells: int) -> np.ndarray:
    """Values 0..1 varying smoothly over about ``cells`` blobs across (bilinear over a random grid)."""
    rng = np.random.default_rng(seed)
    height, width = shape
    grid = rng.random((cells + 1, cells + 1))
    y = np.linspace(0, cells, height, endpoint=False)
    x = np.linspace(0, cells, width, endpoint=False)
    y0, x0 = y.astype(int), x.astype(int)
    fy, fx = (y - y0)[:, None], (x - x0)[None, :]
    top = grid[y0][:, x0] * (1 - fx) + grid[y0][:, x0 + 1] * fx
    bottom = grid[y0 + 1][:, x0] * (1 - fx) + grid[y0 + 1][:, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


def grain(shape, seed: int) -> np.ndarray:
    """Noise at three scales, about 0..1: blotches, smudges and fine grain."""
    rng = np.random.default_rng(seed + 1)
    return (0.5 * _smooth_noise(shape, seed, 3) + 0.3 * _smooth_noise(shape, seed + 7, 9)
            + 0.2 * rng.random(shape))


def _stamp(rgb: np.ndarray, text: str, top: int, left: int, scale: int, colour) -> None:
    for n, char in enumerate(text):
        for row, bits in enumerate(DIGITS[char]):
            for col in range(3):
                if int(bits) >> (2 - col) & 1:
                    y, x = top + row * scale, left + (n * 4 + col) * scale
                    rgb[y:y + scale, x:x + scale] = colour


def plate(width: int, height: int, base, seed: int = 0, panels: int = 2, stripes: bool = False,
          number: str = "") -> np.ndarray:
    """A painted armour plate, RGBA8: the ``base`` colour with grime, panel seams (a dark line with a lit edge),
    rivets along the seams, optionally a band of hazard stripes at the bottom and a stencilled ``number``."""
    shape = (height, width)
    rgb = np.asarray(base, np.float64)[None, None, :3] * (0.78 + 0.3 * grain(shape, seed))[..., None]
    rgb *= np.linspace(1.05, 0.8, height)[:, None, None]           # dirtier towards the bottom
    step_x, step_y = width // panels, height // panels
    ys, xs = np.mgrid[0:height, 0:width]
    seam = (xs % step_x == 0) | (ys % step_y == 0) | (xs == width - 1) | (ys == height - 1)
    lit = ((xs % step_x == 1) | (ys % step_y == 1)) & ~seam
    rgb[seam] *= 0.45
    rgb[lit] = rgb[lit] * 1.25 + 12
    for y in range(0, height, step_y):
        for x in range(0, width, step_x):
            for dy, dx in ((3, 3), (3, step_x - 4), (step_y - 4, 3), (step_y - 4, step_x - 4)):
                ry, rx = y + dy, x + dx
                if ry + 1 < height and rx + 1 < width:
                    rgb[ry + 1, rx + 1] *= 0.5                       # the rivet's shadow
                    rgb[ry, rx] = rgb[ry, rx] * 1.4 + 30
    if stripes:
        band = ys >= height - max(4, height // 6)
        yellow = ((xs + ys) // max(2, width // 12)) % 2 == 0
        rgb[band & yellow] = (215, 170, 30)
        rgb[band & ~yellow] = (30, 28, 25)
    if number:
        scale = max(1, width // 32)
        _stamp(rgb, number, step_y // 2 - 2 * scale, step_x // 2 - 3 * scale, scale, (225, 220, 200))
    out = np.empty((height, width, 4), np.uint8)
    out[..., :3] = np.clip(rgb, 0, 255).round()
    out[..., 3] = 255
    return out


def ground(size: int, base, seed: int, cracks: bool = False) -> np.ndarray:
    """A ground texture, RGBA8: patches of ``base`` lighter and darker, fine grain, and (``cracks``) dark seams
    as a rock face has."""
    shape = (size, size)
    shade = 0.62 + 0.55 * grain(shape, seed)
    rgb = np.asarray(base, np.float64)[None, None, :3] * shade[..., None]
    if cracks:
        ridge = np.abs(_smooth_noise(shape, seed + 3, 4) - 0.5) < 0.012
        rgb[ridge] *= 0.5
    out = np.empty((size, size, 4), np.uint8)
    out[..., :3] = np.clip(rgb, 0, 255).round()
    out[..., 3] = 255
    return out


def robot_libraries() -> dict[str, Archive]:
    """sample_libraries() with painted textures of the same names and formats: BODY.0 a 128 x 64 8888 atlas
    (no mips) whose second rectangle (the cell SAMPLE_BODY shows) is an olive hull plate with a number and the
    first a sand-coloured one, METAL.0 a 64 x 64 565 gunmetal plate with hazard stripes."""
    libraries = sample_libraries()
    atlas = np.concatenate([plate(64, 64, (170, 150, 105), seed=3, panels=2),
                            plate(64, 64, (105, 120, 70), seed=5, panels=2, number="07")], axis=1)
    painted = {"BODY.0": encode_texm(atlas, 8888, mips=False, rects=[(0, 64, 0, 32), (64, 64, 0, 64)]),
               "METAL.0": encode_texm(plate(64, 64, (120, 124, 132), seed=11, panels=2, stripes=True), 565)}
    textures = Archive()
    for entry in libraries["Textures.lib"].entries:
        data = painted[entry.name_str].to_bytes() if entry.name_str in painted else bytes(entry.data)
        textures.add(entry.name_str, data, entry.type_id)
    libraries["Textures.lib"] = textures
    return libraries
