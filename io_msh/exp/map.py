"""File > Export > Parkan Map: the map (and mission) an import made, read back from the scene as the user sees it
and handed to the one write path (core.write_path). The files are the ones the import stored; what changed is
handed to core.map.edit: the ground's heights (level 0's vertex z, each vertex's twins with it) and the second
material's alpha, and the mission's placements. Every other edit is refused, naming what can be edited, before
anything is written.

Each file is a target read at import (its bytes as stored): one nothing changes is not written (another
program's change to it is kept), one changed on disk since the import is refused. A map file in another folder
than the import's (a mission exported into another game tree) was never read: an existing one is replaced only
when the user asks for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import bpy

from ...core.errors import FormatError
from ...core.map import landmsh as L
from ...core.map.folder import LAND1, LAND2, LAND_MAP, LAND_MSH
from ...core.write_path import UNREAD, Target, write
from ..com import props as P
from ..imp import map as M
from .map_briefing import read_briefing
from .map_ground import EDITABLE, read_ground
from .map_objects import read_mission
from .map_sky import read_sky

__all__ = ["EDITABLE", "MapExport", "export_map", "map_collection"]
FILE_KEYS = (LAND_MSH, LAND_MAP, LAND1, LAND2)


@dataclass
class MapExport:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)   # left as they are: nothing of the scene changes them
    warnings: list[str] = field(default_factory=list)
    heights: int = 0                 # vertices whose height changed
    objects: int = 0                 # objects in the mission written
    edited_objects: int = 0          # of them moved, turned, copied or given to another clan; plus removed ones
    sky_edits: int = 0               # words of the sky's shown keyframe changed
    briefing_edits: int = 0          # values of the briefing's waypoints changed


def map_collection(context, name: str | None = None) -> bpy.types.Collection:
    """The imported map to export: the named collection, else the one holding the active object, else the
    scene's only one; FormatError otherwise."""
    maps = [c for c in bpy.data.collections if M.MAP in c]
    if name:
        found = [c for c in maps if c.name == name]
        if not found:
            raise FormatError.single("map", None, f"no imported map in collection {name}")
        return found[0]
    active = context.view_layer.objects.active
    if active is not None:
        holding = [c for c in maps if active.name in c.all_objects]
        if len(holding) == 1:
            return holding[0]
    in_scene = [c for c in maps if c in context.scene.collection.children_recursive]
    if len(in_scene) == 1:
        return in_scene[0]
    if not in_scene:
        raise FormatError.single("map", None, "no map to export: import one with File > Import > Parkan Map")
    raise FormatError.single("map", None, f"{len(in_scene)} maps in the scene: select an object of the one to "
                                          "export")


def export_map(context, path: str, force: bool = False, name: str | None = None, replace_changed: bool = False,
               replace_map: bool = False) -> MapExport:
    """Write the map (and mission) of ``name``'s collection as the scene shows it. ``force``: read-only files
    too; ``replace_changed``: files another program changed since the import too; ``replace_map``: the map
    files of another folder (a mission exported into another game tree) too. FormatError for an edit the files
    cannot hold, OSError when a file is refused or cannot be written; nothing is written then."""
    top = map_collection(context, name)
    context.view_layer.update()  # world matrices of objects a script moved
    result = MapExport()
    stored = {key: bytes(top[M.MAP_FILE + key]) for key in FILE_KEYS if M.MAP_FILE + key in top}
    names = {key: str(top[M.MAP_NAME + key]) for key in stored}
    has_mission = M.MISSION in top
    if not has_mission and path.lower().endswith(".tma"):
        raise FormatError.single("map", None, "this map was imported from its Land.msh alone, without a mission: "
                                              "it has no data.tma to write; export it to a Land.msh (or import "
                                              "the mission)")
    mesh = L.LandMesh.parse(stored[LAND_MSH], names[LAND_MSH])
    new = dict(stored)
    land = read_ground(context, top, mesh)
    result.heights, result.warnings = land.heights, land.warnings
    if land.data is not None:
        new[LAND_MSH] = land.data
    imported_folder = os.path.dirname(P.stored_path(top, M.MAP) or "")
    targets = []
    if has_mission:
        mission = read_mission(context, top)
        mission_bytes = mission.data
        result.objects, result.edited_objects = mission.objects, mission.edited
        result.warnings += mission.warnings
        folder = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), str(top[M.MAP_RELATIVE])))
        imported, read = M.stored_mission(top)
        targets.append(Target(path, mission_bytes, owned=True, kind="mission",
                              read=read if _same(path, imported) else UNREAD))
        sky = read_sky(top)
        if sky is not None:  # beside the mission, by fixed name (world digest W55)
            result.sky_edits = sky.edited
            result.warnings += sky.warnings
            targets.append(Target(os.path.join(os.path.dirname(path), sky.name), sky.data, kind="sky",
                                  read=sky.stored if _same(path, imported) else UNREAD))
        briefing = read_briefing(top)
        if briefing is not None:
            result.briefing_edits = briefing.edited
            targets.append(Target(os.path.join(os.path.dirname(path), briefing.name), briefing.data,
                                  read=briefing.stored if _same(path, imported) else UNREAD))
        named = None
    else:
        folder = os.path.dirname(os.path.abspath(path))
        named = LAND_MSH
    same_folder = _same(folder, imported_folder)
    for key, data in new.items():
        target = path if key == named else os.path.join(folder, names[key])
        read = stored[key] if same_folder else UNREAD
        if key == named and not _same(path, os.path.join(imported_folder, names[key])):
            read = UNREAD
        targets.append(Target(target, data, read=read, owned=key == named))
    done = write(targets, force=force, replace_changed=replace_changed, replace_unread=replace_map)
    result.written, result.unchanged = done.written, done.unchanged
    result.warnings = done.notes + result.warnings
    return result


def _same(a: str, b: str) -> bool:
    return bool(a) and bool(b) and os.path.realpath(a) == os.path.realpath(b)
