"""Which command module reads a file, told by its name alone (nothing here imports a codec): so that ``info``,
``validate`` and ``roundtrip`` import only the modules the files given need."""

from __future__ import annotations

import os

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
