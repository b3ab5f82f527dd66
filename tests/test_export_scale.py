"""Issue 19, item 20: whether a model counts as edited does not depend on its size."""

import numpy as np
import pytest
from test_export import export_file, import_file, write

from core.build import build_model
from core.synth import random_model


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

    from core.anim import read_animation
    from core.model import Model

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
