"""Which map file an NRes archive is, told from its entries' type ids alone (nothing here imports numpy or a map
codec): opening any archive (core.files) asks it, and loads the map modules only for a map."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..container.nres import Archive

# Land.msh's streams, told apart by type id (openparkan docs/03-terrain.md)
SQUARES, CELLS, POSITIONS, NORMALS, UV, DRAW_ORDER, ALPHA, MICRO_UV, FACES = 1, 2, 3, 4, 5, 11, 14, 18, 21
STREAM_ORDER = (SQUARES, CELLS, POSITIONS, NORMALS, UV, MICRO_UV, ALPHA, DRAW_ORDER, FACES)  # 03-terrain.md, all maps
AREAL_TYPE_ID = 12  # Land.map's one entry (08-arealmap.md)


def is_land_mesh(archive: Archive) -> bool:
    """A terrain mesh rather than a model: it has the face (21) and draw-order (11) streams and only terrain
    stream types (a model's index stream 6 or batches 13 never appear in one)."""
    types = {e.type_id for e in archive.entries}
    return {FACES, DRAW_ORDER, POSITIONS} <= types and types <= set(STREAM_ORDER)


def is_areal_map(archive: Archive) -> bool:
    return len(archive.entries) == 1 and archive.entries[0].type_id == AREAL_TYPE_ID


def archive_kind(archive: Archive) -> str | None:
    """"land" for a Land.msh, "arealmap" for a Land.map, None for any other NRes."""
    if is_land_mesh(archive):
        return "land"
    if is_areal_map(archive):
        return "arealmap"
    return None
