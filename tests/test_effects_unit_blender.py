"""Import Unit shows a unit's effects: an effect its controller puts on three control points sits in their frame
(origin the centroid, axes the points' vectors: depth, width, height), and a node whose damage row names an
explosion that is found gets an Empty with the explosion's fields, at the node's bounding-sphere centre. Export
Unit writes the parts as read."""

import json

import numpy as np
from test_unit_import import import_unit, node_worlds
from unit_fixtures import write_game

from core.animation.controller.codec import GROUP_BLOCK, NO_GROUP, read_controller
from core.authoring import effects as E
from core.authoring import units
from core.container.nres import Archive
from core.effects.attach import node_spheres
from core.effects.exp import EXP_TYPE_ID
from core.msh.model import Model
from core.unit.cpt import parse_cpt, points_of

FRAME = [("fx_d", 0, 0, (0.0, 0.0, 1.0), (2.0, 0.0, 0.0)), ("fx_w", 0, 0, (1.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
         ("fx_h", 0, 0, (0.0, 1.0, 1.0), (0.0, 0.0, 0.5))]


def _game(folder):
    files = units.unit_files()
    parts = Archive.parse(files[units.PARTS])
    points = parse_cpt(parts.find("synth_chassis.cpt").data)
    rows = [(n, int(p["node"]), int(p["carrier"]), tuple(p["pos"]), tuple(p["vector"]))
            for n, p in zip(points.names, points.points)]
    parts.replace("synth_chassis.cpt", points_of(rows + FRAME).to_bytes())
    controller = read_controller(parts.find("synth_chassis.ctl").data)[0]
    controller.groups = [*controller.groups, np.array([E.effect_record(4, (2, 3, 4, 5), E.EFFECTS, "synth_mode_4")])]
    if (controller.group_block == NO_GROUP).all():
        controller.group_block = np.full(GROUP_BLOCK, NO_GROUP, "<i4")
    controller.group_block[0] = len(controller.groups) - 1
    parts.replace("synth_chassis.ctl", controller.to_bytes())
    parts.add("synth_chassis_1.exp", E.sample_explosions()["synth_blast_b.exp"], EXP_TYPE_ID)
    files[units.PARTS] = parts.to_bytes()
    files[E.EFFECTS] = E.effects_archive().to_bytes()
    return write_game(folder, files)


def test_a_units_effects_sit_on_their_points_and_its_explosions_on_their_nodes(blender, tmp_path):
    bpy = blender.bpy
    game = _game(tmp_path)
    roots = import_unit(bpy, game / units.UNIT_DAT)
    bpy.context.view_layer.update()
    effects = [o for o in bpy.data.objects if o.type == "EMPTY" and "msh_effect" in o]
    (on_points,) = [o for o in effects if o["msh_effect_place"] == "points"]
    assert on_points["msh_effect"] == "effects.rlb/synth_mode_4" and on_points["msh_effect_found"]
    chassis = roots[0]
    local = np.linalg.inv(node_worlds(chassis)[0]) @ np.array(on_points.matrix_world)  # points: in node 0's frame
    assert np.allclose(local[:3, 3], (1 / 3, 1 / 3, 1.0), atol=1e-5)
    assert np.allclose(local[:3, :3], np.diag((2.0, 1.0, 0.5)), atol=1e-5)
    (blast,) = [o for o in effects if o["msh_effect_place"] == "damage"]
    assert blast["msh_effect"] == "synth_parts.rlb/synth_chassis_1.exp" and blast["msh_effect_node"] == 1
    assert blast["msh_effect_damage"] == 800_000.0 and json.loads(blast["msh_effect_params"])["kind"] == 3
    # node 1 names no slot, so it has no bounding sphere: the Empty sits at its origin (a part's node with a
    # sphere puts it at the sphere's centre, as test_effects_blender shows for a model)
    model = Model.parse(Archive.parse((game / units.PARTS).read_bytes()).find("synth_chassis.msh").data)
    assert 1 not in node_spheres(model)
    assert np.allclose(np.array(blast.matrix_world.translation), node_worlds(chassis)[1][:3, 3], atol=1e-5)
    bpy.context.view_layer.objects.active = chassis
    before = (game / units.PARTS).read_bytes()
    assert bpy.ops.export_scene.parkan_unit() == {"FINISHED"}
    assert (game / units.PARTS).read_bytes() == before


def test_export_unit_writes_an_edited_explosion_and_an_edit_set_back_writes_it_back(blender, tmp_path):
    from core.effects.exp import parse_exp

    bpy = blender.bpy
    game = _game(tmp_path)
    roots = import_unit(bpy, game / units.UNIT_DAT)
    (blast,) = [o for o in bpy.data.objects if o.get("msh_effect_place") == "damage"]
    original = (game / units.PARTS).read_bytes()
    blast["msh_effect_damage"] = 250.0
    bpy.context.view_layer.objects.active = roots[0]
    assert bpy.ops.export_scene.parkan_unit() == {"FINISHED"}
    before, after = Archive.parse(original), Archive.parse((game / units.PARTS).read_bytes())
    assert parse_exp(after.find("synth_chassis_1.exp").data).damage == 250.0
    assert {e.name_str: bytes(e.data) for e in after if e.name_str != "synth_chassis_1.exp"} == \
        {e.name_str: bytes(e.data) for e in before if e.name_str != "synth_chassis_1.exp"}
    blast["msh_effect_damage"] = 800_000.0  # set back to the value imported: an edit of the file too
    assert bpy.ops.export_scene.parkan_unit() == {"FINISHED"}
    assert (game / units.PARTS).read_bytes() == original
