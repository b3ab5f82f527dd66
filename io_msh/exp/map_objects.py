"""The mission of an imported map as the scene shows it (io_msh.exp.map): each placement the import made (known by
reference: a copy, a rename or an undo leaves it its record), its copies, new instances of a kind in a clan's
collection, each read back with the fields nothing changed kept bit for bit and handed to core.map.edit; what
data.tma cannot hold (a stray out of the map's collections, a unit in no clan, a kind of another sort) refused."""

from __future__ import annotations

from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from ...core.errors import FormatError
from ...core.map.edit import Placement, edited_mission, object_bytes, parse_object
from ...core.map.tma import parse_tma, text
from ...core.map.validate import validate_mission
from ..imp import map as M
from .map_ground import EDITABLE, TOLERANCE


@dataclass
class MissionEdit:
    data: bytes                              # data.tma as the scene shows it (its bytes as read when unedited)
    objects: int = 0                         # objects written
    edited: int = 0                          # of them moved, turned, copied, given another clan or kind; + removed
    warnings: list[str] = field(default_factory=list)


def _kind_collections(top) -> dict[str, bpy.types.Collection]:
    return {str(c[M.KIND]): c for c in top.children_recursive if M.KIND in c}


def _clan_collections(top) -> list[bpy.types.Collection]:
    return [c for c in top.children_recursive if M.CLAN in c]


def read_mission(context, top) -> MissionEdit:
    """The mission of the map ``top`` as the scene shows it; FormatError for an edit data.tma cannot hold."""
    path, source = M.stored_mission(top)
    mission = parse_tma(source, path or "data.tma")
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
    if not changed:
        return MissionEdit(source, len(placements))
    edited, notes = edited_mission(mission, placements)
    errors = [f for f in validate_mission(edited) if f.severity == "error"]
    if errors:
        raise FormatError(errors, "data.tma")
    return MissionEdit(edited.to_bytes(), len(placements), changed, notes)


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
