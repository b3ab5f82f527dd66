"""Game materials in Blender through the real operator: textures, blend modes, atlas cells, lightmaps, sharing."""

import numpy as np
import pytest

from core.appearance.texm import parse_texm
from core.appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID
from core.authoring.build import ModelDef, NodeDef, Part, build_model
from core.authoring.synth import WEAR_TEXT, box, box_uvs, sample_libraries
from core.container.nres import MODEL_TYPE_ID, Archive
from core.files import open_container
from core.msh.model import Model

MATERIALS = ["SAMPLE_BODY", "GLASS", "GLOW", "SKIN", "SAMPLE_METAL"]


def write_game(folder, archives: dict[str, Archive]):
    folder.mkdir(parents=True, exist_ok=True)
    for name, archive in archives.items():
        (folder / name).write_bytes(archive.to_bytes())
    return folder


def model_archive(wear: bytes, materials: int, lightmapped: bool = False, name: str = "unit.msh") -> bytes:
    """One box per material (node i, material i); lightmapped: batch high byte 0 and a Res18 stream."""
    parts = []
    for i in range(materials):
        pos, tris = box(center=(i * 1.5, 0, 0))
        parts.append(Part(i, pos, tris, uvs=box_uvs() * 0.9 + 0.05, material=i))
    nodes = [NodeDef(f"part{i}", None if i == 0 else 0) for i in range(materials)]
    model = build_model(ModelDef(nodes, parts, stream_name=name))
    if lightmapped:
        batches = model.batches.copy()
        batches["material"] &= 0xFF  # lightmap row 0 (digest fact 18)
        model.set_stream(13, batches.tobytes())
        lm = (np.tile(box_uvs(), (materials, 1)) * 1024).astype("<u2")
        model.set_stream(18, lm.tobytes(), attr1=len(lm), attr3=4)
        model = Model.parse(model.to_bytes(), name)
    archive = Archive()
    archive.add(name, model.to_bytes(), MODEL_TYPE_ID)
    archive.add(name.replace(".msh", ".wea"), wear, WEAR_TYPE_ID, **WEAR_ATTRS)
    return archive.to_bytes()


def wear_of(names, lightmap=None) -> bytes:
    text = f"{len(names)}\r\n" + "".join(f"{i} {n}\r\n" for i, n in enumerate(names))
    if lightmap:
        text += f"\r\nLIGHTMAPS\r\n1\r\n0 {lightmap}\r\n"
    return text.encode()


@pytest.fixture
def game(tmp_path):
    return write_game(tmp_path / "game", sample_libraries())


def import_(bpy, path, **options):
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), **options) == {"FINISHED"}


def pixels(image) -> np.ndarray:
    """Blender's pixels as RGBA8, row 0 at the top (Blender stores the bottom row first)."""
    flat = np.zeros(len(image.pixels), np.float32)
    image.pixels.foreach_get(flat)
    return np.flipud(np.rint(flat.reshape(image.size[1], image.size[0], 4) * 255).astype(int))


def links_into(node, socket):
    return [link.from_node for link in node.inputs[socket].links]


def nodes_of(material, kind):
    return [n for n in material.node_tree.nodes if n.bl_idname == kind]


def test_images_are_the_decoded_textures_and_show_the_texel_the_game_shows(blender, game):
    bpy = blender.bpy
    path = game / "units" / "unit.rlb"
    path.parent.mkdir()
    path.write_bytes(model_archive(wear_of(["SAMPLE_METAL"]), 1))
    import_(bpy, path)
    (image,) = [i for i in bpy.data.images if "msh_texture" in i]
    textures = sample_libraries()["Textures.lib"]
    expected = parse_texm(textures.find("METAL.0").data).decode().astype(int)
    assert image.packed_file is not None and image.name == "METAL.0"
    assert np.abs(pixels(image) - expected).max() <= 1  # within 1/255
    (obj,) = [o for o in bpy.data.objects if o.type == "MESH"]
    mesh = obj.data
    assert [m.name for m in mesh.materials] == ["SAMPLE_METAL"]
    # The texel at a point inside every face: by the file's UVs in Direct3D terms (row 0 at v = 0, digest
    # fact 19), and by Blender's UVs on Blender's pixel rows (bottom row first).
    weights = np.array([0.55, 0.3, 0.15])
    blender_uv = np.zeros(len(mesh.loops) * 2)
    mesh.uv_layers["UVMap"].data.foreach_get("uv", blender_uv)
    inside_blender = (blender_uv.reshape(-1, 3, 2) * weights[None, :, None]).sum(axis=1)
    loops = np.zeros(len(mesh.loops), int)
    mesh.loops.foreach_get("vertex_index", loops)
    file_uv = Model.parse(open_container(path).archive.models()[0].data).uvs_raw.astype(float) / 1024
    inside_file = (file_uv[loops].reshape(-1, 3, 2) * weights[None, :, None]).sum(axis=1)
    h, w = expected.shape[:2]
    stored = np.flipud(pixels(image))
    checked = 0
    for (ub, vb), (u, v) in zip(inside_blender, inside_file):
        if min(abs(v * h - round(v * h)), abs(u * w - round(u * w))) < 1e-3:
            continue  # exactly on a texel edge
        assert np.abs(expected[int(v * h), int(u * w)] - stored[int(vb * h), int(ub * w)]).max() <= 1
        checked += 1
    assert checked >= 8


