"""What a new user meets in the first hour, in Blender: an export given a folder, the export check naming what
an export would change, a map's Land.msh opened as a model, the import presets, several units or maps at once."""

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
