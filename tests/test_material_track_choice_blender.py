"""Alternative MAT0 tracks (units-clips-digest 3.3: more than one track, every one static, track i naming entry
i) through the real import operator: the material gets an ``msh_track`` property whose drivers show, for the
track picked, what core.appearance.material_tracks gives for it (colours, alpha, texture, cell). Track 0 shows
what a material without the other tracks shows; the unedited import exports byte for byte whatever track is
picked; a material whose track 0 is animated keeps playing it by the clock."""

import numpy as np
import pytest
from test_material_animation_blender import KEYS, RATE, srgb_to_linear
from test_material_animation_fields_blender import ENTRIES, FIELDS, shown_texture
from test_materials_blender import model_archive, wear_of, write_game

from core.appearance.mat0 import ANIM_KEY, MAT0_TYPE_ID, AnimBlock, Material, blend_attr1, material_of, phase
from core.appearance.material_tracks import LOOP, field_values, texture_names, timeline
from core.appearance.texm import parse_texm
from core.authoring.synth import sample_libraries
from core.files import open_container

ONE_KEY = 0x02 << 3  # a mask naming the diffuse: nothing glides with one key anyway


def add_material(libraries: dict, name: str, tracks: list[list[tuple[int, int, int]]]) -> None:
    """ENTRIES' three phases (two textures, three cells, different colours and alphas) and these tracks."""
    phases = []
    for i, (texture, cell, ambient, specular, emissive, alpha) in enumerate(ENTRIES):
        record = phase((0.2 * i, 0.5, 0.9, 1.0), texture, cell=cell)
        record["p"][0:4] = [*ambient, alpha]
        record["p"][8:11] = specular
        record["p"][12:15] = emissive
        phases.append(record)
    material = Material(blend_attr1("BLEND", False), phases=np.array(phases),
                        animations=[AnimBlock(LOOP | ONE_KEY, np.array(keys, ANIM_KEY)) for keys in tracks])
    libraries["Material.lib"].add(name, material.to_bytes(), MAT0_TYPE_ID, attr1=material.attr1,
                                  attr2=material.attr2)


def import_materials(blender, folder, materials: dict[str, list]):
    bpy = blender.bpy
    libraries = sample_libraries()
    for name, tracks in materials.items():
        add_material(libraries, name, tracks)
    game = write_game(folder, libraries)
    (game / "unit.rlb").write_bytes(model_archive(wear_of(list(materials)), len(materials)))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb"), frame_rate=RATE) == {"FINISHED"}
    return libraries, game, {m.get("msh_mat0"): m for m in bpy.data.materials if m.get("msh_mat0")}


def pick(blender, material, track: int) -> None:
    material["msh_track"] = track
    material.update_tag()  # as the property panel does on an edit
    blender.bpy.context.view_layer.update()


def value_of(socket):
    """A socket's value: its own, or the RGB / Value node feeding it."""
    if socket.is_linked:
        node = socket.links[0].from_node
        assert node.type in ("RGB", "VALUE"), node.type
        socket = node.outputs[0]
    value = socket.default_value
    return tuple(value) if hasattr(value, "__len__") else value


def shown(material) -> dict:
    """What the material's graph shows, as Blender evaluates it."""
    tree = material.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    diffuse = bsdf.inputs["Base Color"].links[0].from_node  # texture x diffuse
    alpha = bsdf.inputs["Alpha"].links[0].from_node  # texture alpha x alpha
    (mapping,) = [n for n in tree.nodes if n.type == "MAPPING"] or [None]
    cell = None if mapping is None else (*mapping.inputs["Location"].default_value[:2],
                                         *mapping.inputs["Scale"].default_value[:2])
    return {"texture": shown_texture(bsdf.inputs["Base Color"]), "alpha texture": shown_texture(bsdf.inputs["Alpha"]),
            "diffuse": value_of(next(s for s in diffuse.inputs if s.type == "RGBA" and s.name == "B"))[:3],
            "alpha": value_of(alpha.inputs[1]), "cell": cell,
            **{name: value_of(bsdf.inputs[name]) for name in ("Specular Tint", "Emission Color", "Emission Strength")}}


