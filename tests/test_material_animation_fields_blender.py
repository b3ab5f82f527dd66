"""The real import operator on a MAT0 track 0 whose entries name two textures and differ in
ambient, specular and emissive colour and ambient alpha. At every frame the material shows what
core.appearance.material_tracks gives: the texture (followed through the graph's switch nodes), the cell box of
that texture, the colours and the alpha; keys glide where the mask names the field, else step. The unedited
import exports byte for byte; an edited material curve makes the export warn."""

import numpy as np
import pytest
from test_material_animation_blender import KEYS, RATE, srgb_to_linear
from test_materials_blender import model_archive, wear_of, write_game

from core.appearance.mat0 import ANIM_KEY, MAT0_TYPE_ID, AnimBlock, Material, blend_attr1, material_of, phase
from core.appearance.material_tracks import LOOP, ONCE, PING_PONG, RANDOM, field_values, texture_names, timeline
from core.appearance.texm import parse_texm
from core.authoring.synth import sample_libraries

# entry: texture, cell, ambient, specular, emissive (bytes), ambient alpha (percent; 150 shows 1)
ENTRIES = [("BODY.0", 0, (220, 20, 20), (10, 200, 30), (0, 0, 90), 100),
           ("METAL.0", 1, (240, 0, 25), (250, 250, 0), (60, 10, 10), 40),
           ("BODY.0", 2, (255, 185, 125), (0, 40, 240), (200, 200, 200), 150)]
FIELDS = {"ambient": "msh ambient", "specular": "msh specular", "emissive": "msh emissive"}
GLIDE_BIT = {"ambient": 0x01, "specular": 0x04, "emissive": 0x08, "alpha": 0x10}


def two_texture_library(mode: int, mask: int, blend: str = "BLEND", entries=ENTRIES) -> dict:
    libraries = sample_libraries()
    phases = []
    for i, (texture, cell, ambient, specular, emissive, alpha) in enumerate(entries):
        record = phase((0.2 * i, 0.5, 0.9, 1.0), texture, cell=cell)
        record["p"][0:4] = [*ambient, alpha]
        record["p"][8:11] = specular
        record["p"][12:15] = emissive
        phases.append(record)
    material = Material(blend_attr1(blend, False), phases=np.array(phases),
                        animations=[AnimBlock(mode | mask << 3, np.array(KEYS, ANIM_KEY))])
    libraries["Material.lib"].add("SWITCH", material.to_bytes(), MAT0_TYPE_ID, attr1=material.attr1,
                                  attr2=material.attr2)
    return libraries


def imported(blender, tmp_path, mode, mask, blend="BLEND", also=()):
    bpy = blender.bpy
    libraries = two_texture_library(mode, mask, blend)
    game = write_game(tmp_path / "game", libraries)
    (game / "unit.rlb").write_bytes(model_archive(wear_of(["SWITCH", *also]), 1 + len(also)))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), frame_rate=RATE) == {"FINISHED"}
    (material,) = [m for m in bpy.data.materials if m.get("msh_mat0") == "SWITCH"]
    return libraries, game, material


def shown_texture(socket):
    """The image entry a socket's value comes from, following the graph as Blender evaluates it: a multiply by
    its texture side, a switch (Mix) by its factor."""
    while True:
        if not socket.is_linked:  # an untextured time: the switch's constant white
            return None
        node = socket.links[0].from_node
        if node.type == "TEX_IMAGE":
            return node.image["msh_texture"].split("|", 1)[1]
        if node.type == "MATH":
            socket = node.inputs[0]
            continue
        assert node.type == "MIX"
        kind = "RGBA" if node.data_type == "RGBA" else "VALUE"
        inputs = {s.name: s for s in node.inputs if s.type == kind}
        if node.blend_type == "MULTIPLY" and node.data_type == "RGBA":
            socket = inputs["A"]
            continue
        factor = node.inputs["Factor"].links[0].from_node.outputs[0].default_value
        assert factor in (0.0, 1.0)
        socket = inputs["B"] if factor == 1.0 else inputs["A"]


def curve_interpolations(blender, tree, node_name):
    out = set()
    for fcurve in blender.ext.io_msh.com.compat.assigned_fcurves(tree):
        if fcurve.data_path.startswith(f'nodes["{node_name}"]'):
            out |= {k.interpolation for k in fcurve.keyframe_points}
    return out


