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
import numpy as np
from mathutils import Matrix

from ...core.errors import FormatError
from ...core.map import landmsh as L
from ...core.map.edit import Placement, edit_heights, edited_mission, object_bytes, parse_object
from ...core.map.folder import LAND1, LAND2, LAND_MAP, LAND_MSH
from ...core.map.tma import parse_tma, text
from ...core.map.validate import validate_land, validate_mission
from ...core.write_path import UNREAD, Target, write
from ..com import props as P
from ..imp import map as M
from ..imp.map_plan import face_flags, ground_uvs, water_extent

EDITABLE = ("what can be edited: the heights (z) of the ground's level-0 vertices, the second material's alpha "
            "(msh_second_alpha), and the mission's objects (moved, turned, copied, deleted, moved to another "
            "clan's collection, shown as another kind of the same sort; new instances of a kind in a clan's "
            "collection)")
TOLERANCE = 1e-5
UV_TOLERANCE = 1e-4        # a turn is 1024 u16 steps: a tenth of one
FILE_KEYS = (LAND_MSH, LAND_MAP, LAND1, LAND2)


@dataclass
class MapExport:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)   # left as they are: nothing of the scene changes them
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
    land = _ground(top, mesh, result)
    if land is not None:
        new[LAND_MSH] = land
    imported_folder = os.path.dirname(P.stored_path(top, M.MAP) or "")
    targets = []
    if has_mission:
        mission_bytes = _mission(context, top, result)
        folder = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), str(top[M.MAP_RELATIVE])))
        imported = P.stored_path(top, M.MISSION) or ""
        targets.append(Target(path, mission_bytes, owned=True, kind="mission",
                              read=bytes(top[M.MISSION_BYTES]) if _same(path, imported) else UNREAD))
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


def _in_scene(context, obj) -> bool:
    try:
        return obj is not None and obj.name in context.scene.objects
    except ReferenceError:
        return False


# --------------------------------------------------------------------- the ground
def _level_objects(top) -> dict[int, bpy.types.Object]:
    """The ground objects the import made (by reference: a copy or a rename leaves them); a copy of one in the
    map's collections is refused."""
    made = top.get(M.GROUND)
    out: dict[int, bpy.types.Object] = {}
    for obj in top.all_objects:
        if M.LEVEL in obj and obj.type == "MESH":
            level = int(obj[M.LEVEL])
            own = made is not None and made.get(str(level)) == obj
            if level in out or (made is not None and not own):
                copy = obj if own is False else out[level]
                raise FormatError.single("ground", level, f"two objects hold level {level} of the ground "
                                                          f"({copy.name} is a copy): delete the copy; {EDITABLE}")
            out[level] = obj
    return out


def _shown_mesh(obj) -> bpy.types.Mesh:
    """The object's mesh as the user sees it: in Edit Mode a copy of it (Edit Mode's edits were loaded into the
    mesh, io_msh.exp.write_scene, but Blender hides its attributes while the object is in Edit Mode)."""
    return obj.data.copy() if obj.mode == "EDIT" else obj.data


def _read_level(obj, data, mesh: L.LandMesh, level: int) -> np.ndarray:
    """The level's vertex positions (``data``: its mesh as shown), after checking its topology, face materials,
    face flags and UVs are the file's."""
    split = mesh.level_split
    faces = mesh.faces[:split] if level == 0 else mesh.faces[split:]
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
    _check_face_attributes(obj, data, mesh, level)
    _check_uvs(obj, data, mesh, level)
    co = np.zeros(3 * n, np.float32)
    data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def _check_face_attributes(obj, data, mesh: L.LandMesh, level: int) -> None:
    """The face flags shown as boolean attributes (water, bed, second material, lava) as the file has them:
    editing them is not written yet."""
    split = mesh.level_split
    part = slice(0, split) if level == 0 else slice(split, len(mesh.faces))
    attributes = data.attributes
    for name, expected in face_flags(mesh).items():
        expected = expected[part]
        found = attributes.get(name)
        if found is None or found.domain != "FACE" or found.data_type != "BOOLEAN":
            if not expected.any() and name == "msh_lava":
                continue
            raise FormatError.single("ground", level, f"{obj.name}: the face attribute {name} was removed or "
                                                      "changed type; face flags cannot be edited: undo it "
                                                      f"(Ctrl+Z); {EDITABLE}")
        values = np.zeros(len(expected), bool)
        found.data.foreach_get("value", values)
        wrong = np.flatnonzero(values != expected)
        if len(wrong):
            raise FormatError.single("ground", level, f"{obj.name}: face {int(wrong[0])}'s attribute {name} was "
                                                      f"changed ({len(wrong)} face(s)); face flags (water, bed, "
                                                      "second material, lava) cannot be edited yet: undo it "
                                                      f"(Ctrl+Z); {EDITABLE}")


