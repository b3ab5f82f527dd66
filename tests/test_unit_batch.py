"""The batch tool's convert and thumbnails take .dat units: the assembled unit in one
.blend/.glb and one thumbnail."""

import json
import subprocess

import numpy as np
import pytest
from test_batch import VALIDATOR, _glb_json, batch, progress
from unit_fixtures import loader, write_game

from core.animation.pose import pose_matrix
from core.animation.sampler import AnimationData, sample
from core.authoring import units
from core.container.nres import Archive
from core.unit.dat import parse_dat
from core.unit.mount import part_placement, unit_world_matrices
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
    # the mounted parts move with their sockets: the turret's mount is baked, at frame 10 where the rule says
    files = units.unit_files()
    unit = resolve_unit(parse_dat(files[units.UNIT_DAT]), Archive.parse(files[units.OBJECTS]), loader(files))
    socket = unit_world_matrices(unit.assembly, unit.animations(), [10.0], normalize=True)[1, 0]
    s = sample(AnimationData.from_model(unit.parts[2].model), [10.0], [0])
    place = part_placement(socket, pose_matrix(s.rot[0, 0], s.pos[0, 0]))
    times, values = _channel(path, "e_tur_lt_01.msh mount", "translation")
    at = values[np.argmin(np.abs(times - 10 / 24))]
    x, y, z = place[:3, 3]
    assert np.allclose(at, [x, z, -y], atol=1e-5)  # glTF is Y-up
    assert np.ptp(values, axis=0).max() > 0.01       # and it moves
    if not (VALIDATOR.parent / "node_modules" / "gltf-validator").is_dir():
        pytest.fail("the glTF validator is not installed: run scripts/setup.sh (needs npm)")
    check = subprocess.run(["node", str(VALIDATOR), str(path)], capture_output=True, text=True)
    assert check.returncode == 0 and json.loads(check.stdout.splitlines()[0])["errors"] == 0, check.stdout


def _channel(path, node_name: str, target: str) -> tuple[np.ndarray, np.ndarray]:
    """The times and values of a glb animation channel of a node (from the binary chunk)."""
    data = path.read_bytes()
    length = int.from_bytes(data[12:16], "little")
    gltf, binary = json.loads(data[20:20 + length]), data[20 + length + 8:]
    node = next(i for i, n in enumerate(gltf["nodes"]) if n.get("name") == node_name)

    def accessor(index, width):
        a = gltf["accessors"][index]
        view = gltf["bufferViews"][a["bufferView"]]
        start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
        return np.frombuffer(binary, np.float32, a["count"] * width, start).reshape(a["count"], width)

    for animation in gltf["animations"]:
        for channel in animation["channels"]:
            if channel["target"]["node"] == node and channel["target"]["path"] == target:
                sampler = animation["samplers"][channel["sampler"]]
                return accessor(sampler["input"], 1)[:, 0], accessor(sampler["output"], 3)
    raise AssertionError(f"no {target} channel for {node_name}")


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
