"""Import previews an effect's bursts and streams as particle systems and its sprites as camera-facing squares,
with the numbers the emitters' named fields give; the previews are marked, sit outside the model (their own
collection, following the effect's Empty by a constraint) and change no exported byte."""

import numpy as np
import pytest
from test_effects_blender import _effects, _walker_folder
from test_import import import_file

FPS = 24


def _previews(bpy, reference):
    return {o["msh_effect_emitter"]: o for o in bpy.data.objects if o.get("msh_effect_preview") == reference}


def test_bursts_streams_and_sprites_are_previewed_outside_the_model(blender, tmp_path):
    bpy = blender.bpy
    bpy.context.scene.render.fps, bpy.context.scene.render.fps_base = FPS, 1.0
    data = _walker_folder(tmp_path)
    (root,) = import_file(bpy, str(tmp_path / "walker.msh"))
    empty = _effects(bpy)["effects.rlb/synth_exp"]   # types 7, 10, 3, 4, 9, 5, 8, 2, 1; duration 1.5 s
    previews = _previews(bpy, "effects.rlb/synth_exp")
    assert sorted(previews) == [0, 1, 2, 3, 4, 6]     # bursts, sprites and the stream; no bolt, sound or light
    burst, stream = previews[0].particle_systems[0].settings, previews[6].particle_systems[0].settings
    assert (burst.count, burst.lifetime, burst.frame_start) == (20, FPS * 1.0, 1)   # 4 x 5, life divisor 1 s
    assert burst.frame_end - burst.frame_start <= 1                                  # all at once
    assert previews[1].particle_systems[0].settings.count == 6
    assert stream.count == 15 and stream.frame_end == pytest.approx(1 + 1.5 * FPS)  # 1.5 s / 0.1025 s
    assert stream.lifetime == pytest.approx(40 * 0.1025 * FPS, rel=1e-4)            # ring 40 intervals
    sprite = previews[2]
    assert sprite.type == "MESH" and sprite.active_material.name == "SYNTH_GLOW (effect preview)"
    bpy.context.scene.frame_set(int(1 + 0.75 * FPS))                                 # its window's end: size 3
    assert sprite.scale[0] == pytest.approx(3.0, rel=1e-3)
    curves = blender.ext.io_msh.com.compat.assigned_fcurves(sprite)
    (curve,) = [c for c in curves if c.data_path == "scale" and c.array_index == 0]
    (_, hidden), (first, small), (last, big), _ = [tuple(k.co) for k in curve.keyframe_points]
    assert hidden == 0.0 and big == pytest.approx(3.0)  # it grows linearly over its window
    assert curve.evaluate((first + last) / 2) == pytest.approx((small + big) / 2, rel=1e-5)
    bpy.context.scene.frame_set(int(1 + 1.4 * FPS))                                  # after it: hidden
    assert sprite.scale[0] == pytest.approx(0.0)
    bpy.context.scene.frame_set(1)
    bpy.context.view_layer.update()
    for preview in previews.values():
        assert preview.parent is None and preview not in root.children_recursive
        assert preview.users_collection[0].name == "Effect previews"
        assert np.allclose(np.array(preview.matrix_world.translation), np.array(empty.matrix_world.translation))
    bpy.context.view_layer.objects.active = root
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == data
    assert bpy.ops.export_scene.parkan_msh(filepath=str(tmp_path / "walker.msh")) == {"FINISHED"}
    assert (tmp_path / "walker.msh").read_bytes() == data


def test_a_sprite_shows_its_materials_texture_when_the_libraries_have_it(blender, tmp_path):
    from core.authoring.synth import material_entry, sample_libraries
    bpy = blender.bpy
    data = _walker_folder(tmp_path)
    libraries = sample_libraries()
    name, material, type_id, attrs = material_entry("SYNTH_GLOW", (1.0, 0.6, 0.2, 1.0), "GLASS.0")
    libraries["Material.lib"].add(name, material, type_id, **attrs)
    for name, archive in libraries.items():
        (tmp_path / name).write_bytes(archive.to_bytes())
    (root,) = import_file(bpy, str(tmp_path / "walker.msh"))
    previews = _previews(bpy, "effects.rlb/synth_exp")
    glow = previews[2].active_material
    (image,) = [n.image for n in glow.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert image.name.startswith("GLASS.0") and tuple(image.size) == (8, 4)
    plain = previews[4].active_material   # SYNTH_GLOW_ANIM is not in the library: a plain emission
    assert plain.name == "SYNTH_GLOW_ANIM (effect preview)"
    assert not [n for n in plain.node_tree.nodes if n.type == "TEX_IMAGE"]
    bpy.context.view_layer.objects.active = root
    assert bpy.ops.export_scene.parkan_msh(filepath=str(tmp_path / "walker.msh")) == {"FINISHED"}
    assert (tmp_path / "walker.msh").read_bytes() == data
