"""The bundled samples look like the game's world (robots of hull, turret, gun and legs with painted plates, a
map with hills, a lake and textured ground, the mission's objects as the unit, forts, trees and rocks), and the
README's first pictures are the main job's thumbnails of them (docs/pictures/; the tour renders them, and
tests/test_main_job.py checks the committed ones are what it renders)."""

import re
import struct
from pathlib import Path

import numpy as np

from core.appearance.texm import parse_texm
from core.container.nres import Archive
from core.map import landmsh as L
from core.map.tma import parse_tma
from core.msh.model import Model
from core.unit.objects import tag_id

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
PICTURES = ROOT / "docs" / "pictures"
NAMES = ("walker_mid_stride", "unit_assembled", "mission_from_above")  # scripts/main_job_features.README_PICTURES


def _features():
    import importlib.util

    spec = importlib.util.spec_from_file_location("main_job_features", ROOT / "scripts" / "main_job_features.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


def test_the_readmes_first_pictures_are_the_main_jobs_thumbnails():
    assert _features().README_PICTURES == NAMES
    assert sorted(p.name for p in PICTURES.iterdir()) == sorted(f"{n}.png" for n in NAMES)
    for name in NAMES:
        path = PICTURES / f"{name}.png"
        assert png_size(path) == (256, 256) and path.stat().st_size < 150_000, name
    for readme in ("README.md", "README.ru.md"):
        text = (ROOT / readme).read_text(encoding="utf-8")
        head = text[:text.index("\n## ")]  # before the first section: the pictures come first
        assert re.findall(r'src="([^"]+)"', head) == [f"docs/pictures/{n}.png" for n in NAMES], readme
        assert head.index("<img") < head.index("\n\n", head.index("\n") + 1), readme  # right under the title


def test_the_sample_models_are_robots_of_several_solids_each():
    walker = Model.parse((SAMPLES / "walker" / "walker.msh").read_bytes())
    assert [walker.node_name(i) for i in range(walker.node_count)] == ["body", "turret", "gun", "leg_l", "leg_r"]
    sample = Model.parse((SAMPLES / "sample.msh").read_bytes())
    parts = Archive.parse((SAMPLES / "unit" / "synth_parts.rlb").read_bytes())
    chassis = Model.parse(bytes(parts.find("synth_chassis.msh").data))
    for model, least in ((walker, 500), (sample, 500), (chassis, 300)):
        assert len(model.positions) >= least   # a box per node would be 8 corners each


def test_the_sample_textures_are_painted_plates():
    textures = Archive.parse((SAMPLES / "Textures.lib").read_bytes())
    body = parse_texm(bytes(textures.find("BODY.0").data))
    assert (body.width, body.height, body.format) == (128, 64, 8888) and body.cell(2) == (0.5, 0.0, 0.5, 1.0)
    metal = parse_texm(bytes(textures.find("METAL.0").data)).decode().astype(int)
    assert metal.shape == (64, 64, 4)
    yellow = (metal[..., 0] > 170) & (metal[..., 1] > 130) & (metal[..., 2] < 90)
    assert 0.03 < yellow.mean() < 0.2                      # the hazard stripes' band
    pixels = body.decode().astype(int)
    seams = pixels[:, 64, :3].mean() < pixels[:, 70:90, :3].mean() * 0.7   # a dark seam down the plate's edge
    assert seams and pixels[..., :3].std() > 10
    for folder in ("walker", "unit"):
        assert (SAMPLES / folder / "Textures.lib").read_bytes() == (SAMPLES / "Textures.lib").read_bytes()


def test_the_sample_map_has_relief_a_lake_textured_ground_and_the_objects_its_mission_places():
    maps = SAMPLES / "maps"
    mesh = L.LandMesh.parse((maps / "DATA" / "MAPS" / "SAMPLE" / "Land.msh").read_bytes())
    heights = mesh.positions[:, 2]
    assert np.ptp(heights) > 40 and mesh.summary()["water_levels"] == [4.0]
    textures = Archive.parse((maps / "Textures.lib").read_bytes())
    grass = parse_texm(bytes(textures.find("L00.0").data)).decode().astype(int)
    assert grass.shape[0] >= 64 and grass[..., 1].std() > 5   # not one flat colour
    mission = parse_tma((maps / "MISSIONS" / "SAMPLE" / "data.tma").read_bytes())
    records = Archive.parse((maps / "objects.rlb").read_bytes())
    for obj in mission.objects:
        path = obj.path.split(b"\0", 1)[0].decode("ascii")
        if obj.is_scenery:
            assert records.find(path).type_id == tag_id("STAT"), path
        else:
            assert (maps / path.replace("\\", "/")).is_file(), path
    parts = Archive.parse((maps / "synth_parts.rlb").read_bytes())
    assert parts.find("synth_tree.msh") is not None and parts.find("synth_rock.msh") is not None
