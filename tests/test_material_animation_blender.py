"""A material's MAT0 track 0 imported through the real operator as F-curves on its node tree; the
material shows the colour and atlas cell core.appearance.material_tracks gives at every frame, in each mode."""

import numpy as np
import pytest
from test_materials_blender import model_archive, wear_of, write_game

from core.appearance.mat0 import ANIM_KEY, MAT0_TYPE_ID, AnimBlock, Material, blend_attr1, material_of, phase
from core.appearance.material_tracks import LOOP, ONCE, PING_PONG, RANDOM, field_values, timeline
from core.appearance.texm import parse_texm
from core.authoring.synth import sample_libraries

RATE = 100.0  # 10 ms a frame
COLOURS = [(0.9, 0.1, 0.1), (0.0, 0.6, 0.2), (1.0, 0.7, 0.5)]
KEYS = [(0, 50, 0), (1, 100, 0), (2, 150, 0), (1, 200, 0)]  # the buoy of units-clips-digest 3.4


def animated_library(mode: int, mask: int) -> dict:
    libraries = sample_libraries()
    phases = [phase((*rgb, 1.0), "BODY.0", cell=i) for i, rgb in enumerate(COLOURS)]
    material = Material(blend_attr1("OPAQUE", False), phases=np.array(phases),
                        animations=[AnimBlock(mode | mask << 3, np.array(KEYS, ANIM_KEY))])
    libraries["Material.lib"].add("BUOY", material.to_bytes(), MAT0_TYPE_ID, attr1=material.attr1,
                                  attr2=material.attr2)
    return libraries


def srgb_to_linear(c):
    c = np.asarray(c, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


@pytest.mark.parametrize("mode", [LOOP, PING_PONG, ONCE, RANDOM])
@pytest.mark.parametrize("mask", [0x02, 0x00])
def test_the_material_shows_the_track_colour_and_cell_at_every_frame(blender, tmp_path, mode, mask):
    bpy = blender.bpy
    libraries = animated_library(mode, mask)
    game = write_game(tmp_path / "game", libraries)
    (game / "unit.rlb").write_bytes(model_archive(wear_of(["BUOY"]), 1))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), frame_rate=RATE) == {"FINISHED"}
    (material,) = [m for m in bpy.data.materials if m.get("msh_mat0") == "BUOY"]
    tree = material.node_tree
    diffuse = tree.nodes["msh diffuse"]
    (mapping,) = [n for n in tree.nodes if n.type == "MAPPING"]
    core_material = material_of(libraries["Material.lib"].find("BUOY"))
    texture = parse_texm(libraries["Textures.lib"].find("BODY.0").data)
    block = core_material.animations[0]
    frames = np.arange(0, 65)  # more than two ping-pong cycles (400 ms)
    times = timeline(block, frames * 1000 / RATE)
    colours = field_values(core_material, times, "diffuse") / 255.0
    cells = field_values(core_material, times, "cell")[:, 0].astype(np.uint8).view(np.int8)
    seen_colours, seen_cells = set(), set()
    for k, frame in enumerate(frames):
        blender.evaluated_frame(frame)
        shown = np.array(diffuse.outputs[0].default_value)[:3]
        assert np.abs(shown - srgb_to_linear(colours[k])).max() < 1e-5, (frame, shown, colours[k])
        u0, v0, du, dv = texture.cell(int(cells[k]))
        location, scale = mapping.inputs["Location"].default_value, mapping.inputs["Scale"].default_value
        assert np.allclose([location[0], location[1], scale[0], scale[1]], [u0, 1 - v0 - dv, du, dv], atol=1e-6)
        seen_colours.add(tuple(np.round(colours[k], 4)))
        seen_cells.add(int(cells[k]))
    assert seen_cells == {0, 1, 2} and len(seen_colours) >= 3
    if mask == 0x02:
        assert len(seen_colours) > 4  # gliding: colours between the entries


def test_an_unedited_import_with_animated_materials_exports_byte_for_byte(blender, tmp_path):
    from core.files import open_container

    bpy = blender.bpy
    game = write_game(tmp_path / "game", animated_library(LOOP, 0x02))
    (game / "unit.rlb").write_bytes(model_archive(wear_of(["BUOY"]), 1))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), frame_rate=RATE) == {"FINISHED"}
    blender.evaluated_frame(7)  # the material mid-glide
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    container = open_container(str(game / "unit.rlb"))
    assert out.read_bytes() == bytes(container.model_entries()[0].data)


def test_removing_the_model_removes_its_material_animation(blender, tmp_path):
    bpy = blender.bpy
    game = write_game(tmp_path / "game", animated_library(PING_PONG, 0x02))
    (game / "unit.rlb").write_bytes(model_archive(wear_of(["BUOY"]), 1))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), frame_rate=RATE) == {"FINISHED"}
    assert [a.name for a in bpy.data.actions] == ["BUOY|track 0"]
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    blender.ext.io_msh.imp.build.remove_model(root)
    assert not bpy.data.actions and not bpy.data.materials
