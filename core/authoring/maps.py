"""Synthetic maps and missions that meet every invariant ``core.map.validate`` checks, written from the public
sources docs/formats/maps.md names: openparkan docs/03-terrain.md, 08-arealmap.md and
04-missions.md; for the tests, the benchmarks and the bundled sample under samples/maps/.

The ground is a height field over a ``grid`` x ``grid`` square grid. Each cell has its own
``(subdivisions + 1)^2`` vertices (the retail meshes split their vertices along the grid lines too, 03-terrain.md),
cut into two counter-clockwise triangles per sub-square (level 0); level 1 is two triangles per cell over the
cell's corner vertices, or over every ``level1_step``-th level-0 vertex (03-terrain.md: built from level-0
vertices). One cell is a lake at one water level, some
cells wear a second material. Everything the notes call derived (normals, adjacency, edge codes, boxes,
runs, squares, draw order, the Land.map links and lookup grid) is computed here as those sources describe it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..appearance.wear import Wear
from ..container.nres import Archive, Entry
from ..map import landmsh as L
from ..map.arealmap import HEADER as AREAL_HEADER
from ..map.arealmap import LINK, Areal, ArealMap
from ..map.tma import LODE, NOT_INSIDE, OBJECT_MARKER, PROPERTY, ZONE, Clan, Mission, PlacedObject, Property, Route

LAND1 = ["B_S0", "L00", "L01", "L02", "WATER"]          # slot 0: the footing material, used by no face (2.2)
LAND2 = ["DEFAULT", "L05", "L01", "L32", "DEFAULT"]
WATER_SLOT = 4
SECOND_SLOT = 3
UV_TURN = 200.0          # world units per UV turn (03-terrain.md: 70..513 on retail maps)
MICRO_PER_UNIT = 51.2    # microtexture u16 per unit, every retail map
LOOKUP = 128             # Land.map lookup grid, 128 x 128 on every retail map
SURFACE_GROUND = L.SURFACE_SOLID
SURFACE_WATER = L.SURFACE_SOLID | L.SURFACE_WATER
LAKE_CLASS = 0xF0
SAMPLE_MAP = "SAMPLE"


@dataclass(frozen=True)
class MapSpec:
    grid: int = 4                 # squares across and down
    cell: float = 100.0           # cell size in world units
    subdivisions: int = 3         # level-0 sub-squares per cell side
    level1_step: int | None = None  # level-1 sub-square side in level-0 steps (divides subdivisions); None: the cell
    lake: tuple[int, int] | None = (1, 1)   # (column, row) of the water cell
    water_level: float = 4.0


def height(spec: MapSpec, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The ground's height; flat at the water level on the lake cell's closed square, so that its border
    vertices and those of the cells around it meet."""
    z = 20.0 + 8.0 * np.sin(x / 70.0) + 6.0 * np.cos(y / 55.0) + 0.02 * x
    # relief: two hills, and the ground sloping down to the lake
    z = z + 34.0 * np.exp(-((x - 320.0) ** 2 + (y - 300.0) ** 2) / 70.0 ** 2) \
        + 20.0 * np.exp(-((x - 50.0) ** 2 + (y - 340.0) ** 2) / 55.0 ** 2) \
        - 10.0 * np.exp(-((x - 150.0) ** 2 + (y - 150.0) ** 2) / 90.0 ** 2)
    if spec.lake is not None:
        col, row = spec.lake
        inside = ((x >= col * spec.cell) & (x <= (col + 1) * spec.cell)
                  & (y >= row * spec.cell) & (y <= (row + 1) * spec.cell))
        z = np.where(inside, spec.water_level, z)
    return z


def _unit(v: np.ndarray) -> np.ndarray:
    length = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(length == 0, 1, length)


