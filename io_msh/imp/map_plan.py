"""Import planning of a map (``Land.msh`` and the files beside it) or a mission (``data.tma``, which pulls in
its map), in plain Python: the ground's two levels as arrays, the look of each face material word, the water
plane, and each placed object's kind (planned once, by the unit or model importer) and matrix.

How the scene shows a map (docs/manual/maps.md; terrain-missions digest sections 2, 6.4):
- level 0 is the ground; level 1 (the far-away simplification) sits in a hidden collection. Both keep every
  Land.msh vertex in file order and their faces in file order, so the export reads heights back by index;
- a face's material is its word 2: Land1[lo] on UV5 (1024 = one turn) times the microtexture of Land2[lo]
  (its material's track 1) on UV18 times 2, and, where hi is not 0xFF, Land1[hi] over it by stream 14's alpha;
- objects stand where data.tma puts them (matrix Rz Ry Rx, scale on trees and rocks only); a building without
  the start flag is set down on the ground under its origin (the game uses the mean of its cut contour, which
  needs its .bas rings: the ground under the origin stands in for it), everything else at its stored height.
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...core.appearance.mat0 import material_of
from ...core.appearance.resolve import Libraries, Look, TextureRef, find_libraries, resolve_looks
from ...core.appearance.wear import NO_LIGHTMAP, Wear
from ...core.cli.unit import locate
from ...core.container.nres import Archive
from ...core.disk import names_in, read_input
from ...core.errors import Finding, FormatError, printable
from ...core.map import landmsh as L
from ...core.map.edit import object_bytes
from ...core.map.folder import LAND1, LAND2, LAND_MAP, LAND_MSH, OBJECTS, open_map_folder, resolve_map
from ...core.map.tma import KIND_BUILDING, Mission, PlacedObject, parse_tma, text
from ...core.map.validate import validate_mission
from ...core.unit.objects import lookup
from .briefing_plan import BriefingPlan, plan_briefing
from .plan import ImportOptions, ModelPlan
from .sky_plan import SkyPlan, plan_sky
from .unit_plan import UnitPlan, plan_part_model, plan_unit

UV_TURN = 1024.0            # UV5 and UV18: 1024 = one turn (digest 2.1, 8.1)
FACE_FLAGS = {              # boolean face attributes (digest 2.2, 2.8)
    "msh_water": lambda f, s: (s & L.SURFACE_WATER) != 0,
    "msh_bed": lambda f, s: (f & L.FLAG_BED) != 0,
    "msh_second_material": lambda f, s: (f & L.FLAG_SECOND) != 0,
}
LAVA = "msh_lava"           # surface 0x10 clear, on a map that sets 0x10 at all (4 retail maps never do)


@dataclass
class GroundLook:
    """What one face material word shows."""

    word: int
    first: Look | None
    first_micro: TextureRef | None
    second: Look | None = None
    second_micro: TextureRef | None = None

    @property
    def name(self) -> str:
        first = self.first.name if self.first is not None else f"slot {self.word & 0xFF}"
        if self.word >> 8 == L.NO_SECOND:
            return first
        second = self.second.name if self.second is not None else f"slot {self.word >> 8}"
        return f"{first} + {second}"


@dataclass
class LevelPlan:
    level: int
    triangles: np.ndarray            # (m, 3) vertex indices, file order
    face_looks: np.ndarray           # (m,) index into MapPlan.looks
    flags: dict[str, np.ndarray]     # boolean per face


@dataclass
class KindPlan:
    """One file placed objects name: imported once, shown by every placement through a collection instance."""

    key: str                         # the path as shown, upper case (the game matches without case)
    kind: int
    unit: UnitPlan | None = None
    model: ModelPlan | None = None


@dataclass
class PlacementPlan:
    index: int
    kind: str                        # KindPlan.key
    name: str
    record: bytes                    # the object's data.tma record as read
    clan: int
    location: np.ndarray             # (3,) shown (stored position + seat)
    rotation: np.ndarray             # (3,) Euler XYZ = the matrix Rz Ry Rx
    scale: np.ndarray                # (3,)
    seat: float                      # shown z - stored z


@dataclass
class MapPlan:
    name: str
    map_folder: str
    files: dict[str, tuple[str, bytes]]      # LAND_MSH, LAND_MAP, LAND1, LAND2 -> (file name as found, bytes)
    mesh: L.LandMesh
    positions: np.ndarray                    # (n, 3) float32
    uv: np.ndarray                           # (n, 2) Blender UV of the face material (V flipped)
    micro_uv: np.ndarray                     # (n, 2) of the microtexture
    alpha: np.ndarray                        # (n,) stream 14 (1.0 where absent)
    levels: list[LevelPlan]
    looks: list[GroundLook]
    water: tuple[float, np.ndarray, np.ndarray] | None   # (z, xy min, xy max)
    mission_path: str | None = None
    mission: Mission | None = None
    mission_bytes: bytes | None = None
    clans: list[str] = field(default_factory=list)
    kinds: dict[str, KindPlan] = field(default_factory=dict)
    placements: list[PlacementPlan] = field(default_factory=list)
    empty_kinds: list[str] = field(default_factory=list)   # kinds whose file could not be imported: Empties
    warnings: list[str] = field(default_factory=list)
    sky: SkyPlan | None = None               # the mission's sky.ske, shown at one keyframe
    briefing: BriefingPlan | None = None     # a campaign mission's briefing.cfg


def is_mission(path: str | Path) -> bool:
    return str(path).lower().endswith(".tma")


def plan_map(path: str | Path, options: ImportOptions, game: str | None = None,
             sky_time: int | None = None) -> MapPlan:
    """Plan a map (``Land.msh``) or a mission (``data.tma``). FormatError, naming the file, stream and index,
    when a map file does not decode or breaks an invariant the import needs, the mission does not decode or its
    map is missing; OSError when unreadable. Objects whose files are missing or unreadable are warnings (they
    are placed as Empties and exported as read), so is a sky that does not read. ``sky_time``: the minute of
    the day the mission's sky is shown at (None: where its clock starts)."""
    path = str(path)
    mission = mission_bytes = None
    if is_mission(path):
        mission_bytes = read_input(path)
        mission = parse_tma(mission_bytes, path)
        errors = [f for f in validate_mission(mission) if f.severity == "error"]
        if errors:
            raise FormatError(errors, path)
        folder = resolve_map(path, mission, game)
    else:
        folder = Path(path).parent
        read_input(path)  # the file asked for is there (OSError naming it, not the folder's other files)
    opened = open_map_folder(folder)
    errors = [f for f in opened.findings if f.severity == "error"]
    if errors or opened.mesh is None:
        raise _in_file(errors, folder)
    files = {}
    for name in (LAND_MSH, LAND_MAP, LAND1, LAND2):
        found = names_in(folder).get(name.lower())
        if found is not None:
            files[name] = (found, read_input(folder / found))
    mesh = opened.mesh
    plan = _ground(mesh, opened.land1, opened.land2, folder, options)
    plan.files = files
    plan.warnings += [f.format(str(folder)) for f in opened.findings]
    if mission is not None:
        plan.mission_path, plan.mission, plan.mission_bytes = path, mission, mission_bytes
        _objects(plan, Path(folder), options)
        plan.sky = plan_sky(path, sky_time, plan.warnings)
        plan.briefing = plan_briefing(path, plan.warnings)
    plan.warnings = list(dict.fromkeys(plan.warnings))
    return plan


