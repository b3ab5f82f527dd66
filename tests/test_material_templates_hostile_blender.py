"""Template materials attacked: the looks of one graph shape wear copies of one template material
(io_msh.imp.material_animation ``build_materials``), the last look the template itself, each renamed to its label.

- A failure at any point of the material build (a template, a look's values, a texture that cannot be decoded, a
  track's keys, a texture library spoilt after the plan read it; in the first model of an archive or a later one)
  leaves the .blend as it was: no material, image or action of that import, no "io_msh graph template" material,
  every earlier material, image and action untouched, the selection as it was.
- Names: every material is named what ``bpy.data.materials.new(label)`` gives at that moment, the looks in order
  (what the build made before the change), whatever the .blend holds (materials of the looks' names, user materials
  named like the template, linked materials) and whatever the labels are (repeated, longer than Blender keeps,
  cp1251 Cyrillic, or the template's own name); the materials already there are untouched.
- The materials of one shape are independent: editing one's nodes, values, keys, drivers or properties, or removing
  it, changes no other, also after undo and redo; undo takes the whole import back.
- An unedited import of such labels exports its model and WEAR list byte for byte, also a row name Blender cuts
  or that ends like a Blender number (found by this file; older than the templates)."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_material_belts_blender import belt_controller
from test_material_templates_blender import fcurves_of, graph_of, mat0
from test_material_track_choice_blender import add_material
from test_materials_blender import model_archive, write_game

from core.animation.controller import CTLD_TYPE_ID
from core.appearance.mat0 import MAT0_TYPE_ID
from core.authoring.synth import sample_libraries
from core.container.nres import Archive

TEMPLATE = "io_msh graph template"
KINDS = ("materials", "images", "actions", "objects", "meshes", "armatures", "collections", "node_groups",
         "libraries")
RATE = 100.0
SWEEP = os.environ.get("IO_MSH_SWEEP")
MODES = ["ARMATURE", "EMPTIES"]


def animated(colours, textures) -> dict:
    """A MAT0 record (test_material_templates_blender.mat0) whose track 0 steps through its phases."""
    return {"blend": "OPAQUE", "lit_skin": False, "colours": colours, "textures": textures, "cells": [-1, -1, -1],
            "keys": [(i, 100 * (i + 1)) for i in range(len(colours))], "header": 0x02 << 3}


# ANIM_A and ANIM_B: one shape (a texture switch), other values; ANIM_C: the diffuse alone
ANIMATED = {"ANIM_A": animated([(1.0, 1.0, 1.0, 1.0), (0.8, 0.2, 0.4, 1.0)], ["METAL.0", "GLASS.0", "METAL.0"]),
            "ANIM_B": animated([(0.1, 0.9, 0.5, 1.0), (1.0, 1.0, 1.0, 1.0)], ["METAL.0", "BODY.0", "METAL.0"]),
            "ANIM_C": animated([(0.1, 0.9, 0.5, 1.0), (0.8, 0.2, 0.4, 1.0)], ["", "", ""])}
CHOICES = {"CHOICE_1": [[(0, 0, 0)], [(1, 0, 0)], [(2, 0, 0)]], "CHOICE_2": [[(2, 0, 0)], [(0, 0, 0)], [(1, 0, 0)]]}
# ten looks: shapes used by 1, 2 and 3 looks, static and animated, repeated labels, DEFAULT fallbacks
WEAR = ["SAMPLE_METAL", "ANIM_A", "NO_SUCH_1", "SAMPLE_METAL", "ANIM_B", "GLASS", "NO_SUCH_2", "ANIM_C",
        "SAMPLE_BODY", "ANIM_A"]


def libraries() -> dict:
    out = sample_libraries()
    lib = out["Material.lib"]
    for name, record in ANIMATED.items():
        material = mat0(record)
        lib.add(name, material.to_bytes(), MAT0_TYPE_ID, attr1=material.attr1, attr2=material.attr2)
    for name, tracks in CHOICES.items():
        add_material(out, name, tracks)
    metal = lib.find("SAMPLE_METAL")  # a material entry of the template's name, of a shape of its own
    lib.add(TEMPLATE, bytes(metal.data), MAT0_TYPE_ID, attr1=metal.attr1, attr2=metal.attr2)
    return out


@pytest.fixture
def game(tmp_path):
    return write_game(tmp_path / "game", libraries())


def wear_bytes(names, lightmap=None) -> bytes:
    """test_materials_blender.wear_of, in the game's cp1251."""
    text = f"{len(names)}\r\n" + "".join(f"{i} {n}\r\n" for i, n in enumerate(names))
    if lightmap:
        text += f"\r\nLIGHTMAPS\r\n1\r\n0 {lightmap}\r\n"
    return text.encode("cp1251")


