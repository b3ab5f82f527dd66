"""Building a new model from plain data: nodes, rigid mesh parts and animation tracks.

Produces every stream msh-core.md needs (Res1/2/3/4/5/6/7/13, Res8/19,
Res9/10) in the retail stream order of msh-core.md section 11; the result
passes the strict validator. Used by the sample generator, the tests and
the exporter.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from ..animation.pose import pose_matrix, world_matrices
from ..animation.tracks import Animation, Track, check_writable, write_animation
from ..container.nres import Archive, name_field
from ..errors import FormatError
from ..msh import streams as S
from ..msh.labels import encode_labels, encode_name32
from ..msh.model import Model

STREAM_ORDER = (1, 2, 3, 4, 5, 18, 15, 13, 6, 7, 8, 19, 9, 10, 17, 20)
UNLIT_MATERIAL_HIGH = 0xFF00  # high byte 0xFF for batches without a lightmap, as retail data has


@dataclass
class NodeDef:
    name: str | bytes  # bytes: stored as they are
    parent: int | None = None
    label: str | bytes | None = None  # bytes: stored as they are
    flags: int = 0


@dataclass
class Part:
    """Triangles attached rigidly to one node, in that node's local space."""

    node: int
    positions: np.ndarray
    triangles: np.ndarray
    normals: np.ndarray | None = None
    uvs: np.ndarray | None = None
    material: int = 0  # WEAR index of every triangle, unless face_materials gives one per triangle
    slot: int = 0  # position in the node's slot[15] (stage * 5 + lod)
    face_materials: np.ndarray | None = None
    face_words: np.ndarray | None = None  # whole batch material words (lightmap << 8 | WEAR row), if given
    face_flags: np.ndarray | None = None  # Res7 flag word of every triangle (walkable, glass, ...); else 0


@dataclass
class ModelDef:
    nodes: list[NodeDef]
    parts: list[Part] = field(default_factory=list)
    animation: Animation | None = None   # None: every node static at the origin
    extra_streams: list[tuple[int, bytes, int, int, int]] = field(default_factory=list)
    stream_name: str = "model"


def build_model(spec: ModelDef) -> Model:
    """Build a model; raises FormatError naming what cannot be written."""
    nodes = np.zeros(len(spec.nodes), S.NODE)
    nodes["map_start"] = S.NO_INDEX
    nodes["slots"] = S.NO_INDEX
    for i, node in enumerate(spec.nodes):
        parent = S.NO_INDEX if node.parent is None else node.parent
        if parent != S.NO_INDEX and not 0 <= parent < len(spec.nodes):
            raise FormatError.single("Res1", i, f"node {node.name!r}: parent {parent} does not exist")
        nodes[i]["parent"], nodes[i]["flags"] = parent, node.flags
    animation = spec.animation or Animation(1, [Track.static() for _ in spec.nodes])
    check_writable(animation, len(nodes))
    geometry = geometry_streams(spec.parts, nodes)
    rest = rest_world(animation, nodes["parent"])
    payloads = {
        1: (nodes, len(nodes), 0, S.NODE.itemsize),
        2: (model_header(spec.parts, rest).tobytes() + geometry["slots"].tobytes(), len(geometry["slots"]), 0, 68),
        3: (geometry["positions"], None, 0, 12),
        4: (geometry["normals"], None, 0, 4),
        5: (geometry["uvs"], None, 0, 4),
        13: (geometry["batches"], None, 0, 20),
        6: (geometry["indices"], None, 0, 2),
        7: (geometry["triangles"], None, 0, 16),
        8: (np.zeros(0, S.KEY), 0, 0, 4),
        19: (np.zeros(0, S.MAP_WORD), 0, 1, 2),
    }
    for type_id, data, a1, a2, a3 in spec.extra_streams:
        payloads[type_id] = (data, a1, a2, a3)
    if 9 not in payloads:  # names and labels come from the node definitions unless given as streams
        payloads[9] = (np.array([encode_name32(n.name) for n in spec.nodes], S.NODE_NAME), len(spec.nodes), 0, 0)
    if 10 not in payloads:
        payloads[10] = (encode_labels([n.label for n in spec.nodes]), len(spec.nodes), 0, 0)
    name_field(spec.stream_name)  # refuses a bad name before anything is built
    archive = Archive()
    model = Model(archive, spec.stream_name)
    for type_id in [t for t in STREAM_ORDER if t in payloads] + [t for t in payloads if t not in STREAM_ORDER]:
        data, a1, a2, a3 = payloads[type_id]
        raw = data.tobytes() if isinstance(data, np.ndarray) else bytes(data)
        count = a1 if a1 is not None else len(data)
        archive.add(spec.stream_name, raw, type_id, count, a2, a3)
    write_animation(model, animation, rebuild=True)
    return Model(Archive.parse(model.to_bytes(), spec.stream_name), spec.stream_name)


