"""Edits of a map and a mission that a writer can make from the public sources (terrain-missions digest
section 3 and 8; docs/formats/maps.md, "Editing"):

- a **height edit** of ``Land.msh``: vertices moved along z, no topology change. What section 3 calls derived
  from the geometry is recomputed where the moved vertices reach it (face normals of the faces using them,
  vertex normals around them, the boxes, centres and radii of their cells and the header's corners); every
  other word is kept, so an edit rewrites only what it changes. Moving a vertex across (x, y) is refused: its
  UVs, its cell and Land.map would all have to follow, which no source describes.
- a **placement edit** of ``data.tma``: objects moved, turned, copied, removed, given to another clan. Only the
  named fields change; the words the game checks against each other follow (the ``LogicalID`` and ``ClanID``
  properties, digest section 6.3).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from ..container.nres import Archive
from ..errors import FormatError
from . import landmsh as L
from .tma import NOT_INSIDE, Mission, PlacedObject, RecordReader, RecordWriter, read_object, write_object


@dataclass
class HeightEdit:
    mesh: L.LandMesh                 # the edited mesh (a new object; the one given is left as it was)
    moved: np.ndarray                # indices of the vertices whose z changed
    warnings: list[str] = field(default_factory=list)
    twins: int = 0                   # of them moved with a twin the edit moved (one point stored per cell)


def _unit(v: np.ndarray) -> np.ndarray:
    length = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(length == 0, 1, length)


def _bits(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, "<f4").view("<u4")


def twin_groups(positions: np.ndarray) -> np.ndarray:
    """Each vertex's group of twins: the vertices stored at the same point, bit for bit (a point on a cell's
    border is stored once for each cell whose faces use it, 03-terrain.md)."""
    bits = np.ascontiguousarray(positions, "<f4").view("<u4").reshape(-1, 3)
    if not len(bits):
        return np.zeros(0, np.int64)
    _, inverse = np.unique(bits, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def with_twins(mesh: L.LandMesh, positions: np.ndarray) -> tuple[np.ndarray, int]:
    """``positions`` with each moved vertex's twins (``twin_groups`` of the mesh as read) at its height, and how
    many twins that moved; FormatError naming two twins raised to different heights."""
    positions = np.array(positions, "<f4")
    old = mesh.positions
    if positions.shape != old.shape:
        return positions, 0
    moved = np.flatnonzero(_bits(positions[:, 2]) != _bits(old[:, 2]))
    if not len(moved):
        return positions, 0
    # only the vertices at a moved vertex's point can be its twins: the groups are made among those (the same
    # order as twin_groups over all vertices gives them, so the first clash named is the same)
    old_bits = np.ascontiguousarray(old, "<f4").view("<u4").reshape(-1, 3)
    keys = old_bits[:, 0].astype(np.uint64) << np.uint64(32) | old_bits[:, 1]
    candidates = np.flatnonzero(np.isin(keys, keys[moved]))
    group = np.full(len(old), -1, np.int64)
    group[candidates] = twin_groups(old[candidates])
    heights = _bits(positions[moved, 2])
    pairs = np.unique(np.stack([group[moved], heights.astype(np.int64)], axis=1), axis=0)
    groups, counts = np.unique(pairs[:, 0], return_counts=True)
    if (counts > 1).any():
        clash = groups[counts > 1][0]
        a, b = [int(v) for v in moved[group[moved] == clash][:2]]
        for v in moved[group[moved] == clash]:
            if _bits(positions[v:v + 1, 2])[0] != _bits(positions[a:a + 1, 2])[0]:
                b = int(v)
                break
        raise FormatError.single(L.stream_name(L.POSITIONS), a,
                                 f"vertex {a} and vertex {b} are one point of the ground, stored once per cell, "
                                 f"and were moved to different heights ({float(positions[a, 2]):g} and "
                                 f"{float(positions[b, 2]):g}): give them one height (the ground would crack "
                                 "between the cells)", mesh.source)
    height_of = dict(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), strict=True))
    members = candidates[np.isin(group[candidates], pairs[:, 0])]
    joined = members[np.isin(members, moved, invert=True)]
    z = np.array([height_of[int(g)] for g in group[joined]], "<u4").view("<f4")
    positions[joined, 2] = z
    return positions, len(joined)


def edit_heights(mesh: L.LandMesh, positions: np.ndarray, twins: bool = True) -> HeightEdit:
    """``mesh`` with its vertices at ``positions`` (same count, only z may differ; with ``twins``, a moved
    vertex's twins move with it, ``with_twins``); FormatError naming stream Res3 and the first vertex
    otherwise."""
    positions = np.asarray(positions, "<f4")
    old = mesh.positions
    if positions.shape != old.shape:
        raise FormatError.single(L.stream_name(L.POSITIONS), None,
                                 f"{len(positions)} vertices where the map has {len(old)}: only heights (z) can "
                                 "be edited, not the number of vertices", mesh.source)
    changed = (_bits(positions) != _bits(old)).any(axis=1)
    bad = np.flatnonzero(changed & ~np.isfinite(positions).all(axis=1))
    if len(bad):
        shown = ", ".join(f"{float(v):g}" for v in positions[bad[0]])
        raise FormatError.single(L.stream_name(L.POSITIONS), int(bad[0]),
                                 f"vertex {int(bad[0])} was moved to ({shown}), which is not a finite number "
                                 f"(NaN or infinite){f'; {len(bad) - 1} more such vertices' if len(bad) > 1 else ''}"
                                 ": give it a height", mesh.source)
    joined = 0
    if twins:
        positions, joined = with_twins(mesh, positions)
    across = np.flatnonzero((_bits(positions[:, :2]) != _bits(old[:, :2])).any(axis=1))
    if len(across):
        raise FormatError.single(L.stream_name(L.POSITIONS), int(across[0]),
                                 f"{len(across)} vertex(es) moved across (x, y): only heights (z) can be edited "
                                 "(UVs, cells and Land.map follow x and y)", mesh.source)
    edited = L.LandMesh.from_archive(Archive.parse(mesh.to_bytes(), mesh.source), mesh.source)
    moved = np.flatnonzero(_bits(positions[:, 2]) != _bits(old[:, 2]))
    result = HeightEdit(edited, moved, twins=joined)
    if not len(moved):
        return result
    edited.streams[L.POSITIONS] = positions.copy()
    p = positions.astype(np.float64)
    faces = edited.faces
    verts = faces["verts"].astype(np.int64)
    if len(verts) and verts.max() >= len(p):
        raise FormatError.single(L.stream_name(L.FACES), int(np.flatnonzero((verts >= len(p)).any(axis=1))[0]),
                                 "a vertex index past the last vertex", mesh.source)
    is_moved = np.zeros(len(p), bool)
    is_moved[moved] = True
    touched = is_moved[verts].any(axis=1)
    # face normals, i16 / 32767 (digest 2.2: recompute)
    cross = np.cross(p[verts[touched, 1]] - p[verts[touched, 0]], p[verts[touched, 2]] - p[verts[touched, 0]])
    faces["normal"][touched] = np.round(_unit(cross) * 32767).astype(np.int16)
    # vertex normals of every vertex of a level-0 face that moved: area-weighted level-0 face normals (the
    # formula is unknown, digest 8.6; the generator's); the pad byte is kept
    split = edited.level_split
    level0 = verts[:split]
    near = np.zeros(len(p), bool)
    near[level0[touched[:split]].ravel()] = True
    # only the faces around those vertices add to their sums (each vertex's terms in the same order)
    around = level0[near[level0].any(axis=1)]
    area = np.cross(p[around[:, 1]] - p[around[:, 0]], p[around[:, 2]] - p[around[:, 0]])
    # each vertex's terms added in order, corner 0 of every face first, then corner 1 and 2: as np.add.at adds
    # them corner by corner (bincount sums its weights in the order given, in float64)
    order = around.T.ravel()
    weights = np.tile(area, (3, 1))
    summed = np.stack([np.bincount(order, weights=weights[:, k], minlength=len(p)) for k in range(3)], axis=1)
    normals = edited.streams[L.NORMALS]
    normals[near, :3] = np.round(_unit(summed[near]) * 127).astype(np.int8)
    # cell boxes, centres and radii of the cells whose faces moved; a level-0 cell and its twin share one
    cells = edited.cells
    squares = edited.squares
    cell_of_face = np.repeat(np.arange(len(cells)), cells["count"].astype(np.int64))
    if len(cell_of_face) == len(faces):
        _cell_boxes(cells, np.unique(cell_of_face[touched] % max(squares, 1)), squares, positions, verts)
    # the header's eight corners: each coordinate that was the old extent's follows the new one (the corner order
    # is not published, so the source's pattern is kept, digest 2.4)
    old_lo, old_hi = old.min(axis=0), old.max(axis=0)
    new_lo, new_hi = positions.min(axis=0), positions.max(axis=0)
    corners = edited.cell_header["corners"]
    for axis in range(3):
        column = corners[:, axis].copy()
        if old_lo[axis] == old_hi[axis] and (column == old_lo[axis]).all():
            # a flat extent has no pattern to keep: corner c takes the high side where bit ``axis`` of c is set
            # (the generator's order; the game's is not published)
            corners[:, axis] = np.where(np.arange(len(column)) >> axis & 1, new_hi[axis], new_lo[axis])
            continue
        corners[:, axis] = np.where(column == old_lo[axis], new_lo[axis],
                                    np.where(column == old_hi[axis], new_hi[axis], column))
    if joined:
        result.warnings.append(f"{joined} twin vertex(es) moved with the vertices edited (a point on a cell's "
                               "border is stored once per cell)")
    result.warnings.append(f"{len(moved)} vertex height(s) changed: face normals, vertex normals around them (an "
                           "approximation: the game's formula is unknown), cell boxes and the header's corners "
                           "recomputed")
    water_faces = (faces["surface"] & L.SURFACE_WATER) != 0
    if water_faces.any() and is_moved[verts[water_faces]].any():
        result.warnings.append("water vertices moved: Land.map is kept as it was, and its lakes may no longer "
                               "match the water")
    else:
        result.warnings.append("Land.map is kept as it was (no source says how it is built); after a height edit "
                               "its areals keep their old heights")
    return result


def _cell_boxes(cells: np.ndarray, edited: np.ndarray, squares: int, positions: np.ndarray,
               verts: np.ndarray) -> None:
    """The box, centre and radius of each cell in ``edited`` and of its level-1 twin (``squares`` on): the
    extent of both cells' faces' vertices (their runs, ``first`` and ``count``), which a cell and its twin
    share. A pair whose runs are empty is left as it is."""
    pairs = np.stack([edited, edited + squares], axis=1)
    exists = pairs < len(cells)
    safe = np.where(exists, pairs, 0)
    start = np.minimum(cells["first"].astype(np.int64)[safe], len(verts))
    end = np.minimum(start + cells["count"].astype(np.int64)[safe], len(verts))
    full = exists & (end > start)
    low, high = L.face_extents(positions, verts)
    lows = np.vstack([low, np.full((1, 3), np.inf, positions.dtype)])
    highs = np.vstack([high, np.full((1, 3), -np.inf, positions.dtype)])
    # each run's [start, end) in order of start (reduceat's even results; the odd ones span the gaps between)
    order = np.argsort(start.ravel(), kind="stable")
    bounds = np.stack([start.ravel()[order], end.ravel()[order]], axis=-1).ravel()
    run_lo, run_hi = np.empty((order.size, 3), lows.dtype), np.empty((order.size, 3), highs.dtype)
    run_lo[order], run_hi[order] = np.minimum.reduceat(lows, bounds)[::2], np.maximum.reduceat(highs, bounds)[::2]
    lo = np.where(full[..., None], run_lo.reshape(-1, 2, 3), np.inf).min(axis=1)
    hi = np.where(full[..., None], run_hi.reshape(-1, 2, 3), -np.inf).max(axis=1)
    lo, hi = lo.astype(positions.dtype), hi.astype(positions.dtype)
    kept = full.any(axis=1)
    diff = hi.astype(np.float64) - lo
    diff = diff[kept]
    # the length summed in order, as np.linalg.norm of each row sums it (its dot product of three terms)
    radius = np.sqrt(diff[:, 0] * diff[:, 0] + diff[:, 1] * diff[:, 1] + diff[:, 2] * diff[:, 2]) / 2
    for side in range(2):
        rows = kept & exists[:, side]
        cell = pairs[rows, side]
        cells["box_min"][cell], cells["box_max"][cell] = lo[rows], hi[rows]
        cells["centre"][cell] = (lo[rows] + hi[rows]) / 2
        cells["radius"][cell] = radius[rows[kept]]


# --------------------------------------------------------------------- placed objects
def object_bytes(obj: PlacedObject, version: int) -> bytes:
    """One placed object's record as data.tma holds it."""
    w = RecordWriter()
    write_object(w, obj, version)
    return bytes(w.out)


def parse_object(data: bytes, version: int, source: str = "", index: int | None = None) -> PlacedObject:
    """A placed object from its record (``object_bytes``); FormatError when it does not read to its end."""
    r = RecordReader(bytes(data), source)
    r.stream, r.index = "objects", index
    obj = read_object(r, version)
    if r.at != len(r.data):
        raise r.fail(f"{len(r.data) - r.at} byte(s) after the object's record")
    return obj


@dataclass
class Placement:
    """One object of the edited mission: the record it comes from and what the scene says of it."""

    record: bytes                    # the record as imported
    position: np.ndarray             # (3,) float32
    turns: np.ndarray                # (3,) float32, radians about x, y, z
    clan: int | None                 # None: keep the record's
    copy: bool = False               # a duplicate of an imported object: gets a logical id of its own
    scale: np.ndarray | None = None  # (3,) float32 (trees and rocks only: the game scales nothing else)
    path: bytes | None = None        # the file it shows, when another than the record's (another kind)
    new: bool = False                # a new object (its record another's of its kind): starts inside nothing


def _set_property(obj: PlacedObject, name: bytes, old: int, new: int) -> None:
    """An integer property's value (and a bound that equalled the old value: a locked property stays locked)."""
    for prop in obj.properties or []:
        if prop.name.split(b"\0", 1)[0] == name and int(prop.words["type"]) == 1:
            for key in ("value", "min", "max"):
                if key == "value" or int(prop.words[key]) == old & 0xFFFFFFFF:
                    prop.words[key] = new & 0xFFFFFFFF


def edited_mission(mission: Mission, placements: list[Placement]) -> tuple[Mission, list[str]]:
    """The mission with its objects as ``placements`` say, in that order; every other part kept. A copy gets
    the next free logical id (its LogicalID property follows, its instance name gets the id appended when it
    has one); a new clan sets the clan index and the ClanID property."""
    out = copy.copy(mission)
    version = mission.object_version
    used = {int(o.logical_id) for o in mission.objects if o.logical_id is not None}
    next_id = max(used, default=0) + 1
    objects, notes = [], []
    for i, placement in enumerate(placements):
        obj = parse_object(placement.record, version, mission.source, i)
        position = np.asarray(placement.position, "<f4")
        turns = np.asarray(placement.turns, "<f4")
        if (_bits(position) != _bits(obj.position)).any():
            obj.position = position.copy()
        if (_bits(turns) != _bits(obj.turns)).any():
            obj.turns = turns.copy()
        if placement.scale is not None and obj.scale is not None:
            scale = np.asarray(placement.scale, "<f4")
            if (_bits(scale) != _bits(obj.scale)).any():
                obj.scale = scale.copy()
        if placement.path is not None and placement.path != obj.path:
            obj.path = placement.path
        if placement.new:
            obj.host = obj.vertex = NOT_INSIDE if version >= 9 else None
        if placement.clan is not None and placement.clan != (obj.clan or 0):
            if version < 3:
                raise FormatError.single("objects", i, f"object-record version {version} has no clan field: the "
                                                       "object cannot change clans", mission.source)
            _set_property(obj, b"ClanID", obj.clan or 0, placement.clan)
            obj.clan = placement.clan
        if placement.copy and obj.logical_id is not None:
            _set_property(obj, b"LogicalID", obj.logical_id, next_id)
            obj.logical_id = next_id
            shown = (obj.name or b"").split(b"\0", 1)[0]
            if shown:
                obj.name = shown + b"_%d" % next_id
            next_id += 1
        objects.append(obj)
    kept = {int(o.logical_id) for o in objects if o.logical_id is not None}
    for i, obj in enumerate(objects):
        host = obj.host
        if host is not None and host != 0xFFFFFFFF and host not in kept:
            notes.append(f"object {i} starts inside building {host}, which the mission no longer has")
    out.objects = objects
    return out, notes
