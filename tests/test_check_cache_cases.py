"""A hostile review of the export check's cache (io_msh.exp.check_cache): what a user or a script does between two
checks, through bpy only, in both node modes; after each, the Check button's check with the cache is a check
from scratch (its lines and the bytes it would write). Undo is simulated by setting values back."""

import numpy as np
import pytest
from test_check_cache import checked_alike, imported
from test_import import import_file, write
from test_live_check import curves_of
from test_panel import _panel, _select_only, export_dialog_defaults  # noqa: F401  (an autouse fixture)

from core.authoring.build import build_model
from core.authoring.synth import random_model

MODES = ["ARMATURE", "EMPTIES"]


def holders(root):
    if root.type == "ARMATURE":
        return [root]
    return [o for o in root.children_recursive if o.type == "EMPTY" and o.animation_data and o.animation_data.action]


def fcurves_of(holder):
    return [c for c in curves_of(holder.animation_data.action) if len(c.keyframe_points) > 2]


def collection_of(fcurve):
    """The collection ``fcurve`` belongs to (the action's, or its channelbag's from 4.4 on)."""
    action = fcurve.id_data
    if hasattr(action, "fcurves"):
        return action.fcurves
    for layer in action.layers:
        for strip in layer.strips:
            for bag in strip.channelbags:
                if any(c == fcurve for c in bag.fcurves):
                    return bag.fcurves
    raise AssertionError("no channelbag holds the curve")


def keys_of(fcurve):
    points = fcurve.keyframe_points
    co = np.empty(2 * len(points), np.float32)
    points.foreach_get("co", co)
    return co


def a_curve(root, path="location"):
    for holder in holders(root):
        for curve in fcurves_of(holder):
            if curve.data_path.endswith(path):
                return curve
    raise AssertionError(f"no {path} curve")


def meshes(root):
    return [o for o in root.children_recursive if o.type == "MESH"]


def model(blender, tmp_path, node_mode, seed=11):
    bpy = blender.bpy
    root = imported(bpy, tmp_path, seed, node_count=4, frame_count=16, node_mode=node_mode)
    _select_only(bpy, [root])
    panel = _panel(blender)
    checked_alike(bpy, panel, root)  # the cache filled
    return bpy, panel, root


