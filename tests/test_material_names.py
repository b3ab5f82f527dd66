"""A material whose name code page 1251 cannot hold (an emoji): the panel's export check lists
it, naming the material, and the export refuses naming the material (not only the character), writing nothing."""

import pytest
from test_panel import _imported, _panel, _part

EMOJI = "metal \U0001f600"


@pytest.mark.parametrize("how", ["renamed", "new"])
def test_a_material_name_cp1251_cannot_hold_is_listed_and_refused_naming_it(blender, tmp_path, how):
    bpy = blender.bpy
    root = _imported(bpy, tmp_path)
    part = _part(bpy, root)
    if how == "renamed":
        part.data.materials[0].name = EMOJI
    else:
        part.data.materials.append(bpy.data.materials.new(EMOJI))
        for polygon in part.data.polygons:
            polygon.material_index = len(part.data.materials) - 1
    check = _panel(blender).run_check(bpy.context, root)
    errors = [line for line in check.lines if line.level == "ERROR"]
    words = (f"material {EMOJI!r}: its name cannot be stored in code page 1251, as the game's material list needs "
             "(character U+1F600 is not in it): rename the material")
    assert [line.names for line in errors if words in line.message] == [(EMOJI,)], [e.message for e in errors]
    target = tmp_path / "out.msh"
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert words in str(refused.value)
    assert not target.exists()
