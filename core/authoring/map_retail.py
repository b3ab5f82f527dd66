"""Maps at the retail tolerances and with what no source measured (spec/retail-envelope.md 10, 12, 17), written
from the synthetic map of core.authoring.maps: no retail file is read here, so these stand in for what the game
could ship when the map checks, the import and the export are tried against it (docs/refusing-checks.md).

- ``box_edge_land``: a face's vertex just inside or just outside 0.1 % of cell 0's width beyond its cell's box.
- ``alpha_edge_land``: stream 14 off 1.0 by just under or just over 1e-6 on a vertex no two-material face uses.
- ``water_edge_land``: a water vertex just within or just beyond the water check's tolerance above the others.
- ``self_neighbour_land``: a face naming itself across one of its free edges (no source measured whether any
  retail face does).
- ``short_areal_map`` / ``self_neighbour_areal_map``: an areal of fewer than 3 vertices; an areal naming itself
  across a boundary edge (neither measured either way).
- ``largest_map_files``: the retail extremes of a map and mission in one game folder (the largest grid, more
  vertices and faces than any retail map, 1 024 areals of 14 vertices, a lookup cell naming 20, 864 placements)
  with the face, draw, areal and placement flag values seen.
"""

from __future__ import annotations

import math

import numpy as np

from ..map import landmsh as L
from ..map.arealmap import HEADER as AREAL_HEADER
from ..map.arealmap import LINK, Areal, ArealMap
from ..map.tma import LODE, NOT_INSIDE, PROPERTY, Mission, PlacedObject, Property
from ..map.validate import ALPHA_SLACK, WATER_SPREAD, box_slack
from .map_game import mission_game_files
from .maps import (
    LAKE_CLASS,
    LOOKUP,
    SAMPLE_MAP,
    MapSpec,
    height,
    synthetic_areal_map,
    synthetic_land,
    synthetic_mission,
)

SPEC = MapSpec()          # the bundled sample's map (core.authoring.maps)
LAND_MSH = f"DATA/MAPS/{SAMPLE_MAP}/Land.msh"
LAND_MAP = f"DATA/MAPS/{SAMPLE_MAP}/Land.map"


def _land() -> L.LandMesh:
    return synthetic_land(SPEC)[0]


def interior_vertex(mesh: L.LandMesh, cell: int = 0) -> int:
    """A level-0 vertex of ``cell`` on no grid line (it has no twin in another cell), used by some face."""
    first, count = int(mesh.cells["first"][cell]), int(mesh.cells["count"][cell])
    used = np.unique(mesh.faces["verts"][first:first + count].astype(np.int64))
    lo, hi = mesh.cells["box_min"][cell], mesh.cells["box_max"][cell]
    p = mesh.positions[used]
    inside = ((p[:, :2] > lo[:2]) & (p[:, :2] < hi[:2])).all(axis=1)
    return int(used[inside][0])


def box_edge_land(over: bool) -> bytes:
    """A Land.msh whose one vertex inside cell 0 lies above the cell's box by the largest float32 within 0.1 %
    of cell 0's width (``over`` False), or by the smallest beyond it (``over`` True). Its z moves: a vertex on
    no grid line, so no twin is moved apart."""
    mesh = _land()
    vertex = interior_vertex(mesh)
    top = np.float64(mesh.cells["box_max"][0][2]) + box_slack(mesh)
    z = np.float32(top)
    if np.float64(z) > top:
        z = np.nextafter(z, np.float32(-np.inf))
    if over:
        z = np.nextafter(z, np.float32(np.inf))
    mesh.positions[vertex, 2] = z
    return mesh.to_bytes()


def alpha_edge_land(over: bool) -> bytes:
    """A Land.msh whose stream 14 on one vertex no two-material face uses is the float32 closest below 1.0 that
    is still within 1e-6 (``over`` False), or the next one down, past it (``over`` True)."""
    mesh = _land()
    two = (mesh.faces["material"] >> 8) != L.NO_SECOND
    untouched = np.setdiff1d(np.arange(len(mesh.positions)), mesh.faces["verts"][two].astype(np.int64).ravel())
    value = np.float32(1.0)
    while 1.0 - float(np.nextafter(value, np.float32(0))) < ALPHA_SLACK:
        value = np.nextafter(value, np.float32(0))
    if over:
        value = np.nextafter(value, np.float32(0))
    mesh.streams[L.ALPHA][untouched[0]] = value
    return mesh.to_bytes()


