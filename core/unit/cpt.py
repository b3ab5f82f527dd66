"""``.cpt`` control points (tag CTPT; dragonee/openparkan docs/07-objects.md, docs/30-turrets.md).

``u32 count``, then count 36-byte records, then count ``char[32]`` names: 4 + 68 * count bytes. A record:
u32 flags, i32 node the point sits on (its position is in that node's frame), i32 node that carries it,
f32[3] position, f32[3] vector (a unit direction, or axis times size for Width/Height/Size points).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from ..errors import Finding, FormatError, warning
from .text import BLOCK, block_text, with_text

STREAM = "cpt"
POINT = np.dtype([("flags", "<u4"), ("node", "<i4"), ("carrier", "<i4"), ("pos", "<f4", (3,)),
                  ("vector", "<f4", (3,))])
NAMES = np.dtype((np.void, BLOCK))
_COUNT = struct.Struct("<I")
# What a reader makes of a point whose node or carrier the model lacks (the point's bytes are kept either way).
CONSEQUENCE = {"node": "the point is not placed", "carrier": "the point stays on its node"}


@dataclass
class ControlPoints:
    points: np.ndarray = field(default_factory=lambda: np.zeros(0, POINT))
    names_raw: list[bytes] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [block_text(n) for n in self.names_raw]

    def __len__(self) -> int:
        return len(self.points)

    def to_bytes(self) -> bytes:
        if len(self.names_raw) != len(self.points):
            raise FormatError.single(STREAM, None, f"{len(self.points)} points but {len(self.names_raw)} names")
        return _COUNT.pack(len(self.points)) + self.points.astype(POINT).tobytes() + b"".join(self.names_raw)

    def summary(self) -> list[dict]:
        return [{"name": name, "flags": int(p["flags"]), "node": int(p["node"]), "carrier": int(p["carrier"]),
                 "pos": p["pos"].astype(float).tolist(), "vector": p["vector"].astype(float).tolist()}
                for name, p in zip(self.names, self.points)]


def points_of(rows: list[tuple[str, int, int, tuple, tuple]], flags: int = 0) -> ControlPoints:
    """Points from (name, node, carrier, position, vector) rows, names zero-padded."""
    points = np.zeros(len(rows), POINT)
    for i, (_name, node, carrier, pos, vector) in enumerate(rows):
        points[i] = (flags, node, carrier, pos, vector)
    names = [with_text(bytes(BLOCK), name) for name, *_ in rows]
    return ControlPoints(points, names)


def parse_cpt(data: bytes | memoryview, source: str = "") -> ControlPoints:
    """FormatError unless the size is exactly 4 + 68 * count (checked before anything is sized by count)."""
    raw = bytes(data)
    if len(raw) < _COUNT.size:
        raise FormatError.single(STREAM, None, f"{len(raw)} bytes: a point list starts with a 4-byte count", source)
    (count,) = _COUNT.unpack_from(raw, 0)
    need = _COUNT.size + count * (POINT.itemsize + BLOCK)
    if need != len(raw):
        raise FormatError.single(STREAM, None, f"count {count} needs {need} bytes, the file has {len(raw)}", source)
    end = _COUNT.size + count * POINT.itemsize
    points = np.frombuffer(raw, POINT, count, _COUNT.size).copy()
    names = [raw[end + i * BLOCK:end + (i + 1) * BLOCK] for i in range(count)]
    return ControlPoints(points, names)


def validate_cpt(data: bytes | memoryview, node_count: int | None = None) -> list[Finding]:
    """The layout (an error: 4 + 68 * count on all 284 retail members, docs/refusing-checks.md); warnings for a
    non-finite value and, with ``node_count`` (the model's), for a node or carrier the model lacks: retail chassis
    points carry -1 or a node past the mesh on 9 of the 78 points whose two nodes differ, and 1 of 2 985 points
    sits on a node outside its mesh (spec/retail-envelope.md 8.3). The values are kept as read."""
    try:
        cpt = parse_cpt(data)
    except FormatError as exc:
        return exc.findings
    out: list[Finding] = []
    for i, (point, name) in enumerate(zip(cpt.points, cpt.names_raw)):
        if b"\0" not in name:
            out.append(warning(STREAM, i, "name has no NUL within its 32 bytes"))
        values = np.concatenate([point["pos"], point["vector"]])
        if not np.all(np.isfinite(values)):
            out.append(warning(STREAM, i, f"point {block_text(name)!r}: position or vector is not finite (kept)"))
        if node_count is not None:
            for what in ("node", "carrier"):
                if not 0 <= int(point[what]) < node_count:
                    out.append(warning(STREAM, i, f"point {block_text(name)!r}: {what} {int(point[what])} is not a "
                                                  f"node of the model ({node_count} nodes); {CONSEQUENCE[what]}"))
    return out
