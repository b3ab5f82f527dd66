"""File > Export > Parkan Map: the map (and mission) an import made, read back from the scene and written as
one transaction (core.disk.write_files). The files are the ones the import stored; what changed is handed to
core.map.edit: the ground's heights (level 0's vertex z) and the mission's placements. Every other edit is
refused, naming what can be edited, before anything is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ...core.disk import write_files
from ...core.errors import FormatError
from ...core.map import landmsh as L
from ...core.map.edit import Placement, edit_heights, edited_mission, parse_object
from ...core.map.folder import LAND1, LAND2, LAND_MAP, LAND_MSH
from ...core.map.tma import parse_tma
from ...core.map.validate import validate_land, validate_mission
from ..com import props as P
from ..imp import map as M

EDITABLE = ("what can be edited: the heights (z) of the ground's level-0 vertices, and the mission's objects "
            "(moved, turned, copied, deleted, moved to another clan's collection)")
TOLERANCE = 1e-5


@dataclass
class MapExport:
    written: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    heights: int = 0                 # vertices whose height changed
    objects: int = 0                 # objects in the mission written
    edited_objects: int = 0          # of them moved, turned, copied or given to another clan; plus removed ones


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


def export_map(context, path: str, force: bool = False, name: str | None = None) -> MapExport:
    top = map_collection(context, name)
    context.view_layer.update()  # world matrices of objects a script moved
    result = MapExport()
    files = {key: bytes(top[M.MAP_FILE + key]) for key in (LAND_MSH, LAND_MAP, LAND1, LAND2)
             if M.MAP_FILE + key in top}
    names = {key: str(top[M.MAP_NAME + key]) for key in files}
    mesh = L.LandMesh.parse(files[LAND_MSH], names[LAND_MSH])
    land = _ground(top, mesh, result)
    if land is not None:
        files[LAND_MSH] = land
    mission_bytes = None
    if M.MISSION in top:
        mission_bytes = _mission(top, result)
        folder = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), str(top[M.MAP_RELATIVE])))
        targets = [(os.path.join(folder, names[key]), data) for key, data in files.items()]
        targets.append((path, mission_bytes))
    else:
        folder = os.path.dirname(os.path.abspath(path))
        targets = [(path if key == LAND_MSH else os.path.join(folder, names[key]), data)
                   for key, data in files.items()]
    write_files(targets, force)
    result.written = [str(p) for p, _ in targets]
    return result


# --------------------------------------------------------------------- the ground
def _level_objects(top) -> dict[int, bpy.types.Object]:
    out: dict[int, bpy.types.Object] = {}
    for obj in top.all_objects:
        if M.LEVEL in obj and obj.type == "MESH":
            level = int(obj[M.LEVEL])
            if level in out:
                raise FormatError.single("ground", level, f"two objects hold level {level} of the ground "
                                                          f"({out[level].name}, {obj.name}): delete the copy; "
                                                          f"{EDITABLE}")
            out[level] = obj
    return out


def _read_level(obj, mesh: L.LandMesh, level: int) -> np.ndarray:
    """The level's vertex positions, after checking its topology and face materials are the file's."""
    split = mesh.level_split
    faces = mesh.faces[:split] if level == 0 else mesh.faces[split:]
    data = obj.data
    if np.abs(np.array(obj.matrix_world) - np.eye(4)).max() > TOLERANCE:
        raise FormatError.single("ground", level, f"{obj.name} was moved, turned or scaled as an object: move its "
                                                  f"vertices instead; {EDITABLE}")
    n = len(data.vertices)
    if n != len(mesh.positions) or len(data.polygons) != len(faces):
        raise FormatError.single("ground", level, f"{obj.name} has {n} vertices and {len(data.polygons)} faces, "
                                                  f"the map {len(mesh.positions)} and {len(faces)}: the topology "
                                                  f"cannot be edited; {EDITABLE}")
    totals = np.zeros(len(data.polygons), np.int32)
    data.polygons.foreach_get("loop_total", totals)
    loops = np.zeros(len(data.loops), np.int32)
    data.loops.foreach_get("vertex_index", loops)
    if (totals != 3).any() or len(loops) != 3 * len(faces) or \
            (loops.reshape(-1, 3) != faces["verts"].astype(np.int32)).any():
        raise FormatError.single("ground", level, f"{obj.name}: faces were added, removed or reconnected: the "
                                                  f"topology cannot be edited; {EDITABLE}")
    index = np.zeros(len(data.polygons), np.int32)
    data.polygons.foreach_get("material_index", index)
    words = np.array([int(m[M.WORD]) if m is not None and M.WORD in m else -1 for m in data.materials] or [-1])
    shown = words[np.clip(index, 0, len(words) - 1)]
    wrong = np.flatnonzero(shown != faces["material"].astype(np.int64))
    if len(wrong):
        raise FormatError.single("ground", level, f"{obj.name}: face {int(wrong[0])} (and {len(wrong) - 1} more) "
                                                  "wears another material than the map gives it: face materials "
                                                  f"cannot be changed yet; {EDITABLE}")
    co = np.zeros(3 * n, np.float32)
    data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def _ground(top, mesh: L.LandMesh, result: MapExport) -> bytes | None:
    """The edited Land.msh, or None when the heights are as read."""
    levels = _level_objects(top)
    if 0 not in levels:
        raise FormatError.single("ground", 0, f"the map's level-0 ground object was deleted; {EDITABLE}")
    positions = _read_level(levels[0], mesh, 0)
    if 1 in levels:
        far = _read_level(levels[1], mesh, 1)
        differs = (far != positions).any(axis=1) & (far != mesh.positions).any(axis=1)
        if differs.any():
            raise FormatError.single("ground", 1, f"level 1 vertex {int(np.flatnonzero(differs)[0])} was moved "
                                                  "apart from level 0: edit level 0 (both levels share the "
                                                  f"vertices); {EDITABLE}")
    edit = edit_heights(mesh, positions)
    if not len(edit.moved):
        return None
    errors = [f for f in validate_land(edit.mesh) if f.severity == "error"]
    if errors:
        raise FormatError(errors, LAND_MSH)
    result.heights = len(edit.moved)
    result.warnings += edit.warnings
    return edit.mesh.to_bytes()


# --------------------------------------------------------------------- the mission
def _mission(top, result: MapExport) -> bytes:
    source = bytes(top[M.MISSION_BYTES])
    mission = parse_tma(source, P.stored_path(top, M.MISSION) or "data.tma")
    groups: dict[int, list] = {}
    for obj in top.all_objects:
        if M.RECORD in obj:
            groups.setdefault(int(obj[M.INDEX]), []).append(obj)
    originals, copies = [], []
    for index in sorted(groups):
        members = sorted(groups[index], key=lambda o: o.name)
        first = next((o for o in members if o.name == o.get(M.IMPORTED_NAME)), members[0])
        originals.append(first)
        copies += [o for o in members if o is not first]
    placements, changed = [], len(mission.objects) - len(originals)
    for obj in originals + copies:
        placement, edited = _placement(obj, obj in copies, mission.object_version)
        placements.append(placement)
        changed += edited
    result.objects, result.edited_objects = len(placements), changed
    if not changed:
        return source
    edited, notes = edited_mission(mission, placements)
    result.warnings += notes
    errors = [f for f in validate_mission(edited) if f.severity == "error"]
    if errors:
        raise FormatError(errors, "data.tma")
    return edited.to_bytes()


def _clan(obj) -> int | None:
    clans = [c for c in obj.users_collection if M.CLAN in c]
    if len(clans) != 1:
        raise FormatError.single("objects", int(obj[M.INDEX]), f"{obj.name} is in {len(clans)} clan collections: "
                                                               f"put it in exactly one; {EDITABLE}")
    clan = int(clans[0][M.CLAN])
    return None if clan == M.UNOWNED else clan


def _placement(obj, copy: bool, version: int) -> tuple[Placement, bool]:
    record = bytes(obj[M.RECORD])
    index = int(obj[M.INDEX])
    stored = parse_object(record, version, obj.name, index)
    clan = _clan(obj)
    imported = np.array(list(obj[M.IMPORTED_MATRIX]), np.float64).reshape(4, 4)
    world = np.array(obj.matrix_world, np.float64)
    edited = copy or (clan is not None and clan != (stored.clan or 0))
    if np.abs(world - imported).max() <= TOLERANCE:
        return Placement(record, stored.position, stored.turns, clan, copy, stored.scale), edited
    location, rotation, scale = Matrix(world.tolist()).decompose()
    turns = np.array(rotation.to_euler("XYZ"), np.float32)
    position = np.array(location, np.float64) - [0.0, 0.0, float(obj.get(M.SEAT, 0.0))]
    scale = np.array(scale, np.float32)
    if stored.is_scenery:
        new_scale = scale
    else:
        if np.abs(scale - 1).max() > 1e-4:
            raise FormatError.single("objects", index, f"{obj.name} was scaled: the game scales only trees and "
                                                       f"rocks; {EDITABLE}")
        new_scale = stored.scale
    return Placement(record, position.astype(np.float32), turns, clan, copy, new_scale), True

