"""A map's folder and a mission's files on disk: each file opened by its kind, the map a mission names found
below the game folder (03-terrain.md: the trailer string ``DATA\\MAPS\\SC_3\\land``, any case), the files its objects
name looked up, and the checks that need several files together (materials against Land1.wea, Land2 beside
Land1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..appearance.wear import Wear
from ..container.nres import Archive, lookup_key
from ..disk import names_in, read_input
from ..errors import Finding, FormatError, error, warning
from . import validate as V
from .arealmap import ArealMap
from .landmsh import LandMesh
from .tma import Mission, parse_tma, text
from .wea import check_pair, parse_land_wea, validate_land_wea

LAND_MSH, LAND_MAP, LAND1, LAND2, MISSION = "Land.msh", "Land.map", "Land1.wea", "Land2.wea", "data.tma"
MAP_FILES = (LAND_MSH, LAND_MAP, LAND1, LAND2)
TEXT_SUFFIXES = (".tma", ".wea")
OBJECTS = "objects.rlb"
MISSING_NAMED = 20  # missing object files named one by one; the rest are counted


def is_text_map_file(path: str | Path) -> bool:
    """A mission (.tma) or a material list of a map (.wea): files that are not NRes containers."""
    return str(path).lower().endswith(TEXT_SUFFIXES)


def _located(findings: list[Finding], where: str) -> list[Finding]:
    return [f.located(where) for f in findings]


def validate_archive(archive: Archive, kind: str, source: str = "") -> list[Finding]:
    try:
        if kind == "land":
            return V.validate_land(LandMesh.from_archive(archive, source))
        return V.validate_areal_map(ArealMap.from_archive(archive, source))
    except FormatError as exc:
        return exc.findings


def rewritten_archive(archive: Archive, kind: str, source: str = "") -> bytes:
    """The container written back after decoding every record of a Land.msh or a Land.map."""
    if kind == "land":
        return LandMesh.from_archive(Archive.parse(archive.to_bytes(), source), source).to_bytes()
    return ArealMap.parse(archive.to_bytes(), source).to_bytes()


def validate_text_file(path: str | Path) -> list[Finding]:
    """The findings of a .tma or .wea file (OSError when it cannot be read)."""
    data = read_input(path)
    if str(path).lower().endswith(".wea"):
        return validate_land_wea(data)
    try:
        mission = parse_tma(data, str(path))
    except FormatError as exc:
        return exc.findings
    findings = V.validate_mission(mission)
    if mission.object_version > 1 and mission.map_text:
        try:
            resolve_map(path, mission)
        except FormatError as exc:  # a mission checked alone may be kept apart from its game: a warning
            findings += [warning(f.stream, f.index, f.message) for f in exc.findings]
    return findings


def rewritten_text_file(path: str | Path, data: bytes) -> bytes:
    if str(path).lower().endswith(".wea"):
        return parse_land_wea(data, str(path)).to_bytes()
    return parse_tma(data, str(path)).to_bytes()


# --------------------------------------------------------------------- a map folder
@dataclass(eq=False)
class MapFolder:
    """The files of one map, each None when absent; ``findings`` holds what could not be read and the checks of
    the files together."""

    folder: Path
    mesh: LandMesh | None = None
    areal_map: ArealMap | None = None
    land1: Wear | None = None
    land2: Wear | None = None
    missing: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def summary(self) -> dict:
        out: dict = {"folder": str(self.folder), "missing": self.missing}
        if self.mesh is not None:
            out["land"] = self.mesh.summary()
            first, second = self.mesh.materials()
            split = self.mesh.level_split
            names = self.land1.materials if self.land1 is not None else []
            micro = self.land2.materials if self.land2 is not None else []
            rows = []
            for slot in range(max([len(names), *(int(m) + 1 for m in out["land"]["materials_used"])], default=0)):
                rows.append({"slot": slot, "name": names[slot] if slot < len(names) else None,
                             "microtexture": micro[slot] if slot < len(micro) else None,
                             "faces": [int((first[:split] == slot).sum()), int((first[split:] == slot).sum())],
                             "second": [int((second[:split] == slot).sum()), int((second[split:] == slot).sum())]})
            out["materials"] = rows
        if self.areal_map is not None:
            out["areal_map"] = self.areal_map.summary()
        return out


def _find(folder: Path, name: str) -> Path | None:
    try:
        found = names_in(folder).get(name.lower())
    except OSError:
        return None
    return folder / found if found is not None else None


def open_map_folder(folder: str | Path) -> MapFolder:
    """Read a map's files (any case) from ``folder``; a file that does not decode is a finding naming it. Only
    Land.msh is required (``missing`` lists the others that are absent)."""
    result = MapFolder(Path(folder))
    readers = {LAND_MSH: LandMesh.parse, LAND_MAP: ArealMap.parse, LAND1: parse_land_wea, LAND2: parse_land_wea}
    decoded = {}
    for name in MAP_FILES:
        path = _find(result.folder, name)
        if path is None:
            result.missing.append(name)
            if name == LAND_MSH:
                result.findings.append(error(name, None, f"no {name} in {result.folder}"))
            continue
        try:
            decoded[name] = readers[name](read_input(path), str(path))
        except FormatError as exc:
            result.findings += _located(exc.findings, name)
        except OSError as exc:
            result.findings.append(error(name, None, f"cannot read: {exc.strerror or exc}"))
    result.mesh, result.areal_map = decoded.get(LAND_MSH), decoded.get(LAND_MAP)
    result.land1, result.land2 = decoded.get(LAND1), decoded.get(LAND2)
    if result.mesh is not None:
        result.findings += _located(V.validate_land(result.mesh), LAND_MSH)
        if result.land1 is not None:
            result.findings += _located(V.validate_materials(result.mesh, len(result.land1.materials)), LAND_MSH)
    if result.areal_map is not None:
        result.findings += _located(V.validate_areal_map(result.areal_map), LAND_MAP)
    if result.land1 is not None and result.land2 is not None:
        result.findings += check_pair(result.land1, result.land2)
    return result


# --------------------------------------------------------------------- a mission
def map_folder_parts(mission: Mission) -> list[str]:
    """The folder parts of the map path (``DATA\\MAPS\\SC_3\\land`` -> DATA, MAPS, SC_3): the last part is the
    engine's base name of the map's files."""
    parts = [p for p in text(mission.map_path).replace("\\", "/").split("/") if p and p != "."]
    return parts[:-1]


def _locate(folder: Path, parts: list[str]) -> Path | None:
    place = folder
    for part in parts:
        if part == ".." or not place.is_dir():
            return None
        found = _find(place, part)
        if found is None:
            return None
        place = found
    return place


def game_folder_of(mission_path: str | Path, mission: Mission) -> Path | None:
    """The nearest folder at or above the mission's where its map path leads to a folder holding a Land.msh."""
    parts = map_folder_parts(mission)
    start = Path(mission_path).resolve().parent
    for folder in (start, *start.parents):
        place = _locate(folder, parts)
        if place is not None and place.is_dir() and _find(place, LAND_MSH) is not None:
            return folder
    return None


