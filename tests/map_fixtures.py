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
