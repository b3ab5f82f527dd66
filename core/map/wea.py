"""``Land1.wea`` and ``Land2.wea`` (openparkan docs/03-terrain.md): WEAR text lists of Material.lib
names, looked up by position. Land1 names the material of a face (face word 2, both bytes), Land2 at the same
position the material whose track 1 is the microtexture. The grammar and the lossless writer are the model
material list's (core.appearance.wear)."""

from __future__ import annotations

from ..appearance.wear import Wear, parse_wear, validate_wear
from ..errors import Finding, error

STREAM = "WEAR"
FOOTING_SLOT = 0  # Land1 slot 0: the basement material the engine puts under buildings (03-terrain.md)


def parse_land_wea(data: bytes | memoryview, source: str = "") -> Wear:
    """A Land1/Land2 list; FormatError naming the line where it breaks the grammar."""
    return parse_wear(data, source)


def validate_land_wea(data: bytes | memoryview) -> list[Finding]:
    return validate_wear(data)


def check_pair(land1: Wear, land2: Wear) -> list[Finding]:
    """Land2 holds one row per Land1 row (33/33 retail maps, 03-terrain.md)."""
    if len(land1.materials) != len(land2.materials):
        return [error("Land2.wea", None, f"{len(land2.materials)} rows, Land1.wea has {len(land1.materials)} "
                                         "(one microtexture material per Land1 material)")]
    return []


__all__ = ["FOOTING_SLOT", "Wear", "check_pair", "parse_land_wea", "validate_land_wea"]