def expected(libraries, name: str, track: int) -> dict:
    core_material = material_of(libraries["Material.lib"].find(name))
    times = timeline(core_material.animations[track], np.zeros(1))
    (texture,) = texture_names(core_material, times)
    cell = int(field_values(core_material, times, "cell")[0, 0])
    u0, v0, du, dv = parse_texm(libraries["Textures.lib"].find(texture).data).cell(cell)
    return {"texture": texture, "cell": (u0, 1 - v0 - dv, du, dv),
            "diffuse": srgb_to_linear(field_values(core_material, times, "diffuse")[0] / 255.0),
            "alpha": min(float(field_values(core_material, times, "ambient_alpha")[0, 0] * np.float32(0.01)), 1.0),
            **{f: srgb_to_linear(field_values(core_material, times, f)[0] / 255.0) for f in FIELDS}}


@pytest.mark.parametrize("tracks", [
    [[(0, 0, 0)], [(1, 0, 0)], [(2, 0, 0)]],                # track i names entry i (the game's materials)
    [[(0, 100, 0)], [(2, 0, 0)], [(1, 0, 0), (0, 0, 0)]],  # track 1 names entry 2; track 2: two keys, period 0
])
def test_msh_track_shows_each_tracks_entry(blender, tmp_path, tracks):
    libraries, _game, materials = import_materials(blender, tmp_path / "game", {"CHOICE": tracks})
    material = materials["CHOICE"]
    tree = material.node_tree
    ui = material.id_properties_ui("msh_track").as_dict()
    assert (material["msh_track"], ui["min"], ui["max"], ui["default"]) == (0, 0, 2, 0) and ui["description"]
    assert tree.animation_data.action is None and len(tree.animation_data.drivers) > 0
    for fcurve in tree.animation_data.drivers:  # keys at the track indices, constant
        assert {k.interpolation for k in fcurve.keyframe_points} == {"CONSTANT"}
        assert {k.co.x for k in fcurve.keyframe_points} <= {0.0, 1.0, 2.0}
    seen = set()
    for track in (1, 2, 0, 2, 1):
        pick(blender, material, track)
        want = expected(libraries, "CHOICE", track)
        now = shown(material)
        assert now["texture"] == now["alpha texture"] == want["texture"], track
        assert np.allclose(now["cell"], want["cell"], atol=1e-6), track
        assert np.abs(np.array(now["diffuse"]) - want["diffuse"]).max() < 1e-5, track
        assert abs(now["alpha"] - want["alpha"]) < 1e-6, track
        for name, label in FIELDS.items():  # held in their nodes
            value = np.array(tree.nodes[label].outputs[0].default_value)[:3]
            assert np.abs(value - want[name]).max() < 1e-5, (track, name)
        seen.add((now["texture"], round(now["alpha"], 3)))
    assert seen == {("BODY.0", 1.0), ("METAL.0", 0.4)}


def test_track_0_shows_what_a_material_without_other_tracks_shows(blender, tmp_path):
    """CHOICE and PLAIN have the same phases; PLAIN has only its track 0 (static): the default import of CHOICE
    looks as PLAIN does (its ambient and specular are not wired, as PLAIN's are not)."""
    _libraries, _game, materials = import_materials(
        blender, tmp_path / "game", {"CHOICE": [[(0, 0, 0)], [(1, 0, 0)], [(2, 0, 0)]], "PLAIN": [[(0, 0, 0)]]})
    assert "msh_track" not in materials["PLAIN"] and materials["PLAIN"].node_tree.animation_data is None
    blender.bpy.context.view_layer.update()
    plain = shown(materials["PLAIN"])
    assert plain["cell"] is None  # entry 0's cell is the whole texture: CHOICE's Mapping must show it whole
    choice = shown(materials["CHOICE"])
    assert np.allclose(choice.pop("cell"), (0.0, 0.0, 1.0, 1.0)) and plain.pop("cell") is None
    assert choice.keys() == plain.keys()
    for name, value in plain.items():
        assert np.allclose(choice[name], value, atol=1e-6) if not isinstance(value, str) else choice[name] == value
    pick(blender, materials["CHOICE"], 1)
    pick(blender, materials["CHOICE"], 0)
    again = shown(materials["CHOICE"])
    assert again.pop("cell") == pytest.approx((0.0, 0.0, 1.0, 1.0))
    assert again["texture"] == plain["texture"] and np.allclose(again["diffuse"], plain["diffuse"], atol=1e-6)


