"""The Import Unit and Export Unit dialogs as polished as the model's: a tooltip for every
option, the model dialogs' panels, and their options, each reaching the import or export (not only drawn)."""

import numpy as np
import pytest
from test_dialogs import Dialog, _panels
from test_unit_import import import_unit
from unit_fixtures import write_game

from core.authoring import units
from core.authoring.build import build_model
from core.authoring.controllers import walker_controller, walker_model
from core.container.nres import Archive
from core.msh.model import Model

MODEL_ONLY = {"entry_filter", "models", "entry", "material_library", "texture_library", "texture_format"}


def _options(bpy, operator):
    category, name = operator.split(".")
    rna = getattr(getattr(bpy.ops, category), name).get_rna_type()
    return {p.identifier: p for p in rna.properties if p.identifier != "rna_type" and not p.is_hidden}


@pytest.mark.parametrize(("unit", "model"), [("import_scene.parkan_unit", "import_scene.parkan_msh"),
                                             ("export_scene.parkan_unit", "export_scene.parkan_msh")])
def test_the_unit_dialogs_have_the_model_dialogs_options_each_with_a_tooltip(blender, unit, model):
    bpy = blender.bpy
    options, model_options = _options(bpy, unit), _options(bpy, model)
    assert [name for name, p in options.items() if not p.description] == []
    assert set(options) == set(model_options) - MODEL_ONLY
    for name, prop in options.items():  # the same choices
        if prop.type == "ENUM":
            assert [i.identifier for i in prop.enum_items] == [i.identifier for i in model_options[name].enum_items]


def test_the_unit_dialogs_draw_the_model_dialogs_panels(blender):
    from rna_layout import CheckedLayout

    bpy = blender.bpy
    module = blender.ext.io_msh.ui.unit_operators
    dialog = Dialog(bpy, "import_scene.parkan_unit", module.IMPORT_SCENE_OT_parkan_unit, CheckedLayout())
    dialog.draw(bpy.context)
    assert _panels(dialog.layout.drawn) == {
        "PARKAN_UNIT_import_nodes": ["node_mode"], "PARKAN_UNIT_import_animation": ["animation", "set_frame_range"],
        "PARKAN_UNIT_import_clips": ["clips", "root_motion", "frame_rate"],
        "PARKAN_UNIT_import_geometry": ["slots", "stage", "lod"], "PARKAN_UNIT_import_materials": ["game_folder"],
        "PARKAN_UNIT_import_transform": ["global_scale", "axis_forward", "axis_up"]}
    dialog = Dialog(bpy, "export_scene.parkan_unit", module.EXPORT_SCENE_OT_parkan_unit, CheckedLayout())
    dialog.draw(bpy.context)
    assert _panels(dialog.layout.drawn) == {
        "PARKAN_UNIT_export_keys": ["keys", "position_tolerance", "rotation_tolerance"],
        "PARKAN_UNIT_export_frame_range": ["frame_range", "end_frame"],
        "PARKAN_UNIT_export_files": ["force", "replace_changed"]}


# A controller with no states, channels or groups whose group table names no group (units.CONTROLLER's table
# holds zeros, group 0 of none, which a clip import refuses).
NO_CLIPS = bytes(20 + 108) + b"\xff" * 84


def _walker_unit(folder):
    """The synthetic unit with the walker (and its controller) as its root part's model."""
    files = units.unit_files()
    parts = Archive.parse(files[units.PARTS])
    for entry in parts.entries:
        if entry.name_str.endswith(".ctl"):
            entry.data = NO_CLIPS
    parts.find("synth_chassis.msh").data = build_model(walker_model("synth_chassis.msh")).to_bytes()
    parts.find("synth_chassis.ctl").data = walker_controller().to_bytes()
    files[units.PARTS] = parts.to_bytes()
    return write_game(folder, files) / units.UNIT_DAT


def _clip_lengths(bpy):
    return {a.name: a.frame_range[1] - a.frame_range[0] for a in bpy.data.actions
            if a.name.startswith("synth_chassis.msh|") and not a.name.endswith("|Action")}


