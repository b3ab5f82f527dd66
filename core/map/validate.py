"""The invariants that hold on every retail map (docs/formats/maps.md, "The checks"), for a
Land.msh, a Land.map, a data.tma and a map's files together. Each failed invariant is one finding naming the stream, the
first record that breaks it and how many do."""

from __future__ import annotations

import numpy as np

from ..errors import Finding, error, warning
from . import landmsh as L
from .arealmap import ArealMap
from .tma import KIND_NAMES, OBJECT_MARKER, Mission, text

EDGE_SHIFTS = np.array([0, 2, 4])
NO_EDGE = 3
# The tolerances of the retail checks (docs/refusing-checks.md, "Tolerances"): a refusal of the same fact allows
# them, since exactness was never measured (spec/retail-envelope.md 17).
BOX_SLACK = 0.001        # of cell 0's width: op verify.py check_grid, slack = (max - min) * 0.001
ALPHA_SLACK = 1e-6       # op verify.py check_layers, abs(blend - 1.0) < 1e-6
# op's flat-water test does not publish its tolerance (it printed SC_3's spread as 0.000000); a thousandth of a
# unit admits that, and a float32 height's rounding anywhere below 8192 units.
WATER_SPREAD = 1e-3


def _first(findings: list[Finding], stream: str, bad: np.ndarray, what: str, severity=error) -> bool:
    """One finding for the records ``bad`` marks: the first one's index, and how many. True when any is bad."""
    bad = np.asarray(bad, bool)
    if not bad.any():
        return False
    index = int(np.flatnonzero(bad)[0])
    count = int(bad.sum())
    more = f" ({count} records)" if count > 1 else ""
    findings.append(severity(stream, index, f"{what}{more}"))
    return True


# --------------------------------------------------------------------- Land.msh
def validate_land(mesh: L.LandMesh, errors_only: bool = False) -> list[Finding]:
    """Every finding of ``mesh``; with ``errors_only`` its errors alone (the same ones, in the same order), the
    checks that can only warn left out: what a writer refusing on errors needs (io_msh.exp.map_ground)."""
    with np.errstate(all="ignore"):  # NaN or huge coordinates in a file are data, not warnings
        out = _validate_land(mesh, warnings=not errors_only)
    return out if not errors_only else [f for f in out if f.severity == "error"]


def _validate_land(mesh: L.LandMesh, warnings: bool = True) -> list[Finding]:
    out: list[Finding] = []
    _streams(mesh, out)
    if not _has_ground(mesh, out):
        return out
    faces = mesh.faces
    vertex_count = len(mesh.positions)
    verts = faces["verts"].astype(np.int64)
    indices_ok = not _first(out, "Res21", (verts >= vertex_count).any(axis=1),
                            f"vertex index out of range ({vertex_count} vertices)")
    if indices_ok and vertex_count:
        used = np.zeros(vertex_count, bool)
        used[verts.ravel()] = True
        _first(out, "Res3", ~used, "vertex used by no face", warning)
    grid_ok = _squares(mesh, out)
    runs_ok = grid_ok and _runs(mesh, out)
    if runs_ok and indices_ok:
        _cell_boxes(mesh, out)
        _levels(mesh, out)
        _draw_order(mesh, out)
    _adjacency(mesh, out, indices_ok, runs_ok, warnings)
    _face_words(mesh, out, indices_ok)
    return out


def _streams(mesh: L.LandMesh, out: list[Finding]) -> None:
    order = [e.type_id for e in mesh.archive.entries]
    if order != [t for t in L.STREAM_ORDER if t in order]:
        out.append(warning("Land.msh", None, f"stream order {order}, every retail map has {list(L.STREAM_ORDER)}"))
    vertex_count = len(mesh.positions)
    for i, entry in enumerate(mesh.archive.entries):
        name = L.stream_name(entry.type_id)
        count = len(mesh.streams[entry.type_id])
        if entry.attr1 != count:  # 03-terrain.md: attr1 = element count on every stream
            out.append(error(name, None, f"attr1 says {entry.attr1} records, the stream holds {count}"))
        stride = L.RECORDS.get(entry.type_id)
        if stride is not None and entry.attr3 != stride.itemsize:
            out.append(error(name, None, f"attr3 (stride) is {entry.attr3}, records are {stride.itemsize} bytes"))
        if entry.type_id in L.PER_VERTEX and count != vertex_count:
            out.append(error(name, None, f"{count} records for {vertex_count} vertices (one per vertex)"))
        if entry.name != L.NAME:
            out.append(warning("entry", i, f"name {entry.name_str!r}, every terrain stream is named 'Land'"))