def archive(models: dict[str, list[str]], lightmapped: bool = False, belt_node: int | None = None) -> bytes:
    """An .rlb of one model per item (node i wears WEAR row i), each with its WEAR list; ``belt_node``: the first
    model's controller plays that node's material by a slider."""
    out = Archive()
    for i, (stem, names) in enumerate(models.items()):
        wear = wear_bytes(names, "LM_SAMPLE.0" if lightmapped else None)
        for entry in Archive.parse(model_archive(wear, len(names), lightmapped, f"{stem}.msh")).entries:
            out.add(entry.name, bytes(entry.data), entry.type_id, entry.attr1, entry.attr2, entry.attr3)
        if i == 0 and belt_node is not None:
            out.add(f"{stem}.ctl", belt_controller(0.3, belt_node).to_bytes(), CTLD_TYPE_ID)
    return out.to_bytes()


def import_(bpy, path, **options):
    return bpy.ops.import_scene.parkan_msh(filepath=str(path), frame_rate=RATE, **options)


def drivers_of(material) -> list:
    anim = material.node_tree.animation_data
    if anim is None:
        return []
    return [(f.data_path, f.array_index, f.driver.expression,
             [(v.name, t.id_type, t.id and t.id.name, t.data_path) for v in f.driver.variables for t in v.targets])
            for f in anim.drivers]


def state(bpy) -> dict:
    """Every datablock of the kinds an import makes (name, linked, address), every material's graph and drivers,
    every image's key and size, every action's users, the scene's frames and the selection."""
    ids = {kind: sorted((b.name, b.library is not None, b.as_pointer()) for b in getattr(bpy.data, kind))
           for kind in KINDS}
    graphs = {m.as_pointer(): (graph_of(m), drivers_of(m)) for m in bpy.data.materials if m.node_tree is not None}
    images = {i.as_pointer(): (i.name, i.get("msh_texture"), tuple(i.size)) for i in bpy.data.images}
    actions = {a.as_pointer(): (a.name, a.users) for a in bpy.data.actions}
    scene, layer = bpy.context.scene, bpy.context.view_layer
    return {"ids": ids, "graphs": graphs, "images": images, "actions": actions,
            "frames": (scene.frame_start, scene.frame_end, scene.frame_current),
            "selected": sorted(o.name for o in bpy.data.objects if o.select_get()),
            "active": layer.objects.active and layer.objects.active.name}


def user_material(bpy, name: str):
    """A material of the user's, with values of its own in its nodes."""
    material = bpy.data.materials.new(name)
    if material.node_tree is None:  # 4.x; 5.0 always has one
        material.use_nodes = True
    material.diffuse_color = (0.1, 0.2, 0.3, 0.4)
    material["mine"] = name
    rgb = material.node_tree.nodes.new("ShaderNodeRGB")
    rgb.name = "msh diffuse"  # the name of the import's node: must not be filled in
    rgb.outputs[0].default_value = (0.25, 0.5, 0.75, 1.0)
    return material


@pytest.fixture
def linked(blender, tmp_path):
    """Materials of the looks' and the template's names linked from a library .blend (removed after the test)."""
    bpy = blender.bpy
    names = ["SAMPLE_METAL", TEMPLATE, "NO_SUCH_1"]
    made = {user_material(bpy, n) for n in names}
    path = tmp_path / "library.blend"
    bpy.data.libraries.write(str(path), made, fake_user=True)
    bpy.data.batch_remove(made)
    with bpy.data.libraries.load(str(path), link=True) as (_source, target):
        target.materials = names
    yield [m for m in bpy.data.materials if m.library is not None]
    blender.clean_scene()
    bpy.data.batch_remove(list(bpy.data.libraries))


# ------------------------------------------------------------------------------------------- failure part-way
class Failing:
    """``module.name`` raising on its ``at``-th call (counted over the whole import)."""

    def __init__(self, monkeypatch, module, name: str, at: int) -> None:
        real = getattr(module, name)
        self.calls, self.fired = 0, False

        def failing(*args, **kwargs):
            self.calls += 1
            if self.calls == at:
                self.fired = True
                raise RuntimeError(f"injected failure: {name} call {at}")
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, failing)


