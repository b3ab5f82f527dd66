"""Which command module reads a file, told by its name alone (nothing here imports a codec): so that ``info``,
``validate`` and ``roundtrip`` import only the modules the files given need."""

from __future__ import annotations

import os
import stat

UNIT_SUFFIXES = (".dat", ".cpt", ".ndp")
OBJECTS = "objects.rlb"                 # the unit records: an archive the unit module reads
CONTROLLER_SUFFIX = ".ctl"              # as core.model_controller names it (a test keeps them equal)
TEXT_MAP_SUFFIXES = (".tma", ".wea")    # as core.map.folder names them (a test keeps them equal)
MAP_SUFFIXES = (*TEXT_MAP_SUFFIXES, ".map")
EXPLOSION_SUFFIX = ".exp"               # a bare explosion, as the game's archives name their EXPL members
# What validate, roundtrip and info read in a folder (recursively): models, archives and libraries, controllers,
# unit files, maps and missions.
SKY_SUFFIX = ".ske"                     # a mission's sky.ske (core.sky)
BRIEFING = "briefing.cfg"               # a campaign mission's briefing flythrough (core.briefing)
GROUND_PLAN_SUFFIX = ".bas"             # a building's ground plan, as fortif.rlb names its BASE members
FONT_SUFFIXES = (".tft", ".pal")       # a bare font or palette (core.cli.rsli reads them)
RSLI_MAGIC = b"NL\x00\x01"            # an RsLi archive's first bytes, as core.rsli names them
BAS_TYPE_ID = int.from_bytes(b"BASE", "little")  # a ground plan's entry, as core.interior.bas names it
HALLWAY_STREAM = 17                     # a model's hall way, as core.interior.hallway names it (its TYPE_ID)
UNDERSTOOD = (".msh", ".rlb", ".lib", *UNIT_SUFFIXES, CONTROLLER_SUFFIX, *MAP_SUFFIXES, EXPLOSION_SUFFIX, SKY_SUFFIX,
              BRIEFING, GROUND_PLAN_SUFFIX)


def is_unit_file(path: str) -> bool:
    """A file ``validate`` and ``roundtrip`` read with the unit module: by suffix, or an archive named
    objects.rlb."""
    name = os.path.basename(str(path)).lower()
    return name.endswith(UNIT_SUFFIXES) or name == OBJECTS


def is_sky(path: str) -> bool:
    return str(path).lower().endswith(SKY_SUFFIX)


def is_mission_world_file(path: str) -> bool:
    """A mission's sky or briefing (core.cli.world)."""
    return is_sky(path) or os.path.basename(str(path)).lower() == BRIEFING


def is_ground_plan(path: str) -> bool:
    return str(path).lower().endswith(GROUND_PLAN_SUFFIX)


def is_explosion(path: str) -> bool:
    return str(path).lower().endswith(EXPLOSION_SUFFIX)


def is_controller(path: str) -> bool:
    return str(path).lower().endswith(CONTROLLER_SUFFIX)


def is_text_map_file(path: str) -> bool:
    """A mission (.tma) or a material list of a map (.wea): files that are not NRes containers."""
    return str(path).lower().endswith(TEXT_MAP_SUFFIXES)


def is_font_file(path: str) -> bool:
    """A bare font or palette, as the archives name them (``ARIALTEX.TFT``, ``PAL.PAL``)."""
    return str(path).lower().endswith(FONT_SUFFIXES)


def is_rsli_file(path) -> bool:
    """Whether the file at ``path`` begins as an RsLi archive does (False when it cannot be read), told without
    loading core.rsli (as core.rsli.is_rsli_file tells it)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or device would block the open, or never end
            return False
        with open(path, "rb") as handle:
            return handle.read(4) == RSLI_MAGIC
    except (OSError, ValueError):
        return False


def has_interiors(archive, models) -> bool:
    """Whether an archive (core.container.nres.Archive) holds a ground plan or one of its models (core.msh.model
    Model) a hall way: what core.cli.interior summarises."""
    return any(e.type_id == BAS_TYPE_ID for e in archive) or any(m.stream(HALLWAY_STREAM) for m in models)