def _check_uvs(obj, data, mesh: L.LandMesh, level: int) -> None:
    """Both UV maps as the file has them (they follow x and y: editing them is not written)."""
    split = mesh.level_split
    faces = mesh.faces[:split] if level == 0 else mesh.faces[split:]
    corners = faces["verts"].astype(np.int64).ravel()
    uv, micro = ground_uvs(mesh)
    for layer_name, values in ((P.BASE_UV, uv), (M.UV_DETAIL, micro)):
        layer = data.uv_layers.get(layer_name)
        if layer is None:
            raise FormatError.single("ground", level, f"{obj.name}: the UV map {layer_name} was removed or renamed; "
                                                      f"UV maps cannot be edited: undo it (Ctrl+Z); {EDITABLE}")
        shown = np.zeros(2 * len(corners), np.float32)
        layer.data.foreach_get("uv", shown)
        off = np.abs(shown.reshape(-1, 2) - values[corners]).max(axis=1) > UV_TOLERANCE
        if off.any():
            loop = int(np.flatnonzero(off)[0])
            raise FormatError.single("ground", level, f"{obj.name}: the UV map {layer_name} was edited (face "
                                                      f"{loop // 3}, {int(off.sum())} corner(s)); UVs follow x and "
                                                      f"y and cannot be edited: undo it (Ctrl+Z); {EDITABLE}")


def _read_alpha(data, mesh: L.LandMesh) -> np.ndarray | None:
    found = data.attributes.get(M.ALPHA)
    if found is None or found.domain != "POINT" or found.data_type != "FLOAT":
        return None
    values = np.zeros(len(mesh.positions), np.float32)
    found.data.foreach_get("value", values)
    return values


def _alpha(levels: dict, shown: dict, mesh: L.LandMesh) -> np.ndarray | None:
    """The second material's alpha as level 0 shows it; None when it is the file's."""
    near = _read_alpha(shown[0], mesh)
    if near is None:
        raise FormatError.single("ground", 0, f"{levels[0].name}: the point attribute {M.ALPHA} (the second "
                                              "material's alpha) was removed or changed type: undo it (Ctrl+Z); "
                                              f"{EDITABLE}")
    stored = mesh.streams.get(L.ALPHA)
    stored = stored if stored is not None and len(stored) == len(near) else np.ones(len(near), np.float32)
    if 1 in levels:
        far = _read_alpha(shown[1], mesh)
        if far is not None:
            apart = (far != near) & (far != stored)
            if apart.any():
                raise FormatError.single("ground", 1, f"level 1 vertex {int(np.flatnonzero(apart)[0])}'s "
                                                      f"{M.ALPHA} was changed apart from level 0: edit level 0 "
                                                      f"(both levels share the vertices); {EDITABLE}")
    if np.array_equal(near.view("<u4"), np.ascontiguousarray(stored, "<f4").view("<u4")):
        return None
    if L.ALPHA not in mesh.streams:
        raise FormatError.single("ground", 0, f"{levels[0].name}: {M.ALPHA} was changed, and this map has no "
                                              "alpha stream (Res14) to hold it: undo it (Ctrl+Z); " + EDITABLE)
    return near


def _check_water_plane(context, top, mesh: L.LandMesh) -> None:
    """The water plane shows where the map's water faces are (it is not written): one moved is refused."""
    plane = (top.get(M.GROUND) or {}).get("water")
    if not _in_scene(context, plane):
        return
    extent = water_extent(mesh)
    if extent is None:
        return
    z, lo, hi = extent
    expected = np.array([(lo[0], lo[1], z), (hi[0], lo[1], z), (hi[0], hi[1], z), (lo[0], hi[1], z)], np.float64)
    shown = np.array([tuple(plane.matrix_world @ v.co) for v in plane.data.vertices], np.float64)
    if shown.shape != expected.shape or np.abs(shown - expected).max() > 1e-3:
        raise FormatError.single("ground", None, f"{plane.name} was moved or edited: it only shows the water "
                                                 "level of the map's water faces and is not written; to change "
                                                 "the water level, move the water faces' vertices (all to one "
                                                 f"height); put the plane back (Ctrl+Z); {EDITABLE}")