def resolve_map(mission_path: str | Path, mission: Mission, game: str | Path | None = None) -> Path:
    """The folder of the map the mission names: below ``game`` when its path leads there, else below the
    nearest folder above the mission where it does (a mission kept in a folder of its own, or a folder of
    several game trees given as the game). FormatError naming the mission file and its trailer when the path
    is empty or leads to no folder holding a Land.msh."""
    parts = map_folder_parts(mission)
    shown = text(mission.map_path)
    if not parts:
        raise FormatError.single("trailer", None, f"map path '{shown}' names no map folder", str(mission_path))
    place = _locate(Path(game), parts) if game is not None else None
    if place is None or _find(place, LAND_MSH) is None:
        root = game_folder_of(mission_path, mission)
        place = _locate(root, parts) if root is not None else None
    if place is None:
        below = f"below {game} or " if game is not None else "below "
        raise FormatError.single("trailer", None, f"map '{shown}': no folder holding Land.msh {below}any folder "
                                                  "above the mission", str(mission_path))
    return place


@dataclass(eq=False)
class MissionFiles:
    mission: Mission
    game: Path | None
    map: MapFolder | None
    missing: list[tuple[int, str]] = field(default_factory=list)   # (object index, path) not found
    findings: list[Finding] = field(default_factory=list)


def open_mission(path: str | Path, game: str | Path | None = None) -> MissionFiles:
    """A mission with its map and the files its objects name. FormatError when data.tma does not decode;
    a missing map is an error finding, a missing object file a warning (both listed)."""
    mission = parse_tma(read_input(path), str(path))
    result = MissionFiles(mission, None, None, findings=V.validate_mission(mission))
    try:
        folder = resolve_map(path, mission, game)
    except FormatError as exc:
        result.findings += exc.findings
        root = Path(game) if game is not None else None
    else:
        root = folder  # the game folder the map was found in: the objects' paths start there too
        for _ in map_folder_parts(mission):
            root = root.parent
        result.map = open_map_folder(folder)
        result.findings += result.map.findings
        _placement_checks(result)
    result.game = root
    if root is not None:
        _object_files(result, root)
    return result


def _placement_checks(result: MissionFiles) -> None:
    mesh = result.map.mesh if result.map is not None else None
    if mesh is None or not len(mesh.positions):
        return
    lo, hi = mesh.positions.min(axis=0), mesh.positions.max(axis=0)
    for i, obj in enumerate(result.mission.objects):
        x, y = float(obj.position[0]), float(obj.position[1])
        if not (lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]):
            result.findings.append(warning("objects", i, f"position ({x:g}, {y:g}) lies outside the map's extent"))


def _object_files(result: MissionFiles, root: Path) -> None:
    records = None  # objects.rlb's entries by lookup_key (Archive.name_index: one look-up a scenery object)
    rlb = _find(root, OBJECTS)
    if rlb is not None:
        try:
            records = Archive.parse(read_input(rlb), str(rlb)).name_index()
        except (FormatError, OSError):
            records = None
    unchecked = 0
    for i, obj in enumerate(result.mission.objects):
        name = text(obj.path)
        if obj.is_scenery:
            if records is None:
                unchecked += 1
                continue
            found = lookup_key(obj.path.split(b"\0", 1)[0]) in records
        else:
            parts = [p for p in name.replace("\\", "/").split("/") if p]
            place = _locate(root, parts)
            found = place is not None and place.is_file()
        if not found:
            result.missing.append((i, name))
    for index, name in result.missing[:MISSING_NAMED]:
        result.findings.append(warning("objects", index, f"'{name}' not found below {root}"))
    if len(result.missing) > MISSING_NAMED:
        result.findings.append(warning("objects", None, f"{len(result.missing) - MISSING_NAMED} more objects name "
                                                        f"files not found below {root}"))
    if unchecked:
        result.findings.append(warning("objects", None, f"no {OBJECTS} below {root}: {unchecked} trees and rocks "
                                                        "not checked"))