def _has_ground(mesh: L.LandMesh, out: list[Finding]) -> bool:
    """Every retail map has squares, vertices and faces, and every vertex position is a finite number (the
    game's boxes, normals and heights are computed from them)."""
    empty = [L.LABELS[t] for t in (L.SQUARES, L.POSITIONS, L.FACES) if not len(mesh.streams[t])]
    if empty:
        out.append(error("Land.msh", None, f"no {', no '.join(empty)}: the map has no ground"))
        return False
    # the checks after this one compare positions: NaN would only make them fail in other words
    return not _first(out, "Res3", ~np.isfinite(mesh.positions).all(axis=1),
                      "vertex position is not a finite number (NaN or infinite)")


def _squares(mesh: L.LandMesh, out: list[Finding]) -> bool:
    squares, across = mesh.squares, mesh.across
    if across == 0 or squares % across:
        out.append(error("Res1", None, f"{squares} squares do not make rows of attr2 = {across} cells"))
        return False
    records = mesh.streams[L.SQUARES]
    ids = np.arange(squares)
    _first(out, "Res1", (records["head"] != [0, L.NONE, 0, 0]).any(axis=1),
           "square header is not 0, 0xFFFF, 0, 0")
    expected = np.full((squares, L.SQUARE_SLOTS), L.NONE, np.int64)
    expected[:, 0], expected[:, 1] = ids, ids + squares
    _first(out, "Res1", (records["cells"] != expected).any(axis=1),
           "square does not name exactly its level-0 cell i and level-1 cell squares + i")
    cells = len(mesh.cells)
    if cells != 2 * squares:
        out.append(error("Res2", None, f"{cells} cells, 2 x {squares} squares expected (two levels)"))
        return False
    return True


def _runs(mesh: L.LandMesh, out: list[Finding]) -> bool:
    cells = mesh.cells
    first, count = cells["first"].astype(np.int64), cells["count"].astype(np.int64)
    starts = np.cumsum(count) - count
    if _first(out, "Res2", first != starts, "run does not start where the previous cell's ends"):
        return False
    total = int(count.sum())
    if total != len(mesh.faces):
        out.append(error("Res2", None, f"runs cover {total} faces, the mesh has {len(mesh.faces)}"))
        return False
    return True


def _cell_of_faces(mesh: L.LandMesh) -> np.ndarray:
    return np.repeat(np.arange(len(mesh.cells)), mesh.cells["count"].astype(np.int64))


def _cell_boxes(mesh: L.LandMesh, out: list[Finding]) -> None:
    cells = mesh.cells
    cell = _cell_of_faces(mesh)
    # a face leaves its box where its lowest or highest corner does (positions are finite here: _has_ground),
    # and a cell's faces leave it where their lowest or highest does: each face is compared only in a cell
    # whose faces leave it (the runs cover the faces in order here: _runs)
    low, high = L.face_extents(mesh.positions, mesh.faces["verts"].astype(np.int64))
    slack = box_slack(mesh)
    box_lo = cells["box_min"].astype(np.float64) - slack
    box_hi = cells["box_max"].astype(np.float64) + slack
    count = cells["count"].astype(np.int64)
    full = np.flatnonzero(count > 0)
    starts = (np.cumsum(count) - count)[full]
    leaving = np.zeros(len(cells), bool)
    if len(full):
        leaving[full] = ((np.minimum.reduceat(low, starts) < box_lo[full]) |
                         (np.maximum.reduceat(high, starts) > box_hi[full])).any(axis=1)
    outside = np.zeros(len(cell), bool)
    if leaving.any():
        near = leaving[cell]
        outside[near] = ((low[near] < box_lo[cell[near]]) | (high[near] > box_hi[cell[near]])).any(axis=1)
    _first(out, "Res21", outside, f"face has a vertex outside its cell's box by more than {slack:g} (0.1 % of cell "
                                  "0's width; faces must not cross grid lines)")
    squares = mesh.squares
    twin = (cells["box_min"][:squares] != cells["box_min"][squares:]).any(axis=1) | \
           (cells["box_max"][:squares] != cells["box_max"][squares:]).any(axis=1)
    _first(out, "Res2", twin, "level-0 cell and its level-1 twin have different boxes")
    if len(mesh.positions):
        p = mesh.positions
        box = np.stack([p.min(axis=0), p.max(axis=0)])
        on_box = ((mesh.cell_header["corners"] == box[0]) | (mesh.cell_header["corners"] == box[1])).all()
        if not on_box:
            out.append(warning("Res2", None, "header corners are not the corners of the mesh's bounding box"))


