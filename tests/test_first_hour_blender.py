"""What a new user meets in the first hour, in Blender: an export given a folder, the export check naming what
an export would change, a map's Land.msh opened as a model, the import presets, several units or maps at once."""

import importlib
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def import_sample(bpy, tmp_path) -> Path:
    folder = shutil.copytree(ROOT / "samples" / "walker", tmp_path / "walker")
    assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh")) == {"FINISHED"}
    return folder


def test_an_export_given_a_folder_is_refused_naming_it(blender, tmp_path):
    """The file-name field left empty: the path is the folder; nothing is written (no hidden '.msh')."""
    bpy = blender.bpy
    import_sample(bpy, tmp_path)
    target = tmp_path / "out"
    target.mkdir()
    for given in (f"{target}/", str(target), str(target / ".msh")):
        with pytest.raises(RuntimeError, match=f"{target}: is a folder, not a file"):
            bpy.ops.export_scene.parkan_msh(filepath=given)
    assert list(target.iterdir()) == []


def test_an_export_name_without_an_extension_gets_msh(blender, tmp_path):
    bpy = blender.bpy
    import_sample(bpy, tmp_path)
    target = tmp_path / "out"
    target.mkdir()
    assert bpy.ops.export_scene.parkan_msh(filepath=str(target / "copy")) == {"FINISHED"}
    assert sorted(p.name for p in target.iterdir()) == ["copy.msh", "copy.wea"]


def test_the_export_check_lists_the_tracks_an_export_rewrites(blender, tmp_path, capfd):
    """A key edited on one bone: the check names that node (where it said 'Exports as it is'), and the export
    rewrites that one track."""
    bpy = blender.bpy
    panel = blender.ext.io_msh.ui.panel
    folder = import_sample(bpy, tmp_path)
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert panel.run_check(bpy.context, root).lines == []
    bone = root.pose.bones[1]
    bpy.context.scene.frame_set(0)
    bone.location.x += 0.25
    bone.keyframe_insert("location", frame=0)
    check = panel.run_check(bpy.context, root)
    assert [(line.level, line.message, line.names) for line in check.lines] == [
        ("WARNING", f"1 node track(s) rewritten: {bone.name!r}", (bone.name,))]
    capfd.readouterr()
    assert bpy.ops.export_scene.parkan_msh(filepath=str(folder / "walker.msh")) == {"FINISHED"}
    out = capfd.readouterr()
    assert ": 1 node track(s) rewritten" in out.out + out.err


def test_the_export_check_names_an_edited_controller_state(blender, tmp_path):
    bpy = blender.bpy
    panel = blender.ext.io_msh.ui.panel
    folder = shutil.copytree(ROOT / "samples" / "walker", tmp_path / "walker")
    assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"), clips="ACTIONS") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    root["msh_state 0 step ms"] = 80.0
    messages = [line.message for line in panel.run_check(bpy.context, root).lines]
    assert "1 controller state field(s) edited: the controller is written too" in messages


def test_a_maps_land_msh_opened_as_a_model_names_the_map_importer(blender, tmp_path):
    """File > Import > Parkan MSH (or a drop) of a Land.msh: it is a map, and the map's importer is named."""
    from map_fixtures import LAND_MSH, write_sample

    bpy = blender.bpy
    land = write_sample(tmp_path) / LAND_MSH
    with pytest.raises(RuntimeError, match=r"the file is a map's \(its terrain, not a model\): import the map with "
                                           r"File > Import > Parkan Map"):
        bpy.ops.import_scene.parkan_msh(filepath=str(land))
    assert not bpy.data.objects


