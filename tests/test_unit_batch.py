"""Issue 20, item 7: the batch tool's convert and thumbnails take .dat units: the assembled unit in one
.blend/.glb and one thumbnail."""

import json
import subprocess

import numpy as np
import pytest
from test_batch import VALIDATOR, _glb_json, batch, progress
from unit_fixtures import loader, write_game

from core.authoring import units
from core.container.nres import Archive
from core.unit.dat import parse_dat
from core.unit.mount import unit_world_matrices
from core.unit.resolve import resolve_unit


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = write_game(tmp_path_factory.mktemp("unit_game"))
    (folder / "UNITS" / "notes.dat").write_bytes(b"not a unit at all")
    return folder


def test_convert_to_blend_holds_the_assembled_unit(blender, game, tmp_path):
    bpy = blender.bpy
    result = batch("convert", str(game / units.UNIT_DAT), str(game / units.FORT_DAT), "-o", str(tmp_path),
                   "--format", "blend")
    assert result.returncode == 0, result.stdout + result.stderr
    assert progress(result)[0] == {str(game / units.UNIT_DAT), str(game / units.FORT_DAT)}
    assert sorted(p.name for p in tmp_path.glob("*.blend")) == ["synth_fort.blend", "synth_unit.blend"]
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "synth_unit.blend"))
    roots = {o["msh_unit_component"]: o for o in bpy.data.objects if "msh_model" in o}
    assert sorted(roots) == list(range(8))
    files = units.unit_files()
    unit = resolve_unit(parse_dat(files[units.UNIT_DAT]), Archive.parse(files[units.OBJECTS]), loader(files))
    expected = unit_world_matrices(unit.assembly, unit.animations(), [10], normalize=True)
    bpy.context.scene.frame_set(10)
    for component, node, bone in ((2, 1, "Turn"), (6, 2, "muzzle")):
        root = roots[component]
        shown = np.array(root.matrix_world) @ np.array(root.pose.bones[bone].matrix)
        assert np.abs(shown - expected[unit.assembly.owner.index((component, node)), 0]).max() < 1e-5


def test_convert_to_glb_gives_one_valid_file_with_every_part(game, tmp_path):
    result = batch("convert", str(game / units.UNIT_DAT), "-o", str(tmp_path), "--format", "glb")
    assert result.returncode == 0, result.stdout + result.stderr
    path = tmp_path / "synth_unit.glb"
    names = {n.get("name") for n in _glb_json(path)["nodes"]}
    assert {"synth_chassis.msh", "e_tur_lt_01.msh", "e_tur_mt_01.msh", "e_gun_mc_01.msh", "Base_TL",
            "muzzle"} <= names
    if not (VALIDATOR.parent / "node_modules" / "gltf-validator").is_dir():
        pytest.fail("the glTF validator is not installed: run scripts/setup.sh (needs npm)")
    check = subprocess.run(["node", str(VALIDATOR), str(path)], capture_output=True, text=True)
    assert check.returncode == 0 and json.loads(check.stdout.splitlines()[0])["errors"] == 0, check.stdout


def test_thumbnails_of_a_folder_take_units_and_skip_other_dat_files(blender, game, tmp_path):
    bpy = blender.bpy
    result = batch("thumbnails", str(game / "UNITS"), "-o", str(tmp_path), "--size", "96")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"skipped {game / 'UNITS' / 'notes.dat'}: not a unit tree" in result.stdout + result.stderr
    pictures = sorted(p.name for p in tmp_path.rglob("*.png"))
    assert pictures == ["contact_sheet.png", "synth_fort.png", "synth_unit.png"]
    image = bpy.data.images.load(str(tmp_path / "SYNTH" / "synth_unit.png"))
    pixels = np.array(image.pixels[:]).reshape(-1, 4)
    assert image.size[0] == 96 and pixels[:, :3].std() > 0.02
    bpy.data.images.remove(image)
    named = batch("thumbnails", str(game / "UNITS" / "notes.dat"), "-o", str(tmp_path / "named"))
    assert named.returncode == 1 and "not a unit tree" in named.stdout