def ground_uvs(mesh: L.LandMesh) -> tuple[np.ndarray, np.ndarray]:
    """Each vertex's Blender UV of its face material and of its microtexture (1024 = one turn, V flipped)."""
    uv = mesh.streams[L.UV].astype(np.float64) / UV_TURN
    micro = mesh.streams[L.MICRO_UV].astype(np.float64) / UV_TURN
    uv[:, 1], micro[:, 1] = 1.0 - uv[:, 1], 1.0 - micro[:, 1]
    return uv, micro


def face_flags(mesh: L.LandMesh) -> dict[str, np.ndarray]:
    """The boolean face attributes the ground shows, for every face of the file (FACE_FLAGS, LAVA)."""
    faces = mesh.faces
    flags, surface = faces["flags"].astype(np.int64), faces["surface"].astype(np.int64)
    named = {name: rule(flags, surface) for name, rule in FACE_FLAGS.items()}
    named[LAVA] = (surface & L.SURFACE_SOLID) == 0 if (surface & L.SURFACE_SOLID).any() else np.zeros(len(faces), bool)
    return named


def water_extent(mesh: L.LandMesh) -> tuple[float, np.ndarray, np.ndarray] | None:
    """(z, xy min, xy max) of the level-0 water faces (digest 2.8), None when there are none."""
    split = mesh.level_split
    verts = mesh.faces["verts"].astype(np.int64)
    is_water = face_flags(mesh)["msh_water"][:split]
    if not is_water.any():
        return None
    corners = mesh.positions.astype(np.float32)[np.unique(verts[:split][is_water])]
    return float(corners[:, 2].max()), corners[:, :2].min(axis=0), corners[:, :2].max(axis=0)


