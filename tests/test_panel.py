"""The Parkan sidebar panel. Its export check is the export's own: every refusal the
exporter can give from a scene is listed by the check before the export, and the export then refuses with
that message. Also the model's facts, switching the damage stage and LOD, selecting what a line names, and
the game's pose beside Blender's."""

import time

import numpy as np
import pytest
from fixtures import generated
from test_export import with_extra_streams, with_lod_slots
from test_import import import_file, node_matrices, write


@pytest.fixture(autouse=True)
def export_dialog_defaults(blender):
    """The export dialog's last-used options (which the check uses) back to their defaults."""
    last = blender.bpy.context.window_manager.operator_properties_last("export_scene.parkan_msh")

    def reset():
        for prop in last.bl_rna.properties:
            if prop.identifier != "rna_type":
                last.property_unset(prop.identifier)

    reset()
    blender.ext.io_msh.ui.panel.CHECKS.results.clear()
    yield
    reset()


def _panel(blender):
    return blender.ext.io_msh.ui.panel


def _root(bpy, name="slots.msh"):
    return next(o for o in bpy.data.objects if o.get("msh_model") == name)


def _imported(bpy, tmp_path, data=None, name="slots.msh", **options):
    (root,) = import_file(bpy, write(tmp_path, name, data or with_lod_slots()), **options)
    return root


def _part(bpy, root, node=0):
    return next(o for o in root.children_recursive if o.type == "MESH" and o["msh_node_index"] == node)


def _new_mesh(bpy, name, vertices, triangles, root, bone="a"):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(v) for v in vertices], [], [tuple(t) for t in triangles])
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.parent = root
    if root is not None and root.type == "ARMATURE":
        obj.parent_type, obj.parent_bone = "BONE", bone
    return obj


def _grid(n):
    xs, ys = np.meshgrid(np.arange(n, dtype=float), np.arange(n, dtype=float))
    vertices = np.column_stack([xs.ravel(), ys.ravel(), np.zeros(n * n)])
    i = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    triangles = np.concatenate([np.column_stack([i, i + 1, i + n]), np.column_stack([i + 1, i + n + 1, i + n])])
    return vertices, triangles


def _select_only(bpy, objects):
    for obj in bpy.context.selected_objects:
        obj.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]


# Each case builds a scene the export refuses; returns the export's options (also set as the dialog's last).
def not_attached(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    obj = _new_mesh(bpy, "loose", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)], root)
    obj.parent_type = "OBJECT"
    return {}


def not_attached_empties(bpy, tmp_path):
    _imported(bpy, tmp_path, node_mode="EMPTIES")
    obj = _new_mesh(bpy, "loose", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)], None)
    obj["msh_slot"] = 0
    obj.parent = _root(bpy)
    return {}


def unweighted(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    obj = _new_mesh(bpy, "skin", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)], [(0, 1, 2), (1, 3, 2)], root)
    obj.parent_type = "OBJECT"
    a, b = obj.vertex_groups.new(name="a"), obj.vertex_groups.new(name="b")
    a.add([0, 1], 1.0, "REPLACE")
    b.add([2], 1.0, "REPLACE")
    return {}


