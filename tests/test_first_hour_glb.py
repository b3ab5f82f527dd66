"""Clips for other engines as a new user meets them: the default ``batch convert --format glb --clips`` opens in
Blender's own glTF importer and passes Khronos' validator (the base colour tracks it cannot read are opt-in),
animation names carry no Blender numbering, and Clips for Engines reports what the file holds."""

import re
from pathlib import Path

import pytest
from test_batch import _glb_json, batch
from test_clip_export import CHANNELS, CLIPS, MOVING, WALKER, convert, validate

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "samples" / "unit" / "UNITS" / "SYNTH" / "synth_unit.dat"


def pointers(data: dict) -> dict[str, set[str]]:
    """Each animation's KHR_animation_pointer targets, the material index replaced by its name."""
    names = [m["name"] for m in data["materials"]]
    out = {}
    for animation in data["animations"]:
        for channel in animation["channels"]:
            pointer = channel["target"].get("extensions", {}).get("KHR_animation_pointer", {}).get("pointer")
            if pointer:
                pointer = re.sub(r"^/materials/(\d+)", lambda m: f"/materials/{names[int(m.group(1))]}", pointer)
                out.setdefault(animation["name"], set()).add(pointer)
    return out


def test_the_default_clips_glb_opens_in_blenders_gltf_importer(blender, tmp_path):
    """The lamp's emission and the belt's emission and texture cell go out; no base colour track, on which the
    importer of 4.2, 4.5 and 5.0 stops ('NodeSocket' object has no attribute 'links')."""
    bpy = blender.bpy
    path = convert(tmp_path)
    validate(path)
    found = pointers(_glb_json(path))
    cell = "/materials/WALKER_BELT/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform"
    assert found == {"material WALKER_LAMP": {"/materials/WALKER_LAMP/emissiveFactor"},
                     "channel 2 leg_l": {"/materials/WALKER_BELT/emissiveFactor", f"{cell}/offset", f"{cell}/scale"}}
    assert bpy.ops.import_scene.gltf(filepath=str(path)) == {"FINISHED"}
    names = [a.name for a in bpy.data.actions]  # 4.2 adds the object's name: "walk 1_walker.msh"
    expected = CLIPS + MOVING + CHANNELS + ["material WALKER_LAMP", "channel 2 leg_l"]
    assert all(any(n.startswith(e) for n in names) for e in expected), names


def test_base_colour_tracks_are_opt_in(tmp_path):
    path = convert(tmp_path, "--base-colour-animation")
    validate(path)
    found = pointers(_glb_json(path))
    assert "/materials/WALKER_LAMP/pbrMetallicRoughness/baseColorFactor" in found["material WALKER_LAMP"]
    assert "/materials/WALKER_BELT/pbrMetallicRoughness/baseColorFactor" in found["channel 2 leg_l"]


def test_the_help_says_which_readers_take_the_base_colour_tracks():
    result = batch("convert", "--help")
    text = " ".join(result.stdout.split())
    assert "--base-colour-animation" in text and "Babylon.js" in text
    assert "Blender's own glTF importer (4.2 to 5.0) stops with an error on them" in text


def test_unit_animation_names_carry_no_blender_numbers(tmp_path):
    """Two parts of one model (e_gun_ll_01.msh): each animation named by model and component, not
    'e_gun_ll_01.msh|Action.001' or 'e_gun_ll_01.msh.001 mount'."""
    result = batch("convert", str(UNIT), "-o", str(tmp_path), "--format", "glb", "--clips")
    assert result.returncode == 0, result.stdout + result.stderr
    path = tmp_path / "synth_unit.glb"
    validate(path)
    names = [a["name"] for a in _glb_json(path)["animations"]]
    assert not [n for n in names if re.search(r"\.\d{3}", n)], names
    assert len(set(names)) == len(names)
    assert {"e_gun_ll_01.msh 3|Action", "e_gun_ll_01.msh 4|Action", "e_gun_ll_01.msh 4 mount"} <= set(names)


def test_clips_for_engines_as_fbx_reports_the_takes_written_and_what_fbx_cannot_carry(blender, tmp_path, capfd):
    """The walker: 3 clips and 2 channels are 5 takes; its lamp and belt (material animation) are not in FBX."""
    import addon_utils

    bpy = blender.bpy
    assert bpy.ops.import_scene.parkan_msh(filepath=str(WALKER / "walker.msh"), clips="ACTIONS") == {"FINISHED"}
    path = tmp_path / "walker.fbx"
    capfd.readouterr()
    assert bpy.ops.export_scene.parkan_clips(filepath=str(path), file_format="FBX") == {"FINISHED"}
    out = capfd.readouterr()
    text = out.out + out.err
    assert f"Wrote {path}: 1 model(s), 5 animation(s)" in text
    assert ("FBX carries no material animation: 2 animated material(s) not written (WALKER_BELT, WALKER_LAMP)"
            in text)
    blender.clean_scene()
    addon_utils.enable("io_scene_fbx", default_set=False)
    assert bpy.ops.import_scene.fbx(filepath=str(path)) == {"FINISHED"}
    assert {a.name.split("|")[-1] for a in bpy.data.actions} == set(CLIPS + CHANNELS)


@pytest.mark.parametrize("options, held", [({}, True), ({"base_colour_animation": True}, False)])
def test_clips_for_engines_as_glb_reports_the_animations_in_the_file(blender, tmp_path, capfd, options, held):
    bpy = blender.bpy
    assert bpy.ops.import_scene.parkan_msh(filepath=str(WALKER / "walker.msh"), clips="ACTIONS") == {"FINISHED"}
    path = tmp_path / "walker.glb"
    capfd.readouterr()
    assert bpy.ops.export_scene.parkan_clips(filepath=str(path), **options) == {"FINISHED"}
    out = capfd.readouterr()
    text = out.out + out.err
    count = len(_glb_json(path)["animations"])
    assert f"Wrote {path}: 1 model(s), {count} animation(s)" in text
    assert ("the base colour of 2 material(s) is not animated in the file" in text) == held
    validate(path)
    compat = blender.ext.io_msh.com.compat
    lamp = bpy.data.materials["WALKER_LAMP"].node_tree.animation_data.action
    assert not any(f.mute for f in compat.action_fcurves(lamp))  # the held base colour plays again