def _in_file(errors: list[Finding], folder: Path) -> FormatError:
    """The folder's errors, named by the file they are in when they are all in one (a file of the folder, not an
    entry of it)."""
    places = {f.where for f in errors}
    if len(places) != 1 or not next(iter(places)):
        return FormatError(errors, str(folder))
    name = next(iter(places))
    with contextlib.suppress(OSError):
        name = names_in(folder).get(name.lower(), name)
    return FormatError([Finding(f.severity, f.stream, f.index, f.message) for f in errors], str(folder / name))


def _ground(mesh: L.LandMesh, land1: Wear | None, land2: Wear | None, folder: Path,
            options: ImportOptions) -> MapPlan:
    positions = mesh.positions.astype(np.float32)
    n = len(positions)
    uv, micro = ground_uvs(mesh)
    alpha = mesh.streams[L.ALPHA].astype(np.float32) if L.ALPHA in mesh.streams else np.ones(n, np.float32)
    if len(alpha) != n:
        alpha = np.resize(alpha, n)
    faces = mesh.faces
    words = faces["material"].astype(np.int64)
    unique, inverse = np.unique(words, return_inverse=True)
    libraries = Libraries(find_libraries(folder / LAND_MSH, list(options.game_folders)))
    warnings: list[str] = []
    looks = _looks([int(w) for w in unique], land1, land2, libraries, warnings)
    split = mesh.level_split
    named = face_flags(mesh)
    verts = faces["verts"].astype(np.int64)
    levels = [LevelPlan(level, verts[a:b], inverse[a:b], {k: v[a:b] for k, v in named.items()})
              for level, (a, b) in enumerate(((0, split), (split, len(faces))))]
    return MapPlan(folder.name, str(folder), {}, mesh, positions, uv, micro, alpha, levels, looks,
                   water_extent(mesh), warnings=warnings + libraries.warnings)


def _looks(words: list[int], land1: Wear | None, land2: Wear | None, libraries: Libraries,
           warnings: list[str]) -> list[GroundLook]:
    """Each face material word's look: both bytes index Land1.wea, Land2.wea gives each Land1 row its
    microtexture (digest 2.7)."""
    slots = sorted({w & 0xFF for w in words} | {w >> 8 for w in words if w >> 8 != L.NO_SECOND})
    if land1 is None:
        warnings.append("no Land1.wea beside Land.msh: the ground's materials are placeholders")
    found, notes = resolve_looks([s | NO_LIGHTMAP << 8 for s in slots], land1, libraries)
    warnings += notes
    by_slot = {s: found[s | NO_LIGHTMAP << 8] for s in slots}
    micro = {s: _micro(s, land2, libraries, warnings) for s in slots}
    out = []
    for word in words:
        lo, hi = word & 0xFF, word >> 8
        look = GroundLook(word, by_slot[lo], micro[lo])
        if hi != L.NO_SECOND:
            look.second, look.second_micro = by_slot[hi], micro[hi]
        out.append(look)
    return out


def _micro(slot: int, land2: Wear | None, libraries: Libraries, warnings: list[str]) -> TextureRef | None:
    """The microtexture of a Land1 slot: the texture of the entry that track 1 of the Land2 row's material names
    (digest 2.7; units-clips digest 3.3: a ground material's track i has one key naming entry i)."""
    if land2 is None or slot >= len(land2.materials) or libraries.archive("materials") is None:
        return None
    entry, _note = libraries.material(land2.materials[slot])
    if entry is None:
        return None
    try:
        material = material_of(entry, entry.name_str)
    except FormatError:
        return None
    if len(material.animations) < 2 or not len(material.animations[1].keys):
        return None
    name = material.texture_name(int(material.animations[1].keys[0]["k0"]))
    if not name:
        return None
    ref, _texture, note = libraries.texture("textures", name)
    if note:
        warnings.append(note)
    return ref


