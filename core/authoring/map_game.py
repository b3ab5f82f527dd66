"""A whole synthetic game folder around a synthetic map and mission (core.authoring.maps): the ground's
Material.lib and Textures.lib (each Land1/Land2 name a material with a texture, and a track 1 naming a
microtexture entry, as the retail ground materials have), and the units, buildings, trees and rocks the mission
names (core.authoring.units' robot and fort as .dat files, objects.rlb STAT records for the scenery). For the
map import's tests and the benchmarks."""

from __future__ import annotations

import numpy as np

from ..appearance.mat0 import ANIM_KEY, MAT0_TYPE_ID, AnimBlock, Material, blend_attr1, phase
from ..appearance.texm import TEXM_TYPE_ID, encode_texm
from ..sky.ske import write_ske
from ..unit.objects import tag_id
from . import units as U
from .briefing import synthetic_briefing
from .maps import LAND1, LAND2, SAMPLE_MAP, MapSpec, map_files, object_path, synthetic_land, synthetic_mission
from .sky import sky_wea, synthetic_sky
from .synth import checker, ground, robot_libraries

MICRO = "MICRO.0"
COLOURS = {"B_S0": (120, 100, 80), "L00": (90, 140, 60), "L01": (150, 130, 90), "L02": (110, 110, 120),
           "WATER": (40, 80, 160), "DEFAULT": (128, 128, 128), "L05": (100, 150, 70), "L32": (140, 120, 100)}
SCENERY_MODELS = {2: "e_gun_ll_01", 3: "e_tur_mt_01"}   # the part models trees and rocks show
ROBOT_SCENERY = {2: "synth_tree", 3: "synth_rock"}      # with robot=True


def _ground_material(texture: str) -> Material:
    phases = np.array([phase((1.0, 1.0, 1.0, 1.0), texture), phase((1.0, 1.0, 1.0, 1.0), MICRO)])
    tracks = [AnimBlock(0, np.array([(0, 0, 0)], ANIM_KEY)), AnimBlock(0, np.array([(1, 0, 0)], ANIM_KEY))]
    return Material(blend_attr1("OPAQUE", False), phases=phases, animations=tracks)


PAINTED = {"L00": 64, "L01": 64, "L02": 64, "WATER": 64}   # the robot look: the ground's textures (size in px)
PAINTED_COLOURS = {"L00": (84, 118, 52), "L01": (100, 112, 58), "L02": (112, 104, 76)}   # grass, meadow, earth


def _ground_texture(name: str, robot: bool) -> bytes:
    r, g, b = COLOURS.get(name, (128, 128, 128))
    if not robot:
        return encode_texm(checker(16, (r, g, b, 255), (r // 2, g // 2, b // 2, 255)), 565).to_bytes()
    colour = PAINTED_COLOURS.get(name, (r, g, b))
    return encode_texm(ground(PAINTED.get(name, 16), colour, seed=sum(map(ord, name)), cracks=name == "L02"),
                       565, mips=False).to_bytes()


def ground_libraries(robot: bool = False) -> dict[str, bytes]:
    """Material.lib and Textures.lib for every Land1/Land2 name of the generator (``robot``: painted ground
    textures, and the unit's materials textured as samples/unit's are)."""
    from ..container.nres import Archive

    materials, textures = Archive(), Archive()
    for name in dict.fromkeys(LAND1 + LAND2):
        material = _ground_material(f"{name}.0")
        materials.add(name, material.to_bytes(), MAT0_TYPE_ID, attr1=material.attr1, attr2=material.attr2)
        textures.add(f"{name}.0", _ground_texture(name, robot), TEXM_TYPE_ID)
    robot_libs = robot_libraries() if robot else {}
    for name, colour, source in (("SYNTH_HULL", (0.6, 0.6, 0.5, 1.0), "SAMPLE_BODY"),
                                 ("SYNTH_METAL", (0.5, 0.55, 0.6, 1.0), "SAMPLE_METAL")):
        if robot:
            entry = robot_libs["Material.lib"].find(source)
            materials.add(name, bytes(entry.data), MAT0_TYPE_ID, attr1=entry.attr1, attr2=entry.attr2)
            continue
        material = Material(blend_attr1("OPAQUE", False), phases=np.array([phase(colour)]))
        materials.add(name, material.to_bytes(), MAT0_TYPE_ID, attr1=material.attr1, attr2=material.attr2)
    for entry in robot_libs["Textures.lib"].entries if robot else []:
        if entry.name_str in ("BODY.0", "METAL.0"):
            textures.add(entry.name_str, bytes(entry.data), entry.type_id)
    textures.add(MICRO, encode_texm(checker(8, (110, 110, 110, 255), (146, 146, 146, 255), 2), 565).to_bytes(),
                 TEXM_TYPE_ID)
    return {"Material.lib": materials.to_bytes(), "Textures.lib": textures.to_bytes()}


def mission_game_files(spec: MapSpec | None = None, objects: int = 12, kinds: int = 8,
                       name: str = SAMPLE_MAP, robot: bool = False) -> dict[str, bytes]:
    """Every file of a game folder holding the map, a mission on it and what the mission names, by path
    (``robot``: the robot look of the bundled sample: units in shapes, painted textures, trees and rocks)."""
    spec = spec if spec is not None else MapSpec()
    mesh, _land1, _land2 = synthetic_land(spec)
    folder = f"DATA/MAPS/{name}/"
    files = {folder + key: data for key, data in map_files(spec).items()}
    files[f"MISSIONS/{name}/data.tma"] = synthetic_mission(mesh, name, objects, kinds).to_bytes()
    files.update(ground_libraries(robot))
    game = U.unit_files(robot)
    scenery = ROBOT_SCENERY if robot else SCENERY_MODELS
    records = U.objects_archive()
    for variant in range(kinds):
        kind = variant % 4
        path = object_path(kind, variant).decode("ascii")
        if kind == 0:
            files[path.replace("\\", "/")] = game[U.FORT_DAT]
        elif kind == 1:
            files[path.replace("\\", "/")] = game[U.UNIT_DAT]
        else:
            records.add(path, U.part_slots(scenery[kind], 1), tag_id("STAT"))
    files[U.OBJECTS] = records.to_bytes()
    files[U.PARTS] = game[U.PARTS]
    return files


def mission_world_files(name: str = SAMPLE_MAP) -> dict[str, bytes]:
    """A mission's sky (sky.ske and its nine materials, sky.wea) and its briefing flythrough, by path."""
    folder = f"MISSIONS/{name}/"
    return {folder + "sky.ske": write_ske(synthetic_sky()), folder + "sky.wea": sky_wea(),
            folder + "briefing.cfg": synthetic_briefing(scale=3.0)}