def test_the_clip_options_reach_each_part(blender, tmp_path):
    bpy = blender.bpy
    dat = _walker_unit(tmp_path)
    assert bpy.ops.import_scene.parkan_unit(filepath=str(dat)) == {"FINISHED"}
    assert _clip_lengths(bpy) == {}
    blender.clean_scene()
    assert bpy.ops.import_scene.parkan_unit(filepath=str(dat), clips="ACTIONS", frame_rate=24.0) == {"FINISHED"}
    at_24 = _clip_lengths(bpy)
    assert sorted(at_24) == ["synth_chassis.msh|run 2", "synth_chassis.msh|stand 0", "synth_chassis.msh|walk 1"]
    blender.clean_scene()
    assert bpy.ops.import_scene.parkan_unit(filepath=str(dat), clips="NLA", frame_rate=48.0) == {"FINISHED"}
    at_48 = _clip_lengths(bpy)
    assert at_48.keys() == at_24.keys()
    assert all(at_48[name] == pytest.approx(2 * at_24[name], abs=1) for name in at_24 if at_24[name] > 2)
    (root,) = [o for o in bpy.data.objects if o.get("msh_unit_component") == 0]
    assert sorted(t.name for t in root.animation_data.nla_tracks) == sorted(at_24)


def _edited_chassis(bpy, tmp_path):
    """The unit imported, its chassis' node 'leg' swinging 0.2 further at every frame."""
    write_game(tmp_path)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    chassis = roots[0]
    action = chassis.animation_data.action
    fcurves = [f for f in blender_fcurves(action) if f.data_path.startswith('pose.bones["leg"]')
               and f.data_path.endswith("location") and f.array_index == 2]
    for fcurve in fcurves:
        for point in fcurve.keyframe_points:
            point.co.y += 0.2
            point.handle_left.y += 0.2
            point.handle_right.y += 0.2
        fcurve.update()
    assert fcurves
    return tmp_path / units.PARTS


def blender_fcurves(action):
    """An action's F-curves (layered actions keep them in a channel bag per slot)."""
    if hasattr(action, "layers") and action.layers:
        return [f for layer in action.layers for strip in layer.strips for bag in strip.channelbags
                for f in bag.fcurves]
    return list(action.fcurves)


def _written_chassis(parts) -> Model:
    return Model.parse(Archive.parse(parts.read_bytes()).find("synth_chassis.msh").data)


def _keys_of_node(model: Model, node: int) -> int:
    from core.animation.tracks import read_animation

    return len(read_animation(model).tracks[node].times)


@pytest.mark.parametrize("options", [{"keys": "EVERY_FRAME"}, {"frame_range": "CUSTOM", "end_frame": 20},
                                     {"keys": "REDUCED", "position_tolerance": 0.5, "rotation_tolerance": 1.0}])
def test_the_export_options_reach_the_written_part(blender, tmp_path, options):
    bpy = blender.bpy
    parts = _edited_chassis(bpy, tmp_path)
    leg = 3
    assert bpy.ops.export_scene.parkan_unit(filepath=str(tmp_path / "out.dat")) == {"FINISHED"}
    default = _written_chassis(parts)
    assert bpy.ops.export_scene.parkan_unit(filepath=str(tmp_path / "out.dat"), **options) == {"FINISHED"}
    chosen = _written_chassis(parts)
    if options.get("keys") == "EVERY_FRAME":
        assert _keys_of_node(chosen, leg) == units.FRAMES > _keys_of_node(default, leg)
    elif "end_frame" in options:  # the leg is written over frames 0..20; the nodes left unchanged keep their
        # tracks, so the frame count stays
        from core.animation.tracks import read_animation

        assert (default.frame_count, chosen.frame_count) == (units.FRAMES, units.FRAMES)
        assert read_animation(default).tracks[leg].times[-1] > 20 >= read_animation(chosen).tracks[leg].times[-1]
    else:  # tolerances of 0.5 m and 1 radian: fewer keys than the default 0.1 mm and 0.05 degree
        assert _keys_of_node(chosen, leg) < _keys_of_node(default, leg)
    positions = np.asarray(chosen.positions)
    assert positions.size  # the part is a whole model, read back by core