def _ground(top, mesh: L.LandMesh, result: MapExport) -> bytes | None:
    """The edited Land.msh, or None when the heights and alpha are as read."""
    context = bpy.context
    levels = _level_objects(top)
    if 0 not in levels:
        raise FormatError.single("ground", 0, f"the map's level-0 ground object was deleted: undo it (Ctrl+Z) or "
                                              f"import the map again; {EDITABLE}")
    if 1 not in levels and mesh.level_split < len(mesh.faces):
        raise FormatError.single("ground", 1, "the map's level-1 ground object (the far-away ground, in the "
                                              "hidden collection) was deleted: the map needs both levels; undo it "
                                              f"(Ctrl+Z) or import the map again; {EDITABLE}")
    shown = {level: _shown_mesh(obj) for level, obj in levels.items()}
    try:
        positions = _read_level(levels[0], shown[0], mesh, 0)
        if 1 in levels:
            far = _read_level(levels[1], shown[1], mesh, 1)
            differs = (far != positions).any(axis=1) & (far != mesh.positions).any(axis=1)
            if differs.any():
                raise FormatError.single("ground", 1, f"level 1 vertex {int(np.flatnonzero(differs)[0])} was moved "
                                                      "apart from level 0: edit level 0 (both levels share the "
                                                      f"vertices); {EDITABLE}")
        alpha = _alpha(levels, shown, mesh)
    finally:
        copies = [data for level, data in shown.items() if data != levels[level].data]
        if copies:
            bpy.data.batch_remove(copies)
    _check_water_plane(context, top, mesh)
    edit = edit_heights(mesh, positions)
    if not len(edit.moved) and alpha is None:
        return None
    if alpha is not None:
        edit.mesh.streams[L.ALPHA] = alpha.astype("<f4")
    errors = [f for f in validate_land(edit.mesh) if f.severity == "error"]
    if errors:
        raise FormatError(errors, LAND_MSH)
    result.heights = len(edit.moved)
    result.warnings += edit.warnings
    return edit.mesh.to_bytes()


# --------------------------------------------------------------------- the mission
def _kind_collections(top) -> dict[str, bpy.types.Collection]:
    return {str(c[M.KIND]): c for c in top.children_recursive if M.KIND in c}


def _clan_collections(top) -> list[bpy.types.Collection]:
    return [c for c in top.children_recursive if M.CLAN in c]


def _mission(context, top, result: MapExport) -> bytes:
    source = bytes(top[M.MISSION_BYTES])
    mission = parse_tma(source, P.stored_path(top, M.MISSION) or "data.tma")
    version = mission.object_version
    map_id = top.get(M.MAP_ID)
    under = set(top.all_objects)
    strays = sorted(o.name for o in context.scene.objects
                    if M.RECORD in o and map_id is not None and o.get(M.MAP_ID) == map_id and o not in under)
    if strays:
        raise FormatError.single("objects", None, f"{strays[0]} (and {len(strays) - 1} more) was moved out of the "
                                                  f"map's collections ({top.name}) but is still in the scene: put "
                                                  "it back into a clan's collection, or delete it; " + EDITABLE)
    originals, copies = _originals(top, mission, under)
    kinds = _kind_collections(top)
    templates = {}
    for obj in mission.objects:
        templates.setdefault(text(obj.path).upper(), object_bytes(obj, version))
    clans = len(mission.clans)
    placements, changed = [], len(mission.objects) - len(originals)
    for obj in originals + copies:
        placement, edited = _placement(obj, obj in copies, mission, kinds, templates, clans)
        placements.append(placement)
        changed += edited
    for obj in _new_objects(top, map_id):
        placements.append(_new_placement(obj, mission, kinds, templates, clans))
        changed += 1
    result.objects, result.edited_objects = len(placements), changed
    if not changed:
        return source
    edited, notes = edited_mission(mission, placements)
    result.warnings += notes
    errors = [f for f in validate_mission(edited) if f.severity == "error"]
    if errors:
        raise FormatError(errors, "data.tma")
    return edited.to_bytes()