def box_slack(mesh: L.LandMesh) -> float:
    """How far a face's vertex may lie outside its cell's box: 0.1 % of cell 0's width, as the retail check."""
    cell0 = mesh.cells[0]
    return (float(cell0["box_max"][0]) - float(cell0["box_min"][0])) * BOX_SLACK


def _levels(mesh: L.LandMesh, out: list[Finding]) -> None:
    split = mesh.level_split
    verts = mesh.faces["verts"].astype(np.int64)
    level0 = np.zeros(len(mesh.positions), bool)
    level0[verts[:split].ravel()] = True
    _first(out, "Res21", np.concatenate([np.zeros(split, bool), ~level0[verts[split:]].all(axis=1)]),
           "level-1 face uses a vertex no level-0 face uses (level 1 is built from level 0's vertices)")


def _draw_order(mesh: L.LandMesh, out: list[Finding]) -> None:
    draw = mesh.streams[L.DRAW_ORDER]
    faces = len(mesh.faces)
    if len(draw) != faces:
        out.append(error("Res11", None, f"{len(draw)} draw entries for {faces} faces (one per face)"))
        return
    cell = _cell_of_faces(mesh)
    first = mesh.cells["first"].astype(np.int64)
    count = mesh.cells["count"].astype(np.int64)
    face = draw["face"].astype(np.int64)
    outside = (face < first[cell]) | (face >= first[cell] + count[cell])
    if _first(out, "Res11", outside, "entry names a face outside its cell's run (order must keep cells whole)"):
        return
    if _first(out, "Res11", np.bincount(face, minlength=faces)[face] != 1, "face drawn twice (not a permutation)"):
        return
    pair = mesh.faces["material"][face].astype(np.int64)
    starts = np.ones(faces, bool)
    starts[1:] = (pair[1:] != pair[:-1]) | (cell[1:] != cell[:-1])
    _first(out, "Res11", starts != ((draw["flags"] & L.DRAW_BATCH) != 0),
           "batch bit 0x10 is not set exactly where a texture pair's run starts")
    distinct = len(np.unique(cell * 0x10000 + pair))
    if int(starts.sum()) != distinct:
        runs = np.bincount(cell[starts], minlength=len(mesh.cells))
        pairs = np.bincount(np.unique(cell * 0x10000 + pair) >> 16, minlength=len(mesh.cells))
        _first(out, "Res2", runs != pairs, "cell draws a texture pair in more than one run (pairs not grouped)")


