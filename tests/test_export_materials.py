"""Export of materials through the real operators: the WEAR list, batch material words, new library entries."""

import shutil

import numpy as np
import pytest

from core.appearance.mat0 import BLEND, material_of
from core.appearance.texm import parse_texm
from core.appearance.wear import parse_wear, wear_entry
from core.authoring.synth import WEAR_TEXT, sample_archive, sample_libraries
from core.container.nres import Archive
from core.files import open_container
from core.msh.model import Model


@pytest.fixture
def game(tmp_path, sample_msh):
    folder = tmp_path / "game"
    folder.mkdir()
    for name, archive in sample_libraries().items():
        (folder / name).write_bytes(archive.to_bytes())
    (folder / "sample.rlb").write_bytes(sample_archive(sample_msh).to_bytes())
    return folder


def import_(bpy, path, **options):
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), **options) == {"FINISHED"}


def export(bpy, path, **options):
    assert bpy.ops.export_scene.parkan_msh(filepath=str(path), **options) == {"FINISHED"}


def mesh_of_node(bpy, index):
    return next(o for o in bpy.data.objects if o.type == "MESH" and o["msh_node_index"] == index)


def batch_words(model_bytes: bytes, node: int) -> list[int]:
    model = Model.parse(model_bytes)
    slot = model.slots[int(model.nodes[node]["slots"][0])]
    start = int(slot["batch_start"])
    return model.batches["material"][start:start + int(slot["batch_count"])].tolist()


def archive_model(path, name="sample.msh") -> tuple[bytes, list[str]]:
    archive = open_container(path).archive
    return bytes(archive.find(name).data), parse_wear(wear_entry(archive, name).data).materials


def test_an_unedited_textured_import_exports_byte_identically_with_its_material_list(blender, game, sample_msh):
    bpy = blender.bpy
    original = (game / "sample.rlb").read_bytes()
    import_(bpy, game / "sample.rlb")
    copy = game / "copy.rlb"
    shutil.copy(game / "sample.rlb", copy)
    export(bpy, copy)
    assert copy.read_bytes() == original
    export(bpy, game / "out.msh")  # a model file gets its list beside it, as STEM.wea
    assert (game / "out.msh").read_bytes() == sample_msh and (game / "out.wea").read_bytes() == WEAR_TEXT


def test_renamed_and_new_materials_get_rows_and_their_faces_the_new_words(blender, game):
    bpy = blender.bpy
    import_(bpy, game / "sample.rlb")
    bpy.data.materials["SAMPLE_METAL"].name = "SAMPLE_STEEL"
    paint = bpy.data.materials.new("NEW_PAINT")
    gun = mesh_of_node(bpy, 2)
    gun.data.materials.append(paint)
    gun.data.polygons.foreach_set("material_index", np.full(len(gun.data.polygons), 1, np.int32))
    target = game / "sample.rlb"
    export(bpy, target)
    model, rows = archive_model(target)
    assert rows == ["SAMPLE_BODY", "SAMPLE_STEEL", "NEW_PAINT"]
    assert batch_words(model, 2) == [0xFF02] and batch_words(model, 0) == [0xFF00]
    blender.clean_scene()
    import_(bpy, target)
    assert [m.name for m in mesh_of_node(bpy, 2).data.materials] == ["NEW_PAINT"]
    assert bpy.data.materials["NEW_PAINT"]["msh_mat0"] == "DEFAULT"  # not in Material.lib: the game's fallback


def test_a_model_without_a_material_list_gets_none_until_a_material_is_new(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    path = tmp_path / "bare.msh"
    path.write_bytes(sample_msh)
    import_(bpy, path)
    export(bpy, tmp_path / "again.msh")
    assert not (tmp_path / "again.wea").exists()
    bpy.data.materials["material_1"].name = "HULL"
    export(bpy, tmp_path / "renamed.msh")
    assert parse_wear((tmp_path / "renamed.wea").read_bytes()).materials == ["material_0", "HULL"]


@pytest.mark.parametrize("fmt", ["8888", "565"])
def test_new_materials_and_images_go_into_the_chosen_libraries_and_import_again(blender, game, fmt):
    bpy = blender.bpy
    import_(bpy, game / "sample.rlb")
    pixels = np.zeros((4, 8, 4), np.uint8)  # RGBA8, row 0 at the top
    pixels[..., 0], pixels[..., 1], pixels[..., 2], pixels[..., 3] = 255, np.arange(8) * 32, 64, 255
    pixels[0] = (0, 0, 255, 255)
    image = bpy.data.images.new("paint.png", 8, 4, alpha=True)
    image.pixels.foreach_set((np.flipud(pixels).astype(np.float32) / 255).ravel())
    paint = bpy.data.materials.new("GLASS_PAINT")
    tree = blender.ext.io_msh.com.compat.node_tree(paint)
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    texture = tree.nodes.new("ShaderNodeTexImage")
    texture.image = image
    tree.links.new(texture.outputs["Color"], bsdf.inputs["Base Color"])
    paint.blend_method = "BLEND"
    gun = mesh_of_node(bpy, 2)
    gun.data.materials[0] = paint
    export(bpy, game / "sample.rlb", material_library=str(game / "Material.lib"),
           texture_library=str(game / "Textures.lib"), texture_format=fmt)
    material_lib = Archive.parse((game / "Material.lib").read_bytes())
    written = material_of(material_lib.find("GLASS_PAINT"))
    assert written.blend == BLEND and written.texture_name() == "paint.0"
    texture_entry = Archive.parse((game / "Textures.lib").read_bytes()).find("paint.0")
    stored = parse_texm(texture_entry.data)
    assert stored.format == int(fmt) and stored.mip_count == 4  # 8x4, 4x2, 2x1, 1x1
    tolerance = 0 if fmt == "8888" else 8
    assert np.abs(stored.decode().astype(int)[..., :3] - pixels[..., :3]).max() <= tolerance
    assert len(material_lib) == len(sample_libraries()["Material.lib"]) + 1  # every other entry kept
    blender.clean_scene()
    import_(bpy, game / "sample.rlb")
    reimported = mesh_of_node(bpy, 2).data.materials[0]
    assert reimported.name == "GLASS_PAINT" and reimported["msh_mat0"] == "GLASS_PAINT"
    shown = next(n.image for n in reimported.node_tree.nodes if n.type == "TEX_IMAGE")
    flat = np.zeros(len(shown.pixels), np.float32)
    shown.pixels.foreach_get(flat)
    assert np.abs(np.flipud(flat.reshape(4, 8, 4)) * 255 - stored.decode()).max() <= 1


def test_material_names_that_cp1251_cannot_hold_are_refused_naming_them(blender, game):
    bpy = blender.bpy
    import_(bpy, game / "sample.rlb")
    bpy.data.materials["SAMPLE_METAL"].name = "塗装"
    before = (game / "sample.rlb").read_bytes()
    with pytest.raises(RuntimeError, match="塗装"):
        export(bpy, game / "sample.rlb")
    assert (game / "sample.rlb").read_bytes() == before