def imp_module(blender, name: str):
    return getattr(blender.ext.io_msh.imp, name)


def prepare_blend(bpy, game) -> None:
    """What a user's .blend holds before the import: materials of the looks' and the template's names and an
    earlier import that shares images with the next one."""
    for name in ("SAMPLE_METAL", "ANIM_A", TEMPLATE, f"{TEMPLATE}.001", "NO_SUCH_2.001"):
        user_material(bpy, name)
    bpy.data.images.new("GLASS.0", 4, 4)  # a user's image of a texture's name, not the texture
    (game / "earlier.rlb").write_bytes(archive({"earlier": ["SAMPLE_METAL", "ANIM_C", "SAMPLE_METAL"]}))
    assert import_(bpy, game / "earlier.rlb") == {"FINISHED"}
    assert not [m for m in bpy.data.materials if m.name.startswith(TEMPLATE) and "mine" not in m]


def assert_fails_and_leaves_nothing(blender, path, failing: Failing, **options) -> None:
    bpy = blender.bpy
    before = state(bpy)
    with pytest.raises(RuntimeError, match=r"Import failed, nothing was kept.*injected failure"):
        import_(bpy, path, **options)
    assert failing.fired
    after = state(bpy)
    assert after["ids"] == before["ids"]  # nothing of the import left, nothing earlier removed
    assert after == before  # and every earlier material, image and action as it was


# fill_material is called once per look: the looks of WEAR, 10 in all
@pytest.mark.parametrize("node_mode", MODES)
@pytest.mark.parametrize("at", range(1, len(WEAR) + 1))
def test_a_look_that_fails_to_fill_leaves_the_blend_as_it_was(blender, game, monkeypatch, node_mode, at):
    prepare_blend(blender.bpy, game)
    (game / "unit.rlb").write_bytes(archive({"unit": WEAR}))
    failing = Failing(monkeypatch, imp_module(blender, "material_animation"), "fill_material", at)
    assert_fails_and_leaves_nothing(blender, game / "unit.rlb", failing, node_mode=node_mode)


@pytest.mark.parametrize("wear", [WEAR, WEAR[::-1]], ids=["in order", "reversed"])
@pytest.mark.parametrize(("module", "name", "at"), [  # the calls of WEAR in order:
    ("material_animation", "template_material", 1),
    ("material_animation", "template_material", 3),  # two templates made and copied once each
    ("material_animation", "template_material", 6),  # the last shape's
    ("material_animation", "_key_node", 1),  # the first track's action made, its first curve not
    ("material_animation", "_key_node", 4),  # ANIM_B's: a copy of the template of ANIM_A's shape
    ("material_animation", "_key_node", 9),  # the last ANIM_A's: that template itself
    ("materials", "decoded", 1),  # a texture that cannot be decoded: in a track's texture switch (reversed: a look's)
    ("materials", "decoded", 2),
])
def test_a_failure_while_building_the_graphs_leaves_the_blend_as_it_was(blender, game, monkeypatch, module, name,
                                                                         at, wear):
    prepare_blend(blender.bpy, game)
    (game / "unit.rlb").write_bytes(archive({"unit": wear}))
    failing = Failing(monkeypatch, imp_module(blender, module), name, at)
    assert_fails_and_leaves_nothing(blender, game / "unit.rlb", failing)


@pytest.mark.parametrize("lightmapped", [False, True])
@pytest.mark.parametrize("at", [4, 12, 16])  # in the first model; the second's; the third's last look
def test_a_failure_in_any_model_of_an_archive_leaves_the_blend_as_it_was(blender, game, monkeypatch, at,
                                                                          lightmapped):
    prepare_blend(blender.bpy, game)
    models = {"one": WEAR[:6], "two": WEAR[4:], "three": ["GLASS", "GLASS", "ANIM_B", "SAMPLE_METAL"]}
    (game / "three.rlb").write_bytes(archive(models, lightmapped))
    failing = Failing(monkeypatch, imp_module(blender, "material_animation"), "fill_material", at)
    assert_fails_and_leaves_nothing(blender, game / "three.rlb", failing)