def test_an_unedited_import_exports_byte_for_byte_whatever_track_is_picked(blender, tmp_path):
    bpy = blender.bpy
    _libraries, game, materials = import_materials(blender, tmp_path / "game",
                                                   {"CHOICE": [[(0, 0, 0)], [(1, 0, 0)], [(2, 0, 0)]]})
    library_bytes = (game / "Material.lib").read_bytes()
    source = bytes(open_container(str(game / "unit.rlb")).model_entries()[0].data)
    export = blender.ext.io_msh.exp.export
    options = blender.ext.io_msh.exp.plan.ExportOptions()
    for track in (0, 2):
        pick(blender, materials["CHOICE"], track)
        _root, result = export.plan_export(bpy.context, options)
        assert not [w for w in result.warnings if "CHOICE" in w], track
        out = tmp_path / f"out{track}.msh"
        assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
        assert out.read_bytes() == source
    assert (game / "Material.lib").read_bytes() == library_bytes
    driver = next(c for c in materials["CHOICE"].node_tree.animation_data.drivers
                  if 'nodes["msh ambient"]' in c.data_path)
    driver.keyframe_points[1].co.y += 0.25  # an edited key is still reported
    _root, result = export.plan_export(bpy.context, options)
    assert [w for w in result.warnings if w.startswith("material 'CHOICE': its animation's F-curves were edited")]


def test_an_animated_track_0_plays_by_the_clock_beside_other_tracks(blender, tmp_path):
    libraries, _game, materials = import_materials(blender, tmp_path / "game",
                                                   {"CLOCK": [KEYS, [(1, 0, 0)], [(2, 0, 0)]]})
    material = materials["CLOCK"]
    tree = material.node_tree
    assert "msh_track" not in material and tree.animation_data.action is not None
    assert not tree.animation_data.drivers
    core_material = material_of(libraries["Material.lib"].find("CLOCK"))
    frames = np.arange(0, 25)
    times = timeline(core_material.animations[0], frames * 1000 / RATE)
    names = texture_names(core_material, times)
    ambient = srgb_to_linear(field_values(core_material, times, "ambient") / 255.0)
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    for k, frame in enumerate(frames):
        blender.evaluated_frame(frame)
        assert shown_texture(bsdf.inputs["Base Color"]) == names[k], frame
        assert np.abs(np.array(tree.nodes["msh ambient"].outputs[0].default_value)[:3] - ambient[k]).max() < 1e-5
    assert set(names) == {"BODY.0", "METAL.0"}


def test_alternatives_showing_the_same_or_naming_a_missing_entry_get_no_property(blender, tmp_path, capfd):
    """Tracks that all show entry 0 change nothing (no property, the static graph); a track naming an entry the
    material lacks is a warning naming the material, and the import goes on."""
    capfd.readouterr()
    _libraries, _game, materials = import_materials(
        blender, tmp_path / "game", {"SAME": [[(0, 0, 0)], [(0, 50, 0)]], "BROKEN": [[(0, 0, 0)], [(5, 0, 0)]]})
    for name in ("SAME", "BROKEN"):
        assert "msh_track" not in materials[name] and materials[name].node_tree.animation_data is None, name
    out = capfd.readouterr().out
    assert "material 'BROKEN': its alternative tracks are not shown: track key names entry 5" in out
    assert "SAME" not in out