def _adjacency(mesh: L.LandMesh, out: list[Finding], indices_ok: bool, runs_ok: bool, warnings: bool = True) -> None:
    """The neighbour links (word 13's edge codes): errors where they name no face or do not lead back; warnings
    (made only with ``warnings``) where a face names itself, a link crosses the levels or the two faces do not
    share the edge's positions."""
    faces = mesh.faces
    count = len(faces)
    ids = np.arange(count)
    n = faces["neighbours"].astype(np.int64)
    codes = (faces["edges"].astype(np.int64)[:, None] >> EDGE_SHIFTS) & 3
    has = n != L.NONE
    if _first(out, "Res21", (has & (n >= count)).any(axis=1), f"neighbour out of range ({count} faces)"):
        return
    if warnings:  # no source measured whether a retail face names itself: a warning, the link kept
        _first(out, "Res21", (n == ids[:, None]).any(axis=1), "face is its own neighbour", warning)
    _first(out, "Res21", ((codes == NO_EDGE) != ~has).any(axis=1),
           "edge code (word 13) says 'none' where a neighbour is named, or the reverse")
    f, e = np.nonzero(has & (codes != NO_EDGE) & (n != ids[:, None]))
    g, c = n[f, e], codes[f, e]
    bad = np.zeros(count, bool)
    bad[f[n[g, c] != f]] = True
    _first(out, "Res21", bad, "adjacency is not mutual: the neighbour's edge named by word 13 does not lead back")
    if not warnings:
        return
    if runs_ok:
        level = (ids >= mesh.level_split)
        # each level covers the map alone, so edges pair within a level; measured only through the edge
        # counts, not stated: a warning
        _first(out, "Res21", np.isin(ids, f[level[f] != level[g]]), "neighbour lies in the other level", warning)
    if indices_ok and len(f):
        verts = faces["verts"].astype(np.int64)
        p = mesh.positions
        a, b = p[verts[f, e]], p[verts[f, (e + 1) % 3]]
        ga, gb = p[verts[g, c]], p[verts[g, (c + 1) % 3]]
        apart = ~(((a == gb) & (b == ga)).all(axis=1) | ((a == ga) & (b == gb)).all(axis=1))
        bad = np.zeros(count, bool)
        bad[f[apart]] = True
        # split vertices along grid lines are expected bit-identical, but no source measured it: a warning
        _first(out, "Res21", bad, "neighbour does not share the edge's two positions", warning)


def _face_words(mesh: L.LandMesh, out: list[Finding], indices_ok: bool) -> None:
    faces = mesh.faces
    first, second = mesh.materials()
    two = second != L.NO_SECOND
    _first(out, "Res21", ((faces["flags"] & L.FLAG_SECOND) != 0) != two,
           "flag 0x004 does not match 'has a second material' (word 2's high byte)")
    _first(out, "Res21", (first == 0) | (second == 0),
           "face wears Land1 slot 0, the footing material the engine puts under buildings")
    water = (faces["surface"] & L.SURFACE_WATER) != 0
    _first(out, "Res21", water != ((faces["flags"] & L.FLAG_WATER) != 0),
           "water flag 0x008 and water surface 0x02 disagree")
    _first(out, "Res21", water & (faces["flags"] != L.WATER_FLAGS), "water face's flags are not 0x608")
    if indices_ok and water.any():
        heights = np.unique(mesh.positions[faces["verts"][water].astype(np.int64)][:, :, 2]).astype(np.float64)
        if heights[-1] - heights[0] > WATER_SPREAD:
            out.append(error("Res3", None, f"water vertices lie at {len(heights)} heights ({heights[0]:g} to "
                                           f"{heights[-1]:g}, more than {WATER_SPREAD:g} apart); the engine keeps "
                                           "one water level"))
    alpha = mesh.streams.get(L.ALPHA)
    if alpha is not None and indices_ok and len(alpha) == len(mesh.positions):
        touched = np.zeros(len(alpha), bool)
        touched[faces["verts"][two].astype(np.int64).ravel()] = True
        off = ~(np.abs(alpha.astype(np.float64) - 1.0) < ALPHA_SLACK)    # NaN is off too
        _first(out, "Res14", ~touched & off, f"alpha is not 1.0 (within {ALPHA_SLACK:g}) on a vertex no "
                                             "two-material face uses")


