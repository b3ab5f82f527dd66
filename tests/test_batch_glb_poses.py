"""``batch convert --format glb`` exports the import's keys as they are (no sampling of every bone at every
frame): the file read back by Blender's own glTF importer poses every part where the import poses it, at every
frame, animated nodes and still ones alike."""

import numpy as np
import pytest
from test_batch import batch

from core.authoring.build import build_model
from core.authoring.synth import random_model

FRAMES = (0, 5, 11, 19)


def _part_corners(bpy, frame: int) -> dict[str, np.ndarray]:
    """Each mesh part's vertices in world space at ``frame``, by its object's name."""
    scene = bpy.context.scene
    scene.frame_set(frame)
    bpy.context.view_layer.update()
    out = {}
    for obj in bpy.data.objects:
        if obj.type == "MESH" and len(obj.data.vertices):
            co = np.empty(3 * len(obj.data.vertices), np.float64)
            obj.data.vertices.foreach_get("co", co)
            world = np.array(obj.matrix_world, np.float64)
            points = co.reshape(-1, 3) @ world[:3, :3].T + world[:3, 3]
            out[obj.name.split(".")[0]] = np.sort(points.round(4), axis=0)
    return out


@pytest.mark.parametrize("seed", [3, 11])
def test_glb_poses_every_part_as_the_import_does(blender, tmp_path, seed):
    bpy = blender.bpy
    source = tmp_path / "in" / f"model_{seed}.msh"
    source.parent.mkdir()
    source.write_bytes(build_model(random_model(seed, node_count=9, frame_count=20, animated=0.6)).to_bytes())
    result = batch("convert", str(source.parent), "-o", str(tmp_path / "out"), "--format", "glb")
    assert result.returncode == 0, result.stdout + result.stderr
    assert bpy.ops.import_scene.parkan_msh(filepath=str(source)) == {"FINISHED"}
    expected = {frame: _part_corners(bpy, frame) for frame in FRAMES}
    blender.clean_scene()
    glb = tmp_path / "out" / f"model_{seed}.glb"
    assert bpy.ops.import_scene.gltf(filepath=str(glb), bone_heuristic="BLENDER") == {"FINISHED"}
    for frame in FRAMES:
        found = _part_corners(bpy, frame)
        assert set(expected[frame]) <= set(found)  # and the importer's bone shape (an Icosphere)
        for name, points in expected[frame].items():
            assert np.allclose(found[name], points, atol=2e-3), (frame, name)