@pytest.mark.parametrize("mode", [LOOP, PING_PONG, ONCE, RANDOM])
@pytest.mark.parametrize("mask", [0x01, 0x04, 0x08, 0x10, 0x00])
def test_textures_colours_and_alpha_follow_the_track_at_every_frame(blender, tmp_path, mode, mask):
    libraries, _game, material = imported(blender, tmp_path, mode, mask)
    tree = material.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    (mapping,) = [n for n in tree.nodes if n.type == "MAPPING"]
    core_material = material_of(libraries["Material.lib"].find("SWITCH"))
    headers = {name: parse_texm(libraries["Textures.lib"].find(name).data) for name in ("BODY.0", "METAL.0")}
    frames = np.arange(0, 65)  # more than two ping-pong cycles (400 ms)
    times = timeline(core_material.animations[0], frames * 1000 / RATE)
    names = texture_names(core_material, times)
    cells = field_values(core_material, times, "cell")[:, 0].astype(np.uint8).view(np.int8)
    expected = {name: srgb_to_linear(field_values(core_material, times, name) / 255.0) for name in FIELDS}
    alpha = np.minimum(field_values(core_material, times, "ambient_alpha")[:, 0] * np.float32(0.01), 1)
    # Wiring: ambient into the emission (times the texture), specular tint, alpha into the texture alpha multiply.
    assert bsdf.inputs["Specular Tint"].links[0].from_node.name == "msh specular"
    emission = bsdf.inputs["Emission Color"].links[0].from_node
    assert {s.links[0].from_node.name for s in emission.inputs if s.type == "RGBA" and s.is_linked} >= {"msh ambient"}
    assert not tree.nodes["msh emissive"].outputs[0].is_linked  # the device does not use the entry's emissive
    assert bsdf.inputs["Alpha"].links[0].from_node.inputs[1].links[0].from_node.name == "msh alpha"
    for name, label in {**FIELDS, "alpha": "msh alpha"}.items():
        wanted = {"LINEAR"} if mask & GLIDE_BIT[name] else {"CONSTANT"}
        assert curve_interpolations(blender, tree, label) == wanted, name
    seen = set()
    for k, frame in enumerate(frames):
        blender.evaluated_frame(frame)
        for name, label in FIELDS.items():
            shown = np.array(tree.nodes[label].outputs[0].default_value)[:3]
            assert np.abs(shown - expected[name][k]).max() < 1e-5, (name, frame, shown, expected[name][k])
        assert abs(tree.nodes["msh alpha"].outputs[0].default_value - alpha[k]) < 1e-6, (frame, alpha[k])
        assert shown_texture(bsdf.inputs["Base Color"]) == names[k], frame
        assert shown_texture(bsdf.inputs["Alpha"]) == names[k], frame
        assert shown_texture(next(s for s in emission.inputs if s.type == "RGBA" and s.name == "A")) == names[k]
        u0, v0, du, dv = headers[names[k]].cell(int(cells[k]))
        location, scale = mapping.inputs["Location"].default_value, mapping.inputs["Scale"].default_value
        assert np.allclose([location[0], location[1], scale[0], scale[1]], [u0, 1 - v0 - dv, du, dv], atol=1e-6)
        seen.add((names[k], int(cells[k]), round(float(alpha[k]), 3)))
    assert {(n, c) for n, c, _a in seen} == {("BODY.0", 0), ("METAL.0", 1), ("BODY.0", 2)}
    alphas = {a for _n, _c, a in seen}
    assert len(alphas) > 2 if mask & 0x10 else alphas == {0.4, 1.0}


def graph(material):
    tree = material.node_tree
    return (sorted(n.bl_idname for n in tree.nodes),
            sorted((k.from_node.bl_idname, k.from_socket.identifier, k.to_node.bl_idname, k.to_socket.identifier)
                   for k in tree.links))


def test_a_material_without_animation_keeps_its_static_graph(blender, tmp_path):
    bpy = blender.bpy
    imported(blender, tmp_path / "a", LOOP, 0x01 | 0x10, also=["SAMPLE_BODY", "GLASS"])
    body = {m.get("msh_mat0"): m for m in bpy.data.materials}
    assert "msh_material_curves" in body["SWITCH"] and body["SWITCH"].node_tree.animation_data.action
    alone = {name: graph(body[name]) for name in ("SAMPLE_BODY", "GLASS")}
    for name in ("SAMPLE_BODY", "GLASS"):
        assert "msh_material_curves" not in body[name] and body[name].node_tree.animation_data is None
    blender.clean_scene()
    game = write_game(tmp_path / "b", sample_libraries())
    (game / "unit.rlb").write_bytes(model_archive(wear_of(["SAMPLE_BODY", "GLASS"]), 2))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), frame_rate=RATE) == {"FINISHED"}
    assert {name: graph(m) for m in bpy.data.materials if (name := m.get("msh_mat0"))} == alone


@pytest.mark.parametrize("blend", ["OPAQUE", "ADD"])
def test_opaque_and_additive_materials_switch_textures_too(blender, tmp_path, blend):
    libraries, _game, material = imported(blender, tmp_path, LOOP, 0x01 | 0x10, blend)
    tree = material.node_tree
    core_material = material_of(libraries["Material.lib"].find("SWITCH"))
    frames = np.arange(0, 21)
    names = texture_names(core_material, timeline(core_material.animations[0], frames * 1000 / RATE))
    shader = next(n for n in tree.nodes if n.type in ("BSDF_PRINCIPLED", "EMISSION"))
    colour = shader.inputs["Base Color" if blend == "OPAQUE" else "Color"]
    alpha = np.minimum(field_values(core_material, timeline(core_material.animations[0], frames * 1000 / RATE),
                                    "ambient_alpha")[:, 0] * np.float32(0.01), 1)
    for k, frame in enumerate(frames):
        blender.evaluated_frame(frame)
        assert shown_texture(colour) == names[k]
        if blend == "ADD":  # the alpha is the emission's strength (times the texture's alpha)
            assert shown_texture(shader.inputs["Strength"]) == names[k]
            assert abs(tree.nodes["msh alpha"].outputs[0].default_value - alpha[k]) < 1e-6
    if blend == "OPAQUE":  # an opaque draw uses no alpha
        assert "msh alpha" not in tree.nodes