@pytest.mark.parametrize("how", ["garbage", "removed"])
def test_a_texture_library_spoilt_between_the_plan_and_the_second_models_build_leaves_the_blend_as_it_was(
        blender, game, monkeypatch, how):
    """Real data rather than an injected error: Textures.lib read well when the import was planned, then written
    over (or removed) before the second model's materials are built, whose textures the first did not show."""
    bpy = blender.bpy
    prepare_blend(bpy, game)
    models = {"one": ["SAMPLE_METAL", "ANIM_C", "NO_SUCH_1", "SAMPLE_METAL"], "two": ["GLASS", "SAMPLE_BODY", "GLASS"]}
    (game / "two.rlb").write_bytes(archive(models))
    build = imp_module(blender, "build")
    real = build.build_materials
    calls = []

    def spoiling(*args):
        calls.append(args)
        if len(calls) == 2:
            library = game / "Textures.lib"
            if how == "removed":
                library.unlink()
            else:
                library.write_bytes(b"NRes" + bytes(range(256)) * 3)
        return real(*args)

    monkeypatch.setattr(build, "build_materials", spoiling)
    before = state(bpy)
    with pytest.raises(RuntimeError, match="Import failed, nothing was kept"):
        import_(bpy, game / "two.rlb")
    assert len(calls) == 2
    assert state(bpy) == before


def test_a_failure_with_linked_materials_of_the_looks_names_leaves_them_and_nothing_else(blender, game, monkeypatch,
                                                                                          linked):
    bpy = blender.bpy
    (game / "unit.rlb").write_bytes(archive({"unit": WEAR}))
    failing = Failing(monkeypatch, imp_module(blender, "material_animation"), "fill_material", len(WEAR))
    assert_fails_and_leaves_nothing(blender, game / "unit.rlb", failing)
    assert sorted(m.name for m in bpy.data.materials) == sorted(m.name for m in linked)


# ------------------------------------------------------------------------------------------------------ names
def spy_on_names(blender, monkeypatch) -> list:
    """For every model built: its looks' labels, the names ``bpy.data.materials.new(label)`` gives for them in
    order at the moment the build starts (made and removed again), and the names the build gave."""
    bpy = blender.bpy
    build = imp_module(blender, "build")
    real = build.build_materials
    seen = []

    def spying(plan, root, created, lightmapped):
        labels = [look.label for look in plan.looks.values()]
        made = [bpy.data.materials.new(label) for label in labels]
        expected = [m.name for m in made]
        bpy.data.batch_remove(made)
        materials = real(plan, root, created, lightmapped)
        seen.append((labels, expected, [materials[word].name for word in plan.looks]))
        return materials

    monkeypatch.setattr(build, "build_materials", spying)
    return seen


LONG = "P" * 90  # longer than 63 bytes (4.2 and 4.5 keep 63)
CYRILLIC = "аБРОНЯ_ТЯЖЁЛАЯ_" * 6  # 2 bytes a letter in UTF-8, an odd byte first: cut at 63 bytes mid-letter?

NAMING = {
    "repeated labels": (["SAMPLE_METAL", "SAMPLE_METAL", "NO_SUCH", "SAMPLE_METAL", "NO_SUCH", "GLASS"],
                        ["SAMPLE_METAL", "SAMPLE_METAL.002", "NO_SUCH.001", "GLASS.001"]),
    "user materials named like the template": (
        ["SAMPLE_METAL", "GLASS", "SAMPLE_METAL", "NO_SUCH_1", "NO_SUCH_2", "ANIM_A", "ANIM_B"],
        [TEMPLATE, f"{TEMPLATE}.001", f"{TEMPLATE}.005", "SAMPLE_METAL.001"]),
    "long labels": ([f"{LONG}_{i % 3}" for i in range(5)] + ["SAMPLE_METAL", "SAMPLE_METAL"], [f"{LONG}_1"]),
    "Cyrillic labels": ([f"{CYRILLIC}{i % 2}" for i in range(4)] + ["ANIM_A", "ANIM_A"], [f"{CYRILLIC}0"]),
    "labels with a number suffix": (["NO_SUCH.001", "NO_SUCH", "NO_SUCH", "NO_SUCH.001"], ["NO_SUCH", "NO_SUCH.002"]),
    "many looks of one shape": (["NO_SUCH"] * 60 + ["SAMPLE_METAL"] * 40, ["NO_SUCH.017", "SAMPLE_METAL.001"]),
}