def _originals(top, mission, under: set) -> tuple[list, list]:
    """The placements the import made that are still in the map's collections (by reference, in file order) and
    the copies of them (Shift+D, a script's Object.copy: the same record), by name."""
    placed = top.get(M.PLACED)
    members = [o for o in top.all_objects if M.RECORD in o and M.INDEX in o]
    if placed is not None:
        originals = []
        for index in range(len(mission.objects)):
            obj = placed.get(str(index))
            if obj is not None and obj in under:
                originals.append(obj)
        kept = set(originals)
        return originals, sorted((o for o in members if o not in kept), key=lambda o: o.name)
    groups: dict[int, list] = {}  # a map imported before references were kept: the imported name decides
    for obj in members:
        groups.setdefault(int(obj[M.INDEX]), []).append(obj)
    originals, copies = [], []
    for index in sorted(groups):
        group = sorted(groups[index], key=lambda o: o.name)
        first = next((o for o in group if o.name == o.get(M.IMPORTED_NAME)), group[0])
        originals.append(first)
        copies += [o for o in group if o is not first]
    return originals, copies


def _new_objects(top, map_id) -> list:
    """Objects in a clan's collection the import did not make: instances of a kind (new objects); anything else
    is refused."""
    out = []
    for clan in _clan_collections(top):
        for obj in clan.objects:
            if M.RECORD in obj:
                if map_id is not None and obj.get(M.MAP_ID) not in (None, map_id):
                    raise FormatError.single("objects", None, f"{obj.name} is a placement of another imported map "
                                                              f"and was put into {clan.name}: move it back, or "
                                                              f"place an instance of a kind instead; {EDITABLE}")
                continue
            shown = obj.instance_collection if obj.instance_type == "COLLECTION" else None
            if shown is None or M.KIND not in shown:
                raise FormatError.single("objects", None, f"{obj.name} in {clan.name} is no object of the mission: "
                                                          "a new object is an instance of a collection in the "
                                                          "map's kinds collection (Add > Collection Instance); "
                                                          f"move it out of the clan collections; {EDITABLE}")
            if obj not in out:
                out.append(obj)
    return sorted(out, key=lambda o: o.name)


def _clan(obj, stored_clan: int | None, clans: int, is_unit: bool) -> int | None:
    """The clan index the object's collection gives it; None to keep the record's."""
    held = [c for c in obj.users_collection if M.CLAN in c]
    if len(held) != 1:
        raise FormatError.single("objects", obj.get(M.INDEX), f"{obj.name} is in {len(held)} clan collections: "
                                                              f"put it in exactly one; {EDITABLE}")
    clan = int(held[0][M.CLAN])
    if clan != M.UNOWNED:
        return clan
    if stored_clan is not None and not 0 <= stored_clan < clans:
        return None  # imported there: its clan word names no clan, and is kept
    what = "a unit or building" if is_unit else "an object"
    raise FormatError.single("objects", obj.get(M.INDEX), f"{obj.name} was put into {held[0].name}: data.tma gives "
                                                          f"{what} the index of a clan; put it in a clan's "
                                                          f"collection; {EDITABLE}")


def _shown_kind(obj, record_key: str, kinds: dict, templates: dict, stored, version: int, index) -> bytes | None:
    """The path of the kind the object now shows when it is another than its record's; None when the same."""
    shown = obj.instance_collection if obj.instance_type == "COLLECTION" else None
    if shown is None:
        if record_key in kinds:
            raise FormatError.single("objects", index, f"{obj.name} no longer shows its kind ({record_key}): make "
                                                       "it an instance of a collection of the map's kinds "
                                                       f"collection again; {EDITABLE}")
        return None  # its file was missing at import: an Empty, written as read
    key = shown.get(M.KIND)
    if key is None:
        raise FormatError.single("objects", index, f"{obj.name} shows {shown.name}, which is not one of the map's "
                                                   f"kinds: a placement shows a collection of the kinds collection; "
                                                   f"{EDITABLE}")
    key = str(key)
    if key == record_key:
        return None
    if key not in templates:
        raise FormatError.single("objects", index, f"{obj.name} shows {key}, which no object of the mission names; "
                                                   f"{EDITABLE}")
    template = parse_object(templates[key], version)
    if template.kind != stored.kind:
        raise FormatError.single("objects", index, f"{obj.name} was made a {template.kind_name} ({key}) from a "
                                                   f"{stored.kind_name}: a placement can show another kind of its "
                                                   f"own sort only; {EDITABLE}")
    return template.path


