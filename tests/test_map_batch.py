"""The batch tool's convert and thumbnails take maps (Land.msh) and missions (data.tma): the map
with its objects in one .blend/.glb, and a top-down thumbnail with a marker per object in its clan's colour."""

import numpy as np
import pytest
from test_batch import _glb_json, batch, progress

from core.authoring.map_game import mission_game_files
from core.map.tma import parse_tma

MISSION = "MISSIONS/SAMPLE/data.tma"
LAND = "DATA/MAPS/SAMPLE/Land.msh"


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    root = tmp_path_factory.mktemp("map_game")
    for name, data in mission_game_files().items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def test_convert_a_mission_and_a_map_to_blend(blender, game, tmp_path):
    bpy = blender.bpy
    result = batch("convert", str(game / MISSION), str(game / LAND), "-o", str(tmp_path), "--format", "blend")
    assert result.returncode == 0, result.stdout + result.stderr
    assert progress(result)[0] == {str(game / MISSION), str(game / LAND)}
    assert sorted(p.name for p in tmp_path.glob("*.blend")) == ["Land.blend", "data.blend"]
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "data.blend"))
    placed = [o for o in bpy.data.objects if "msh_map_record" in o]
    assert len(placed) == len(parse_tma(mission_game_files()[MISSION]).objects)
    assert any(o.get("msh_map_level") == 0 for o in bpy.data.objects)


def test_convert_a_mission_to_glb(game, tmp_path):
    result = batch("convert", str(game / MISSION), "-o", str(tmp_path), "--format", "glb")
    assert result.returncode == 0, result.stdout + result.stderr
    names = {n.get("name") for n in _glb_json(tmp_path / "data.glb")["nodes"]}
    assert "SAMPLE level 0" in names


def test_thumbnail_of_a_mission_is_a_top_down_picture_with_clan_markers(blender, game, tmp_path):
    bpy = blender.bpy
    result = batch("thumbnails", str(game / MISSION), "-o", str(tmp_path), "--size", "128")
    assert result.returncode == 0, result.stdout + result.stderr
    image = bpy.data.images.load(str(tmp_path / "data.png"))
    pixels = np.array(image.pixels[:]).reshape(128, 128, 4)
    bpy.data.images.remove(image)
    assert pixels[:, :, :3].std() > 0.02
    # the ground fills the square picture (seen from straight above); the enemy clan's red markers show
    assert (pixels[:, :, :3].sum(axis=2) > 0.15).mean() > 0.9
    red = (pixels[:, :, 0] > pixels[:, :, 1] + 0.2) & (pixels[:, :, 0] > pixels[:, :, 2] + 0.2)
    assert red.sum() > 3
