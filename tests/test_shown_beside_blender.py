"""What the import shows beside a model (an effect's preview, a building's hall way) is never one of its parts:
parented under the model's root by the user, it is still not exported as a mesh, and the untouched model exports
byte for byte, in both node modes."""

import pytest
from test_effects_blender import _walker_folder
from test_import import import_file
from test_interior_blender import _folder, _hallway


def _parent_under(bpy, obj, root) -> None:
    world = obj.matrix_world.copy()
    obj.parent = root
    obj.matrix_world = world


def test_previews_parented_under_the_root_are_not_exported(blender, tmp_path):
    bpy = blender.bpy
    data = _walker_folder(tmp_path)
    (root,) = import_file(bpy, str(tmp_path / "walker.msh"))
    previews = [o for o in bpy.data.objects if "msh_effect_preview" in o and o.type == "MESH"]
    assert previews
    for preview in previews:
        _parent_under(bpy, preview, root)
    bpy.context.view_layer.update()
    bpy.context.view_layer.objects.active = root
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == data


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_hall_way_parented_under_the_root_is_not_a_part(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = _folder(tmp_path)
    (root,) = import_file(bpy, str(tmp_path / "synth_hall.msh"), node_mode=node_mode)
    _parent_under(bpy, _hallway(bpy), root)
    bpy.context.view_layer.update()
    bpy.context.view_layer.objects.active = root
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == data