# ----------------------------------------------------------------- F-curves and actions
@pytest.mark.parametrize("node_mode", MODES)
def test_a_curve_removed_and_made_again_with_other_keys(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    for shift in (0.5, 0.0):  # other keys, then the same keys again (a new curve like the one removed)
        curve = a_curve(root)
        path, index, group = curve.data_path, curve.array_index, curve.group
        co = keys_of(curve)
        co[3::2] += shift
        fcurves = collection_of(curve)
        fcurves.remove(curve)
        new = fcurves.new(path, index=index)
        new.group = group
        new.keyframe_points.add(len(co) // 2)
        new.keyframe_points.foreach_set("co", co)
        new.update()
        checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_an_action_removed_and_made_again(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    holder = holders(root)[0]
    action = holder.animation_data.action
    name = action.name
    copy = action.copy()
    bpy.data.actions.remove(action)
    checked_alike(bpy, panel, root)
    again = copy.copy()  # may take the removed action's memory
    again.name = name
    bpy.data.actions.remove(copy)
    for curve in fcurves_of_action(again)[:2]:
        curve.keyframe_points[-1].co[1] += 0.25
    holder.animation_data.action = again
    checked_alike(bpy, panel, root)


def fcurves_of_action(action):
    return [c for c in curves_of(action) if len(c.keyframe_points) > 2]


@pytest.mark.parametrize("node_mode", MODES)
def test_an_action_renamed(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    action = holders(root)[0].animation_data.action
    a_curve(root).keyframe_points[2].co[1] += 0.5
    bpy.context.view_layer.update()  # the edit is tagged under the old name
    action.name = action.name + "_renamed"
    checked_alike(bpy, panel, root)
    a_curve(root).keyframe_points[2].co[1] -= 0.5
    action.name = action.name[:-8]
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_the_same_action_on_another_holder(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    if node_mode == "ARMATURE":  # its one holder: the action taken off, then given back
        action = root.animation_data.action
        root.animation_data.action = None
        checked_alike(bpy, panel, root)
        root.animation_data.action = action
        checked_alike(bpy, panel, root)
        return
    first, second = holders(root)[:2]
    before = second.animation_data.action
    second.animation_data.action = first.animation_data.action
    checked_alike(bpy, panel, root)
    second.animation_data.action = before
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_curve_settings(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    curve = a_curve(root)
    modifier = curve.modifiers.new("NOISE")
    checked_alike(bpy, panel, root)
    modifier.strength = 3.0  # the modifier's count is the same
    checked_alike(bpy, panel, root)
    modifier.mute = True
    checked_alike(bpy, panel, root)
    curve.modifiers.remove(modifier)
    checked_alike(bpy, panel, root)
    curve.mute = True
    checked_alike(bpy, panel, root)
    curve.mute = False
    checked_alike(bpy, panel, root)
    group = curve.group
    if group is not None:
        group.mute = True
        checked_alike(bpy, panel, root)
        group.mute = False
        checked_alike(bpy, panel, root)
    curve.extrapolation = "LINEAR"
    checked_alike(bpy, panel, root)
    curve.extrapolation = "CONSTANT"
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_keys_set_through_rna_and_foreach_set_with_update(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    curve = a_curve(root)
    point = curve.keyframe_points[3]
    before = tuple(point.co)
    point.co = (before[0], before[1] + 0.5)  # the whole vector
    checked_alike(bpy, panel, root)
    point.co = before
    checked_alike(bpy, panel, root)
    co = keys_of(curve)
    co[5] += 0.75
    curve.keyframe_points.foreach_set("co", co)
    curve.update()
    checked_alike(bpy, panel, root)
    co[5] -= 0.75
    curve.keyframe_points.foreach_set("co", co)
    curve.update()
    checked_alike(bpy, panel, root)


# ----------------------------------------------------------------- objects, meshes, bones
@pytest.mark.parametrize("node_mode", MODES)
def test_the_model_duplicated(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    _select_only(bpy, [root, *root.children_recursive])
    with bpy.context.temp_override(active_object=root, selected_objects=[root, *root.children_recursive]):
        assert bpy.ops.object.duplicate() == {"FINISHED"}
    copy = bpy.context.view_layer.objects.active
    assert copy is not None and copy != root
    _select_only(bpy, [copy])
    checked_alike(bpy, panel, copy)
    a_curve(copy).keyframe_points[2].co[1] += 0.5
    meshes(copy)[0].data.vertices[0].co.x += 0.25
    checked_alike(bpy, panel, copy)
    _select_only(bpy, [root])
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_a_mesh_slot_given_another_material_and_a_mesh_renamed(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    mesh = meshes(root)[0]
    slot = mesh.material_slots[0]
    before = slot.material
    other = before.copy() if before is not None else bpy.data.materials.new("other")
    slot.material = other
    checked_alike(bpy, panel, root)
    slot.material = before
    checked_alike(bpy, panel, root)
    name = mesh.name
    mesh.name = name + "_renamed"
    checked_alike(bpy, panel, root)
    mesh.name = name
    checked_alike(bpy, panel, root)


def test_a_bone_roll_and_rest_changed_in_edit_mode(blender, tmp_path):
    bpy, panel, root = model(blender, tmp_path, "ARMATURE")
    _select_only(bpy, [root])
    bpy.ops.object.mode_set(mode="EDIT")
    bone = root.data.edit_bones[1]
    roll, head = bone.roll, tuple(bone.head)
    bone.roll += 0.3
    bone.head.x += 0.1
    bpy.ops.object.mode_set(mode="OBJECT")
    checked_alike(bpy, panel, root)
    bpy.ops.object.mode_set(mode="EDIT")
    bone = root.data.edit_bones[1]
    bone.roll, bone.head = roll, head
    bpy.ops.object.mode_set(mode="OBJECT")
    checked_alike(bpy, panel, root)


# ----------------------------------------------------------------- scene and options
@pytest.mark.parametrize("node_mode", MODES)
def test_the_scene_frame_range_and_rate(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    scene = bpy.context.scene
    last = bpy.context.window_manager.operator_properties_last("export_scene.parkan_msh")
    last.frame_range = "SCENE"
    checked_alike(bpy, panel, root)
    start, end, fps = scene.frame_start, scene.frame_end, scene.render.fps
    scene.frame_end = end - 3
    checked_alike(bpy, panel, root)
    scene.frame_start = start + 1
    checked_alike(bpy, panel, root)
    scene.render.fps = fps * 2
    checked_alike(bpy, panel, root)
    scene.frame_start, scene.frame_end, scene.render.fps = start, end, fps
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_the_export_options_changed_between_checks(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    a_curve(root).keyframe_points[3].co[1] += 0.5  # an edited node: its track is authored (and kept)
    checked_alike(bpy, panel, root)
    last = bpy.context.window_manager.operator_properties_last("export_scene.parkan_msh")
    for name, value in (("keys", "EVERY_FRAME"), ("keys", "BLENDER_KEYS"), ("keys", "REDUCED"),
                        ("position_tolerance", last.position_tolerance * 4),
                        ("rotation_tolerance", last.rotation_tolerance * 4),
                        ("frame_range", "CUSTOM"), ("end_frame", 9), ("frame_range", "ACTION"), ("force", True)):
        setattr(last, name, value)
        checked_alike(bpy, panel, root)


# ----------------------------------------------------------------- a frame change evaluating the edits
@pytest.mark.parametrize("node_mode", MODES)
def test_edits_evaluated_by_a_frame_change(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    scene = bpy.context.scene
    point = a_curve(root).keyframe_points[3]
    point.co[1] += 0.5
    scene.frame_set(scene.frame_current + 1)  # the edit evaluated, without a depsgraph update
    checked_alike(bpy, panel, root)
    point.co[1] -= 0.5
    scene.frame_set(scene.frame_current - 1)
    checked_alike(bpy, panel, root)
    mesh = meshes(root)[0].data
    mesh.polygons[0].use_smooth = not mesh.polygons[0].use_smooth
    scene.frame_set(scene.frame_current + 1)
    checked_alike(bpy, panel, root)
    mesh.polygons[0].use_smooth = not mesh.polygons[0].use_smooth
    scene.frame_set(scene.frame_current - 1)
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_frame_changes_without_edits_read_no_mesh_again(blender, tmp_path, node_mode):
    """The frame changes of the check's own evaluation scene (which lists every data-block) are no edit."""
    bpy, panel, root = model(blender, tmp_path, node_mode)
    scene = bpy.context.scene
    for _ in range(2):
        scene.frame_set(scene.frame_current + 1)
        panel.run_check(bpy.context, root)
        assert blender.ext.io_msh.exp.check_cache.kept_counts(root.name)["meshes read"] == 0


# ----------------------------------------------------------------- what a mesh holds besides its stored arrays
@pytest.mark.parametrize("node_mode", MODES)
def test_mesh_face_settings_set_through_rna(blender, tmp_path, node_mode):
    """Face material, shading, the active UV map and face flags are not in the stored arrays the cache compares:
    Blender's tag of the mesh must be what reads them again."""
    bpy, panel, root = model(blender, tmp_path, node_mode)
    obj = meshes(root)[0]
    mesh = obj.data
    mesh.materials.append(bpy.data.materials.new("second"))
    checked_alike(bpy, panel, root)
    mesh.polygons[0].material_index = 1
    checked_alike(bpy, panel, root)
    mesh.polygons[0].use_smooth = not mesh.polygons[0].use_smooth
    checked_alike(bpy, panel, root)
    mesh.edges[0].use_edge_sharp = not mesh.edges[0].use_edge_sharp
    checked_alike(bpy, panel, root)
    flag = mesh.attributes.get("msh_glass") or mesh.attributes.new("msh_glass", "BOOLEAN", "FACE")
    checked_alike(bpy, panel, root)
    flag.data[0].value = not flag.data[0].value
    checked_alike(bpy, panel, root)
    layer = mesh.uv_layers.new(name="second")
    checked_alike(bpy, panel, root)
    layer.data[0].uv = (0.75, 0.25)
    checked_alike(bpy, panel, root)
    mesh.uv_layers.active = layer
    checked_alike(bpy, panel, root)
    mesh.uv_layers.active_index = 0
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_mesh_face_settings_set_by_foreach_set(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    mesh = meshes(root)[0].data
    mesh.materials.append(bpy.data.materials.new("second"))
    checked_alike(bpy, panel, root)
    slots = np.ones(len(mesh.polygons), np.int32)
    mesh.polygons.foreach_set("material_index", slots)  # no update: Blender's evaluated mesh is the old one
    checked_alike(bpy, panel, root)
    mesh.update()
    checked_alike(bpy, panel, root)
    smooth = np.zeros(len(mesh.polygons), bool)
    mesh.polygons.foreach_get("use_smooth", smooth)
    mesh.polygons.foreach_set("use_smooth", ~smooth)
    checked_alike(bpy, panel, root)
    mesh.update()
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_meshes_swapped_and_replaced(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    first, second = meshes(root)[:2]
    first.data, second.data = second.data, first.data
    checked_alike(bpy, panel, root)
    first.data, second.data = second.data, first.data
    checked_alike(bpy, panel, root)
    old = first.data
    name = old.name
    new = old.copy()
    new.vertices[0].co.z += 0.5
    first.data = new
    bpy.data.meshes.remove(old)  # its memory free for the next mesh
    new.name = name
    checked_alike(bpy, panel, root)
    again = new.copy()
    again.vertices[0].co.z -= 0.5
    first.data = again
    bpy.data.meshes.remove(new)
    again.name = name
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_a_mesh_written_by_bmesh(blender, tmp_path, node_mode):
    import bmesh
    bpy, panel, root = model(blender, tmp_path, node_mode)
    mesh = meshes(root)[0].data
    edit = bmesh.new()
    edit.from_mesh(mesh)
    for face in edit.faces:
        face.smooth = not face.smooth
    edit.to_mesh(mesh)  # no update
    checked_alike(bpy, panel, root)
    mesh.update()
    checked_alike(bpy, panel, root)
    edit.verts.ensure_lookup_table()
    edit.verts[0].co.x += 0.5
    edit.to_mesh(mesh)
    edit.free()
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_a_mesh_left_in_edit_mode_while_the_root_is_active(blender, tmp_path, node_mode):
    """A script can leave a mesh in Edit Mode and make the root active: its data is not what it shows, and
    Blender leaves only the active object's Edit Mode. The check (cached or not) and the export refuse it, by
    name, instead of failing on the mesh's Edit Mode data."""
    import bmesh
    bpy, panel, root = model(blender, tmp_path, node_mode)
    obj = meshes(root)[0]
    _select_only(bpy, [obj])
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.context.view_layer.objects.active = root  # the mesh stays in Edit Mode, the check's model is selected
    root.select_set(True)
    edit = bmesh.from_edit_mesh(obj.data)
    edit.verts.ensure_lookup_table()
    edit.verts[0].co.x += 0.5
    bmesh.update_edit_mesh(obj.data)
    checked_alike(bpy, panel, root)
    refusal = f"object {obj.name!r} is in Edit Mode but is not the active object"
    assert any(refusal in x.message for x in panel.run_check(bpy.context, root).lines if x.level == "ERROR")
    out = tmp_path / "out.msh"
    with pytest.raises(RuntimeError, match="is in Edit Mode but is not the active object"):
        bpy.ops.export_scene.parkan_msh(filepath=str(out))
    assert not out.exists()
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="OBJECT")
    _select_only(bpy, [root])
    checked_alike(bpy, panel, root)
    assert any("geometry changed" in x.message for x in panel.run_check(bpy.context, root).lines)


def test_two_models_checked_in_turn(blender, tmp_path):
    """Each model's cache takes the edits made while another was checked."""
    bpy, panel, first = model(blender, tmp_path, "ARMATURE", seed=11)
    data = build_model(random_model(12, node_count=4, frame_count=16, animated=1.0, every_frame=True)).to_bytes()
    (second,) = [r for r in import_file(bpy, write(tmp_path, "second.msh", data), node_mode="EMPTIES") if r != first]
    _select_only(bpy, [second])
    checked_alike(bpy, panel, second)
    a_curve(first).keyframe_points[3].co[1] += 0.5
    meshes(first)[0].data.polygons[0].use_smooth ^= True
    a_curve(second).keyframe_points[2].co[1] += 0.5
    checked_alike(bpy, panel, second)  # the first model's edits wait for its own check
    _select_only(bpy, [first])
    checked_alike(bpy, panel, first)
    a_curve(second).keyframe_points[2].co[1] -= 0.5
    checked_alike(bpy, panel, first)
    _select_only(bpy, [second])
    checked_alike(bpy, panel, second)


@pytest.mark.parametrize("node_mode", MODES)
def test_an_action_frame_range_and_slot(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    holder = holders(root)[0]
    action = holder.animation_data.action
    action.use_frame_range = True
    start, end = action.frame_start, action.frame_end
    action.frame_end = end - 4
    checked_alike(bpy, panel, root)
    action.frame_start, action.frame_end = start, end
    checked_alike(bpy, panel, root)
    if not hasattr(holder.animation_data, "action_slot"):  # 4.2: no slots
        return
    slot = holder.animation_data.action_slot
    holder.animation_data.action_slot = action.slots.new(slot.target_id_type, "other")
    checked_alike(bpy, panel, root)
    holder.animation_data.action_slot = slot
    checked_alike(bpy, panel, root)


@pytest.mark.parametrize("node_mode", MODES)
def test_object_settings_keys_inserted_and_modifiers_come_and_go(blender, tmp_path, node_mode):
    bpy, panel, root = model(blender, tmp_path, node_mode)
    obj = meshes(root)[0]
    slot = obj.material_slots[0]
    slot.link = "OBJECT"
    slot.material = bpy.data.materials.new("on the object")
    checked_alike(bpy, panel, root)
    slot.link = "DATA"
    checked_alike(bpy, panel, root)
    obj.hide_viewport = True
    checked_alike(bpy, panel, root)
    obj.hide_viewport = False
    checked_alike(bpy, panel, root)
    modifier = obj.modifiers.new("bevel", "BEVEL")
    checked_alike(bpy, panel, root)
    obj.modifiers.remove(modifier)
    checked_alike(bpy, panel, root)
    obj.shape_key_add(name="Basis")
    checked_alike(bpy, panel, root)
    obj.shape_key_clear()
    checked_alike(bpy, panel, root)
    curve = a_curve(root)
    frame = curve.keyframe_points[4].co[0]
    if node_mode == "ARMATURE":
        item = root.pose.bones[curve.data_path.split('"')[1]]
    else:
        item = next(h for h in holders(root) if any(c == curve for c in fcurves_of(h)))
    item.location[curve.array_index] += 0.5
    assert item.keyframe_insert("location", index=curve.array_index, frame=frame)  # a key replaced, as many keys
    checked_alike(bpy, panel, root)


def test_two_models_trading_names(blender, tmp_path):
    """The caches are by root name: a model taking the name of one checked before reads nothing of the other's."""
    bpy, panel, first = model(blender, tmp_path, "ARMATURE", seed=11)
    data = build_model(random_model(11, node_count=4, frame_count=16, animated=1.0, every_frame=True)).to_bytes()
    (second,) = [r for r in import_file(bpy, write(tmp_path, "same.msh", data), node_mode="ARMATURE") if r != first]
    a_curve(second).keyframe_points[3].co[1] += 0.5
    meshes(second)[0].data.vertices[0].co.x += 0.25
    names = first.name, second.name
    first.name = "elsewhere"
    second.name = names[0]
    for one, other in zip(meshes(first), meshes(second)):  # the second's objects under the first's names
        name = one.name
        one.name = name + "_old"
        other.name = name
    _select_only(bpy, [second])
    checked_alike(bpy, panel, second)