def water_edge_land(over: bool) -> bytes:
    """A Land.msh whose one inner lake vertex lies above the water level by the largest float32 within the
    tolerance of the water check (``over`` False), or by the smallest beyond it (``over`` True)."""
    mesh = _land()
    water = mesh.water_faces()
    cell_of_face = np.repeat(np.arange(len(mesh.cells)), mesh.cells["count"].astype(np.int64))
    vertex = interior_vertex(mesh, int(cell_of_face[water][0]))
    top = np.float64(mesh.positions[vertex, 2]) + WATER_SPREAD
    z = np.float32(top)
    if np.float64(z) > top:
        z = np.nextafter(z, np.float32(-np.inf))
    if over:
        z = np.nextafter(z, np.float32(np.inf))
    mesh.positions[vertex, 2] = z
    return mesh.to_bytes()


def self_neighbour_land() -> bytes:
    """A Land.msh whose first face with a free edge names itself across it, the edge code its own edge (so the
    link leads back: the rest of the adjacency stays whole)."""
    mesh = _land()
    faces = mesh.faces
    free = np.flatnonzero((faces["neighbours"] == L.NONE).any(axis=1))[0]
    edge = int(np.flatnonzero(faces["neighbours"][free] == L.NONE)[0])
    faces["neighbours"][free, edge] = free
    shift = 2 * edge
    faces["edges"][free] = (int(faces["edges"][free]) & ~(3 << shift)) | (edge << shift)
    return mesh.to_bytes()


def short_areal_map(vertices: int = 2) -> bytes:
    """The synthetic Land.map with one more areal of ``vertices`` (< 3) vertices, on the boundary (its links
    -1/-1) and named by no lookup cell."""
    areal_map = synthetic_areal_map(SPEC)
    header = np.zeros((), AREAL_HEADER)
    header["centre"] = [SPEC.cell / 2, SPEC.cell / 2]
    header["normal"] = [0, 0, 1]
    header["flags"] = [0, 0, 1, 0]
    header["vertex_count"] = vertices
    polygon = np.array([[0, 0, 0], [SPEC.cell, 0, 0]][:vertices], "<f4").reshape(vertices, 3)
    links = np.full((vertices, 2), -1, LINK.base)
    areal_map.areals.append(Areal(header, polygon, links))
    return areal_map.to_bytes()


def self_neighbour_areal_map() -> bytes:
    """The synthetic Land.map whose first areal names itself across its first boundary edge (the twin its own
    edge, so the link leads back)."""
    areal_map = synthetic_areal_map(SPEC)
    for index, areal in enumerate(areal_map.areals):
        free = np.flatnonzero((areal.links == -1).all(axis=1))
        if len(free):
            areal.links[free[0]] = [index, free[0]]
            break
    return areal_map.to_bytes()


def warning_cases() -> dict[str, tuple[str, bytes]]:
    """What no source measured, each a warning now: case name -> (the map file it replaces, its bytes)."""
    return {"face_self_neighbour": (LAND_MSH, self_neighbour_land()),
            "areal_two_vertices": (LAND_MAP, short_areal_map(2)),
            "areal_no_vertices": (LAND_MAP, short_areal_map(0)),
            "areal_self_neighbour": (LAND_MAP, self_neighbour_areal_map())}


def tolerance_cases() -> dict[str, tuple[str, bytes, bool]]:
    """The three tolerances at their edge: case name -> (the map file it replaces, its bytes, refused)."""
    return {"box_within": (LAND_MSH, box_edge_land(False), False),
            "box_beyond": (LAND_MSH, box_edge_land(True), True),
            "alpha_within": (LAND_MSH, alpha_edge_land(False), False),
            "alpha_beyond": (LAND_MSH, alpha_edge_land(True), True),
            "water_within": (LAND_MSH, water_edge_land(False), False),
            "water_beyond": (LAND_MSH, water_edge_land(True), True)}