def rest_world(animation: Animation, parents: np.ndarray) -> np.ndarray:
    """Each node's world matrix at its first key (the first key is the rest pose)."""
    local = np.stack([pose_matrix(S.decode_rotations(t.rot[0]), t.pos[0]) for t in animation.tracks]) \
        if animation.tracks else np.zeros((0, 4, 4))
    return world_matrices(local, parents)


def geometry_streams(parts: list[Part], nodes: np.ndarray) -> dict[str, np.ndarray]:
    """Every part becomes one slot with one batch per material (triangles grouped by material)."""
    positions, normals, uvs, indices, triangles, batches = [], [], [], [], [], []
    slots = np.zeros(len(parts), S.SLOT)
    vertex_base = index_base = tri_base = 0
    for i, part in enumerate(parts):
        pos = np.asarray(part.positions, np.float32).reshape(-1, 3)
        tris = np.asarray(part.triangles, np.int64).reshape(-1, 3)
        where = f"part {i} (node {part.node})"
        if not 0 <= part.node < len(nodes):
            raise FormatError.single("Res2", i, f"{where}: node does not exist")
        if len(pos) > 0x10000:  # u16 batch indices; retail models hold 12 to 9 686 vertices (retail-envelope 4.2)
            raise FormatError.single("Res3", i, f"{where}: {len(pos)} vertices; a batch indexes at most 65536")
        if len(tris) and (tris.min() < 0 or tris.max() >= len(pos)):
            raise FormatError.single("Res6", i, f"{where}: triangle refers to a missing vertex")
        if not 0 <= part.slot < 15 or nodes[part.node]["slots"][part.slot] != S.NO_INDEX:
            raise FormatError.single("Res1", part.node, f"{where}: slot position {part.slot} is taken or not 0..14")
        nodes[part.node]["slots"][part.slot] = i
        if part.face_words is not None:
            materials = np.asarray(part.face_words, np.int64).reshape(-1)
        else:
            rows = np.full(len(tris), part.material) if part.face_materials is None \
                else np.asarray(part.face_materials, np.int64).reshape(-1)
            materials = UNLIT_MATERIAL_HIGH | (rows & 0xFF)
        order = np.argsort(materials, kind="stable")
        tris, materials = tris[order], materials[order]
        flags = np.zeros(len(tris), np.int64) if part.face_flags is None \
            else np.asarray(part.face_flags, np.int64).reshape(-1)
        if len(flags) != len(tris):
            raise FormatError.single("Res7", i, f"{where}: {len(flags)} face flags for {len(tris)} triangles")
        flags = flags[order]
        normal = _vertex_normals(pos, tris) if part.normals is None else np.asarray(part.normals, np.float32)
        uv = np.zeros((len(pos), 2), np.float32) if part.uvs is None else np.asarray(part.uvs, np.float32)
        positions.append(pos)
        normals.append(np.concatenate([S.encode_normals(normal), np.zeros((len(pos), 1), np.int8)], axis=1))
        uvs.append(S.encode_uvs(uv))
        indices.append(tris.reshape(-1).astype(np.uint16))
        records = _triangle_records(pos, tris, tri_base)
        records["flags"] = flags & 0xFFFF
        triangles.append(records)
        runs = np.flatnonzero(np.diff(materials, prepend=-1, append=-1))
        batch_start = len(batches)
        for a, b in itertools.pairwise(runs):
            batches.append((0, 0, int(materials[a]), 0, 3 * (b - a), index_base + 3 * a, 0, vertex_base))
        low, high = (pos.min(axis=0), pos.max(axis=0)) if len(pos) else (np.zeros(3), np.zeros(3))
        center = (low + high) / 2
        radius = float(np.linalg.norm(pos - center, axis=1).max()) if len(pos) else 0.0
        slots[i] = (tri_base, len(tris), batch_start, len(batches) - batch_start, low, high, center, radius, (0,) * 5)
        slots["unknown"][i, SLOT_VOLUME] = slot_volume_word(slots[i])
        vertex_base += len(pos)
        index_base += tris.size
        tri_base += len(tris)
    if tri_base > 0xFFFF or len(batches) > 0xFFFF:
        raise FormatError.single("Res7", None, f"{tri_base} triangles in {len(batches)} batches exceed 16-bit ranges")
    if any(b[4] > 0xFFFF for b in batches):
        raise FormatError.single("Res13", None, "a batch of more than 65535 indices cannot be stored")

    def joined(arrays, dtype, width):
        return np.concatenate(arrays).astype(dtype) if arrays else np.zeros((0, width) if width else 0, dtype)

    return {
        "positions": joined(positions, np.float32, 3),
        "normals": joined(normals, np.int8, 4),
        "uvs": joined(uvs, np.uint16, 2),
        "indices": joined(indices, np.uint16, 0),
        "triangles": np.concatenate(triangles) if triangles else np.zeros(0, S.TRIANGLE),
        "batches": np.array(batches, S.BATCH) if batches else np.zeros(0, S.BATCH),
        "slots": slots,
    }