def _adjacency(positions: np.ndarray, verts: np.ndarray, faces: range) -> tuple[np.ndarray, np.ndarray]:
    """Neighbours and winged-edge codes of one level, edges matched by position (03-terrain.md)."""
    neighbours = np.full((len(verts), 3), L.NONE, np.int64)
    codes = np.full((len(verts), 3), 3, np.int64)
    keys = [p.tobytes() for p in positions]
    seen: dict[tuple[bytes, bytes], tuple[int, int]] = {}
    for f in faces:
        for e in range(3):
            a, b = keys[verts[f, e]], keys[verts[f, (e + 1) % 3]]
            other = seen.pop((b, a), None)
            if other is None:
                seen[(a, b)] = (f, e)
                continue
            g, c = other
            neighbours[f, e], codes[f, e] = g, c
            neighbours[g, c], codes[g, c] = f, e
    return neighbours, codes


def synthetic_land(spec: MapSpec = MapSpec()) -> tuple[L.LandMesh, Wear, Wear]:
    """A Land.msh (decoded, with its container) and its Land1/Land2 lists."""
    g, k, size = spec.grid, spec.subdivisions, spec.cell
    squares = g * g
    per_cell = (k + 1) ** 2
    step = k if spec.level1_step is None else spec.level1_step
    if k % step:
        raise ValueError(f"level1_step {step} does not divide subdivisions {k}")
    if squares * per_cell > 0xFFFF or squares * 2 * (k * k + (k // step) ** 2) > 0xFFFF:
        raise ValueError("a Land.msh holds at most 65535 vertices and faces (u16 indices)")
    i, j = np.meshgrid(np.arange(k + 1), np.arange(k + 1), indexing="xy")   # j rows (y), i columns (x)
    i, j = i.ravel(), j.ravel()
    positions, cell_of_vertex = [], []
    for cell in range(squares):
        row, col = divmod(cell, g)
        x = (col * k + i) * size / k
        y = (row * k + j) * size / k
        positions.append(np.stack([x, y, height(spec, x, y)], axis=1))
        cell_of_vertex.append(np.full(per_cell, cell))
    pos = np.concatenate(positions).astype("<f4")
    lake = None if spec.lake is None else spec.lake[1] * g + spec.lake[0]

    def vid(cell: int, a: int, b: int) -> int:
        return cell * per_cell + b * (k + 1) + a

    tris, cell_of_face, mats = [], [], []
    for level in (0, 1):
        for cell in range(squares):
            row, col = divmod(cell, g)
            two = cell != lake and (row + col) % 3 == 1
            size_of = 1 if level == 0 else step
            quads = [(a, b) for b in range(0, k, size_of) for a in range(0, k, size_of)]
            for a, b in quads:
                v00, v10 = vid(cell, a, b), vid(cell, a + size_of, b)
                v11, v01 = vid(cell, a + size_of, b + size_of), vid(cell, a, b + size_of)
                for tri in ((v00, v10, v11), (v00, v11, v01)):
                    first = WATER_SLOT if cell == lake else 1 + (a + b + level * cell) % 3
                    tris.append(tri)
                    cell_of_face.append(cell + level * squares)
                    mats.append((first, SECOND_SLOT if two else L.NO_SECOND))
    verts = np.array(tris, np.int64)
    mats = np.array(mats, np.int64)
    faces = np.zeros(len(verts), L.FACE)
    water = mats[:, 0] == WATER_SLOT
    faces["flags"] = np.where(water, L.WATER_FLAGS, L.FLAG_BASE | np.where(mats[:, 1] != L.NO_SECOND,
                                                                           L.FLAG_SECOND, 0))
    faces["surface"] = np.where(water, SURFACE_WATER, SURFACE_GROUND)
    faces["material"] = mats[:, 0] | (mats[:, 1] << 8)
    faces["word3"] = L.NONE
    faces["verts"] = verts
    p = pos.astype(np.float64)
    normal = _unit(np.cross(p[verts[:, 1]] - p[verts[:, 0]], p[verts[:, 2]] - p[verts[:, 0]]))
    faces["normal"] = np.round(normal * 32767).astype(np.int16)
    split = squares * 2 * k * k
    for level in (range(split), range(split, len(verts))):
        neighbours, codes = _adjacency(pos, verts, level)
        faces["neighbours"][level.start:level.stop] = neighbours[level.start:level.stop]
        faces["edges"][level.start:level.stop] = (codes[level.start:level.stop] << [0, 2, 4]).sum(axis=1)

    # vertex normals: the level-0 face normals around each vertex, area-weighted (the formula is unknown, 8.6)
    area_normal = np.cross(p[verts[:split, 1]] - p[verts[:split, 0]], p[verts[:split, 2]] - p[verts[:split, 0]])
    summed = np.zeros_like(p)
    for corner in range(3):
        np.add.at(summed, verts[:split, corner], area_normal)
    vnormal = np.zeros((len(pos), 4), np.int8)
    vnormal[:, :3] = np.round(_unit(summed) * 127).astype(np.int8)

    max_y = float(pos[:, 1].max())
    uv = np.stack([pos[:, 0] * 1024 / UV_TURN, (max_y - pos[:, 1]) * 1024 / UV_TURN], axis=1)
    micro = np.stack([pos[:, 0] * MICRO_PER_UNIT, (max_y - pos[:, 1]) * MICRO_PER_UNIT], axis=1)
    alpha = np.ones(len(pos), "<f4")
    second_faces = mats[:, 1] != L.NO_SECOND
    touched = np.unique(verts[second_faces])
    alpha[touched] = (pos[touched, 0] % size) / size      # the second material fades in across the cell

    cells = np.zeros(2 * squares, L.CELL)
    counts = np.bincount(np.array(cell_of_face), minlength=2 * squares)
    cells["count"] = counts
    cells["first"] = np.concatenate([[0], np.cumsum(counts)[:-1]])
    cell_vertex = np.concatenate(cell_of_vertex)
    for cell in range(squares):
        box = pos[cell_vertex == cell]
        lo, hi = box.min(axis=0), box.max(axis=0)
        for twin in (cell, cell + squares):
            cells["box_min"][twin], cells["box_max"][twin] = lo, hi
            cells["centre"][twin] = (lo + hi) / 2
            cells["radius"][twin] = np.linalg.norm(hi.astype(np.float64) - lo) / 2
    header = np.zeros((), L.CELL_HEADER)
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    # corner c: bit 0 picks x max, bit 1 y max, bit 2 z max (the retail order is not published, 03-terrain.md)
    header["corners"] = [[(hi if c >> axis & 1 else lo)[axis] for axis in range(3)] for c in range(8)]

    draw = np.zeros(len(verts), L.DRAW)
    for cell in range(2 * squares):
        start, count = int(cells["first"][cell]), int(cells["count"][cell])
        ids = np.arange(start, start + count)
        pair = faces["material"][ids]
        _, first_seen = np.unique(pair, return_index=True)
        rank = {int(pair[f]): r for r, f in enumerate(sorted(first_seen))}
        order = sorted(ids, key=lambda f: (rank[int(faces["material"][f])], f))
        draw["face"][start:start + count] = order
        opens = np.ones(count, bool)
        ordered = faces["material"][order]
        opens[1:] = ordered[1:] != ordered[:-1]
        draw["flags"][start:start + count] = L.DRAW_CONSTANT | np.where(opens, L.DRAW_BATCH, 0)

    squares_rec = np.zeros(squares, L.SQUARE)
    squares_rec["head"] = [0, L.NONE, 0, 0]
    squares_rec["cells"] = L.NONE
    squares_rec["cells"][:, 0] = np.arange(squares)
    squares_rec["cells"][:, 1] = np.arange(squares) + squares

    streams = {L.SQUARES: squares_rec, L.CELLS: cells, L.POSITIONS: pos, L.NORMALS: vnormal,
               L.UV: (np.round(uv).astype(np.int64) % 65536).astype("<u2"),
               L.MICRO_UV: (np.round(micro).astype(np.int64) % 65536).astype("<u2"),
               L.ALPHA: alpha, L.DRAW_ORDER: draw, L.FACES: faces}
    entries = []
    for type_id in L.STREAM_ORDER:
        data = header.tobytes() + cells.tobytes() if type_id == L.CELLS else streams[type_id].tobytes()
        stride = L.CELL.itemsize if type_id == L.CELLS else L.RECORDS[type_id].itemsize
        attr2 = g if type_id == L.SQUARES else 0
        entries.append(Entry(type_id, len(streams[type_id]), attr2, stride, L.NAME.ljust(36, b"\0"), data))
    archive = Archive.parse(Archive(entries).to_bytes())
    mesh = L.LandMesh.from_archive(archive)
    return mesh, Wear(list(LAND1)), Wear(list(LAND2))


def synthetic_areal_map(spec: MapSpec = MapSpec()) -> ArealMap:
    """One square areal per grid cell, linked to its neighbours across each edge with the twin edge; the lake
    cell is a lake areal; the 128 x 128 lookup grid names the areal under each lookup cell's centre."""
    g, size = spec.grid, spec.cell
    areals = []
    for cell in range(g * g):
        row, col = divmod(cell, g)
        x0, y0, x1, y1 = col * size, row * size, (col + 1) * size, (row + 1) * size
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
        z = height(spec, corners[:, 0], corners[:, 1])
        polygon = np.column_stack([corners, z]).astype("<f4")
        # edge e runs from corner e to e + 1: bottom, right, top, left; the twin is the opposite side
        around = [(row - 1, col, 2), (row, col + 1, 3), (row + 1, col, 0), (row, col - 1, 1)]
        links = np.array([[r * g + c, t] if 0 <= r < g and 0 <= c < g else [-1, -1] for r, c, t in around],
                         np.int32).astype(LINK.base)
        header = np.zeros((), AREAL_HEADER)
        header["centre"] = [(x0 + x1) / 2, (y0 + y1) / 2]
        header["area"] = size * size
        header["normal"] = [0, 0, 1]
        lake = spec.lake is not None and (col, row) == tuple(spec.lake)
        header["flags"] = [0, 0, LAKE_CLASS if lake else 1, 0]
        header["vertex_count"] = 4
        areals.append(Areal(header, polygon, links.reshape(4, 2)))
    centres = (np.arange(LOOKUP) + 0.5) * g / LOOKUP
    which = np.floor(centres).astype(np.int64)
    indices = (which[None, :] * g + which[:, None]).astype("<u2").ravel()   # [x, y]: row of y, column of x
    return ArealMap(areals, LOOKUP, LOOKUP, np.ones(LOOKUP * LOOKUP, "<u2"), indices)


def wea_bytes(wear: Wear) -> bytes:
    return wear.to_bytes()


def map_files(spec: MapSpec = MapSpec()) -> dict[str, bytes]:
    """The four files of a map folder, by name."""
    mesh, land1, land2 = synthetic_land(spec)
    return {"Land.msh": mesh.to_bytes(), "Land.map": synthetic_areal_map(spec).to_bytes(),
            "Land1.wea": land1.to_bytes(), "Land2.wea": land2.to_bytes()}


# --------------------------------------------------------------------- missions
CLANS = [(b"Nature", 0), (b"Player", 1), (b"Enemy", 2)]


def _int_property(name: bytes, value: int, low: int, high: int) -> Property:
    words = np.zeros((), PROPERTY)
    words["type"], words["value"], words["min"], words["max"] = 1, value & 0xFFFFFFFF, low, high & 0xFFFFFFFF
    return Property(words, name)


def object_path(kind: int, variant: int) -> bytes:
    """Kinds 0/1 name a .dat below the game root, kinds 2/3 an objects.rlb STAT record (04-missions.md)."""
    return [b"UNITS\\BUILDS\\SYNTH\\build_%d.dat", b"UNITS\\UNITS\\SYNTH\\unit_%d.dat",
            b"TREE_%02d", b"STONE_%02d"][kind] % variant


def synthetic_mission(mesh: L.LandMesh, map_name: str = SAMPLE_MAP, objects: int = 12,
                      kinds: int = 8) -> Mission:
    """A version 1/6/10 mission on ``mesh``: three clans (nature, player, enemy) with full relation tables, one
    route, ``objects`` placed objects of ``kinds`` distinct files (cycling building, unit, tree, rock) at the
    ground's height, one lode; a description with garbage after its NUL, as retail descriptions have."""
    lo, hi = mesh.positions.min(axis=0), mesh.positions.max(axis=0)
    clans = []
    for index, (name, clan_type) in enumerate(CLANS):
        relations = [(other, 1 if other == name or clan_type == 0 or other_type == 0 else 0)
                     for other, other_type in CLANS]
        base = np.array([lo[0] + (index + 1) * (hi[0] - lo[0]) / 4, lo[1] + (hi[1] - lo[1]) / 3], "<f4")
        clans.append(Clan(name, 0xFFFFFFFF, base, clan_type, b"MISSIONS\\SCRIPTS\\scr_pl_1" if clan_type else b"",
                          np.zeros(0, ZONE), b"", 4 if clan_type else 2, relations))
    route = Route(0, np.array([[lo[0] + 10, lo[1] + 10, 0], [hi[0] - 10, lo[1] + 10, 0],
                               [hi[0] - 10, hi[1] - 10, 0]], "<f4"))
    placed = []
    columns = max(1, math.ceil(math.sqrt(objects)))
    for n in range(objects):
        variant = n % kinds
        kind = variant % 4
        x = lo[0] + (n % columns + 0.5) * (hi[0] - lo[0]) / columns
        y = lo[1] + (n // columns + 0.5) * (hi[1] - lo[1]) / columns
        owner = 1 + n % 2 if kind in (0, 1) else 0
        scale = 1.0 if kind in (0, 1) else 0.5 + (n % 5) * 0.25
        obj = PlacedObject(kind, OBJECT_MARKER, object_path(kind, variant),
                           np.array([x, y, mesh.height_at(x, y)], "<f4"),
                           np.array([0, 0, (n * 0.7) % (2 * math.pi)], "<f4"), owner, n + 1,
                           np.full(3, scale, "<f4"), b"" if kind in (2, 3) else b"obj_%d" % n, 0,
                           NOT_INSIDE, NOT_INSIDE, 1,
                           [_int_property(b"LogicalID", n + 1, n + 1, n + 1), _int_property(b"ClanID", owner, 0, -1)])
        placed.append(obj)
    lodes = np.zeros(1, LODE)
    lodes["position"] = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, 0]
    lodes["type"], lodes["amount"] = 0x10001000, 1e5
    return Mission(1, [route], 6, clans, 10, placed, b"DATA\\MAPS\\%s\\land" % map_name.encode("ascii"), 0,
                   b"Synthetic mission\0" + b"\xcd" * 14, 1, lodes)


def sample_map_files() -> dict[str, bytes]:
    """The bundled sample under samples/maps/, by path relative to it: a 4 x 4 map with a lake and a mission
    naming it."""
    spec = MapSpec()
    mesh, land1, land2 = synthetic_land(spec)
    folder = f"DATA/MAPS/{SAMPLE_MAP}/"
    return {folder + "Land.msh": mesh.to_bytes(), folder + "Land.map": synthetic_areal_map(spec).to_bytes(),
            folder + "Land1.wea": land1.to_bytes(), folder + "Land2.wea": land2.to_bytes(),
            f"MISSIONS/{SAMPLE_MAP}/data.tma": synthetic_mission(mesh).to_bytes()}