def assert_named_as_before(bpy, seen, mine: dict) -> None:
    assert seen
    for labels, expected, got in seen:
        assert got == expected, labels
    assert not [m.name for m in bpy.data.materials if m.name.startswith(TEMPLATE) and m.library is None
                and m.as_pointer() not in mine and not any(m.name in expected for _labels, expected, _got in seen)]
    graphs = state(bpy)["graphs"]
    assert {pointer: graphs[pointer] for pointer in mine} == mine  # the user's materials: untouched


@pytest.mark.parametrize("node_mode", MODES)
@pytest.mark.parametrize("case", sorted(NAMING))
def test_materials_are_named_as_new_would_name_them_in_look_order(blender, game, monkeypatch, case, node_mode):
    bpy = blender.bpy
    wear, existing = NAMING[case]
    for name in existing:
        user_material(bpy, name)
    mine = state(bpy)["graphs"]
    seen = spy_on_names(blender, monkeypatch)
    (game / "unit.rlb").write_bytes(archive({"unit": wear}))
    for _ in range(2):  # the second import meets the first's materials
        assert import_(bpy, game / "unit.rlb", node_mode=node_mode) == {"FINISHED"}
    assert len(seen) == 2
    assert_named_as_before(bpy, seen, mine)


def test_many_models_of_an_archive_sharing_materials_are_named_as_before(blender, game, monkeypatch):
    bpy = blender.bpy
    for name in ("GLASS", TEMPLATE, "ANIM_B.001"):
        user_material(bpy, name)
    mine = state(bpy)["graphs"]
    seen = spy_on_names(blender, monkeypatch)
    models = {f"m{i}": WEAR[i:] + WEAR[:i] for i in range(0, 10, 2)}
    (game / "many.rlb").write_bytes(archive(models, lightmapped=True))
    assert import_(bpy, game / "many.rlb") == {"FINISHED"}
    assert len(seen) == len(models)
    assert_named_as_before(bpy, seen, mine)
    imported = [m for m in bpy.data.materials if "msh_material" in m]
    assert len(imported) == sum(len(names) for names in models.values())  # one per WEAR row of every model
    assert len({i["msh_texture"] for i in bpy.data.images if "msh_texture" in i}) == len(
        [i for i in bpy.data.images if "msh_texture" in i])  # each texture's image made once, shared


def test_linked_materials_of_the_looks_names_neither_rename_nor_change(blender, game, monkeypatch, linked):
    bpy = blender.bpy
    theirs = {m.as_pointer(): graph_of(m) for m in linked}
    seen = spy_on_names(blender, monkeypatch)
    (game / "unit.rlb").write_bytes(archive({"unit": WEAR}))
    assert import_(bpy, game / "unit.rlb") == {"FINISHED"}
    assert_named_as_before(bpy, seen, {})
    assert {m.as_pointer(): graph_of(m) for m in bpy.data.materials if m.library is not None} == theirs


@pytest.mark.parametrize("wear", [
    [TEMPLATE, "SAMPLE_METAL"],              # the label of a look whose shape another look shares
    ["NO_SUCH_1", TEMPLATE, "NO_SUCH_2"],    # the label of a look of a shape of its own (Material.lib's entry)
    [f"{TEMPLATE}.001", "NO_SUCH"],          # the name a template gets when a user's material has its name
], ids=["shared shape", "own shape", "suffixed"])
def test_a_look_labelled_like_the_template_is_named_as_new_would_name_it(blender, game, monkeypatch, wear):
    """A WEAR name is any text: a look may be called "io_msh graph template", and then its material's name must
    not depend on what the build calls its templates meanwhile."""
    bpy = blender.bpy
    if wear[0].endswith(".001"):
        user_material(bpy, TEMPLATE)
    mine = state(bpy)["graphs"]
    seen = spy_on_names(blender, monkeypatch)
    (game / "unit.rlb").write_bytes(archive({"unit": wear}))
    assert import_(bpy, game / "unit.rlb") == {"FINISHED"}
    assert_named_as_before(bpy, seen, mine)


