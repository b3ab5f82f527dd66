"""The ground of an imported map as the scene shows it (io_msh.exp.map): level 0's heights and the second
material's alpha read back and handed to core.map.edit (a moved vertex's twins with it); every other edit of the
ground (its topology, face materials and flags, UV maps, level 1 apart from level 0, the water plane) refused,
naming what can be edited."""

from __future__ import annotations

from dataclasses import dataclass, field

import bpy
import numpy as np

from ...core.errors import FormatError
from ...core.map import landmsh as L
from ...core.map.edit import edit_heights
from ...core.map.folder import LAND_MSH
from ...core.map.validate import validate_land
from ..com import props as P
from ..imp import map as M
from ..imp.map_plan import face_flags, ground_uvs, water_extent

EDITABLE = ("what can be edited: the heights (z) of the ground's level-0 vertices, the second material's alpha "
            "(msh_second_alpha), and the mission's objects (moved, turned, copied, deleted, moved to another "
            "clan's collection, shown as another kind of the same sort; new instances of a kind in a clan's "
            "collection)")
TOLERANCE = 1e-5
UV_TOLERANCE = 1e-4        # a turn is 1024 u16 steps: a tenth of one


@dataclass
class GroundEdit:
    data: bytes | None                       # the edited Land.msh; None when the ground is as read
    heights: int = 0                         # vertices whose height changed
    warnings: list[str] = field(default_factory=list)


def in_scene(context, obj) -> bool:
    try:
        return obj is not None and obj.name in context.scene.objects
    except ReferenceError:
        return False


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
    if not in_scene(context, plane):
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


def read_ground(context, top, mesh: L.LandMesh) -> GroundEdit:
    """The ground of the map ``top`` as the scene shows it, against ``mesh`` (the Land.msh as imported);
    FormatError for an edit the file cannot hold."""
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
        return GroundEdit(None)
    if alpha is not None:
        edit.mesh.streams[L.ALPHA] = alpha.astype("<f4")
    errors = validate_land(edit.mesh, errors_only=True)  # what refuses the edit; the warning-only checks left out
    if errors:
        raise FormatError(errors, LAND_MSH)
    return GroundEdit(edit.mesh.to_bytes(), len(edit.moved), edit.warnings)
