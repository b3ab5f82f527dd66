"""The terrain mesh ``Land.msh`` (openparkan docs/03-terrain.md): an NRes of nine streams, all named
``Land``, told apart by type id.

Every stream is decoded into a numpy record array over a copy of its bytes; a word whose meaning is unknown
(docs/formats/maps.md) is a field of the record and goes back as it was read, so that an unedited mesh writes
its own bytes. Only the container's checks and what decoding needs (a whole number of records, the required
streams) are made here; the invariants are ``core.map.validate``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..container.nres import Archive, Entry
from ..errors import FormatError
from .kind import ALPHA, CELLS, DRAW_ORDER, FACES, MICRO_UV, NORMALS, POSITIONS, SQUARES, STREAM_ORDER, UV
from .kind import is_land_mesh as is_land_mesh  # where the batch tool asks it

REQUIRED = (SQUARES, CELLS, POSITIONS, NORMALS, UV, MICRO_UV, DRAW_ORDER, FACES)  # 14 is optional (03-terrain.md)
NAME = b"Land"
NONE = 0xFFFF
NO_SECOND = 0xFF          # face word 2, hi byte: no second material
SQUARE_SLOTS = 15

SQUARE = np.dtype([("head", "<u2", (4,)), ("cells", "<u2", (SQUARE_SLOTS,))])            # 03-terrain.md
CELL_HEADER = np.dtype([("corners", "<f4", (8, 3)), ("rest", "u1", (44,))])              # 03-terrain.md
CELL = np.dtype([("first", "<u2"), ("count", "<u2"), ("zero", "<u4"), ("box_min", "<f4", (3,)),
                 ("box_max", "<f4", (3,)), ("centre", "<f4", (3,)), ("radius", "<f4"), ("tail", "u1", (20,))])
POSITION = np.dtype(("<f4", (3,)))                                                      # 03-terrain.md
NORMAL = np.dtype(("i1", (4,)))        # nx, ny, nz / 127 and a pad byte carried
UV16 = np.dtype(("<u2", (2,)))         # 1024 = one turn (docs/formats/maps.md); stored raw
ALPHA_F = np.dtype("<f4")
DRAW = np.dtype([("face", "<u2"), ("flags", "u1"), ("extra", "u1")])                     # 03-terrain.md
FACE = np.dtype([("flags", "<u2"), ("surface", "<u2"), ("material", "<u2"), ("word3", "<u2"),
                 ("verts", "<u2", (3,)), ("neighbours", "<u2", (3,)), ("normal", "<i2", (3,)),
                 ("edges", "<u2")])                                                      # 03-terrain.md

RECORDS = {SQUARES: SQUARE, POSITIONS: POSITION, NORMALS: NORMAL, UV: UV16, MICRO_UV: UV16, ALPHA: ALPHA_F,
           DRAW_ORDER: DRAW, FACES: FACE}
PER_VERTEX = (POSITIONS, NORMALS, UV, MICRO_UV, ALPHA)
LABELS = {SQUARES: "squares", CELLS: "cells", POSITIONS: "positions", NORMALS: "vertex normals", UV: "UV",
          MICRO_UV: "microtexture UV", ALPHA: "second-material alpha", DRAW_ORDER: "draw order", FACES: "faces"}

# face word 0 and 1 bits (03-terrain.md)
FLAG_BASE = 0x600
FLAG_SECOND = 0x004
FLAG_WATER = 0x008
FLAG_BED = 0x2000
WATER_FLAGS = 0x608
SURFACE_WATER = 0x02
SURFACE_SOLID = 0x10
DRAW_BATCH = 0x10
DRAW_CONSTANT = 0x48


def stream_name(type_id: int) -> str:
    return f"Res{type_id}"


def face_extents(positions: np.ndarray, verts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each face's lowest and highest corner, per axis (``verts``: its three vertex indices): exact, as min and
    max are in any order."""
    a, b, c = positions[verts[:, 0]], positions[verts[:, 1]], positions[verts[:, 2]]
    return np.minimum(np.minimum(a, b), c), np.maximum(np.maximum(a, b), c)