def test_blend_modes_lit_skin_two_sided_and_the_atlas_cell(blender, game):
    bpy = blender.bpy
    path = game / "unit.rlb"
    path.write_bytes(model_archive(wear_of(MATERIALS), len(MATERIALS)))
    import_(bpy, path)
    by_name = {m.name: m for m in bpy.data.materials if "msh_material" in m}
    assert sorted(by_name) == sorted(MATERIALS)
    assert all(not m.use_backface_culling for m in by_name.values())
    assert [by_name[n]["msh_material"] for n in MATERIALS] == [0, 1, 2, 3, 4]

    glass = by_name["GLASS"]
    (bsdf,) = nodes_of(glass, "ShaderNodeBsdfPrincipled")
    (alpha,) = links_into(bsdf, "Alpha")
    assert glass.blend_method == "BLEND" and glass.surface_render_method == "BLENDED"
    assert alpha.operation == "MULTIPLY" and alpha.inputs[1].default_value == pytest.approx(0.5)
    assert links_into(alpha, 0)[0].bl_idname == "ShaderNodeTexImage"  # texture alpha x ambient alpha

    glow = by_name["GLOW"]
    (add,) = nodes_of(glow, "ShaderNodeAddShader")
    assert {n.bl_idname for n in links_into(add, 0) + links_into(add, 1)} == {
        "ShaderNodeEmission", "ShaderNodeBsdfTransparent"}
    assert glow.blend_method == "BLEND"

    for opaque in ("SKIN", "SAMPLE_BODY", "SAMPLE_METAL"):
        (bsdf,) = nodes_of(by_name[opaque], "ShaderNodeBsdfPrincipled")
        assert not bsdf.inputs["Alpha"].is_linked, opaque  # opaque modes and lit skin ignore alpha

    metal = by_name["SAMPLE_METAL"]
    (bsdf,) = nodes_of(metal, "ShaderNodeBsdfPrincipled")
    (mix,) = links_into(bsdf, "Base Color")
    assert mix.blend_type == "MULTIPLY"  # texture x diffuse
    diffuse = next(s for s in mix.inputs if s.name == "B" and s.type == "RGBA").default_value
    # the diffuse bytes (204, 230, 255) as Blender's linear colour
    assert tuple(diffuse)[:3] == pytest.approx((0.603827, 0.791298, 1.0), abs=1e-6)

    body = by_name["SAMPLE_BODY"]
    (mapping,) = nodes_of(body, "ShaderNodeMapping")
    # Cell 2 = the Page's second rectangle (8, 8, 0, 16) of 16x16: u' = 0.5 + u / 2, v' = v (D3D).
    assert tuple(mapping.inputs["Location"].default_value)[:2] == pytest.approx((0.5, 0.0))
    assert tuple(mapping.inputs["Scale"].default_value)[:2] == pytest.approx((0.5, 1.0))
    assert not nodes_of(metal, "ShaderNodeMapping")