def test_batch_import_of_a_land_msh_names_where_maps_go(tmp_path):
    from map_fixtures import LAND_MSH, write_sample
    from test_batch import batch

    land = write_sample(tmp_path / "game") / LAND_MSH
    result = batch("import", str(land), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert (f"{land}: the file is a map's (its terrain, not a model): batch convert and batch thumbnails take "
            "maps; in Blender, File > Import > Parkan Map") in result.stdout


def test_contact_sheet_labels_are_shortened_by_their_drawn_width(blender, tmp_path, monkeypatch):
    """Names of 28 to 60 characters (wide letters, Cyrillic) each fit their tile; a short one is kept whole."""
    bpy = blender.bpy
    pictures = importlib.import_module(f"{blender.ext.__name__}.io_msh.batch.pictures")
    image = bpy.data.images.new("tile", 4, 4)
    image.filepath_raw, image.file_format = str(tmp_path / "tile.png"), "PNG"
    image.save()
    names = ["short.msh", "W" * 24 + ".msh", "танк_тяжёлый_бронированный_01.msh", "m" * 56 + ".msh",
             "objects.rlb:" + "Ж" * 30 + ".msh"]
    drawn = {}

    def measure(bpy, scene, target):
        bpy.context.view_layer.update()
        drawn.update({o.name: (o.data.body, o.dimensions.x) for o in scene.objects if o.type == "FONT"})

    monkeypatch.setattr(pictures, "render_still", measure)
    pictures.contact_sheet([(str(tmp_path / "tile.png"), name) for name in names], tmp_path / "sheet.png", 64)
    bodies = [drawn[f"label {n}"][0] for n in range(len(names))]
    assert bodies[0] == "short.msh"
    assert all(width <= 1.04 for _body, width in drawn.values()), drawn
    for name, body in zip(names[1:], bodies[1:]):
        assert body.startswith("...") and name.endswith(body[3:]) and len(body) > 12, (name, body)


PRESETS = {"For_Editing_as_Empties.py": ("EMPTIES", "EDITING", "NONE"),
           "Faithful_as_Armature.py": ("ARMATURE", "FAITHFUL", "ACTIONS")}


def preset_options(path: Path) -> dict:
    """What a preset file sets on the operator (its 'op.NAME = VALUE' lines)."""
    import ast

    options = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute):
            options[node.targets[0].attr] = ast.literal_eval(node.value)
    return options


def test_the_import_presets_are_in_the_operators_preset_menu(blender):
    """Blender's preset menu of Import Parkan MSH lists the files of every registered preset path's
    presets/operator/import_scene.parkan_msh: the shipped ones are there."""
    bpy = blender.bpy
    shown = {p.name for folder in bpy.utils.preset_paths("operator/import_scene.parkan_msh/")
             for p in Path(folder).glob("*.py")}
    assert set(PRESETS) <= shown
    assert bpy.path.display_name("For_Editing_as_Empties") == "For Editing as Empties"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_import_preset_imports_as_it_says(blender, tmp_path, name):
    bpy = blender.bpy
    (folder,) = [Path(f) for f in bpy.utils.preset_paths("operator/import_scene.parkan_msh/")
                 if (Path(f) / name).is_file()]
    options = preset_options(folder / name)
    assert (options["node_mode"], options["animation"], options["clips"]) == PRESETS[name]
    walker = shutil.copytree(ROOT / "samples" / "walker", tmp_path / "walker")
    assert bpy.ops.import_scene.parkan_msh(filepath=str(walker / "walker.msh"), **options) == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert root.type == ("EMPTY" if options["node_mode"] == "EMPTIES" else "ARMATURE")
    assert bool(root.get("msh_clips")) == (options["clips"] == "ACTIONS")


def test_import_unit_takes_several_files(blender):
    bpy = blender.bpy
    folder = ROOT / "samples" / "unit" / "UNITS" / "SYNTH"
    files = [{"name": "synth_unit.dat"}, {"name": "synth_fort.dat"}]
    assert bpy.ops.import_scene.parkan_unit(directory=str(folder), files=files,
                                            filepath=str(folder / "synth_unit.dat")) == {"FINISHED"}
    units = {c.name for c in bpy.data.collections if "msh_unit" in c}
    assert len(units) == 2, units


def test_import_parkan_map_takes_several_files(blender, tmp_path):
    from map_fixtures import LAND_MSH, MISSION, write_sample

    bpy = blender.bpy
    for game in ("a", "b"):
        write_sample(tmp_path / game)
    files = [{"name": f"a/{MISSION}"}, {"name": f"b/{LAND_MSH}"}]
    assert bpy.ops.import_scene.parkan_map(directory=str(tmp_path), files=files,
                                           filepath=str(tmp_path / "a" / MISSION)) == {"FINISHED"}
    maps = {c["msh_map"]: c.get("msh_map_mission", "") for c in bpy.data.collections if "msh_map" in c}
    assert sorted(maps) == [str(tmp_path / "a" / LAND_MSH), str(tmp_path / "b" / LAND_MSH)], maps
    assert maps[str(tmp_path / "a" / LAND_MSH)] == str(tmp_path / "a" / MISSION)