def library_is_a_model(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    part = _part(bpy, root)
    part.data.materials.append(bpy.data.materials.new("fresh"))
    part.data.polygons.foreach_set("material_index", [len(part.data.materials) - 1] * len(part.data.polygons))
    return {"material_library": write(tmp_path, "Material.lib", generated(3, node_count=2))}


def range_before_zero(bpy, tmp_path):
    root = _imported(bpy, tmp_path, data=generated(42, node_count=3, frame_count=10), name="anim.msh")
    action = root.animation_data.action
    action.frame_start, action.frame_end = -10, -4
    return {}


def mirrored(bpy, tmp_path):
    root = _imported(bpy, tmp_path, node_mode="EMPTIES")
    node = next(o for o in root.children_recursive if o.type == "EMPTY" and o["msh_node_index"] == 1)
    node.scale = (-1.0, 1.0, 1.0)  # a pure reflection
    bpy.context.view_layer.update()
    return {}


def scale_changes(bpy, tmp_path):
    root = _imported(bpy, tmp_path, node_mode="EMPTIES")
    node = next(o for o in root.children_recursive if o.type == "EMPTY" and o["msh_node_index"] == 1)
    node.keyframe_insert("scale", frame=0)
    node.scale = (2.0, 2.0, 2.0)
    node.keyframe_insert("scale", frame=4)
    return {"frame_range": "CUSTOM", "end_frame": 4}


def fractional_keyframe(bpy, tmp_path):
    root = _imported(bpy, tmp_path, node_mode="EMPTIES")
    node = next(o for o in root.children_recursive if o.type == "EMPTY" and o["msh_node_index"] == 1)
    node.keyframe_insert("location", frame=0)
    node.location.x += 1
    node.keyframe_insert("location", frame=2.5)
    return {"keys": "BLENDER_KEYS", "frame_range": "CUSTOM", "end_frame": 4}


def new_node_loses_slots(bpy, tmp_path):
    root = _imported(bpy, tmp_path, node_mode="EMPTIES")
    extra = bpy.data.objects.new("extra", None)
    bpy.context.scene.collection.objects.link(extra)
    extra.parent = root
    return {}


def new_node_loses_streams(bpy, tmp_path):
    root = _imported(bpy, tmp_path, data=with_extra_streams(), name="extra.msh", node_mode="EMPTIES", slots="ALL")
    extra = bpy.data.objects.new("extra", None)
    bpy.context.scene.collection.objects.link(extra)
    extra.parent = root
    return {}


def too_many_vertices(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    _new_mesh(bpy, "big", *_grid(260), root)["msh_slot"] = 2  # 67,600 vertices, 133,358 triangles
    _new_mesh(bpy, "big2", *_grid(260), root, bone="b")["msh_slot"] = 2
    return {}


def too_many_triangles(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    _new_mesh(bpy, "dense", *_grid(120), root, bone="b")  # 14,400 vertices, 28,322 triangles
    _part(bpy, root, 1).parent_bone = "a"  # b's own part goes to a's other slot
    _part(bpy, root, 1)["msh_slot"] = 2
    return {}


def slot_out_of_range(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    _part(bpy, root)["msh_slot"] = 20
    return {}


def two_parts_one_slot(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    part = _part(bpy, root)
    twin = part.copy()
    twin.data = part.data.copy()
    bpy.context.scene.collection.objects.link(twin)
    return {}


def name_outside_cp1251(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    root.data.bones["a"].name = "\u540d"
    return {}


def name_too_long(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    root.data.bones["a"].name = "n" * 40
    return {}


def too_many_materials(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    count = 258
    vertices = [(i, 0, 0) for i in range(count)] + [(i, 1, 0) for i in range(count)] + \
               [(i, 0, 1) for i in range(count)]
    obj = _new_mesh(bpy, "patchwork", vertices, [(i, count + i, 2 * count + i) for i in range(count)], root,
                    bone="b")
    for i in range(count):
        obj.data.materials.append(bpy.data.materials.new(f"m{i}"))
    obj.data.polygons.foreach_set("material_index", list(range(count)))
    _part(bpy, root, 1)["msh_slot"] = 2
    return {}


def image_name(bpy, tmp_path):
    root = _imported(bpy, tmp_path)
    part = _part(bpy, root)
    material = bpy.data.materials.new("painted")
    if material.node_tree is None:  # 5.0 makes the tree with the material
        material.use_nodes = True
    node = material.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = bpy.data.images.new("\u540d\u540d.png", 4, 4)
    part.data.materials.append(material)
    part.data.polygons.foreach_set("material_index", [len(part.data.materials) - 1] * len(part.data.polygons))
    return {"texture_library": str(tmp_path / "Textures.lib"), "material_library": str(tmp_path / "Material.lib")}


def several_models(bpy, tmp_path):
    a = _imported(bpy, tmp_path)
    import_file(bpy, write(tmp_path, "other.msh", generated(43, node_count=2)))
    b = _root(bpy, "other.msh")
    _select_only(bpy, [a, b])
    return {}


def no_model(bpy, tmp_path):
    mesh = bpy.data.meshes.new("cube")
    obj = bpy.data.objects.new("cube", mesh)
    bpy.context.scene.collection.objects.link(obj)
    _select_only(bpy, [obj])
    return {}


def no_nodes(bpy, tmp_path):
    obj = bpy.data.objects.new("rig", bpy.data.armatures.new("rig"))
    bpy.context.scene.collection.objects.link(obj)
    _select_only(bpy, [obj])
    return {}


REFUSALS = {
    not_attached: "is not attached to a node: parent it to a bone",
    not_attached_empties: "is not attached to a node: parent it to one of the model's Empties",
    unweighted: "vertices have no weight on a bone",
    library_is_a_model: "the target is a model, not an archive",
    range_before_zero: "range ends at frame -4, before frame 0",
    mirrored: "is mirrored",
    scale_changes: "has parts and a scale that changes",
    fractional_keyframe: "has a keyframe at frame",
    new_node_loses_slots: "the other damage stages and LODs would be lost",
    new_node_loses_streams: "Blender does not hold them",
    too_many_vertices: "a part holds at most 65536",
    too_many_triangles: "MSH draws at most 21845 per material",
    slot_out_of_range: "msh_slot 20 is not 0..14",
    two_parts_one_slot: "are on the same node and slot",
    name_outside_cp1251: "cannot be stored in code page 1251; rename it",
    name_too_long: "MSH node names hold at most 31",
    too_many_materials: "a batch names at most 256 materials",
    image_name: "rename the image",
    several_models: "several models are selected",
    no_model: "select the model to export",
    no_nodes: "has no nodes",
}


@pytest.mark.parametrize("case", list(REFUSALS), ids=[c.__name__ for c in REFUSALS])
def test_the_check_lists_every_refusal_the_export_then_gives(blender, tmp_path, case):
    bpy = blender.bpy
    options = case(bpy, tmp_path)
    last = bpy.context.window_manager.operator_properties_last("export_scene.parkan_msh")
    for key, value in options.items():
        setattr(last, key, value)
    check = _panel(blender).run_check(bpy.context, None)
    errors = [line.message for line in check.lines if line.level == "ERROR"]
    assert any(REFUSALS[case] in m for m in errors), errors
    target = tmp_path / "out.msh"
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.export_scene.parkan_msh(filepath=str(target), **options)
    assert not target.exists()
    said = str(refused.value)
    assert REFUSALS[case] in said
    assert any(m in said for m in errors), (errors, said)


def test_every_oversized_part_is_listed(blender, tmp_path):
    """The export stops at the first part too large; the check names each, and each line selects its part."""
    bpy = blender.bpy
    too_many_vertices(bpy, tmp_path)
    check = _panel(blender).run_check(bpy.context, _root(bpy))
    named = {line.names[0] for line in check.lines if line.level == "ERROR"}
    assert named == {"big", "big2"}
    line = next(line for line in check.lines if line.names[0] == "big2")
    assert "65536" in line.message
    assert bpy.ops.parkan_msh.select_named(name="big2", root="slots.msh") == {"FINISHED"}
    assert [o.name for o in bpy.context.selected_objects] == ["big2"]


def test_lines_select_the_bone_they_name(blender, tmp_path):
    bpy = blender.bpy
    name_too_long(bpy, tmp_path)
    check = _panel(blender).run_check(bpy.context, _root(bpy))
    (line,) = [line for line in check.lines if line.level == "ERROR"]
    assert "n" * 40 in line.names
    assert bpy.ops.parkan_msh.select_named(name="n" * 40, root="slots.msh") == {"FINISHED"}
    root = _root(bpy)
    assert bpy.context.view_layer.objects.active == root and root.data.bones.active.name == "n" * 40


def test_an_unedited_import_checks_clean_and_an_edit_shows_what_changes(blender, tmp_path):
    bpy = blender.bpy
    panel = _panel(blender)
    root = _imported(bpy, tmp_path, slots="ALL")
    check = panel.run_check(bpy.context, root)
    assert check.lines == [] and not check.refused and check.model is not None
    assert panel.CHECKS.fresh(root.name)
    part = _part(bpy, root)
    part.data.vertices[0].co.x += 0.5
    part.data.update()
    bpy.context.view_layer.update()
    assert not panel.CHECKS.fresh(root.name)  # the depsgraph update made the last check stale
    assert bpy.app.timers.is_registered(panel._live_check)  # and asked for a live check again
    bpy.app.timers.unregister(panel._live_check)
    _select_only(bpy, [root])
    while (again := panel._live_check()) is not None:  # what the timer runs, a step at a time
        time.sleep(again)
    assert panel.CHECKS.fresh(root.name)
    check = panel.CHECKS.current(root.name)
    assert [line.level for line in check.lines] == ["WARNING"]
    assert "geometry changed" in check.lines[0].message


def test_the_check_of_a_model_with_clips_does_not_make_itself_stale(blender, tmp_path):
    """The export (and so its check) reads the timeline through copies of its actions; those are the check's
    own changes: the result stays fresh and no live check is asked for again (it ran every half second)."""
    from core.authoring.build import build_model
    from core.authoring.controllers import walker_controller, walker_model

    bpy = blender.bpy
    panel = _panel(blender)
    (tmp_path / "walker.msh").write_bytes(build_model(walker_model()).to_bytes())
    (tmp_path / "walker.ctl").write_bytes(walker_controller().to_bytes())
    (root,) = import_file(bpy, str(tmp_path / "walker.msh"), clips="ACTIONS")
    bpy.context.view_layer.update()
    if bpy.app.timers.is_registered(panel._live_check):
        bpy.app.timers.unregister(panel._live_check)
    panel.run_check(bpy.context, root)
    bpy.context.view_layer.update()
    assert panel.CHECKS.fresh(root.name)
    assert not bpy.app.timers.is_registered(panel._live_check)


def test_model_facts(blender, tmp_path, sample_rlb):
    bpy = blender.bpy
    panel = _panel(blender)
    path = write(tmp_path, "sample.rlb", sample_rlb)
    (root,) = import_file(bpy, path)
    facts = dict(panel.model_facts(root))
    assert facts["Model"] == "sample.msh" and facts["File"].startswith(path)
    assert facts["Nodes"] == str(len(root.data.bones)) and facts["Frames"] == str(root["msh_frame_count"])
    assert facts["Slots"] == "intact LOD 0"
    materials = panel.model_materials(root)
    assert materials and all("(row " in m for m in materials)


def test_one_click_switches_the_damage_stage_and_lod(blender, tmp_path):
    bpy = blender.bpy
    panel = _panel(blender)
    root = _imported(bpy, tmp_path, slots="ALL")
    assert panel.available_slots(root) == {0, 1, 5}
    assert panel.shown_slot(bpy.context, root) == 0

    def visible():
        return sorted((o["msh_node_index"], o["msh_slot"]) for o in root.children_recursive
                      if o.type == "MESH" and o.visible_get())

    assert visible() == [(0, 0), (1, 0)]
    assert bpy.ops.parkan_msh.show_slot(position=5) == {"FINISHED"}
    assert visible() == [(1, 5)] and panel.shown_slot(bpy.context, root) == 5
    assert bpy.ops.parkan_msh.show_slot(position=1) == {"FINISHED"}
    assert visible() == [(0, 1)]
    assert bpy.ops.parkan_msh.show_slot(position=0) == {"FINISHED"}
    assert visible() == [(0, 0), (1, 0)]
    with pytest.raises(RuntimeError, match="damage 2 LOD 0 was not imported"):
        bpy.ops.parkan_msh.show_slot(position=10)


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_the_game_pose_follows_the_frame_beside_blenders(blender, tmp_path, node_mode):
    bpy = blender.bpy
    panel = _panel(blender)
    data = generated(44, node_count=5, frame_count=20, animated=1.0)
    (root,) = import_file(bpy, write(tmp_path, "anim.msh", data), node_mode=node_mode)
    _select_only(bpy, [root])
    assert bpy.ops.parkan_msh.game_pose() == {"FINISHED"}
    ghosts = sorted(panel.ghost_collection(root).objects, key=lambda o: o["msh_game_node"])
    assert len(ghosts) == 5
    for frame in (0, 7, 13):
        bpy.context.scene.frame_set(frame)
        blender_pose = node_matrices(bpy, root)
        inverse = np.array(root.matrix_world.inverted())
        for ghost in ghosts:
            game = inverse @ np.array(ghost.matrix_world)
            assert np.abs(game - blender_pose[ghost["msh_game_node"]]).max() < 1e-4
    assert not any(o.get("msh_model") for o in ghosts)
    assert bpy.ops.parkan_msh.game_pose() == {"FINISHED"}
    assert panel.ghost_collection(root) is None


def _labels(drawn):
    return [d[1] for d in drawn if d[0] == "label"]


def test_the_panel_draws_what_the_check_found(blender, tmp_path):
    """The panel's draw code, run against a layout that checks each call against UILayout's RNA."""
    from rna_layout import CheckedLayout

    bpy = blender.bpy
    panel = _panel(blender)
    drawn = CheckedLayout()
    panel.VIEW3D_PT_parkan_model.draw(drawn_panel(drawn), bpy.context)
    assert _labels(drawn.drawn)[0].startswith("Select a Parkan model")
    root = _imported(bpy, tmp_path, slots="ALL")
    _new_mesh(bpy, "big", *_grid(260), root)["msh_slot"] = 2
    _select_only(bpy, [root])
    drawn = CheckedLayout()
    panel.VIEW3D_PT_parkan_model.draw(drawn_panel(drawn), bpy.context)
    labels = _labels(drawn.drawn)
    assert "Not checked yet" in labels and "slots.msh" in labels and "Frames" in labels
    assert sum(1 for d in drawn.drawn if d[:2] == ("operator", "parkan_msh.show_slot")) == 15
    panel.run_check(bpy.context, root)
    drawn = CheckedLayout()
    panel.VIEW3D_PT_parkan_model.draw(drawn_panel(drawn), bpy.context)
    text = " ".join(_labels(drawn.drawn))
    assert "mesh 'big' has 67600 vertices" in text
    assert ("operator property", "name", "big") in drawn.drawn
    assert ("operator", "parkan_msh.game_pose", "Show Game Pose") in drawn.drawn


def drawn_panel(layout):
    """A panel instance's stand-in for draw(): only its layout is read."""
    return type("PanelSelf", (), {"layout": layout})()
