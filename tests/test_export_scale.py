"""Whether a model counts as edited does not depend on its size."""

import numpy as np
import pytest
from test_export import export_file, import_file, write

from core.authoring.build import build_model
from core.authoring.synth import random_model


def scaled_model(scale: float) -> bytes:
    spec = random_model(7, node_count=12, frame_count=20, animated=1.0)
    for part in spec.parts:
        part.positions = (np.asarray(part.positions) * scale).astype(np.float32)
    for track in spec.animation.tracks:
        track.pos = (track.pos * scale).astype(np.float32)
    return build_model(spec).to_bytes()


@pytest.mark.parametrize("animation", ["FAITHFUL", "EDITING", "KEYS", "NONE"])
@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@pytest.mark.parametrize("scale", [60, 300])
def test_an_unedited_large_model_exports_byte_identical(blender, tmp_path, scale, node_mode, animation):
    bpy = blender.bpy
    data = scaled_model(scale)
    import_file(bpy, write(tmp_path, "big.msh", data), node_mode=node_mode, animation=animation)
    bpy.context.scene.frame_set(7)  # mid-animation: the placement is computed from posed float32 matrices
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    assert out.read_bytes() == data


def test_a_small_move_of_a_large_models_part_is_still_an_edit(blender, tmp_path):
    bpy = blender.bpy
    data = scaled_model(300)
    (root,) = import_file(bpy, write(tmp_path, "big.msh", data))
    mesh = next(o for o in root.children_recursive if o.type == "MESH")
    mesh.location.x += 0.01  # one centimetre on a model hundreds of metres across
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    assert out.read_bytes() != data


@pytest.mark.parametrize("animation", ["FAITHFUL", "EDITING"])
def test_an_unedited_import_warns_of_no_keyframes_outside_the_range(blender, tmp_path, capfd, animation):
    from test_export import MODELS

    bpy = blender.bpy
    data = MODELS["non_canonical"]()
    import_file(bpy, write(tmp_path, "in.msh", data), node_mode="EMPTIES", animation=animation)
    capfd.readouterr()
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    assert out.read_bytes() == data
    assert "outside the exported frames" not in capfd.readouterr().out


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@pytest.mark.parametrize("kind", ["non_canonical", "fractional"])
def test_editing_one_node_of_a_keys_import_keeps_the_other_tracks(blender, tmp_path, kind, node_mode):
    from test_export import MODELS, edit_rotation

    from core.animation.tracks import read_animation
    from core.msh.model import Model

    bpy = blender.bpy
    data = MODELS[kind]()
    source = read_animation(Model.parse(data)).tracks
    animated = [i for i, t in enumerate(source) if t.has_map]
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode, animation="KEYS")
    edit_rotation(bpy, root, animated[0], set(range(40)), 0.3)
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    written = read_animation(Model.parse(out.read_bytes())).tracks
    changed = [i for i, (a, b) in enumerate(zip(source, written))
               if not (np.array_equal(a.times, b.times) and np.array_equal(a.rot, b.rot)
                       and np.array_equal(a.pos, b.pos))]
    assert changed == [animated[0]]


NODE_MODES = ["ARMATURE", "EMPTIES"]


def node_handle(bpy, root, index):
    if root.type == "ARMATURE":
        return next(b for b in root.pose.bones if root.data.bones[b.name]["msh_node_index"] == index)
    return next(o for o in bpy.data.objects if o.type == "EMPTY" and o.get("msh_node_index") == index)


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("which, scale", [("parent", (2.0, 2.0, 2.0)), ("leaf", (1.5, 0.5, 1.0))])
def test_a_scaled_node_is_exported_as_it_shows(blender, tmp_path, capfd, node_mode, which, scale):
    """Uniform scale on a node with children, non-uniform on a leaf: both show rigid parts."""
    from fixtures import generated
    from test_authoring import assert_same_view, round_trip

    from core.msh.model import Model

    bpy = blender.bpy
    data = generated(63, node_count=5, frame_count=14, animated=1.0)
    parents = [int(p) for p in Model.parse(data).nodes["parent"] if p != 0xFFFF]
    node = parents[0] if which == "parent" else next(i for i in range(5) if i not in parents)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    node_handle(bpy, root, node).scale = scale
    capfd.readouterr()
    before, after, _written = round_trip(bpy, blender, tmp_path, node_mode, frames=(0, 6, 13))
    assert "scale is baked into their parts' geometry" in capfd.readouterr().out
    assert_same_view(before, after, atol=2e-3)  # the children's keys are reduced within 0.1 mm


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_a_scale_that_changes_over_the_frames_on_a_node_with_parts_is_refused(blender, tmp_path, node_mode):
    from fixtures import generated

    bpy = blender.bpy
    data = generated(64, node_count=3, frame_count=10, animated=1.0)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    handle = node_handle(bpy, root, 1)
    handle.scale = (1.0, 1.0, 1.0)
    handle.keyframe_insert("scale", frame=0)
    handle.scale = (2.0, 2.0, 2.0)
    handle.keyframe_insert("scale", frame=9)
    target = tmp_path / "out.msh"
    with pytest.raises(RuntimeError, match=r"node '[^']+' has parts and a scale that changes over the frames"):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert not target.exists()


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("scale", [(-1.0, 1.0, 1.0), (1.0, -1.0, -1.0), (-2.0, 1.0, 1.0)])
def test_a_mirrored_node_is_refused_even_a_pure_reflection(blender, tmp_path, node_mode, scale):
    """(-1, 1, 1) is a reflection with unit column lengths: it must be refused like any negative scale, while
    (1, -1, -1) is a half turn and exports."""
    from fixtures import generated

    bpy = blender.bpy
    data = generated(65, node_count=3, frame_count=6, animated=1.0)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    node_handle(bpy, root, 1).scale = scale
    bpy.context.view_layer.update()
    target = tmp_path / "out.msh"
    if np.prod(scale) > 0:
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
        assert target.exists()
        return
    with pytest.raises(RuntimeError, match=r"node '[^']+' is mirrored"):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert not target.exists()
