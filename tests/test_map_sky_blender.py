"""A mission's sky in Blender, through the real operators: Import Parkan Map makes the scene's World of the
keyframe at or before the chosen time of day (the clock's start by default), with the sun or moon as a Sun lamp;
an untouched export leaves sky.ske as it is; a colour, the fog or the sun's light edited is written into that
keyframe's words and nowhere else; a sky that does not read is a warning and is left alone."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np
import pytest

from core.authoring.map_game import mission_game_files
from core.authoring.sky import sky_wea, synthetic_sky
from core.sky.ske import parse_ske, write_ske

MISSION = "MISSIONS/SAMPLE/data.tma"
SKY = "MISSIONS/SAMPLE/sky.ske"


@pytest.fixture(scope="module")
def game_files() -> dict[str, bytes]:
    files = mission_game_files()
    files[SKY] = write_ske(synthetic_sky(2, editor_session=True))
    files["MISSIONS/SAMPLE/sky.wea"] = sky_wea()
    return files


def write(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def imported(bpy, root: Path, **options):
    assert bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION), **options) == {"FINISHED"}
    return next(c for c in bpy.data.collections if "msh_sky" in c)


def changed_words(before: bytes, after: bytes) -> list[int]:
    """Where runs of changed bytes (each within one word) start."""
    assert len(before) == len(after)
    changed = np.flatnonzero(np.frombuffer(before, np.uint8) != np.frombuffer(after, np.uint8))
    starts = [int(i) for k, i in enumerate(changed) if k == 0 or i - changed[k - 1] > 3]
    return starts


def test_the_sky_is_the_world_at_the_clocks_start_and_an_untouched_export_leaves_it(blender, tmp_path, game_files):
    from io_msh_ext.io_msh.imp.sky import shown_colour

    bpy = blender.bpy
    root = write(tmp_path, game_files)
    before = snapshot(root)
    top = imported(bpy, root)
    world = bpy.context.scene.world
    sky = parse_ske(game_files[SKY])
    shown = sky.sections[0].keyframes[1]  # the clock starts at 01:30: the keyframe of 00:30 is shown
    assert world is top["msh_sky_world"] and world["msh_sky_shown"] == "section 0 keyframe 1 (00:30)"
    assert tuple(world.node_tree.nodes["slot 15"].outputs[0].default_value) == \
        pytest.approx(shown_colour(shown.colour(15)))
    assert world["msh_sky_materials"][0] == "ENV_NEBULA_0"
    assert world.mist_settings.depth == pytest.approx(700.0)
    sun = bpy.data.objects["SAMPLE sun"]
    down = sun.matrix_world.to_3x3() @ __import__("mathutils").Vector((0, 0, -1))
    assert math.degrees(math.asin(-down.z)) == pytest.approx(-15.5, abs=0.1)  # the sun just risen (W64)
    assert sun.data.energy == pytest.approx(shown.values[2])
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    assert snapshot(root) == before


def test_a_colour_the_fog_and_the_sun_edited_reach_the_shown_keyframe_only(blender, tmp_path, game_files):
    bpy = blender.bpy
    root = write(tmp_path, game_files)
    top = imported(bpy, root, sky_time="07:00")
    assert top["msh_sky_world"]["msh_sky_shown"] == "section 0 keyframe 3 (06:00)"
    world = top["msh_sky_world"]
    world.node_tree.nodes["slot 15"].outputs[0].default_value = (1.0, 0.0, 0.0, 1.0)
    world.mist_settings.depth = 1400.0
    sun = top["msh_sky_lamps"]["main"]
    sun.data.energy = 3.0
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    after = (root / SKY).read_bytes()
    sky, old = parse_ske(after), parse_ske(game_files[SKY])
    key, was = sky.sections[0].keyframes[3], old.sections[0].keyframes[3]
    assert key.colour(15) == (255, 0, 0, was.colour(15)[3])  # alpha kept
    assert key.number(6) == pytest.approx(2.0) and key.number(5) == was.number(5)
    assert key.values[2] == 3.0
    assert len(changed_words(game_files[SKY], after)) == 3
    sky.sections[0].keyframes[3] = was
    assert write_ske(sky) == game_files[SKY]
    # the mission and map are as they were: only the sky was edited
    assert (root / MISSION).read_bytes() == game_files[MISSION]


def test_at_night_the_moon_is_up(blender, tmp_path, game_files):
    bpy = blender.bpy
    top = imported(bpy, write(tmp_path, game_files), sky_time="20:00")
    assert top["msh_sky_world"]["msh_sky_shown"] == "section 0 keyframe 9 (19:00)"
    assert "SAMPLE moon" in bpy.data.objects and "SAMPLE sun" not in bpy.data.objects


def test_a_time_of_day_that_is_none_is_refused(blender, tmp_path, game_files):
    bpy = blender.bpy
    root = write(tmp_path, game_files)
    with pytest.raises(RuntimeError, match="Time of Day"):
        bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION), sky_time="25:00")


def test_a_sky_that_does_not_read_is_a_warning_and_left_alone(blender, tmp_path, game_files):
    bpy = blender.bpy
    broken = game_files[SKY][:4] + struct.pack("<I", 4) + game_files[SKY][8:]
    root = write(tmp_path, {**game_files, SKY: broken})
    world = bpy.context.scene.world
    assert bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    assert bpy.context.scene.world == world and not any("msh_sky" in c for c in bpy.data.collections)
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    assert (root / SKY).read_bytes() == broken


def test_a_deleted_world_writes_the_sky_as_read_and_another_programs_change_is_kept_or_refused(
        blender, tmp_path, game_files):
    bpy = blender.bpy
    root = write(tmp_path, game_files)
    top = imported(bpy, root)
    other = bytearray(game_files[SKY])
    other[-8:-4] = struct.pack("<I", 7)
    (root / SKY).write_bytes(bytes(other))  # another program wrote the sky meanwhile
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    assert (root / SKY).read_bytes() == bytes(other)  # nothing of the scene changes it: kept
    top["msh_sky_world"].node_tree.nodes["slot 2"].outputs[0].default_value = (0.0, 0.0, 1.0, 1.0)
    with pytest.raises(RuntimeError, match=r"sky\.ske"):
        bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION))
    assert (root / SKY).read_bytes() == bytes(other)
    bpy.data.worlds.remove(top["msh_sky_world"])
    bpy.data.objects.remove(bpy.data.objects["SAMPLE sun"])
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    assert (root / SKY).read_bytes() == bytes(other)


def test_every_colour_byte_comes_back_as_itself(blender):
    from io_msh_ext.io_msh.exp.map_sky import written_colour
    from io_msh_ext.io_msh.imp.sky import shown_colour

    from core.sky.ske import Keyframe, Time

    key = Keyframe(3, Time((0,) * 8), 7, (77 << 24,) * 22, (b"",) * 6, (0,) * 4, ())
    for value in range(256):
        rgba = (value, 255 - value, value // 2, 77)
        back = written_colour(key, 4, shown_colour(rgba)[:3]).colour(4)
        assert back == rgba, value


def test_the_map_thumbnail_leaves_the_scene_as_it_was(blender, tmp_path, game_files):
    """The thumbnail from above adds its markers, camera and sun for the picture only."""
    bpy = blender.bpy
    imported(bpy, write(tmp_path, game_files))
    scene = bpy.context.scene
    before = (sorted(o.name for o in bpy.data.objects), sorted(c.name for c in bpy.data.cameras),
              sorted(light.name for light in bpy.data.lights), scene.camera, tuple(scene.world.color))
    from io_msh_ext.io_msh.batch.maps import render_map_thumbnail

    render_map_thumbnail(bpy, tmp_path / "above.png", 64)
    assert (tmp_path / "above.png").stat().st_size > 100
    assert (sorted(o.name for o in bpy.data.objects), sorted(c.name for c in bpy.data.cameras),
            sorted(light.name for light in bpy.data.lights), scene.camera, tuple(scene.world.color)) == before


def test_a_colour_node_renamed_is_refused_rather_than_its_edit_lost(blender, tmp_path, game_files):
    bpy = blender.bpy
    root = write(tmp_path, game_files)
    top = imported(bpy, root)
    node = top["msh_sky_world"].node_tree.nodes["slot 15"]
    node.name = "apex"
    node.outputs[0].default_value = (0.0, 1.0, 0.0, 1.0)
    with pytest.raises(RuntimeError, match=r"no colour node named slot 15 \(renamed or deleted\)"):
        bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION))
    assert (root / SKY).read_bytes() == game_files[SKY]


def test_a_fog_start_moved_keeps_an_end_the_file_puts_before_it(blender, tmp_path, game_files):
    sky = parse_ske(game_files[SKY])
    key = sky.sections[0].keyframes[1]
    sky.sections[0].keyframes[1] = key.with_slot(5, struct.unpack("<I", struct.pack("<f", 0.5))[0]).with_slot(
        6, struct.unpack("<I", struct.pack("<f", 0.25))[0])  # the end before the start: shown as depth 0
    data = write_ske(sky)
    bpy = blender.bpy
    root = write(tmp_path, {**game_files, SKY: data})
    top = imported(bpy, root)
    top["msh_sky_world"].mist_settings.start = 140.0
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    written = parse_ske((root / SKY).read_bytes()).sections[0].keyframes[1]
    assert written.number(5) == pytest.approx(0.2) and written.number(6) == 0.25
