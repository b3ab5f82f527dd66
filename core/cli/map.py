"""``python -m core map``: a map (grid, faces per level, materials, water, areals) or a mission (clans, objects
by kind, its map, what is missing); and the map and mission files for ``info``, ``validate``, ``roundtrip``."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from ..disk import names_in, read_input
from ..errors import Finding, FormatError
from ..files import Container
from ..map.arealmap import ArealMap
from ..map.folder import (
    LAND_MSH,
    MISSION,
    MapFolder,
    is_text_map_file,
    open_map_folder,
    open_mission,
    rewritten_text_file,
    validate_text_file,
)
from ..map.landmsh import LandMesh
from ..map.tma import CLAN_TYPES, KIND_NAMES, Mission, parse_tma, text
from ..map.wea import parse_land_wea
from .kinds import MAP_SUFFIXES
from .output import EXIT_BAD_DATA, EXIT_OK, emit, emit_json

SUFFIXES = MAP_SUFFIXES  # what validate, roundtrip and info read in a folder, besides .msh

__all__ = ["SUFFIXES", "cmd_map", "info", "is_text_map_file", "rewritten_file", "validate_file"]


def validate_file(path: str) -> list[Finding]:
    return validate_text_file(path)


def rewritten_file(path: str, data: bytes) -> bytes:
    return rewritten_text_file(path, data)


# --------------------------------------------------------------------- summaries
def land_lines(summary: dict) -> list[str]:
    (x0, y0, z0), (x1, y1, z1) = summary["extent"]
    across, down = summary["grid"]
    cell = (x1 - x0) / across if across else 0.0
    lines = [f"  grid {across} x {down} cells of {cell:g} units; {summary['vertices']} vertices; "
             f"extent x {x0:g}..{x1:g}, y {y0:g}..{y1:g}, z {z0:g}..{z1:g}",
             f"  faces: level 0 {summary['faces'][0]}, level 1 {summary['faces'][1]}; "
             f"{summary['second_material_faces']} with a second material"]
    if summary["water_faces"]:
        levels = ", ".join(f"{z:g}" for z in summary["water_levels"])
        lines.append(f"  water: {summary['water_faces']} faces at z {levels}")
    else:
        lines.append("  water: none")
    return lines


def map_lines(result: MapFolder) -> list[str]:
    summary = result.summary()
    lines = [f"{summary['folder']}: map"]
    if "land" in summary:
        lines += land_lines(summary["land"])
    for row in summary.get("materials", []):
        if not any(row["faces"]) and not any(row["second"]) and row["slot"]:
            continue
        lines.append(f"  material {row['slot']:3} {row['name'] or '(no Land1 row)':16} microtexture "
                     f"{row['microtexture'] or '-':16} faces {row['faces'][0]}/{row['faces'][1]}"
                     + (f", second on {row['second'][0]}/{row['second'][1]}" if any(row["second"]) else ""))
    if "areal_map" in summary:
        a = summary["areal_map"]
        lines.append(f"  areal map: {a['areals']} areals ({a['lakes']} lakes), lookup grid {a['grid'][0]} x "
                     f"{a['grid'][1]}")
    if summary["missing"]:
        lines.append(f"  missing: {', '.join(summary['missing'])}")
    return lines


def mission_summary(mission: Mission) -> dict:
    owned = Counter(o.clan for o in mission.objects if o.kind in (0, 1))
    kinds = Counter(o.kind_name for o in mission.objects)
    return {
        "versions": [mission.version, mission.clan_version, mission.object_version],
        "map": mission.map_text, "description": text(mission.description),
        "routes": len(mission.routes), "lodes": 0 if mission.lodes is None else len(mission.lodes),
        "clans": [{"index": i, "name": text(c.name), "type": CLAN_TYPES.get(c.type, str(c.type)),
                   "objects": owned.get(i, 0)} for i, c in enumerate(mission.clans)],
        "objects": len(mission.objects),
        "by_kind": {name: kinds.get(name, 0) for name in KIND_NAMES.values()},
        "files": len({text(o.path).lower() for o in mission.objects}),
    }


def mission_lines(path: str, summary: dict) -> list[str]:
    v = summary["versions"]
    lines = [f"{path}: mission (versions {v[0]}/{v[1]}/{v[2]}), map '{summary['map']}'",
             f"  description: {summary['description']!r}; {summary['routes']} routes, {summary['lodes']} lodes",
             f"  clans: {len(summary['clans'])}"]
    lines += [f"    {c['index']:3} {c['name']} ({c['type']}): {c['objects']} units and buildings"
              for c in summary["clans"]]
    kinds = ", ".join(f"{n} {k}" for k, n in summary["by_kind"].items())
    lines.append(f"  objects: {summary['objects']} ({kinds}), {summary['files']} distinct files")
    return lines


# --------------------------------------------------------------------- info
def info(args: argparse.Namespace, container: Container | None, out) -> int:
    """``info`` of a map or mission file: what ``out(args, payload, lines)`` prints."""
    path = args.file
    if container is None:
        data = read_input(path)
        if path.lower().endswith(".wea"):
            wear = parse_land_wea(data, path)
            payload = {"path": path, "kind": "material list", "materials": wear.materials}
            lines = [f"{path}: material list, {len(wear.materials)} materials"]
            lines += [f"  {i:3} {name}" for i, name in enumerate(wear.materials)]
        else:
            mission = parse_tma(data, path)
            payload = {"path": path, "kind": "mission", **mission_summary(mission)}
            lines = mission_lines(path, payload)
    elif any(e.unreadable is not None for e in container.archive.entries):
        raise FormatError([e.unreadable for e in container.archive.entries if e.unreadable is not None], path)
    elif container.map_kind == "land":
        mesh = LandMesh.from_archive(container.archive, path)
        payload = {"path": path, "kind": "terrain mesh", **mesh.summary()}
        lines = [f"{path}: terrain mesh, {len(container.archive)} streams", *land_lines(payload)]
    else:
        areal_map = ArealMap.from_archive(container.archive, path)
        payload = {"path": path, "kind": "areal map", **areal_map.summary()}
        lines = [f"{path}: areal map, {payload['areals']} areals ({payload['lakes']} lakes), "
                 f"{payload['vertices']} vertices, lookup grid {payload['grid'][0]} x {payload['grid'][1]}"]
    out(args, payload, lines)
    return EXIT_OK


# --------------------------------------------------------------------- map
def _target(path: str) -> tuple[str, Path]:
    """("mission", data.tma) or ("map", its folder), from a file or a folder."""
    place = Path(path)
    if place.is_dir():
        names = names_in(place)
        if MISSION.lower() in names:
            return "mission", place / names[MISSION.lower()]
        if LAND_MSH.lower() in names:
            return "map", place
        raise FileNotFoundError(2, f"neither {MISSION} nor {LAND_MSH} in the folder", path)
    read_input(place)  # OSError now for what is not a readable file
    if place.suffix.lower() == ".tma":
        return "mission", place
    return "map", place.parent


def cmd_map(args: argparse.Namespace) -> int:
    kind, place = _target(args.file)
    if kind == "mission":
        files = open_mission(place, args.game)
        payload = {"path": args.file, "kind": "mission", **mission_summary(files.mission),
                   "game": None if files.game is None else str(files.game),
                   "missing": [{"object": i, "path": p} for i, p in files.missing]}
        lines = mission_lines(args.file, payload)
        if files.map is not None:
            payload["map_folder"] = files.map.summary()
            lines += ["", *map_lines(files.map)]
        if files.missing:
            lines.append(f"  missing: {len(files.missing)} objects name files not found: "
                         + ", ".join(sorted({p for _, p in files.missing})[:10]))
        findings = files.findings
    else:
        result = open_map_folder(place)
        payload = {"path": args.file, "kind": "map", **result.summary()}
        lines = map_lines(result)
        findings = result.findings
    payload["findings"] = [f.as_dict() for f in findings]
    source = str(place)
    if args.json:
        emit_json(payload)
    else:
        emit("\n".join(lines))
        for f in findings:
            emit(f.format(source), file=sys.stderr if f.is_error else sys.stdout)
    return EXIT_BAD_DATA if any(f.is_error for f in findings) else EXIT_OK
