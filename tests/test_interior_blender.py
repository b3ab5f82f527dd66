"""Import shows a building's hall way (mesh stream 17): one mesh object of loose vertices and links in a hidden
Navigation collection, each vertex placed through its joint node, with its flags, joint, the links' tail words
and a vertex group per named place. The object follows the model root without being part of it: the unedited
model exports byte for byte."""

import numpy as np
import pytest
from test_import import import_file

from core.authoring import interiors as I
from core.interior import hallway as H
from core.msh.model import Model


def _folder(folder, graph=None) -> bytes:
    data = I.building_model(graph).to_bytes()
    (folder / "synth_hall.msh").write_bytes(data)
    (folder / "synth_hall.wea").write_bytes(I.WEAR)
    return data


def _hallway(bpy):
    (obj,) = [o for o in bpy.data.objects if "msh_hallway" in o and "msh_ground_plan" not in o]
    return obj


def _ints(mesh, name: str) -> np.ndarray:
    attribute = mesh.attributes[name]
    out = np.zeros(len(attribute.data), np.int32)
    attribute.data.foreach_get("value", out)
    return out.view(np.uint32)


def _world(obj) -> np.ndarray:
    m = np.array(obj.matrix_world)
    co = np.zeros(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3).astype(np.float64)
    return co @ m[:3, :3].T + m[:3, 3]


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_the_hall_way_is_a_hidden_graph_placed_through_its_joints(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = _folder(tmp_path)
    (root,) = import_file(bpy, str(tmp_path / "synth_hall.msh"), node_mode=node_mode)
    obj = _hallway(bpy)
    graph = I.hallway()
    assert obj["msh_hallway"] == root and obj.parent is None
    assert obj.constraints[0].type == "CHILD_OF" and obj.constraints[0].target == root
    mesh = obj.data
    assert (len(mesh.vertices), len(mesh.edges), len(mesh.polygons)) == (8, 10, 0)
    edges = np.zeros(20, np.int32)
    mesh.edges.foreach_get("vertices", edges)
    assert edges.reshape(-1, 2).tolist() == [[int(a), int(b)] for a, b in zip(graph.links["start"], graph.links["end"])]
    assert _ints(mesh, "flags").tolist() == graph.vertices["flags"].tolist()
    assert _ints(mesh, "joint").tolist() == [0, 0, 0, 0, 0, 1, 1, 2]
    assert _ints(mesh, "tail_1").tolist() == graph.links["tail"][:, 1].tolist()
    assert _ints(mesh, "tail_5")[5] == 1 and _ints(mesh, "tail_0")[0] == H.NO_WORD
    groups = {g.name: [v.index for v in mesh.vertices if any(e.group == g.index for e in v.groups)]
              for g in obj.vertex_groups}
    assert groups == {"creation": [5], "control pod": [7], "loading": [3], "unloading": [2]}
    (collection,) = obj.users_collection
    assert "Navigation" in collection.name and collection.hide_render
    layer = next(lc for lc in bpy.context.view_layer.layer_collection.children if lc.collection == collection) \
        if collection.name in bpy.context.scene.collection.children else None
    assert layer is None or layer.hide_viewport
    bpy.context.view_layer.update()
    world = _world(obj)
    # the pod vertex sits on the pod node, set off and turned: raw, it would be at the root's origin
    expected_pod = np.array(root.matrix_world) @ np.array([*I.POD_OFFSET, 1.0])
    assert np.allclose(world[7], expected_pod[:3], atol=1e-4)
    assert np.allclose(world[2], (np.array(root.matrix_world) @ np.array([5.0, 5.0, 0.0, 1.0]))[:3], atol=1e-4)
    bpy.context.view_layer.objects.active = root
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == data


def test_a_pod_vertex_follows_its_turned_joint(blender, tmp_path):
    bpy = blender.bpy
    graph = I.hallway()
    graph.vertices["position"][7] = (1.0, 0.0, 0.0)  # one metre along the pod's x, which is turned 90 degrees
    _folder(tmp_path, graph)
    (root,) = import_file(bpy, str(tmp_path / "synth_hall.msh"), node_mode="EMPTIES")
    bpy.context.view_layer.update()
    world = _world(_hallway(bpy))
    pod = next(o for o in root.children_recursive if o.get("msh_node_index") == 2)
    expected = np.array(pod.matrix_world) @ np.array([1.0, 0.0, 0.0, 1.0])
    assert np.allclose(world[7], expected[:3], atol=1e-4)
    assert not np.allclose(world[7], (np.array(root.matrix_world) @ np.array([7.0, 0.0, 0.5, 1.0]))[:3], atol=1e-3)


def test_a_model_without_a_hall_way_gets_no_navigation(blender, tmp_path):
    bpy = blender.bpy
    model = I.building_model()
    model.archive.entries.remove(model.stream(17))
    (tmp_path / "plain.msh").write_bytes(model.to_bytes())
    import_file(bpy, str(tmp_path / "plain.msh"))
    assert not [o for o in bpy.data.objects if "msh_hallway" in o]
    assert not [c for c in bpy.data.collections if "Navigation" in c.name]


def test_a_building_unit_shows_its_ground_plan_as_two_loops_and_its_hall_way(blender, tmp_path):
    from unit_fixtures import write_game

    bpy = blender.bpy
    write_game(tmp_path, I.interior_files())
    assert bpy.ops.import_scene.parkan_unit(filepath=str(tmp_path / I.HALL_DAT)) == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    (plan_obj,) = [o for o in bpy.data.objects if "msh_ground_plan" in o]
    assert plan_obj["msh_ground_plan"] == "fortif.rlb/synth_hall.bas" and plan_obj["msh_hallway"] == root
    assert plan_obj["msh_ground_plan_form"] == "two rings"
    expected = I.ground_plan_for(I.building_model())
    inner, outer = expected.inner[0].corner_points, expected.outer[0].corner_points
    mesh = plan_obj.data
    assert (len(mesh.vertices), len(mesh.edges)) == (len(inner) + len(outer), len(inner) + len(outer))
    ring = _ints(mesh, "ring")
    assert ring.tolist() == [0] * len(inner) + [1] * len(outer)
    bpy.context.view_layer.update()
    world = _world(plan_obj)
    m = np.array(root.matrix_world)
    assert np.allclose(world[:len(inner)], inner @ m[:3, :3].T + m[:3, 3], atol=1e-4)
    degree = np.bincount(np.array([v for e in mesh.edges for v in e.vertices]), minlength=len(ring))
    assert (degree == 2).all()  # two closed loops
    assert {g.name for g in plan_obj.vertex_groups} == {"inner", "outer"}
    assert _hallway(bpy)["msh_hallway"] == root
    assert all("Navigation" in c.name for o in (plan_obj, _hallway(bpy)) for c in o.users_collection)


def test_removing_the_model_removes_its_navigation(blender, tmp_path):
    bpy = blender.bpy
    _folder(tmp_path)
    (root,) = import_file(bpy, str(tmp_path / "synth_hall.msh"))
    assert [c for c in bpy.data.collections if "Navigation" in c.name]
    blender.ext.io_msh.imp.build.remove_models([root])
    assert not [o for o in bpy.data.objects if "msh_hallway" in o]
    assert not [m for m in bpy.data.meshes if "hall way" in m.name]
    assert not [c for c in bpy.data.collections if "Navigation" in c.name]


def _export(bpy, root, out):
    bpy.context.view_layer.objects.active = root
    for obj in bpy.context.selected_objects:
        obj.select_set(False)
    root.select_set(True)
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    return H.hallway_of(Model.parse(out.read_bytes()))[0]


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_moved_vertex_is_written_back_through_its_joint_and_nothing_else_changes(blender, tmp_path, node_mode):
    bpy = blender.bpy
    graph = I.hallway()
    graph.attr3 = 77
    graph.links["tail"][2][7] = 0x12345678  # an unexplained word
    data = _folder(tmp_path, graph)
    (root,) = import_file(bpy, str(tmp_path / "synth_hall.msh"), node_mode=node_mode)
    obj = _hallway(bpy)
    pod_vertex = np.array(obj.data.vertices[7].co)
    obj.data.vertices[7].co = (pod_vertex + np.array([0.0, 2.0, 0.0])).tolist()  # 2 m along the root's y
    written = _export(bpy, root, tmp_path / "out.msh")
    source = Model.parse(data).stream(17)
    entry = Model.parse((tmp_path / "out.msh").read_bytes()).stream(17)
    assert (entry.attr1, entry.attr2, entry.attr3) == (8, 10, 77)
    # the pod is turned 90 degrees about z: the root's +y is the pod's -x
    assert np.allclose(written.vertices["position"][7], (-2.0, 0.0, 0.0), atol=1e-5)
    assert bytes(entry.data)[:7 * 20] == bytes(source.data)[:7 * 20]
    assert bytes(entry.data)[7 * 20 + 12:] == bytes(source.data)[7 * 20 + 12:]
    assert written.links["tail"][2][7] == 0x12345678
    out = Model.parse((tmp_path / "out.msh").read_bytes())
    out.set_stream(17, bytes(source.data))
    assert out.to_bytes() == data  # nothing but the hall way changed


def test_flags_and_a_new_link_are_written_with_the_retail_default_tail(blender, tmp_path):
    import bmesh

    bpy = blender.bpy
    _folder(tmp_path)
    (root,) = import_file(bpy, str(tmp_path / "synth_hall.msh"))
    obj = _hallway(bpy)
    obj.data.attributes["flags"].data[0].value = H.ANY_SIZE | H.CONTROL_POD
    for other in bpy.context.selected_objects:
        other.select_set(False)
    layer = next(lc for lc in bpy.context.view_layer.layer_collection.children if lc.collection in obj.users_collection)
    layer.hide_viewport = False
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    mesh = bmesh.from_edit_mesh(obj.data)
    mesh.verts.ensure_lookup_table()
    mesh.edges.new((mesh.verts[3], mesh.verts[6]))
    bmesh.update_edit_mesh(obj.data)  # left in Edit Mode: the export reads what it shows
    written = _export(bpy, root, tmp_path / "out.msh")
    assert len(written.links) == 11 and written.vertices["flags"][0] == H.ANY_SIZE | H.CONTROL_POD
    new = [i for i in range(11) if {int(written.links["start"][i]), int(written.links["end"][i])} == {3, 6}]
    assert len(new) == 1 and written.links["tail"][new[0]].tolist() == [H.NO_WORD] * 8
    assert written.gate(5) == "open" and written.links["tail"][5][1] == 1  # the door keeps its words
    assert obj.mode == "EDIT"  # the user stays in Edit Mode
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="OBJECT")


def test_a_vertex_deleted_from_the_hall_way_refuses_the_export(blender, tmp_path):
    bpy = blender.bpy
    data = _folder(tmp_path)
    (root,) = import_file(bpy, str(tmp_path / "synth_hall.msh"))
    obj = _hallway(bpy)
    obj.data.vertices.add(1)
    out = tmp_path / "out.msh"
    out.write_bytes(data)
    bpy.context.view_layer.objects.active = root
    with pytest.raises(RuntimeError, match="9 vertices, the model's stream 17 8"):
        bpy.ops.export_scene.parkan_msh(filepath=str(out))
    assert out.read_bytes() == data