# --------------------------------------------------------------------- the largest map
LARGEST = "LARGEST"
# 16 x 16 squares, the largest retail grid (28 of 33 maps); 2 400 units a side (retail 798..2 490); six level-0
# sub-squares a cell side: 12 544 vertices, 18 944 faces (retail at most 11 125 and about 9 500: PROL)
LARGEST_SPEC = MapSpec(grid=16, cell=150.0, subdivisions=6, lake=(5, 7))
AREALS_ACROSS = 32          # 1 024 areals (retail: Tut_2 900, 34 662 over 33 maps)
AREAL_SIDES = (4, 3)        # segments of an areal's bottom/top and right/left sides: 14 vertices, the most seen
MOST_IN_A_CELL = 20         # areals one lookup cell names, the most seen
LARGEST_OBJECTS = 864       # every retail placement in one mission (864 over 29)
SCALES = (0.2, 21.0)        # the smallest and largest retail scenery scale
DRAW_UNREAD = 0x80          # a stream 11 flag read by nothing (89 entries of two retail maps)
LAVA_SURFACE = L.SURFACE_WATER   # lava: water's flags with the solid bit 0x10 clear


def largest_land() -> L.LandMesh:
    """The largest map's Land.msh, with every face and draw word value the retail maps carry: surfaces 0, 2, 16
    and 18 (half the lake lava, 0x10 clear; a cell of bed faces, flag 0x2000, 0x10 clear as the lava beds), draw
    flags 0x48, 0x58 and the unread 0x80 on some, and a non-zero fourth byte on some (316 retail entries)."""
    mesh = synthetic_land(LARGEST_SPEC)[0]
    faces = mesh.faces
    water = np.flatnonzero(mesh.water_faces())
    faces["surface"][water[::2]] = LAVA_SURFACE
    cell_of_face = np.repeat(np.arange(len(mesh.cells)), mesh.cells["count"].astype(np.int64))
    bed = (cell_of_face == 0) | (cell_of_face == mesh.squares)       # the corner cell, both levels
    faces["flags"][bed] |= L.FLAG_BED
    faces["surface"][bed] = 0
    draw = mesh.streams[L.DRAW_ORDER]
    draw["flags"][::97] |= DRAW_UNREAD
    draw["extra"][::101] = np.arange(len(draw["extra"][::101])) % 255 + 1
    return mesh


def _areal_polygon(row: int, col: int, size: float) -> np.ndarray:
    """Counter-clockwise from the bottom-left corner: the bottom side in 4 segments, the right in 3, the top in
    4, the left in 3."""
    across, up = AREAL_SIDES
    x0, y0, x1, y1 = col * size, row * size, (col + 1) * size, (row + 1) * size
    points = [(x0 + k * size / across, y0) for k in range(across)] + \
             [(x1, y0 + k * size / up) for k in range(up)] + \
             [(x1 - k * size / across, y1) for k in range(across)] + \
             [(x0, y1 - k * size / up) for k in range(up)]
    xy = np.array(points, np.float64)
    return np.column_stack([xy, height(LARGEST_SPEC, xy[:, 0], xy[:, 1])]).astype("<f4")


def _areal_links(row: int, col: int) -> np.ndarray:
    """Each edge's neighbour and twin edge: a bottom segment k meets the top segment 3 - k of the areal below, a
    right segment k the left segment 2 - k of the areal to the right; -1/-1 on the map's boundary."""
    n, (across, up) = AREALS_ACROSS, AREAL_SIDES
    top, left = across + up, 2 * across + up
    links = []
    for k in range(across):
        links.append((row - 1, col, top + across - 1 - k))
    for k in range(up):
        links.append((row, col + 1, left + up - 1 - k))
    for k in range(across):
        links.append((row + 1, col, across - 1 - k))
    for k in range(up):
        links.append((row, col - 1, across + up - 1 - k))
    return np.array([[r * n + c, t] if 0 <= r < n and 0 <= c < n else [-1, -1] for r, c, t in links],
                    LINK.base)


