"""The areal map ``Land.map`` (openparkan docs/08-arealmap.md): one NRes entry, type 12, ``ArealMap``.

Payload: ``attr1`` areals (56-byte header, polygon, per-edge links, sub-blocks), then u32 across, u32 down and,
for x (outer) and y (inner), a u16 count and that many u16 areal indices. The loader refuses a payload the
cursor does not end exactly on (08-arealmap.md [R]); so does this reader. No source says how the map was built
(docs/formats/maps.md), so a writer keeps it: every word is read into a field and written back as it was.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from ..container.nres import Archive, Entry
from ..errors import FormatError
from .kind import AREAL_TYPE_ID

AREAL_NAME = b"ArealMap"
STREAM = "ArealMap"
HEADER = np.dtype([("centre", "<f4", (2,)), ("zero", "<f4", (2,)), ("area", "<f4"), ("normal", "<f4", (3,)),
                   ("flags", "<u4", (4,)), ("vertex_count", "<u4"), ("block_count", "<u4")])
LINK = np.dtype(("<i4", (2,)))  # neighbour areal, its twin edge; -1/-1 on the boundary
LAKE_CLASS = 0xF0               # flags word 2: all of 0xF0 set on a lake areal (08-arealmap.md)
_U32 = struct.Struct("<I")


@dataclass(eq=False)
class Areal:
    header: np.void                 # HEADER record
    polygon: np.ndarray             # (V, 3) float32, counter-clockwise
    links: np.ndarray               # (V + 3B, 2) int32
    blocks: bytes = b""             # B sub-blocks, op's layout (u32 n, f32[3] x n), never used on retail: raw

    @property
    def is_lake(self) -> bool:
        return (int(self.header["flags"][2]) & LAKE_CLASS) == LAKE_CLASS


@dataclass(eq=False)
class ArealMap:
    areals: list[Areal]
    across: int
    down: int
    # The lookup grid, x outer and y inner: each cell's areal count, and all cells' areal indices in a row.
    grid_counts: np.ndarray = field(default_factory=lambda: np.zeros(0, "<u2"))
    grid_indices: np.ndarray = field(default_factory=lambda: np.zeros(0, "<u2"))
    archive: Archive | None = None
    source: str = ""

    @classmethod
    def parse(cls, data: bytes | memoryview, source: str = "") -> ArealMap:
        return cls.from_archive(Archive.parse(data, source), source)

    @classmethod
    def from_archive(cls, archive: Archive, source: str = "") -> ArealMap:
        entries = archive.entries
        if len(entries) != 1 or entries[0].type_id != AREAL_TYPE_ID:
            kinds = ", ".join(str(e.type_id) for e in entries) or "none"
            raise FormatError.single(STREAM, None, f"expected one entry of type {AREAL_TYPE_ID}, found types "
                                                   f"{kinds}", source)
        result = parse_payload(bytes(entries[0].data), entries[0].attr1, source)
        result.archive = archive
        return result

    def payload(self) -> bytes:
        out = bytearray()
        for areal in self.areals:
            out += areal.header.tobytes() + areal.polygon.tobytes() + areal.links.tobytes() + areal.blocks
        out += _U32.pack(self.across) + _U32.pack(self.down)
        counts = self.grid_counts.astype(np.int64)
        words = np.zeros(len(counts) + int(counts.sum()), "<u2")
        at = np.arange(len(counts)) + np.cumsum(counts) - counts
        words[at] = counts
        keep = np.ones(len(words), bool)
        keep[at] = False
        words[keep] = self.grid_indices
        return bytes(out + words.tobytes())

    def cell(self, index: int) -> np.ndarray:
        """The areal indices of lookup cell ``index`` (x * down + y): a view into ``grid_indices``."""
        start = int(self.grid_counts[:index].astype(np.int64).sum())
        return self.grid_indices[start:start + int(self.grid_counts[index])]

    def to_bytes(self) -> bytes:
        if self.archive is None:
            self.archive = Archive([Entry(AREAL_TYPE_ID, 0, 0, 0, AREAL_NAME.ljust(36, b"\0"), b"")])
        entry: Entry = self.archive.entries[0]
        data = self.payload()
        if bytes(entry.data) != data or entry.attr1 != len(self.areals):
            entry.data = data
            entry.attr1 = len(self.areals)
        return self.archive.to_bytes()

    def summary(self) -> dict:
        return {"areals": len(self.areals), "lakes": sum(a.is_lake for a in self.areals),
                "grid": [self.across, self.down],
                "vertices": sum(len(a.polygon) for a in self.areals)}


class _Cursor:
    def __init__(self, data: bytes, source: str) -> None:
        self.data, self.source, self.at = data, source, 0

    def need(self, size: int, what: str, index: int | None) -> None:
        if size > len(self.data) - self.at:
            raise FormatError.single(STREAM, index, f"{what} needs {size} bytes at byte {self.at}, only "
                                                    f"{len(self.data) - self.at} remain", self.source)

    def take(self, size: int, what: str, index: int | None) -> bytes:
        self.need(size, what, index)
        chunk = self.data[self.at:self.at + size]
        self.at += size
        return chunk

    def u32(self, what: str, index: int | None) -> int:
        return _U32.unpack(self.take(4, what, index))[0]


def parse_payload(data: bytes, count: int, source: str = "") -> ArealMap:
    """The ArealMap payload holding ``count`` areals (the entry's attr1); FormatError naming the areal or the
    grid cell where it breaks."""
    cur = _Cursor(data, source)
    cur.need(count * HEADER.itemsize, f"{count} areals (attr1)", None)   # a count lie is caught before any work
    areals = []
    for i in range(count):
        header = np.frombuffer(cur.take(HEADER.itemsize, "areal header", i), HEADER)[0].copy()
        vertices, blocks = int(header["vertex_count"]), int(header["block_count"])
        links = vertices + 3 * blocks
        polygon_bytes = vertices * 12
        cur.need(polygon_bytes + links * LINK.itemsize, f"polygon of {vertices} vertices and {links} edge links", i)
        polygon = np.frombuffer(cur.take(polygon_bytes, "polygon", i), "<f4").reshape(vertices, 3).copy()
        link = np.frombuffer(cur.take(links * LINK.itemsize, "edge links", i), LINK).copy()
        start = cur.at
        for _ in range(blocks):
            n = cur.u32("sub-block count", i)
            cur.take(12 * n, "sub-block", i)
        areals.append(Areal(header, polygon, link, data[start:cur.at]))
    across = cur.u32("grid width", None)
    down = cur.u32("grid height", None)
    cells = across * down
    cur.need(2 * cells, f"a {across} x {down} lookup grid", None)
    rest = len(data) - cur.at
    words = np.frombuffer(data, "<u2", rest // 2, cur.at)
    listed = words.tolist()
    at, starts = 0, []
    for cell in range(cells):
        if at >= len(listed):
            raise FormatError.single("ArealMap grid", cell, f"lookup cell {cell} starts past the end of the file",
                                     source)
        starts.append(at)
        at += 1 + listed[at]
    if at > len(listed):
        raise FormatError.single("ArealMap grid", cells - 1, f"lookup cell {cells - 1} runs past the end of the "
                                                             "file", source)
    if rest != 2 * at:
        raise FormatError.single(STREAM, None, f"{rest - 2 * at} bytes after the lookup grid (the game refuses a "
                                               "map it does not read to the end)", source)
    is_count = np.zeros(at, bool)
    is_count[starts] = True
    counts = words[:at][is_count].copy()
    indices = words[:at][~is_count].copy()
    return ArealMap(areals, across, down, counts, indices, None, source)
