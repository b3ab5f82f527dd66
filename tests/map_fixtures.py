"""Shared helpers of the map tests: the bundled sample's files, decoded and re-encoded after an edit."""

from __future__ import annotations

from pathlib import Path

from core.authoring.maps import SAMPLE_MAP, sample_map_files

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "maps"
LAND_MSH = f"DATA/MAPS/{SAMPLE_MAP}/Land.msh"
LAND_MAP = f"DATA/MAPS/{SAMPLE_MAP}/Land.map"
LAND1 = f"DATA/MAPS/{SAMPLE_MAP}/Land1.wea"
LAND2 = f"DATA/MAPS/{SAMPLE_MAP}/Land2.wea"
MISSION = f"MISSIONS/{SAMPLE_MAP}/data.tma"


def write_sample(root: Path, files: dict[str, bytes] | None = None) -> Path:
    """The sample map and mission written below ``root`` (the game folder); ``files`` replaces some of them."""
    for relative, data in {**sample_map_files(), **(files or {})}.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def decode_everything(name: str, data: bytes) -> None:
    """Every reader, check and writer a file of this kind goes through; for bad bytes, FormatError only."""
    from core.map import landmsh
    from core.map.arealmap import ArealMap
    from core.map.tma import parse_tma
    from core.map.validate import validate_areal_map, validate_land, validate_mission
    from core.map.wea import parse_land_wea, validate_land_wea

    if name.endswith(".msh"):
        mesh = landmsh.LandMesh.parse(data, name)
        validate_land(mesh)
        mesh.summary()
        mesh.height_at(100.0, 100.0)
        assert mesh.to_bytes() == data
    elif name.endswith(".map"):
        areal_map = ArealMap.parse(data, name)
        validate_areal_map(areal_map)
        areal_map.summary()
        assert areal_map.to_bytes() == data
    elif name.endswith(".tma"):
        mission = parse_tma(data, name)
        validate_mission(mission)
        assert mission.to_bytes() == data
    else:
        validate_land_wea(data)
        assert parse_land_wea(data, name).to_bytes() == data
