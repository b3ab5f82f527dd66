"""io_msh/batch on a folder of generated models with corrupt files among them."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fixtures import generated, static_model, triangle_model

from core.appearance.texm import TEXM_TYPE_ID, encode_texm, parse_texm
from core.authoring.synth import checker, material_entry, sample_archive, sample_libraries
from core.container.nres import MODEL_TYPE_ID, Archive
from core.files import open_container, validate_container

ROOT = Path(__file__).resolve().parent.parent
BATCH = ROOT / "io_msh" / "batch" / "__main__.py"
VALIDATOR = ROOT / "scripts" / "gltf" / "validate.js"
GOOD = {"a.msh", "sub/b.msh", "units.rlb:tank.msh", "units.rlb:tower.msh", "looks/green.rlb:green.msh"}
BAD = {"garbage.msh", "truncated.msh", "invalid.msh"}  # empty.rlb holds no model: skipped


@pytest.fixture(scope="module")
def game_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("game")
    (folder / "sub").mkdir()
    (folder / "a.msh").write_bytes(generated(60, node_count=5, frame_count=12))
    (folder / "sub" / "b.msh").write_bytes(static_model(2))
    archive = Archive()
    archive.add("tank.msh", generated(61, node_count=4, frame_count=10), MODEL_TYPE_ID)
    archive.add("tower.msh", static_model(3), MODEL_TYPE_ID)
    archive.add("tank.wea", b"3\r\n0 SAMPLE_BODY\r\n1 SAMPLE_METAL\r\n2 GREEN\r\n", int.from_bytes(b"WEAR", "little"))
    # Each model its own list: tank.wea is tank.msh's, never tower.msh's.
    archive.add("tower.wea", b"2\r\n0 SAMPLE_BODY\r\n1 SAMPLE_METAL\r\n", int.from_bytes(b"WEAR", "little"))
    (folder / "units.rlb").write_bytes(archive.to_bytes())
    libraries = sample_libraries()  # the game's libraries at the top of the folder, as in a game install
    green = encode_texm(checker(8, (0, 255, 0, 255), (0, 200, 0, 255)), 565)
    libraries["Textures.lib"].add("GREEN.0", green.to_bytes(), TEXM_TYPE_ID)
    name, data, type_id, attrs = material_entry("GREEN", (1.0, 1.0, 1.0, 1.0), "GREEN.0")
    libraries["Material.lib"].add(name, data, type_id, **attrs)
    for name, library in libraries.items():
        (folder / name).write_bytes(library.to_bytes())
    green_model = Archive()
    green_model.add("green.msh", static_model(2), MODEL_TYPE_ID)
    green_model.add("green.wea", b"1\r\n0 GREEN\r\n", int.from_bytes(b"WEAR", "little"))
    (folder / "looks").mkdir()
    (folder / "looks" / "green.rlb").write_bytes(green_model.to_bytes())
    (folder / "garbage.msh").write_bytes(b"this is not a model")
    (folder / "truncated.msh").write_bytes(generated(62)[:300])
    invalid = triangle_model([(0, 0xFFFF, 0xFFFF, 4)], [(0, 0, 0, 0, 32767, 0, 0, 0)], [], 1)
    (folder / "invalid.msh").write_bytes(invalid)
    (folder / "empty.rlb").write_bytes(Archive().to_bytes())
    (folder / "notes.txt").write_text("ignored: not a model file")
    return folder


def batch(*args, standin=False, timeout=600, env=None):
    command = [sys.executable, str(BATCH), *args]
    if standin:
        command = [sys.executable, str(ROOT / "tests" / "blender_standin.py"), "-b", "--factory-startup", "-P",
                   str(BATCH), "--", *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                            env=None if env is None else {**os.environ, **env})
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result


def progress(result):
    lines = [line for line in result.stdout.splitlines() if line.startswith("[")]
    ok = {line.split("] ok", 1)[1].split(": ", 1)[0].strip() for line in lines if "] ok" in line}
    failed = {line.split("] FAILED", 1)[1].split(": ", 1)[0].strip() for line in lines if "] FAILED" in line}
    return ok, failed


def relative(labels, folder):
    return {label.replace(str(folder) + "/", "") for label in labels}


@pytest.fixture(scope="module")
def imported(game_folder, tmp_path_factory):
    out = tmp_path_factory.mktemp("blend")
    return out, batch("import", str(game_folder), "-o", str(out), "--jobs", "2")


def test_import_makes_one_blend_per_model_and_names_bad_files(imported, game_folder):
    out, result = imported
    assert result.returncode == 1
    ok, failed = progress(result)
    assert relative(ok, game_folder) == GOOD
    assert relative(failed, game_folder) == BAD
    summary = result.stdout[result.stdout.index("summary:"):]
    assert "5 of 8 converted, 3 failed" in summary
    for name in BAD:
        assert f"failed: {game_folder / name}" in summary
    for reason in ("bad magic", "does not match the file length", "fallback key 4 is out of range"):
        assert reason in summary
    assert f"skipped {game_folder / 'empty.rlb'}: the archive holds no model" in result.stdout
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.blend")) == [
        "a.blend", "looks/green_green.blend", "sub/b.blend", "units_tank.blend", "units_tower.blend"]


def test_export_of_the_blends_gives_the_original_models_back(imported, game_folder, tmp_path):
    blends, _ = imported
    result = batch("export", str(blends), "-o", str(tmp_path))
    assert result.returncode == 0, result.stdout
    assert (tmp_path / "a.msh").read_bytes() == (game_folder / "a.msh").read_bytes()
    assert (tmp_path / "sub" / "b.msh").read_bytes() == (game_folder / "sub" / "b.msh").read_bytes()
    tank = open_container(game_folder / "units.rlb").archive.find("tank.msh")
    assert (tmp_path / "units_tank.msh").read_bytes() == bytes(tank.data)
    for path in tmp_path.rglob("*.msh"):
        assert not any(f.is_error for f in validate_container(open_container(path)))


def test_export_of_a_blend_without_models_fails_cleanly(blender, tmp_path):
    bpy = blender.bpy
    empty = tmp_path / "empty.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(empty), copy=True)
    result = batch("export", str(empty), str(tmp_path / "missing.blend"), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "holds no model root" in result.stdout and "no such file" in result.stdout


def test_the_blender_argument_convention(game_folder, tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    out = tmp_path / "out"
    result = batch("import", str(game_folder / "a.msh"), str(game_folder / "garbage.msh"), "-o", str(out),
                   standin=True, env={"TMPDIR": str(temp)})
    assert result.returncode == 1, result.stdout + result.stderr  # the exit code says a file failed
    assert (out / "a.blend").exists()
    # Both Blender processes (the script's and its worker's) end without Blender's teardown, and leave no
    # session folder behind.
    assert not list(temp.iterdir())


def test_reimport_of_the_converted_blends(blender, imported):
    bpy = blender.bpy
    out, _ = imported
    for blend in sorted(out.rglob("*.blend")):
        bpy.ops.wm.open_mainfile(filepath=str(blend))
        roots = [o for o in bpy.data.objects if "msh_model" in o]
        assert len(roots) == 1, blend
        assert all(o == roots[0] or (o.type == "MESH" and o.parent == roots[0]) for o in bpy.data.objects), blend
        assert not bpy.data.cameras and not bpy.data.lights, blend  # nothing of Blender's start-up scene
        if blend.name == "units_tank.blend":
            assert roots[0]["msh_model"] == "tank.msh"
            assert "SAMPLE_BODY" in {m.name for m in bpy.data.materials}  # WEAR index 0 of tank.wea
            textures = [i for i in bpy.data.images if "msh_texture" in i]
            assert textures and all(i.packed_file is not None for i in textures)  # the .blend stands alone


def test_convert_to_glb_validates_with_the_khronos_validator(game_folder, tmp_path):
    result = batch("convert", str(game_folder), "-o", str(tmp_path), "--format", "glb", "--jobs", "2")
    assert result.returncode == 1
    files = sorted(tmp_path.rglob("*.glb"))
    assert len(files) == 5
    if not (VALIDATOR.parent / "node_modules" / "gltf-validator").is_dir():
        pytest.fail("the glTF validator is not installed: run scripts/setup.sh (needs npm)")
    check = subprocess.run(["node", str(VALIDATOR), *map(str, files)], capture_output=True, text=True)
    reports = [json.loads(line) for line in check.stdout.splitlines()]
    assert check.returncode == 0, check.stdout + check.stderr
    assert [r["errors"] for r in reports] == [0] * 5
    tank = _glb_json(tmp_path / "units_tank.glb")  # the game's textures travel with the model
    assert {i["name"] for i in tank["images"]} >= {"BODY", "METAL"} and tank["textures"]
    body = next(m for m in tank["materials"] if m["name"] == "SAMPLE_BODY")
    transform = body["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]["KHR_texture_transform"]
    assert transform == {"offset": [0.5, 0], "scale": [0.5, 1]}  # its atlas cell


def _glb_json(path: Path) -> dict:
    data = path.read_bytes()
    length = int.from_bytes(data[12:16], "little")
    return json.loads(data[20:20 + length])


@pytest.mark.parametrize("fmt", ["fbx", "blend"])
def test_convert_to_fbx_and_blend(game_folder, tmp_path, fmt):
    result = batch("convert", str(game_folder / "units.rlb"), str(game_folder / "garbage.msh"), "-o", str(tmp_path),
                   "--format", fmt)
    assert result.returncode == 1
    assert sorted(p.name for p in tmp_path.rglob(f"*.{fmt}")) == [f"units_tank.{fmt}", f"units_tower.{fmt}"]
    assert all(p.stat().st_size > 1000 for p in tmp_path.rglob(f"*.{fmt}"))
    if fmt == "fbx":  # the game's textures are carried (embedded), as the .glb and the .blend show them
        assert all(b".png" in p.read_bytes() for p in tmp_path.rglob("*.fbx"))


def test_thumbnails_and_contact_sheet(blender, game_folder, tmp_path):
    bpy = blender.bpy
    result = batch("thumbnails", str(game_folder / "a.msh"), str(game_folder / "units.rlb"),
                   str(game_folder / "garbage.msh"), "-o", str(tmp_path), "--size", "96")
    assert result.returncode == 1
    pictures = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pictures == ["a.png", "contact_sheet.png", "units_tank.png", "units_tower.png"]
    for name in pictures:
        image = bpy.data.images.load(str(tmp_path / name))
        pixels = np.array(image.pixels[:]).reshape(-1, 4)
        assert image.size[0] >= 96 and pixels[:, :3].std() > 0.02  # not a blank picture
        bpy.data.images.remove(image)
    result = batch("thumbnails", str(game_folder / "looks" / "green.rlb"), "-o", str(tmp_path / "green"),
                   "--size", "64")
    assert result.returncode == 0
    image = bpy.data.images.load(str(tmp_path / "green" / "green_green.png"))
    rgb = np.array(image.pixels[:]).reshape(-1, 4)[:, :3]
    greenish = (rgb[:, 1] > rgb[:, 0] + 0.2) & (rgb[:, 1] > rgb[:, 2] + 0.2)
    assert greenish.mean() > 0.05  # the model shows its green texture, not a flat material colour
    bpy.data.images.remove(image)


def test_textures_of_a_library_become_pngs(blender, game_folder, tmp_path):
    bpy = blender.bpy
    result = batch("textures", str(game_folder / "Textures.lib"), str(game_folder / "garbage.msh"),
                   "-o", str(tmp_path), "--jobs", "2")
    assert result.returncode == 1 and "failed: " + str(game_folder / "garbage.msh") in result.stdout
    library = Archive.parse((game_folder / "Textures.lib").read_bytes())
    written = sorted(p.name for p in (tmp_path / "Textures").glob("*.png"))
    assert written == sorted(f"{e.name_str}.png" for e in library)
    for entry in library:
        image = bpy.data.images.load(str(tmp_path / "Textures" / f"{entry.name_str}.png"))
        width, height = image.size
        pixels = np.rint(np.array(image.pixels[:]).reshape(height, width, 4) * 255)
        assert np.abs(np.flipud(pixels) - parse_texm(entry.data).decode()).max() <= 1, entry.name_str
        bpy.data.images.remove(image)


def test_extension_zip_builds_installs_and_works(tmp_path, sample_msh):
    build = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_extension.py"), "-o", str(tmp_path)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    (package,) = tmp_path.glob("io_msh-*.zip")
    model = tmp_path / "sample.msh"
    model.write_bytes(sample_msh)
    game, mods = tmp_path / "game", tmp_path / "mods"
    for folder in (game, mods):
        folder.mkdir()
    for name, library in sample_libraries().items():
        (game / name).write_bytes(library.to_bytes())
    (mods / "unit.rlb").write_bytes(sample_archive(sample_msh).to_bytes())
    script = f"""
