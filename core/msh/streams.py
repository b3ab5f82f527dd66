"""Record layouts of the MSH streams (msh-core.md section 5, msh-animation.md section 2).

Every fixed-stride stream is read as a numpy structured array that is a
zero-copy view of the payload; ``array.tobytes()`` gives the payload back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NO_INDEX = 0xFFFF  # "none" in every u16 link: parent, map_start, slot, triangle link

NODE = np.dtype([
    ("flags", "<u2"),         # hdr0
    ("parent", "<u2"),        # hdr1
    ("map_start", "<u2"),     # hdr2
    ("fallback_key", "<u2"),  # hdr3
    ("slots", "<u2", (15,)),  # slot[stage * 5 + lod], as retail-data readers found
])
LEGACY_NODE = np.dtype([("words", "<u2", (12,))])  # Res1 stride 24: kept raw (one retail model, MTCHECK.MSH, has it)
NODE_STRIDES = {NODE.itemsize: NODE, LEGACY_NODE.itemsize: LEGACY_NODE}

MODEL_HEADER = np.dtype([
    ("hull", "<f4", (8, 3)),
    ("sphere", "<f4", (4,)),   # center xyz, radius
    ("segment", "<f4", (7,)),  # A xyz, B xyz, radius
])
SLOT = np.dtype([
    ("tri_start", "<u2"),
    ("tri_count", "<u2"),
    ("batch_start", "<u2"),
    ("batch_count", "<u2"),
    ("aabb_min", "<f4", (3,)),
    ("aabb_max", "<f4", (3,)),
    ("sphere_center", "<f4", (3,)),
    ("sphere_radius", "<f4"),
    ("unknown", "<u4", (5,)),  # unk30..unk40, kept as read
])
POSITION = np.dtype(("<f4", (3,)))
NORMAL = np.dtype(("i1", (4,)))
UV = np.dtype(("<u2", (2,)))  # unsigned u16 / 1024 (three retail-data readings agree; the spec's signed i16 is wrong)
INDEX = np.dtype("<u2")
TRIANGLE = np.dtype([
    ("flags", "<u2"),
    ("links", "<u2", (3,)),
    ("normal", "<i2", (3,)),
    ("selectors", "<u2"),
])
BATCH = np.dtype([
    ("flags", "<u2"),
    ("material_index", "<u2"),  # the seed's materialIndex; zero in retail data
    ("material", "<u2"),        # +4: low byte = WEAR index, high byte = lightmap row
    ("unk6", "<u2"),
    ("index_count", "<u2"),
    ("index_start", "<u4"),
    ("unk14", "<u2"),
    ("base_vertex", "<u4"),
])
KEY = np.dtype([
    ("pos", "<f4", (3,)),
    ("time", "<f4"),
    ("rot", "<i2", (4,)),  # file order r0..r3; retail-data readers read r0 as w
])
MAP_WORD = np.dtype("<u2")
NODE_NAME = np.dtype("S32")
EXTRA8 = np.dtype(("u1", (8,)))
LIGHTMAP_UV = np.dtype(("<u2", (2,)))

# Slots (as retail-data readers found): slot[stage * 5 + lod]; stage 0 is intact, then damage stages with pieces gone;
# lod 0..3 are distance levels and lod 4 is the first-person view.
STAGES, LODS, FIRST_PERSON = 3, 5, 4


def slot_position(stage: int, lod: int) -> int:
    return stage * LODS + lod


def slot_label(position: int) -> str:
    stage, lod = divmod(position, LODS)
    return f"{'intact' if stage == 0 else f'damage {stage}'} {'first-person' if lod == FIRST_PERSON else f'LOD {lod}'}"


HEADER_SIZE = MODEL_HEADER.itemsize  # 0x8C

assert (NODE.itemsize, SLOT.itemsize, TRIANGLE.itemsize, BATCH.itemsize, KEY.itemsize, HEADER_SIZE) == (
    38, 68, 16, 20, 24, 140)


@dataclass(frozen=True)
class StreamSpec:
    type_id: int
    label: str
    dtype: np.dtype | None  # None: variable layout (Res1, Res2, Res10, Res20)
    attr3: int | None       # the value msh-core.md 7.1 / 8.2 expects
    required: bool = False
    per_vertex: bool = False


SPECS: dict[int, StreamSpec] = {s.type_id: s for s in (
    StreamSpec(1, "nodes", None, None, required=True),
    StreamSpec(2, "header and slots", None, SLOT.itemsize, required=True),
    StreamSpec(3, "positions", POSITION, 12, required=True, per_vertex=True),
    StreamSpec(4, "normals", NORMAL, 4, per_vertex=True),
    StreamSpec(5, "uv0", UV, 4, per_vertex=True),
    StreamSpec(6, "indices", INDEX, 2, required=True),
    StreamSpec(7, "triangles", TRIANGLE, 16),
    StreamSpec(8, "animation keys", KEY, 4),
    StreamSpec(9, "node names", NODE_NAME, None),
    StreamSpec(10, "node labels", None, 0),
    StreamSpec(13, "batches", BATCH, 20, required=True),
    StreamSpec(17, "interior path graph", None, None),
    StreamSpec(15, "extra vertex stream", EXTRA8, 8, per_vertex=True),
    StreamSpec(16, "tangent stream", EXTRA8, 8, per_vertex=True),
    StreamSpec(18, "lightmap uv", LIGHTMAP_UV, 4, per_vertex=True),
    StreamSpec(19, "frame map", MAP_WORD, 2),
    StreamSpec(20, "extra table", None, None),
    StreamSpec(21, "terrain stream", None, None),
)}


def label(type_id: int) -> str:
    return f"Res{type_id}"


def records(data: bytes | memoryview, dtype: np.dtype, start: int = 0) -> np.ndarray:
    """Every whole record of ``data[start:]`` as a zero-copy array (a ragged tail is ignored)."""
    count = max(0, (len(data) - start) // dtype.itemsize)
    return np.frombuffer(data, dtype=dtype, count=count, offset=start)


# Decoding rules (msh-core.md 5.4, 5.5; msh-animation.md 2.1).
ROT_SCALE = np.float32(1.0) / np.float32(32767.0)


def decode_normals(raw: np.ndarray) -> np.ndarray:
    return np.clip(raw[:, :3].astype(np.float32) / np.float32(127.0), -1.0, 1.0).astype(np.float32)


def encode_normals(normals: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(np.asarray(normals, np.float32) * np.float32(127.0)), -128, 127).astype(np.int8)


def decode_uvs(raw: np.ndarray) -> np.ndarray:
    return raw.astype(np.float32) / np.float32(1024.0)


def encode_uvs(uvs: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(np.asarray(uvs, np.float32) * np.float32(1024.0)), 0, 0xFFFF).astype(np.uint16)


def decode_rotations(raw: np.ndarray) -> np.ndarray:
    """i16 rotation components to float32 by the runtime's multiply (not a divide)."""
    return raw.astype(np.float32) * ROT_SCALE


def encode_rotations(rot: np.ndarray) -> np.ndarray:
    """msh-animation.md 10.4: clamp(round(q * 32767), -32767, 32767)."""
    return np.clip(np.rint(np.asarray(rot, np.float64) * 32767.0), -32767, 32767).astype(np.int16)


def decode_triangle_normals(raw: np.ndarray) -> np.ndarray:
    return raw.astype(np.float32) * ROT_SCALE


def selectors(packed: np.ndarray) -> np.ndarray:
    """The three 2-bit selectors of Res7 (msh-core.md 5.7), 3 read as 0xFFFF."""
    sel = np.stack([(packed >> s) & 3 for s in (0, 2, 4)], axis=-1).astype(np.uint16)
    sel[sel == 3] = NO_INDEX
    return sel