@dataclass(eq=False)
class LandMesh:
    """A decoded Land.msh. ``streams`` maps a type id to its records (a copy: edit freely); ``cell_header`` is
    stream 2's 140-byte header; ``archive`` is the container as read (names, attrs and order kept)."""

    archive: Archive
    streams: dict[int, np.ndarray]
    cell_header: np.ndarray
    source: str = ""

    # --------------------------------------------------------------- reading
    @classmethod
    def parse(cls, data: bytes | memoryview, source: str = "") -> LandMesh:
        archive = Archive.parse(data, source)
        return cls.from_archive(archive, source)

    @classmethod
    def from_archive(cls, archive: Archive, source: str = "") -> LandMesh:
        problems = []
        seen: dict[int, Entry] = {}
        for i, entry in enumerate(archive.entries):
            if entry.type_id not in STREAM_ORDER:
                problems.append(f"entry {i}: type {entry.type_id} is not a terrain stream")
            elif entry.type_id in seen:
                problems.append(f"entry {i}: a second {stream_name(entry.type_id)} stream")
            else:
                seen[entry.type_id] = entry
        for type_id in REQUIRED:
            if type_id not in seen:
                problems.append(f"required stream {stream_name(type_id)} ({LABELS[type_id]}) is missing")
        if problems:
            raise FormatError.single("Land.msh", None, "; ".join(problems), source)
        streams: dict[int, np.ndarray] = {}
        header = np.zeros((), CELL_HEADER)
        for type_id, entry in seen.items():
            data = bytes(entry.data)
            if type_id == CELLS:
                rest = len(data) - CELL_HEADER.itemsize
                if rest < 0 or rest % CELL.itemsize:
                    raise FormatError.single(stream_name(type_id), None,
                                             f"{len(data)} bytes: not a {CELL_HEADER.itemsize}-byte header and "
                                             f"whole {CELL.itemsize}-byte cell records", source)
                header = np.frombuffer(data, CELL_HEADER, 1)[0].copy()
                streams[type_id] = np.frombuffer(data, CELL, offset=CELL_HEADER.itemsize).copy()
                continue
            record = RECORDS[type_id]
            if len(data) % record.itemsize:
                raise FormatError.single(stream_name(type_id), None,
                                         f"{len(data)} bytes is not a whole number of {record.itemsize}-byte "
                                         f"records ({LABELS[type_id]})", source)
            streams[type_id] = np.frombuffer(data, record).copy()
        return cls(archive, streams, header, source)

    # --------------------------------------------------------------- writing
    def to_bytes(self) -> bytes:
        """The container with every stream's records written back (counts in attr1 follow the records, as
        section 3 asks; every other attr and name is kept)."""
        for entry in self.archive.entries:
            if entry.type_id == CELLS:
                data = self.cell_header.tobytes() + self.streams[CELLS].tobytes()
            else:
                data = self.streams[entry.type_id].tobytes()
            if bytes(entry.data) != data:
                entry.data = data
                entry.attr1 = len(self.streams[entry.type_id])
        return self.archive.to_bytes()

    # --------------------------------------------------------------- views
    @property
    def positions(self) -> np.ndarray:
        return self.streams[POSITIONS]

    @property
    def faces(self) -> np.ndarray:
        return self.streams[FACES]

    @property
    def cells(self) -> np.ndarray:
        return self.streams[CELLS]

    @property
    def squares(self) -> int:
        return len(self.streams[SQUARES])

    def entry(self, type_id: int) -> Entry | None:
        return self.archive.first_of_type(type_id)

    @property
    def across(self) -> int:
        """Cells across (stream 1's attr2, 03-terrain.md)."""
        entry = self.entry(SQUARES)
        return entry.attr2 if entry is not None else 0

    @property
    def down(self) -> int:
        return self.squares // self.across if self.across else 0

    @property
    def level_split(self) -> int:
        """The first level-1 face: the run start of cell ``squares`` (03-terrain.md); every face when the cells
        stream is short."""
        cells = self.cells
        if len(cells) > self.squares:
            return min(int(cells["first"][self.squares]), len(self.faces))
        return len(self.faces)

    def materials(self) -> tuple[np.ndarray, np.ndarray]:
        """Each face's Land1.wea index and second-material index (0xFF none), from face word 2 (03-terrain.md)."""
        words = self.faces["material"]
        return (words & 0xFF).astype(np.int64), (words >> 8).astype(np.int64)

    def water_faces(self) -> np.ndarray:
        return (self.faces["surface"] & SURFACE_WATER) != 0

    def summary(self) -> dict:
        split = self.level_split
        first, second = self.materials()
        water = self.water_faces()
        water_z = sorted({float(z) for z in self.positions[np.unique(self.faces["verts"][water])][:, 2]}) \
            if water.any() and self.faces["verts"][water].max(initial=0) < len(self.positions) else []
        lo = self.positions.min(axis=0).tolist() if len(self.positions) else [0.0, 0.0, 0.0]
        hi = self.positions.max(axis=0).tolist() if len(self.positions) else [0.0, 0.0, 0.0]
        return {
            "grid": [self.across, self.down], "vertices": len(self.positions),
            "faces": [split, len(self.faces) - split],
            "extent": [lo, hi],
            "materials_used": sorted({int(m) for m in first} | {int(m) for m in second if m != NO_SECOND}),
            "second_material_faces": int((second != NO_SECOND).sum()),
            "water_faces": int(water.sum()), "water_levels": water_z,
            "streams": [e.type_id for e in self.archive.entries],
        }

    def height_at(self, x: float, y: float) -> float:
        """The ground's height at (x, y): barycentric z over the level-0 faces (op's ``height_at``, 04-missions.md),
        the highest where several cover the point; the lowest vertex's z when none does."""
        with np.errstate(all="ignore"):  # NaN or huge coordinates in a file are data, not warnings
            return self._height_at(x, y)

    def _height_at(self, x: float, y: float) -> float:
        faces = self.faces[:self.level_split]
        p = self.positions.astype(np.float64)
        if not len(faces) or not len(p):
            return 0.0
        tri = p[faces["verts"].astype(np.int64) % len(p)]
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        det = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (b[:, 1] - a[:, 1])
        safe = np.where(det == 0, 1, det)
        u = ((x - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (y - a[:, 1])) / safe
        v = ((b[:, 0] - a[:, 0]) * (y - a[:, 1]) - (x - a[:, 0]) * (b[:, 1] - a[:, 1])) / safe
        inside = (det != 0) & (u >= -1e-6) & (v >= -1e-6) & (u + v <= 1 + 1e-6)
        if not inside.any():
            return float(p[:, 2].min())
        z = a[:, 2] + u * (b[:, 2] - a[:, 2]) + v * (c[:, 2] - a[:, 2])
        return float(z[inside].max())