# ----------------------------------------------------------------------------------------------- independence
def edit(bpy, material) -> None:
    """Change everything of a material the import set: node values, places and images, keys, drivers and its
    properties."""
    tree = material.node_tree
    other = bpy.data.images.new("edited", 2, 2)
    for node in tree.nodes:
        node.location = (node.location[0] + 7.0, node.location[1] - 3.0)
        if getattr(node, "image", None) is not None:
            node.image = other
        for socket in (*node.inputs, *node.outputs):
            value = getattr(socket, "default_value", None)
            if isinstance(value, float):
                socket.default_value = 0.321
            elif value is not None and not isinstance(value, (str, int, bool)) and len(value) in (3, 4):
                socket.default_value = [0.321] * len(value)
    for fcurve in fcurves_of(tree):
        for key in fcurve.keyframe_points:
            key.co.y += 0.5
        if fcurve.driver is not None and fcurve.driver.variables:
            fcurve.driver.expression = f"{fcurve.driver.variables[0].name} * 0"
    material.diffuse_color = (0.0, 1.0, 0.0, 1.0)
    for key in list(material.keys()):
        if isinstance(material[key], (int, float)):
            material[key] = 77


@pytest.mark.parametrize("node_mode", MODES)
def test_the_materials_of_one_shape_are_independent_copies(blender, game, node_mode):
    bpy = blender.bpy
    wear = ["ANIM_A", "ANIM_B", "ANIM_A", "SAMPLE_METAL", "SAMPLE_METAL", "CHOICE_1", "CHOICE_2", "GLASS", "GLASS",
            "NO_SUCH_1", "NO_SUCH_2", "CHOICE_1"]
    (game / "unit.rlb").write_bytes(archive({"unit": wear}, belt_node=1))  # ANIM_B by the belt's slider
    assert import_(bpy, game / "unit.rlb", node_mode=node_mode, clips="ACTIONS") == {"FINISHED"}
    materials = [m for m in bpy.data.materials if "msh_material" in m]
    assert len(materials) == len(wear)
    assert len({m.node_tree.as_pointer() for m in materials}) == len(wear)
    actions = [m.node_tree.animation_data.action for m in materials if m.node_tree.animation_data
               and m.node_tree.animation_data.action]
    assert len(set(actions)) == 2 and all(a.users == 1 for a in actions)  # ANIM_A's two (ANIM_B: by the belt)
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    for material in materials:  # drivers read their own material's track, or the root's belt slider
        for _path, _index, _expression, variables in drivers_of(material):
            assert {name for _v, _kind, name, _data in variables} <= {material.name, root.name}, material.name
            assert variables
    changed = blender.ext.io_msh.com.material_curves.material_animation_edited
    assert not [m.name for m in materials if changed(m)]  # each fingerprint is its own material's curves
    scene = bpy.context.scene
    for material in materials:
        material.update_tag()
    done = set()  # the materials edited so far
    for frame in (1, 12, 27):
        scene.frame_set(frame)
        before = {m.name: (graph_of(m), drivers_of(m)) for m in materials}
        for edited in materials:
            edit(bpy, edited)
            scene.frame_set(frame)
            for material in materials:
                if material != edited:
                    assert (graph_of(material), drivers_of(material)) == before[material.name], (edited.name,
                                                                                                 material.name)
                    assert material in done or not changed(material), (edited.name, material.name)
            done.add(edited)
            before[edited.name] = (graph_of(edited), drivers_of(edited))
    while materials:  # removing one, the template last of its shape or not, leaves the others as they were
        gone = materials.pop(len(materials) // 2)
        bpy.data.materials.remove(gone)
        scene.frame_set(27)
        for material in materials:
            assert (graph_of(material), drivers_of(material)) == before[material.name], material.name
    assert not [m for m in bpy.data.materials if m.name.startswith(TEMPLATE)]


@pytest.mark.parametrize("node_mode", MODES)
def test_picking_a_track_of_one_choice_material_leaves_its_shape_mates(blender, game, node_mode):
    bpy = blender.bpy
    (game / "unit.rlb").write_bytes(archive({"unit": ["CHOICE_1", "CHOICE_2", "CHOICE_1"]}))
    assert import_(bpy, game / "unit.rlb", node_mode=node_mode) == {"FINISHED"}
    materials = sorted((m for m in bpy.data.materials if "msh_material" in m), key=lambda m: m["msh_material"])
    assert [m.name for m in materials] == ["CHOICE_1", "CHOICE_2", "CHOICE_1.001"]
    shown = {m.name: graph_of(m)["nodes"] for m in materials}
    for picked in materials:
        for track in (2, 1, 0):
            picked["msh_track"] = track
            picked.update_tag()
            bpy.context.view_layer.update()
            for material in materials:
                if material != picked:
                    assert graph_of(material)["nodes"] == shown[material.name], (picked.name, track, material.name)
        assert graph_of(picked)["nodes"] == shown[picked.name]  # back on track 0


def test_shape_mates_show_their_own_values(blender, game):
    """The copies were filled, not left with the values of the template's first look."""
    bpy = blender.bpy
    (game / "unit.rlb").write_bytes(archive({"unit": ["ANIM_A", "ANIM_B", "ANIM_A"]}))
    assert import_(bpy, game / "unit.rlb") == {"FINISHED"}
    by_name = {m.name: m for m in bpy.data.materials if "msh_material" in m}
    assert sorted(by_name) == ["ANIM_A", "ANIM_A.001", "ANIM_B"]
    a, b, a2 = by_name["ANIM_A"], by_name["ANIM_B"], by_name["ANIM_A.001"]
    strip = {"name", "props"}
    assert {k: v for k, v in graph_of(a).items() if k not in strip} == {
        k: v for k, v in graph_of(a2).items() if k not in strip}
    assert graph_of(a)["nodes"] != graph_of(b)["nodes"]
    images = {m.name: sorted(n.image.name for n in m.node_tree.nodes if getattr(n, "image", None)) for m in (a, b)}
    assert images == {"ANIM_A": ["GLASS.0", "METAL.0"], "ANIM_B": ["BODY.0", "METAL.0"]}
    assert np.allclose(a.diffuse_color, a2.diffuse_color) and not np.allclose(a.diffuse_color, b.diffuse_color)


def assert_exports_as_it_came(blender, game, tmp_path, wear: list[str], **options) -> None:
    """An unedited import of that WEAR list writes back its model and list byte for byte, and no material
    animation counts as edited."""
    from core.files import open_container

    bpy = blender.bpy
    (game / "unit.rlb").write_bytes(archive({"unit": wear}))
    assert import_(bpy, game / "unit.rlb", **options) == {"FINISHED"}
    changed = blender.ext.io_msh.com.material_curves.material_animation_edited
    assert not [m.name for m in bpy.data.materials if changed(m)]
    blender.evaluated_frame(7)
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    source = {e.name_str: bytes(e.data) for e in open_container(str(game / "unit.rlb")).archive.entries}
    assert out.read_bytes() == source["unit.msh"]
    assert out.with_suffix(".wea").read_bytes().decode("cp1251") == source["unit.wea"].decode("cp1251")


@pytest.mark.parametrize("node_mode", MODES)
def test_an_unedited_import_of_repeated_and_template_named_labels_exports_byte_for_byte(blender, game, tmp_path,
                                                                                         node_mode):
    """Repeated and template-named labels (named apart from new's names: the export still finds their rows),
    Cyrillic ones, looks of one shape static, clocked and chosen."""
    wear = [*WEAR, TEMPLATE, "ЖЕЛЕЗО", "CHOICE_1", "CHOICE_2", "CHOICE_1", TEMPLATE, "ЖЕЛЕЗО"]
    assert_exports_as_it_came(blender, game, tmp_path, wear, node_mode=node_mode)


RUSSIAN = "БРОНЕТРАНСПОРТЁРКОРПУСЛЕВЫЙБОРТДВА"  # 34 bytes in cp1251 (a library name holds 35), 68 in UTF-8


def test_a_cyrillic_library_name_longer_than_blender_keeps_exports_as_it_came(blender, tmp_path):
    """Blender 4.2 and 4.5 keep 63 bytes of a material's name, and a Cyrillic letter is 2 bytes in UTF-8, so a
    Material.lib name of 32 to 35 letters is cut: the export must still write the whole name (the cut one names
    no material of the library: the game would draw DEFAULT there). 5.0 keeps 255 bytes."""
    libs = libraries()
    metal = libs["Material.lib"].find("SAMPLE_METAL")
    libs["Material.lib"].add(RUSSIAN, bytes(metal.data), MAT0_TYPE_ID, attr1=metal.attr1, attr2=metal.attr2)
    game = write_game(tmp_path / "game", libs)
    assert_exports_as_it_came(blender, game, tmp_path, [RUSSIAN, "SAMPLE_METAL", RUSSIAN])


def test_a_wear_name_ending_like_a_blender_duplicate_exports_as_it_came(blender, tmp_path):
    """A library material named "GLASS.001" imports as "GLASS.001": its ".001" is not Blender's duplicate number,
    and the export writes it (else the game would draw GLASS there)."""
    libs = libraries()
    glow = libs["Material.lib"].find("GLOW")
    libs["Material.lib"].add("GLASS.001", bytes(glow.data), MAT0_TYPE_ID, attr1=glow.attr1, attr2=glow.attr2)
    game = write_game(tmp_path / "game", libs)
    assert_exports_as_it_came(blender, game, tmp_path, ["GLASS.001"])


LABELS = ["SAMPLE_METAL", "GLASS", "ANIM_A", "ANIM_B", "CHOICE_1", "NO_SUCH", "NO_SUCH.001", "NO_SUCH.002",
          f"{LONG}_0", f"{LONG}_1", f"{CYRILLIC}0", f"a{CYRILLIC}"]
EXISTING = [*LABELS, TEMPLATE, f"{TEMPLATE}.001", f"{TEMPLATE}.003", f"{LONG}_0.001", f"{LONG}"]


@settings(max_examples=int(SWEEP or 25), deadline=None, derandomize=SWEEP is None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(wear=st.lists(st.sampled_from(LABELS), min_size=1, max_size=12),
       existing=st.lists(st.sampled_from(EXISTING), max_size=6), lightmapped=st.booleans(), twice=st.booleans())
def test_any_labels_in_any_blend_are_named_as_new_would_name_them(blender, game, monkeypatch, wear, existing,
                                                                  lightmapped, twice):
    """Labels other than the template's own name (test_a_look_labelled_like_the_template_...), in any order and
    number, beside any materials: the names new(label) gives in look order."""
    bpy = blender.bpy
    blender.clean_scene()
    for name in existing:
        user_material(bpy, name)
    mine = state(bpy)["graphs"]
    with monkeypatch.context() as patch:
        seen = spy_on_names(blender, patch)
        (game / "unit.rlb").write_bytes(archive({"unit": wear}, lightmapped))
        for _ in range(1 + twice):
            assert import_(bpy, game / "unit.rlb") == {"FINISHED"}
    assert_named_as_before(bpy, seen, mine)


# ------------------------------------------------------------------------------------------------------- undo
def by_name(bpy) -> dict:
    """``state`` by names (undo and redo load every datablock anew, at other addresses)."""
    ids = {kind: sorted((b.name, b.library is not None) for b in getattr(bpy.data, kind)) for kind in KINDS}
    graphs = {m.name: (graph_of(m), drivers_of(m)) for m in bpy.data.materials if m.node_tree is not None}
    actions = {a.name: a.users for a in bpy.data.actions}
    return {"ids": ids, "graphs": graphs, "actions": actions}


@pytest.mark.parametrize("node_mode", MODES)
def test_undo_takes_the_import_back_and_redo_brings_back_independent_materials(blender, game, node_mode):
    """The bpy wheel undoes in a window's context, the operator called with its undo step."""
    bpy = blender.bpy
    for name in ("SAMPLE_METAL", TEMPLATE):
        user_material(bpy, name)
    (game / "unit.rlb").write_bytes(archive({"unit": WEAR}))

    def import_with_undo():
        assert bpy.ops.import_scene.parkan_msh("EXEC_DEFAULT", True, filepath=str(game / "unit.rlb"),
                                               frame_rate=RATE, node_mode=node_mode) == {"FINISHED"}

    with bpy.context.temp_override(window=bpy.context.window_manager.windows[0]):
        bpy.ops.ed.undo_push(message="before the import")
        before = by_name(bpy)
        import_with_undo()
        imported = by_name(bpy)
        assert len(imported["graphs"]) == len(before["graphs"]) + len(WEAR)
        assert bpy.ops.ed.undo() == {"FINISHED"}
        assert by_name(bpy) == before
        assert bpy.ops.ed.redo() == {"FINISHED"}
        assert by_name(bpy) == imported
        edit(bpy, bpy.data.materials["ANIM_A"])  # the first of its shape: a copy
        edit(bpy, bpy.data.materials["SAMPLE_METAL.001"])
        now = by_name(bpy)["graphs"]
        assert {n: g for n, g in now.items() if n not in ("ANIM_A", "SAMPLE_METAL.001")} == {
            n: g for n, g in imported["graphs"].items() if n not in ("ANIM_A", "SAMPLE_METAL.001")}
        assert bpy.ops.ed.undo() == {"FINISHED"}  # the edits had no undo step: back to before the import
        assert by_name(bpy) == before
        import_with_undo()  # the import again, after its images and materials were undone
        assert by_name(bpy) == imported