def test_lightmaps_are_a_second_uv_map_multiplied_in(blender, game):
    bpy = blender.bpy
    path = game / "house.rlb"
    path.write_bytes(model_archive(wear_of(["SAMPLE_METAL"], lightmap="LM_SAMPLE.0"), 1, lightmapped=True))
    import_(bpy, path)
    (material,) = [m for m in bpy.data.materials if "msh_material" in m]
    assert material.name == "SAMPLE_METAL + LM_SAMPLE.0" and material["msh_lightmap"] == 0
    images = {n.image.name: n for n in nodes_of(material, "ShaderNodeTexImage")}
    assert set(images) == {"METAL.0", "LM_SAMPLE.0"}
    uv_node = links_into(images["LM_SAMPLE.0"], "Vector")[0]
    assert uv_node.uv_map == "Lightmap"
    (obj,) = [o for o in bpy.data.objects if o.type == "MESH"]
    assert [layer.name for layer in obj.data.uv_layers] == ["UVMap", "Lightmap"]
    (bsdf,) = nodes_of(material, "ShaderNodeBsdfPrincipled")
    (mix,) = links_into(bsdf, "Base Color")
    assert mix.blend_type == "MULTIPLY" and images["LM_SAMPLE.0"] in links_into(mix, next(
        i for i, s in enumerate(mix.inputs) if s.name == "A" and s.type == "RGBA"))


def test_images_are_shared_across_models_and_removed_with_the_last(blender, game):
    from blender_env import ext

    bpy = blender.bpy
    for name in ("one.rlb", "two.rlb"):
        (game / name).write_bytes(model_archive(wear_of(["SAMPLE_METAL", "SAMPLE_BODY"]), 2))
        import_(bpy, game / name)
    assert sorted(i.name for i in bpy.data.images if "msh_texture" in i) == ["BODY.0", "METAL.0"]
    roots = [o for o in bpy.data.objects if "msh_model" in o]
    remove = ext.io_msh.imp.build.remove_model
    remove(roots[0])
    assert sorted(i.name for i in bpy.data.images if "msh_texture" in i) == ["BODY.0", "METAL.0"]
    remove(roots[1])
    assert not [i for i in bpy.data.images if "msh_texture" in i] and not bpy.data.materials


def test_libraries_from_the_game_folder_option_else_placeholders_and_a_warning(blender, game, tmp_path):
    bpy = blender.bpy
    elsewhere = tmp_path / "mods"
    elsewhere.mkdir()
    (elsewhere / "unit.rlb").write_bytes(model_archive(WEAR_TEXT, 2))
    import_(bpy, elsewhere / "unit.rlb")
    assert not [i for i in bpy.data.images if "msh_texture" in i]
    assert sorted(m.name for m in bpy.data.materials) == ["SAMPLE_BODY", "SAMPLE_METAL"]
    blender.clean_scene()
    import_(bpy, elsewhere / "unit.rlb", game_folder=str(game))
    assert sorted(i.name for i in bpy.data.images if "msh_texture" in i) == ["BODY.0", "METAL.0"]


def test_a_material_missing_from_the_library_falls_back_to_default(blender, game):
    bpy = blender.bpy
    (game / "unit.rlb").write_bytes(model_archive(wear_of(["NO_SUCH"]), 1))
    import_(bpy, game / "unit.rlb")
    (material,) = [m for m in bpy.data.materials if "msh_material" in m]
    assert material.name == "NO_SUCH" and material["msh_mat0"] == "DEFAULT"
    assert tuple(material.diffuse_color) == pytest.approx((0.215861, 0.215861, 0.215861, 1.0), abs=1e-5)  # 128
    assert not nodes_of(material, "ShaderNodeTexImage")


def test_an_earlier_imports_image_is_found_after_renames_removals_and_a_new_image_of_its_name(blender, game):
    """An import finds an earlier import's image by its texture key without scanning every image
    (a look-up by the name it was given): the look-up follows a renamed image, makes a removed one again, and is
    not fooled by another image taking the remembered name."""
    bpy = blender.bpy

    def textures():
        return sorted((i.name, i["msh_texture"]) for i in bpy.data.images if "msh_texture" in i)

    (game / "one.rlb").write_bytes(model_archive(wear_of(["SAMPLE_METAL", "SAMPLE_BODY"]), 2))
    import_(bpy, game / "one.rlb")
    first = textures()
    assert [name for name, _key in first] == ["BODY.0", "METAL.0"]
    import_(bpy, game / "one.rlb")
    assert textures() == first  # shared, not made again
    bpy.data.images["METAL.0"].name = "renamed"
    bpy.data.images.new("METAL.0", 4, 4)  # another image under the remembered name, without the key
    import_(bpy, game / "one.rlb")
    assert sorted(key for _name, key in textures()) == sorted(key for _name, key in first)
    assert "renamed" in [name for name, _key in textures()]
    bpy.data.images.remove(bpy.data.images["BODY.0"])
    import_(bpy, game / "one.rlb")
    assert sorted(key for _name, key in textures()) == sorted(key for _name, key in first)
