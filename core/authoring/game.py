"""A synthetic game folder of any size (for the asset library's tests and benchmark): the synthetic units'
files (core.authoring.units) with ``units`` unit trees (robots of every type and buildings, each with its own
display name), ``models`` generated models in archives of ten, and the material and texture libraries."""

from __future__ import annotations

import copy
from pathlib import Path

from ..appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID
from ..container.nres import Archive
from ..unit.dat import UNIT_TYPES
from ..unit.text import with_text
from . import units
from .build import build_model
from .synth import material_entry, random_model, sample_libraries

MODELS_PER_ARCHIVE = 10
WEAR = b"3\r\n0 SAMPLE_BODY\r\n1 SAMPLE_METAL\r\n2 DEFAULT\r\n"
ROBOT_TYPES = sorted(word for word in UNIT_TYPES if not word & 0x80000000)


def model_archive(first: int, count: int) -> Archive:
    """``count`` generated models (seeds ``first``...), each with its material list."""
    archive = Archive()
    for seed in range(first, first + count):
        name = f"prop_{seed:03d}"
        archive.add(f"{name}.msh", build_model(random_model(seed, node_count=4, frame_count=20,
                                                            name=f"{name}.msh")).to_bytes())
        archive.add(f"{name}.wea", WEAR, WEAR_TYPE_ID, **WEAR_ATTRS)
    return archive


def unit_trees(count: int) -> dict[str, bytes]:
    """``count`` unit trees: robots of each type in turn, every fifth a building; each named by its number."""
    out = {}
    for n in range(count):
        building = n % 5 == 4
        tree = copy.deepcopy(units.fort_tree() if building else units.unit_tree())
        if not building:
            tree.type_word = ROBOT_TYPES[n % len(ROBOT_TYPES)]
        root = tree.components[0]
        root.display_raw = with_text(root.display_raw, f"{'Форт' if building else 'Робот'} №{n + 1}")
        out[f"UNITS/GEN/unit_{n:03d}.dat"] = tree.to_bytes()
    return out


def game_files(models: int, unit_count: int) -> dict[str, bytes]:
    """The folder's files by path: objects.rlb and the parts archive (10 models, units.MEMBERS), ``unit_count``
    unit trees, ``models`` further models, and Material.lib, Textures.lib, LightMap.lib."""
    files = {units.OBJECTS: units.objects_archive().to_bytes(), units.PARTS: units.parts_archive().to_bytes()}
    files.update(unit_trees(unit_count))
    for first in range(0, models, MODELS_PER_ARCHIVE):
        count = min(MODELS_PER_ARCHIVE, models - first)
        files[f"MODELS/props_{first // MODELS_PER_ARCHIVE:02d}.rlb"] = model_archive(first, count).to_bytes()
    libraries = sample_libraries()
    for name, diffuse in (("SYNTH_HULL", (0.6, 0.65, 0.5, 1.0)), ("SYNTH_METAL", (0.8, 0.8, 0.85, 1.0))):
        entry, data, type_id, attrs = material_entry(name, diffuse, "METAL.0")
        libraries["Material.lib"].add(entry, data, type_id, **attrs)
    files.update({name: archive.to_bytes() for name, archive in libraries.items()})
    return files


def write_game(folder: Path, models: int, unit_count: int) -> Path:
    for name, data in game_files(models, unit_count).items():
        path = Path(folder) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return Path(folder)