# --------------------------------------------------------------------- the mission's objects
def _game_root(map_folder: Path, mission: Mission) -> Path:
    root = map_folder
    for _ in [p for p in text(mission.map_path).replace("\\", "/").split("/") if p and p != "."][:-1]:
        root = root.parent
    return root


def _objects(plan: MapPlan, map_folder: Path, options: ImportOptions) -> None:
    mission = plan.mission
    root = _game_root(map_folder, mission)
    plan.clans = [text(c.name) for c in mission.clans]
    options = ImportOptions(**{**options.__dict__, "game_folders": (*options.game_folders, str(root))})
    records = None
    rlb = locate(root, OBJECTS)
    failed: set[str] = set()
    for i, obj in enumerate(mission.objects):
        key = text(obj.path).upper()
        if key not in plan.kinds and key not in failed:
            try:
                if obj.is_scenery:
                    if records is None and rlb is not None:
                        records = Archive.parse(read_input(rlb), str(rlb))
                    plan.kinds[key] = KindPlan(key, obj.kind, model=_scenery(root, records, obj, options))
                else:
                    dat = locate(root, text(obj.path))
                    if dat is None:
                        raise FormatError.single("objects", i, f"'{text(obj.path)}' not found below {root}")
                    unit = plan_unit(dat, options)
                    plan.kinds[key] = KindPlan(key, obj.kind, unit=unit)
                    plan.warnings += unit.warnings
            except (FormatError, OSError) as exc:
                failed.add(key)
                plan.empty_kinds.append(key)
                reason = _reason(exc)
                plan.warnings.append(f"{plan.mission_path}: objects[{i}]: '{text(obj.path)}' is shown as an Empty: "
                                     f"{reason}")
        plan.placements.append(_placement(plan, i, obj, key))


def _reason(exc: FormatError | OSError) -> str:
    """Why a kind could not be imported, in words (its findings' messages, the file they are in first)."""
    if not isinstance(exc, FormatError):
        return f"{printable(str(exc.filename))}: {exc.strerror or exc}" if exc.filename else str(exc)
    errors = [f for f in exc.findings if f.is_error] or exc.findings
    head = f"{printable(exc.source)}: " if exc.source else ""
    return head + "; ".join(f.message if f.stream == "objects" else f"{f.stream}: {f.message}" for f in errors)


def _scenery(root: Path, records: Archive | None, obj: PlacedObject, options: ImportOptions) -> ModelPlan:
    """A tree's or rock's model: its objects.rlb STAT record's .msh (digest 6.3)."""
    if records is None:
        raise FormatError.single("objects", None, f"no {OBJECTS} below {root}")
    found = lookup(records, obj.path.split(b"\0", 1)[0], ".msh")
    if found.slot is None:
        reason = "; ".join(f.message for f in found.findings) or "the record has no .msh"
        raise FormatError.single(OBJECTS, None, reason)
    return plan_part_model(root, (found.slot.archive, found.slot.member), options, {})


def _placement(plan: MapPlan, index: int, obj: PlacedObject, key: str) -> PlacementPlan:
    position = obj.position.astype(np.float64)
    seat = 0.0
    if obj.kind == KIND_BUILDING and not obj.start_flag and np.isfinite(position).all():
        seat = plan.mesh.height_at(float(position[0]), float(position[1])) - float(position[2])
    scale = obj.scale.astype(np.float64) if obj.scale is not None and obj.is_scenery else np.ones(3)
    turns = np.nan_to_num(obj.turns.astype(np.float64))
    name = text(obj.name) if obj.name and text(obj.name) else os.path.splitext(key.replace("\\", "/").split("/")[-1])[0]
    return PlacementPlan(index, key, f"{index:03d} {name}", object_bytes(obj, plan.mission.object_version),
                         int(obj.clan or 0), np.nan_to_num(position + np.array([0.0, 0.0, seat])), turns,
                         np.nan_to_num(scale, nan=1.0), seat)


def turn_matrix(turns: np.ndarray) -> np.ndarray:
    """Rz Ry Rx (digest 6.3), for tests and pictures."""
    x, y, z = (float(t) for t in turns)
    rx = np.array([[1, 0, 0], [0, math.cos(x), -math.sin(x)], [0, math.sin(x), math.cos(x)]])
    ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    rz = np.array([[math.cos(z), -math.sin(z), 0], [math.sin(z), math.cos(z), 0], [0, 0, 1]])
    return rz @ ry @ rx