# Res2 slot tail (openparkan openparkan/mesh.py), as words of SLOT["unknown"]: +0x30 area, +0x34 volume.
SLOT_AREA, SLOT_VOLUME = 0, 1


def slot_volume_word(slot: np.void) -> int:
    """The slot's volume (Res2 +0x34) as the u32 bits of an f32: the product of its bounding box's sides
    (openparkan: the AABB volume on every player-chassis slot; times the .ndp density it is the node's mass).
    The area at +0x30 has no established formula: new slots get 0 there (docs/formats/msh.md, "Slot area
    and volume")."""
    sides = slot["aabb_max"].astype(np.float32) - slot["aabb_min"].astype(np.float32)
    volume = np.float32(np.prod(np.maximum(sides, 0), dtype=np.float32))
    return int(np.array([volume], np.float32).view(np.uint32)[0])


def _vertex_normals(pos: np.ndarray, tris: np.ndarray) -> np.ndarray:
    acc = np.zeros_like(pos, dtype=np.float64)
    if len(tris):
        face = np.cross(pos[tris[:, 1]] - pos[tris[:, 0]], pos[tris[:, 2]] - pos[tris[:, 0]])
        for corner in range(3):
            np.add.at(acc, tris[:, corner], face)
    length = np.linalg.norm(acc, axis=1, keepdims=True)
    return np.where(length > 0, acc / np.where(length > 0, length, 1), [0.0, 0.0, 1.0]).astype(np.float32)


def _triangle_records(pos: np.ndarray, tris: np.ndarray, base: int) -> np.ndarray:
    """Res7 records: face normal, and for each edge the neighbour across it.

    Edge j runs from corner j to corner j+1. The selector of edge j is taken to
    be the neighbour's edge index (3 = none, msh-core.md 5.7); the retail
    meaning of the selectors is not documented, so this is the project's reading.
    """
    out = np.zeros(len(tris), S.TRIANGLE)
    if not len(tris):
        return out
    face = np.cross(pos[tris[:, 1]] - pos[tris[:, 0]], pos[tris[:, 2]] - pos[tris[:, 0]]).astype(np.float64)
    length = np.linalg.norm(face, axis=1, keepdims=True)
    unit = np.where(length > 0, face / np.where(length > 0, length, 1), 0.0)
    out["normal"] = np.clip(np.rint(unit * 32767), -32767, 32767).astype(np.int16)
    edges: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for t, tri in enumerate(tris.tolist()):
        for j in range(3):
            a, b = tri[j], tri[(j + 1) % 3]
            edges.setdefault((min(a, b), max(a, b)), []).append((t, j))
    links = np.full((len(tris), 3), S.NO_INDEX, np.uint16)
    sel = np.full((len(tris), 3), 3, np.uint16)
    for users in edges.values():
        if len(users) == 2:
            (t0, j0), (t1, j1) = users
            links[t0, j0], sel[t0, j0] = base + t1, j1
            links[t1, j1], sel[t1, j1] = base + t0, j0
    out["links"] = links
    out["selectors"] = sel[:, 0] | (sel[:, 1] << 2) | (sel[:, 2] << 4)
    return out


def model_header(parts: list[Part], rest: np.ndarray) -> np.ndarray:
    """Res2 header: hull (AABB corners), sphere and vertical segment around the rest pose."""
    world = [(rest[p.node] @ np.c_[np.asarray(p.positions, np.float64).reshape(-1, 3),
                                   np.ones(len(np.asarray(p.positions).reshape(-1, 3)))].T).T[:, :3]
             for p in parts]
    points = np.concatenate(world) if world else np.zeros((0, 3))
    header = np.zeros(1, S.MODEL_HEADER)[0]
    if not len(points):
        return header
    low, high = points.min(axis=0), points.max(axis=0)
    header["hull"] = [[(high if c & 1 else low)[0], (high if c & 2 else low)[1], (high if c & 4 else low)[2]]
                      for c in range(8)]
    center = (low + high) / 2
    header["sphere"] = [*center, np.linalg.norm(points - center, axis=1).max()]
    radius = np.linalg.norm(points[:, :2] - center[:2], axis=1).max()
    header["segment"] = [center[0], center[1], low[2], center[0], center[1], high[2], radius]
    return header