# --------------------------------------------------------------------- Land.map
def validate_areal_map(areal_map: ArealMap) -> list[Finding]:
    out: list[Finding] = []
    areals = areal_map.areals
    count = len(areals)
    stream = "ArealMap"
    # no source measured the fewest vertices of a retail areal (SC_3 has triangles): a warning, the areal kept
    _first(out, stream, np.array([len(a.polygon) < 3 for a in areals]), "areal has fewer than 3 vertices",
           warning)
    if count:
        owner = np.concatenate([np.full(len(a.links), i) for i, a in enumerate(areals)])
        edge = np.concatenate([np.arange(len(a.links)) for a in areals])
        links = np.concatenate([a.links for a in areals]).astype(np.int64)
        sizes = np.array([len(a.links) for a in areals])
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        nb, twin = links[:, 0], links[:, 1]
        boundary = (nb == -1) & (twin == -1)
        ok = ~boundary & (nb >= 0) & (nb < count)
        ok &= (twin >= 0) & (twin < sizes[np.clip(nb, 0, count - 1)])
        bad = np.zeros(count, bool)
        bad[owner[~boundary & ~ok]] = True
        _first(out, stream, bad, "edge link names no areal or no edge of it (-1/-1 on the boundary)")
        bad = np.zeros(count, bool)
        bad[owner[ok & (nb == owner)]] = True
        _first(out, stream, bad, "areal is its own neighbour", warning)  # no source measured it
        back = offsets[nb[ok]] + twin[ok]
        mutual = (links[back, 0] == owner[ok]) & (links[back, 1] == edge[ok])
        bad = np.zeros(count, bool)
        bad[owner[ok][~mutual]] = True
        _first(out, stream, bad, "twin edge does not link back (links must be mutual)")
    counts = areal_map.grid_counts.astype(np.int64)
    cell_of = np.repeat(np.arange(len(counts)), counts)
    bad = np.zeros(len(counts), bool)
    bad[cell_of[areal_map.grid_indices.astype(np.int64) >= count]] = True
    _first(out, "ArealMap grid", bad, f"lookup cell names an areal out of range ({count} areals)")
    return out


# --------------------------------------------------------------------- data.tma
KNOWN_VERSIONS = {"version": 1, "clan_version": 6, "object_version": 10}


def validate_mission(mission: Mission) -> list[Finding]:
    out: list[Finding] = []
    for name, value in KNOWN_VERSIONS.items():
        found = getattr(mission, name)
        if found != value:
            out.append(warning("header", None, f"{name.replace('_', ' ')} {found}; every retail mission has "
                                               f"{value}"))
    clans = len(mission.clans)
    names = {text(c.name).lower() for c in mission.clans}
    for i, clan in enumerate(mission.clans):
        if clan.type > 3:
            out.append(warning("clans", i, f"clan type {clan.type} (0 nature, 1 player, 2 enemy, 3 neutral)"))
        for other, _ in clan.relations or []:
            if text(other).lower() not in names:
                out.append(warning("clans", i, f"relation names clan {text(other)!r}, which the mission lacks"))
    for i, obj in enumerate(mission.objects):
        if obj.marker != OBJECT_MARKER:
            out.append(error("objects", i, f"marker word {obj.marker:#x}, every object has {OBJECT_MARKER:#x}"))
        if obj.kind not in KIND_NAMES:
            out.append(warning("objects", i, f"kind {obj.kind} (0 building, 1 unit, 2 vegetation, 3 rock)"))
        if obj.kind in (0, 1) and obj.clan is not None and obj.clan >= clans:
            out.append(error("objects", i, f"owner clan {obj.clan} out of range ({clans} clans)"))
        if not obj.path:
            out.append(error("objects", i, "empty path: the object names no unit, building or STAT record"))
        for what, values in (("position", obj.position), ("turns", obj.turns), ("scale", obj.scale)):
            if values is not None and not np.isfinite(values).all():
                out.append(error("objects", i, f"{what} {_shown(values)} is not finite (NaN or infinite); every "
                                               "retail object's transform is finite"))
    if mission.object_version > 1 and not mission.map_text:
        out.append(error("trailer", None, "the mission names no map"))
    if mission.tail:
        out.append(warning("trailer", None, f"{len(mission.tail)} bytes after the lode table (kept)"))
    return out


def _shown(values: np.ndarray) -> str:
    return "(" + ", ".join(f"{float(v):g}" for v in values) + ")"


def validate_materials(mesh: L.LandMesh, land1_count: int) -> list[Finding]:
    """Every face's two material bytes name a Land1.wea row (03-terrain.md)."""
    out: list[Finding] = []
    first, second = mesh.materials()
    bad = (first >= land1_count) | ((second != L.NO_SECOND) & (second >= land1_count))
    _first(out, "Res21", bad, f"material index beyond Land1.wea ({land1_count} rows)")
    return out