import os
os.environ["BLENDER_USER_RESOURCES"] = {str(tmp_path / "user")!r}
import bpy
import addon_utils
assert bpy.ops.extensions.package_install_files(filepath={str(package)!r}, repo="user_default",
                                                 enable_on_install=True) == {{"FINISHED"}}
assert bpy.ops.import_scene.parkan_msh(filepath={str(model)!r}) == {{"FINISHED"}}
assert bpy.ops.export_scene.parkan_msh(filepath={str(tmp_path / "out.msh")!r}) == {{"FINISHED"}}
assert not [i for i in bpy.data.images if "msh_texture" in i]
bpy.context.preferences.addons["bl_ext.user_default.io_msh"].preferences.game_folder = {str(game)!r}
assert bpy.ops.import_scene.parkan_msh(filepath={str(mods / "unit.rlb")!r}) == {{"FINISHED"}}
print("textures", sorted(i.name for i in bpy.data.images if "msh_texture" in i))
module = next(m for m in addon_utils.modules() if m.__name__.endswith(".io_msh"))
addon_utils.disable(module.__name__)
print("installed module", module.__name__)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "installed module bl_ext.user_default.io_msh" in result.stdout
    assert "textures ['BODY.0', 'METAL.0']" in result.stdout  # found through the preferences' game folder
    assert (tmp_path / "out.msh").read_bytes() == sample_msh
    assert (tmp_path / "user" / "extensions" / "user_default" / "io_msh" / "blender_manifest.toml").exists()