def test_unedited_export_is_byte_identical_and_an_edited_material_curve_warns(blender, tmp_path):
    from core.files import open_container

    bpy = blender.bpy
    _libraries, game, material = imported(blender, tmp_path, PING_PONG, 0x01 | 0x10)
    library_bytes = (game / "Material.lib").read_bytes()
    blender.evaluated_frame(7)
    export = blender.ext.io_msh.exp.export
    options = blender.ext.io_msh.exp.plan.ExportOptions()
    _root, result = export.plan_export(bpy.context, options)
    assert not [w for w in result.warnings if "SWITCH" in w]
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    container = open_container(str(game / "unit.rlb"))
    assert out.read_bytes() == bytes(container.model_entries()[0].data)
    fcurves = blender.ext.io_msh.com.compat.assigned_fcurves(material.node_tree)
    curve = next(c for c in fcurves if 'nodes["msh ambient"]' in c.data_path)
    curve.keyframe_points[1].co.y += 0.25
    _root, result = export.plan_export(bpy.context, options)
    assert [w for w in result.warnings if w.startswith("material 'SWITCH': its animation's F-curves were edited")]
    edited = tmp_path / "edited.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(edited)) == {"FINISHED"}
    assert edited.read_bytes() == out.read_bytes()  # the model does not change; the track is not written back
    assert (game / "Material.lib").read_bytes() == library_bytes


def test_a_white_diffuse_feeds_only_the_sockets_the_graph_gave_the_diffuse(blender, tmp_path):
    """The Principled BSDF's white defaults (Specular Tint, Emission Color, ...) are not the diffuse colour."""
    bpy = blender.bpy
    libraries = sample_libraries()
    phases = [phase((*rgb, 1.0), "BODY.0", cell=i) for i, rgb in enumerate([(1, 1, 1), (0, 0.6, 0.2), (1, 0.7, 0.5)])]
    material = Material(blend_attr1("OPAQUE", False), phases=np.array(phases),
                        animations=[AnimBlock(LOOP | 0x02 << 3, np.array(KEYS, ANIM_KEY))])
    libraries["Material.lib"].add("WHITE", material.to_bytes(), MAT0_TYPE_ID, attr1=material.attr1,
                                  attr2=material.attr2)
    game = write_game(tmp_path / "game", libraries)
    (game / "unit.rlb").write_bytes(model_archive(wear_of(["WHITE"]), 1))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), frame_rate=RATE) == {"FINISHED"}
    (white,) = [m for m in bpy.data.materials if m.get("msh_mat0") == "WHITE"]
    fed = {(k.to_node.type, k.to_socket.name) for k in white.node_tree.nodes["msh diffuse"].outputs[0].links}
    assert fed == {("MIX", "B")}


def test_an_entry_without_a_texture_or_with_a_missing_one_shows_untextured_with_a_warning(blender, tmp_path, capfd):
    bpy = blender.bpy
    entries = [("BODY.0", 1, *ENTRIES[0][2:]), ("NOPE.0", 1, *ENTRIES[1][2:]), ("", 2, *ENTRIES[2][2:])]
    libraries = two_texture_library(LOOP, 0x01, entries=entries)
    game = write_game(tmp_path / "game", libraries)
    (game / "unit.rlb").write_bytes(model_archive(wear_of(["SWITCH"]), 1))
    capfd.readouterr()
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), frame_rate=RATE) == {"FINISHED"}
    out = capfd.readouterr()
    text = (out.out + out.err).lower()
    assert "texture 'nope.0' is not in textures.lib; its animation shows that entry untextured" in text
    (material,) = [m for m in bpy.data.materials if m.get("msh_mat0") == "SWITCH"]
    tree = material.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    (mapping,) = [n for n in tree.nodes if n.type == "MAPPING"]
    core_material = material_of(libraries["Material.lib"].find("SWITCH"))
    frames = np.arange(0, 21)
    names = texture_names(core_material, timeline(core_material.animations[0], frames * 1000 / RATE))
    assert set(names) == {"BODY.0", "NOPE.0", ""}
    for k, frame in enumerate(frames):
        blender.evaluated_frame(frame)
        shown = shown_texture(bsdf.inputs["Base Color"])
        assert shown == (names[k] if names[k] == "BODY.0" else None), frame
        assert shown_texture(bsdf.inputs["Alpha"]) == shown
        # BODY.0's cell 1 (its first Page rectangle), else the whole picture (nothing to cut a cell from)
        assert tuple(mapping.inputs["Scale"].default_value)[:2] == ((0.5, 0.5) if shown else (1.0, 1.0))
