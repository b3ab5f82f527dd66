"""Parkan Clips for Engines through the one write path (core.write_path), by the real operator: Blender's exporter
writes a temporary, whose bytes replace only a file of their own kind (never a model), a read-only one only with
Replace Read-Only Files; the armature is left in the mode it was in."""

import os
import stat
from pathlib import Path

import pytest
from test_batch import _glb_json

ROOT = Path(__file__).resolve().parent.parent
WALKER = ROOT / "samples" / "walker"


def import_walker(bpy):
    assert bpy.ops.import_scene.parkan_msh(filepath=str(WALKER / "walker.msh"), clips="NLA") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    return root


def listing(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def refused(bpy, folder: Path, match: str, **options) -> str:
    before = listing(folder)
    with pytest.raises(RuntimeError, match=match) as error:
        bpy.ops.export_scene.parkan_clips(**options)
    assert listing(folder) == before, "refused, but the folder changed"
    assert "Traceback" not in str(error.value)
    return str(error.value)


@pytest.mark.parametrize("file_format", ["GLB", "FBX"])
def test_clips_for_engines_never_write_over_a_model(blender, tmp_path, file_format):
    bpy = blender.bpy
    model = tmp_path / "walker.msh"
    model.write_bytes((WALKER / "walker.msh").read_bytes())
    import_walker(bpy)
    said = refused(bpy, tmp_path, "holds a model", filepath=str(model), file_format=file_format)
    assert str(model) in said


def test_a_read_only_target_is_replaced_only_with_replace_read_only_files(blender, tmp_path):
    bpy = blender.bpy
    import_walker(bpy)
    target = tmp_path / "walker.glb"
    assert bpy.ops.export_scene.parkan_clips(filepath=str(target)) == {"FINISHED"}
    first = target.read_bytes()
    target.write_bytes(first[:12] + b"\0" * 8 + first[20:])  # another version of it, made read-only
    os.chmod(target, stat.S_IRUSR | stat.S_IRGRP)
    try:
        said = refused(bpy, tmp_path, "read-only", filepath=str(target))
        assert str(target) in said
        assert bpy.ops.export_scene.parkan_clips(filepath=str(target), force=True) == {"FINISHED"}
    finally:
        os.chmod(target, stat.S_IRUSR | stat.S_IWUSR)
    assert target.read_bytes() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walker.glb"]  # no temporary left beside it


def test_exported_twice_the_second_replaces_the_first_and_leaves_nothing_beside(blender, tmp_path):
    bpy = blender.bpy
    root = import_walker(bpy)
    target = tmp_path / "walker.glb"
    assert bpy.ops.export_scene.parkan_clips(filepath=str(target)) == {"FINISHED"}
    root.data.bones[0].name = "renamed_root"
    assert bpy.ops.export_scene.parkan_clips(filepath=str(target)) == {"FINISHED"}
    assert "renamed_root" in {n.get("name") for n in _glb_json(target)["nodes"]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walker.glb"]


@pytest.mark.parametrize("file_format", ["GLB", "FBX"])
def test_clips_for_engines_from_pose_mode_leave_the_armature_in_pose_mode(blender, tmp_path, file_format):
    bpy = blender.bpy
    root = import_walker(bpy)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == root)
    bpy.context.view_layer.objects.active = root
    assert bpy.ops.object.mode_set(mode="POSE") == {"FINISHED"}
    suffix = ".glb" if file_format == "GLB" else ".fbx"
    assert bpy.ops.export_scene.parkan_clips(filepath=str(tmp_path / f"walker{suffix}"),
                                             file_format=file_format) == {"FINISHED"}
    assert bpy.context.view_layer.objects.active == root and root.mode == "POSE"