def largest_areal_map() -> ArealMap:
    """1 024 areals of 14 vertices each (every edge linked to its twin), the flag words seen (w0 0 or 1, w2
    1..29, the lake's areals 240 and 242), the 128 x 128 lookup grid naming the areal under each cell's centre,
    and one cell naming 20 areals."""
    n = AREALS_ACROSS
    size = LARGEST_SPEC.grid * LARGEST_SPEC.cell / n
    col, row = LARGEST_SPEC.lake
    lake_x = range(int(col * LARGEST_SPEC.cell // size), int((col + 1) * LARGEST_SPEC.cell // size))
    lake_y = range(int(row * LARGEST_SPEC.cell // size), int((row + 1) * LARGEST_SPEC.cell // size))
    areals = []
    for index in range(n * n):
        r, c = divmod(index, n)
        polygon = _areal_polygon(r, c, size)
        header = np.zeros((), AREAL_HEADER)
        header["centre"] = [(c + 0.5) * size, (r + 0.5) * size]
        header["area"] = size * size
        header["normal"] = [0, 0, 1]
        lake = c in lake_x and r in lake_y
        header["flags"] = [index % 2, 0, (LAKE_CLASS | 2 * (index % 2)) if lake else 1 + index % 29, 0]
        header["vertex_count"] = len(polygon)
        areals.append(Areal(header, polygon, _areal_links(r, c)))
    centres = (np.arange(LOOKUP) + 0.5) * n / LOOKUP
    which = np.floor(centres).astype(np.int64)
    under = (which[None, :] * n + which[:, None]).ravel()     # [x, y]: row of y, column of x
    counts = np.ones(LOOKUP * LOOKUP, np.int64)
    counts[0] = MOST_IN_A_CELL
    indices = np.concatenate([np.arange(MOST_IN_A_CELL), under[1:]])
    return ArealMap(areals, LOOKUP, LOOKUP, counts.astype("<u2"), indices.astype("<u2"))


def _property(name: bytes, value: int, low: int, high: int) -> Property:
    words = np.zeros((), PROPERTY)
    words["type"], words["value"], words["min"], words["max"] = 1, value & 0xFFFFFFFF, low, high & 0xFFFFFFFF
    return Property(words, name)


def largest_mission(mesh: L.LandMesh) -> Mission:
    """864 placements (the sample mission's eight kinds in turn, on a grid over the map, at the ground's
    height), scenery scaled from 0.2 to 21 and one unit scaled (the engine ignores a unit's scale, as on the two
    retail animals); lodes of both retail types (0x10001000 and 0)."""
    mission = synthetic_mission(mesh, LARGEST, objects=8, kinds=8)
    templates = mission.objects
    lo, hi = mesh.positions.min(axis=0).astype(np.float64), mesh.positions.max(axis=0).astype(np.float64)
    columns = math.ceil(math.sqrt(LARGEST_OBJECTS))
    placed = []
    for n in range(LARGEST_OBJECTS):
        template = templates[n % len(templates)]
        x = lo[0] + (n % columns + 0.5) * (hi[0] - lo[0]) / columns
        y = lo[1] + (n // columns + 0.5) * (hi[1] - lo[1]) / columns
        z = float(height(LARGEST_SPEC, np.array([x]), np.array([y]))[0])
        if template.is_scenery:
            scale = SCALES[0] + (SCALES[1] - SCALES[0]) * ((n // 8) % 11) / 10
        else:
            scale = 1.5 if n == 1 else 1.0
        owner = template.clan
        placed.append(PlacedObject(template.kind, template.marker, template.path, np.array([x, y, z], "<f4"),
                                   np.array([0, 0, (n * 0.7) % (2 * math.pi)], "<f4"), owner, n + 1,
                                   np.full(3, scale, "<f4"), b"" if template.is_scenery else b"obj_%d" % n, 0,
                                   NOT_INSIDE, NOT_INSIDE, 1,
                                   [_property(b"LogicalID", n + 1, n + 1, n + 1),
                                    _property(b"ClanID", owner, 0, -1)]))
    mission.objects = placed
    lodes = np.zeros(2, LODE)
    lodes["position"] = [[(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, 0], [lo[0] + 100, lo[1] + 100, 0]]
    lodes["type"], lodes["amount"] = [0x10001000, 0], [1e5, 5e4]
    mission.lodes = lodes
    return mission


def largest_map_files() -> dict[str, bytes]:
    """A game folder holding the largest map, a mission of 864 placements on it, and what the mission names
    (core.authoring.map_game: materials, textures, units, buildings, scenery records)."""
    files = mission_game_files(LARGEST_SPEC, objects=8, kinds=8, name=LARGEST)
    mesh = largest_land()
    folder = f"DATA/MAPS/{LARGEST}/"
    files[folder + "Land.msh"] = mesh.to_bytes()
    files[folder + "Land.map"] = largest_areal_map().to_bytes()
    files[f"MISSIONS/{LARGEST}/data.tma"] = largest_mission(mesh).to_bytes()
    return files
