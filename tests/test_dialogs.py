"""The import and export dialogs (tooltips, grouped options, the archive's model list,
what the import selects, the action's name, tolerances typed as length and angle)."""

import math
from pathlib import Path

import pytest
from fixtures import generated, static_model
from test_export import export_file, with_lod_slots
from test_import import import_file, roots, write

from core.animation.keys import Tolerance
from core.authoring.synth import sample_archive
from core.container.nres import MODEL_TYPE_ID
from core.msh.model import Model


def _visible_properties(rna):
    return [p for p in rna.properties if p.identifier != "rna_type" and not p.is_hidden]


@pytest.mark.parametrize("operator", ["import_scene.parkan_msh", "export_scene.parkan_msh"])
def test_every_option_has_a_tooltip(blender, operator):
    bpy = blender.bpy
    category, name = operator.split(".")
    rna = getattr(getattr(bpy.ops, category), name).get_rna_type()
    props = _visible_properties(rna)
    assert len(props) >= 10
    assert [p.identifier for p in props if not p.description] == []
    item = blender.ext.io_msh.ui.operators.ParkanMshArchiveModel.bl_rna
    assert [p.identifier for p in _visible_properties(item) if not p.description and p.identifier != "name"] == []


def test_options_are_drawn_in_collapsible_panels(blender):
    """The dialogs draw with UILayout.panel (Blender 4.1+), which every supported version has."""
    bpy = blender.bpy
    panel = bpy.types.UILayout.bl_rna.functions["panel"]
    assert {"idname", "default_closed"} <= set(panel.parameters.keys())


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_import_selects_every_object_it_made(blender, tmp_path, node_mode):
    bpy = blender.bpy
    bpy.ops.object.empty_add()
    other = bpy.context.active_object
    (root,) = import_file(bpy, write(tmp_path, "slots.msh", with_lod_slots()), node_mode=node_mode, slots="ALL")
    made = {root, *root.children_recursive}
    assert len(made) == (5 if node_mode == "ARMATURE" else 7)
    assert {o for o in made if o.select_get()} == made
    assert not other.select_get() and bpy.context.view_layer.objects.active == root


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_the_action_is_named_model_bar_action_and_exports_unchanged(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = generated(40, node_count=4, frame_count=12)
    import_file(bpy, write(tmp_path, "tank.msh", data), node_mode=node_mode)
    names = {a.name for a in bpy.data.actions}
    if node_mode == "ARMATURE" or blender.ext.io_msh.com.compat.one_action_animates_many_ids():
        assert names == {"tank.msh|Action"}
    else:
        assert names and all(n.startswith("tank.msh|") for n in names)
    out = export_file(bpy, tmp_path / "out.msh")
    assert Path(out).read_bytes() == data


def _archive(tmp_path, sample_msh):
    archive = sample_archive(sample_msh)
    archive.add("tank.msh", generated(4, node_count=3), MODEL_TYPE_ID)
    archive.add("tower.msh", static_model(2), MODEL_TYPE_ID)
    return write(tmp_path, "units.rlb", archive.to_bytes()), archive


def test_the_model_list_imports_the_ticked_models(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    path, archive = _archive(tmp_path, sample_msh)
    rows = [{"name": e.name_str, "index": i, "selected": e.name_str != "tank.msh"}
            for i, e in enumerate(archive.entries) if e.is_model]
    assert len(rows) == 3
    imported = import_file(bpy, path, models=rows, models_source=path, entry_filter="nothing*")
    assert sorted(r["msh_model"] for r in imported) == ["sample.msh", "tower.msh"]


def test_a_model_list_with_nothing_ticked_is_refused(blender, tmp_path, sample_msh, capsys):
    bpy = blender.bpy
    path, archive = _archive(tmp_path, sample_msh)
    rows = [{"name": e.name_str, "index": i, "selected": False} for i, e in enumerate(archive.entries) if e.is_model]
    with pytest.raises(RuntimeError, match="no model of the archive is ticked"):
        bpy.ops.import_scene.parkan_msh(filepath=path, models=rows, models_source=path)
    assert roots(bpy) == []


def test_the_model_list_fills_from_the_archive_with_the_patterns_ticked(blender, tmp_path, sample_msh):
    """What the dialog's draw does when an archive is browsed (the list, ticked by the Models patterns)."""
    path, _archive_data = _archive(tmp_path, sample_msh)
    operators = blender.ext.io_msh.ui.operators
    models = operators._archive_models(path, 0.0)
    assert [name for _, name in models] == ["sample.msh", "tank.msh", "tower.msh"]
    assert operators._archive_models(write(tmp_path, "a.msh", sample_msh), 0.0) == ()


def test_tolerances_are_a_length_and_an_angle(blender, tmp_path):
    bpy = blender.bpy
    props = bpy.ops.export_scene.parkan_msh.get_rna_type().properties
    position, rotation = props["position_tolerance"], props["rotation_tolerance"]
    assert (position.subtype, position.unit) == ("DISTANCE", "LENGTH")
    assert (rotation.subtype, rotation.unit) == ("ANGLE", "ROTATION")
    assert position.default == pytest.approx(Tolerance.position)
    assert rotation.default == pytest.approx(math.radians(Tolerance.rotation_deg))


def test_the_angle_reaches_the_export_in_degrees(blender, tmp_path):
    """An edited node exported with the default angle (radians in the dialog) gives the same keys as the
    export's degrees; a wide angle gives fewer keys."""
    bpy = blender.bpy
    from test_export import edit_rotation

    data = generated(41, node_count=3, frame_count=40, animated=1.0)
    (root,) = import_file(bpy, write(tmp_path, "turn.msh", data), animation="EDITING")
    edit_rotation(bpy, root, 1, range(0, 40, 3), 0.6)
    default = Path(export_file(bpy, tmp_path / "a.msh")).read_bytes()
    explicit = Path(export_file(bpy, tmp_path / "b.msh", rotation_tolerance=math.radians(Tolerance.rotation_deg),
                                position_tolerance=Tolerance.position)).read_bytes()
    wide = Path(export_file(bpy, tmp_path / "c.msh", rotation_tolerance=math.radians(30.0),
                            position_tolerance=1.0)).read_bytes()
    assert default == explicit
    assert len(Model.parse(wide).to_bytes()) < len(default)


class Dialog:
    """An operator's draw() run on its last-used properties (what the file browser's sidebar shows), with a
    layout that checks every call against UILayout's RNA (tests/rna_layout.py)."""

    def __init__(self, bpy, idname: str, operator_class, layout) -> None:
        props = bpy.context.window_manager.operator_properties_last(idname)
        object.__setattr__(self, "props", props)
        object.__setattr__(self, "cls", operator_class)
        object.__setattr__(self, "layout", layout)

    def __getattr__(self, name):
        if name not in self.props.bl_rna.properties and callable(getattr(self.cls, name, None)):
            return getattr(self.cls, name).__get__(self)
        return getattr(self.props, name)

    def __setattr__(self, name, value):
        setattr(self.props, name, value)


def _panels(drawn):
    out, current = {}, None
    for item in drawn:
        if item[0] == "panel":
            current = item[1]
            out[current] = []
        elif item[0] in ("prop", "list") and current:
            out[current].append(item[1])
    return out


def test_the_import_dialog_draws_its_panels_and_the_archives_list(blender, tmp_path, sample_msh):
    from rna_layout import CheckedLayout

    bpy = blender.bpy
    operators = blender.ext.io_msh.ui.operators
    path, _archive_data = _archive(tmp_path, sample_msh)
    dialog = Dialog(bpy, "import_scene.parkan_msh", operators.IMPORT_SCENE_OT_parkan_msh, CheckedLayout())
    dialog.filepath, dialog.entry_filter = path, "t*"
    dialog.draw(bpy.context)
    panels = _panels(dialog.layout.drawn)
    assert panels == {
        "PARKAN_MSH_import_models": ["models"],
        "PARKAN_MSH_import_nodes": ["node_mode"], "PARKAN_MSH_import_animation": ["animation", "set_frame_range"],
        "PARKAN_MSH_import_clips": ["clips", "root_motion", "frame_rate"],
        "PARKAN_MSH_import_geometry": ["slots", "stage", "lod"], "PARKAN_MSH_import_materials": ["game_folder"],
        "PARKAN_MSH_import_transform": ["global_scale", "axis_forward", "axis_up"]}
    assert [(m.name, m.index, m.selected) for m in dialog.props.models] == [
        ("sample.msh", 0, False), ("tank.msh", 3, True), ("tower.msh", 4, True)]
    assert "Models (2 of 3)" in [d[1] for d in dialog.layout.drawn if d[0] == "label"]
    rows = [{"name": m.name, "index": m.index, "selected": m.selected} for m in dialog.props.models]
    imported = import_file(bpy, path, models=rows, models_source=dialog.props.models_source)
    assert sorted(r["msh_model"] for r in imported) == ["tank.msh", "tower.msh"]
    dialog.filepath = write(tmp_path, "single.msh", sample_msh)  # a model file: no list
    object.__setattr__(dialog, "layout", CheckedLayout())
    dialog.draw(bpy.context)
    assert "PARKAN_MSH_import_models" not in _panels(dialog.layout.drawn) and len(dialog.props.models) == 0


def test_the_export_dialog_draws_its_panels(blender):
    from rna_layout import CheckedLayout

    bpy = blender.bpy
    operators = blender.ext.io_msh.ui.operators
    dialog = Dialog(bpy, "export_scene.parkan_msh", operators.EXPORT_SCENE_OT_parkan_msh, CheckedLayout())
    dialog.draw(bpy.context)
    assert _panels(dialog.layout.drawn) == {
        "PARKAN_MSH_export_keys": ["keys", "position_tolerance", "rotation_tolerance"],
        "PARKAN_MSH_export_frame_range": ["frame_range", "end_frame"],
        "PARKAN_MSH_export_materials": ["material_library", "texture_library", "texture_format"],
        "PARKAN_MSH_export_files": ["entry", "force", "replace_changed"]}