def _transform(obj, stored, seat: float) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The object's stored position, turns and scale as the scene shows them: a field nothing changed keeps
    its bytes (the import set Blender's location, rotation and scale from them)."""
    position = np.array(stored.position, "<f4")
    turns = np.array(stored.turns, "<f4")
    scale = None if stored.scale is None else np.array(stored.scale, "<f4")
    shown_location = np.nan_to_num(position.astype(np.float64) + np.array([0.0, 0.0, seat])).astype(np.float32)
    shown_turns = np.nan_to_num(turns.astype(np.float64)).astype(np.float32)
    shown_scale = (np.nan_to_num(scale.astype(np.float64), nan=1.0).astype(np.float32)
                   if scale is not None and stored.is_scenery else np.ones(3, np.float32))
    world = np.array(obj.matrix_world, np.float64)
    basis = np.array(obj.matrix_basis, np.float64)
    if np.abs(world - basis).max() <= TOLERANCE and obj.rotation_mode == "XYZ":
        location = np.array(obj.location, np.float32)
        rotation = np.array(obj.rotation_euler, np.float32)
        size = np.array(obj.scale, np.float32)
    else:  # a parent, a constraint or another rotation mode: the matrix Blender shows, decomposed
        loc, rot, sca = Matrix(world.tolist()).decompose()
        location, size = np.array(loc, np.float32), np.array(sca, np.float32)
        imported = np.array(list(obj[M.IMPORTED_MATRIX]), np.float64).reshape(4, 4)[:3, :3]
        turned = np.abs(np.array(rot.to_matrix(), np.float64) - imported / np.linalg.norm(imported, axis=0)).max()
        rotation = shown_turns if turned <= TOLERANCE else np.array(rot.to_euler("XYZ"), np.float32)
    moved = location != shown_location
    position[moved] = (location.astype(np.float64) - [0.0, 0.0, seat]).astype(np.float32)[moved]
    turned = rotation != shown_turns
    turns[turned] = rotation[turned]
    scaled = size != shown_scale
    if scale is not None and scaled.any():
        if not stored.is_scenery:
            raise FormatError.single("objects", obj.get(M.INDEX), f"{obj.name} was scaled: the game scales only "
                                                                  f"trees and rocks; {EDITABLE}")
        scale[scaled] = size[scaled]
    elif scale is None and scaled.any():
        raise FormatError.single("objects", obj.get(M.INDEX), f"{obj.name} was scaled: this mission's objects "
                                                              f"have no scale; {EDITABLE}")
    return position, turns, scale


def _placement(obj, copy: bool, mission, kinds: dict, templates: dict, clans: int) -> tuple[Placement, bool]:
    record = bytes(obj[M.RECORD])
    index = int(obj[M.INDEX])
    version = mission.object_version
    stored = parse_object(record, version, obj.name, index)
    clan = _clan(obj, stored.clan, clans, not stored.is_scenery)
    path = _shown_kind(obj, text(stored.path).upper(), kinds, templates, stored, version, index)
    position, turns, scale = _transform(obj, stored, float(obj.get(M.SEAT, 0.0)))
    edited = copy or (clan is not None and clan != (stored.clan or 0)) or path is not None
    bits = [np.ascontiguousarray(a, "<f4").tobytes() for a in (position, turns)]
    edited = edited or bits != [np.ascontiguousarray(a, "<f4").tobytes() for a in (stored.position, stored.turns)]
    if scale is not None and stored.scale is not None:
        edited = edited or scale.tobytes() != np.ascontiguousarray(stored.scale, "<f4").tobytes()
    return Placement(record, position, turns, clan, copy, scale, path), edited


def _new_placement(obj, mission, kinds: dict, templates: dict, clans: int) -> Placement:
    """A new instance of a kind: the record of the first object of that kind, at the object's place, a copy."""
    key = str(obj.instance_collection[M.KIND])
    if key not in templates:
        raise FormatError.single("objects", None, f"{obj.name} shows {key}, which no object of the mission "
                                                  f"names; {EDITABLE}")
    record = templates[key]
    version = mission.object_version
    template = parse_object(record, version, obj.name)
    clan = _clan(obj, None if not template.is_scenery else template.clan, clans, not template.is_scenery)
    world = Matrix(np.array(obj.matrix_world, np.float64).tolist())
    location, rotation, size = world.decompose()
    if obj.rotation_mode == "XYZ" and np.abs(np.array(obj.matrix_world) - np.array(obj.matrix_basis)).max() <= \
            TOLERANCE:
        turns = np.array(obj.rotation_euler, np.float32)
    else:
        turns = np.array(rotation.to_euler("XYZ"), np.float32)
    scale = np.array(size, np.float32)
    if not template.is_scenery:
        if np.abs(scale - 1).max() > 1e-4:
            raise FormatError.single("objects", None, f"{obj.name} was scaled: the game scales only trees and "
                                                      f"rocks; {EDITABLE}")
        scale = template.scale
    return Placement(record, np.array(location, np.float32), turns, clan, True, scale, new=True)
