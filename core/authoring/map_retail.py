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
"""

from __future__ import annotations

import numpy as np

from ..map import landmsh as L
from ..map.arealmap import HEADER as AREAL_HEADER
from ..map.arealmap import LINK, Areal
from ..map.validate import ALPHA_SLACK, WATER_SPREAD, box_slack
from .maps import SAMPLE_MAP, MapSpec, synthetic_areal_map, synthetic_land

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
