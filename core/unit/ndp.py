"""``.ndp`` damage tables (dragonee/openparkan docs/07-objects.md): one 76-byte row per mesh node.

``i32 count``, then count rows: i32 flags (0x20 left / 0x40 right running gear), f32 hit points (1e6:
indestructible), f32 density (times the node's level-0 slot volume = its mass), char[32] explosion
archive, char[32] explosion member.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from ..errors import Finding, FormatError, warning
from .text import BLOCK, block_text, with_text

STREAM = "ndp"
ROW = np.dtype([("flags", "<i4"), ("hit_points", "<f4"), ("density", "<f4"), ("archive", (np.void, BLOCK)),
                ("member", (np.void, BLOCK))])
_COUNT = struct.Struct("<i")
INDESTRUCTIBLE = 1e6


@dataclass
class DamageTable:
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, ROW))

    def __len__(self) -> int:
        return len(self.rows)

    def to_bytes(self) -> bytes:
        return _COUNT.pack(len(self.rows)) + self.rows.astype(ROW).tobytes()

    def row(self, index: int) -> dict:
        r = self.rows[index]
        return {"row": index, "flags": int(r["flags"]), "hit_points": float(r["hit_points"]),
                "density": float(r["density"]), "explosion": [block_text(bytes(r["archive"])),
                                                              block_text(bytes(r["member"]))]}


def table_of(rows: list[tuple[int, float, float, str, str]]) -> DamageTable:
    out = np.zeros(len(rows), ROW)
    for i, (flags, hp, density, archive, member) in enumerate(rows):
        out[i] = (flags, hp, density, with_text(bytes(BLOCK), archive), with_text(bytes(BLOCK), member))
    return DamageTable(out)


def parse_ndp(data: bytes | memoryview, source: str = "") -> DamageTable:
    """FormatError for a negative count or a size other than 4 + 76 * count (checked before any allocation)."""
    raw = bytes(data)
    if len(raw) < _COUNT.size:
        raise FormatError.single(STREAM, None, f"{len(raw)} bytes: a damage table starts with a 4-byte count", source)
    (count,) = _COUNT.unpack_from(raw, 0)
    if count < 0:
        raise FormatError.single(STREAM, None, f"negative row count {count}", source)
    need = _COUNT.size + count * ROW.itemsize
    if need != len(raw):
        raise FormatError.single(STREAM, None, f"count {count} needs {need} bytes, the file has {len(raw)}", source)
    return DamageTable(np.frombuffer(raw, ROW, count, _COUNT.size).copy())


def validate_ndp(data: bytes | memoryview, node_count: int | None = None) -> list[Finding]:
    """The layout (an error: 4 + 76 * count on all 542 retail tables); warnings for a non-finite value (no source
    measured one) and, with ``node_count``, for a row count other than the node count (541 of the 542 retail
    tables have one row per node; the odd one is not named: spec/retail-envelope.md 8.4). Values are kept."""
    try:
        table = parse_ndp(data)
    except FormatError as exc:
        return exc.findings
    out: list[Finding] = []
    for i, r in enumerate(table.rows):
        if not (np.isfinite(r["hit_points"]) and np.isfinite(r["density"])):
            out.append(warning(STREAM, i, "hit points or density is not finite (kept)"))
        elif r["hit_points"] < 0 or r["density"] < 0:
            out.append(warning(STREAM, i, "negative hit points or density"))
    if node_count is not None and len(table) != node_count:
        out.append(warning(STREAM, None, f"{len(table)} rows for a model of {node_count} nodes"))
    return out
