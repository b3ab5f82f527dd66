"""Import shows the effects a model's controller attaches: an Empty per record, at its node's origin (on a
node, or the node an explosion goes off on) or at the model's root (three control points, the construction
sphere), carrying the effect's name, place, record and parameters; an effect's light emitters previewed as
point lights. The Empties are no nodes: the unedited model exports byte for byte."""

import json

import numpy as np
import pytest
from test_import import import_file

from core.authoring import effects as E
from core.authoring.build import build_model
from core.authoring.controllers import walker_controller, walker_model
from core.effects.fxid import FXID_TYPE_ID


def _walker_folder(folder, with_library: bool = True) -> bytes:
    data = build_model(walker_model()).to_bytes()
    controller = walker_controller()
    controller.groups = [np.concatenate([controller.groups[0], E.attaching_group(node=1, explode=2)])]
    (folder / "walker.msh").write_bytes(data)
    (folder / "walker.ctl").write_bytes(controller.to_bytes())
    if with_library:
        effects = E.effects_archive()
        effects.add("step.eff", E.effect_bytes([E.emitter_block(2, (0.1, 0.2))], mode=0, duration=0.5), FXID_TYPE_ID)
        (folder / "EFFECTS.RLB").write_bytes(effects.to_bytes())   # any case, as the game's file system
        (folder / "weapon.rlb").write_bytes(E.explosions_archive().to_bytes())
    return data


def _effects(bpy):
    return {o["msh_effect"]: o for o in bpy.data.objects if o.type == "EMPTY" and "msh_effect" in o}


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_each_attached_effect_is_an_empty_at_its_node_with_its_parameters(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = _walker_folder(tmp_path)
    (root,) = import_file(bpy, str(tmp_path / "walker.msh"), node_mode=node_mode)
    effects = _effects(bpy)
    assert sorted(effects) == ["effects.rlb/step.eff", "effects.rlb/synth_exp", "effects.rlb/synth_mode_1",
                               "effects.rlb/synth_mode_4", "weapon.rlb/synth_round.exp"]
    on_node = effects["effects.rlb/synth_exp"]
    assert on_node["msh_effect_place"] == "node" and list(on_node["msh_effect_record"]) == [0, 1]
    assert (on_node["msh_effect_node"], on_node["msh_effect_start_mode"], on_node["msh_effect_time_node"]) == (1, 2, 1)
    assert on_node["msh_effect_found"] and on_node["msh_effect_time_mode"] == 1
    assert on_node["msh_effect_emitters"].split(", ")[:3] == ["burst", "burst (own start)", "sprite"]
    params = json.loads(on_node["msh_effect_params"])
    assert params["emitters"] == 9 and params["blocks"][-1]["type"] == 1
    node_1 = _node_world(bpy, root, 1, node_mode)
    assert np.allclose(np.array(on_node.matrix_world.translation), node_1, atol=1e-5)
    blast = effects["weapon.rlb/synth_round.exp"]
    assert blast["msh_effect_place"] == "explode" and blast["msh_effect_damage"] == 1.0
    # where the game plays it: at node 2's bounding-sphere centre, (0, 0.6, 0) in the node's frame
    assert np.allclose(np.array(blast.matrix_world.translation), _node_world(bpy, root, 2, node_mode, (0, 0.6, 0)),
                       atol=1e-5)
    points, sphere = effects["effects.rlb/synth_mode_4"], effects["effects.rlb/synth_mode_1"]
    assert list(points["msh_effect_points"]) == [0, 1, 2] and points.parent == root
    assert sphere["msh_effect_place"] == "sphere" and sphere["msh_effect_effect_id"] == 3
    lights = [o for o in on_node.children if o.type == "LIGHT"]
    assert len(lights) == 1 and lights[0].data.cutoff_distance == pytest.approx(30.0)
    assert tuple(lights[0].data.color) == pytest.approx((1.0, 2 / 3, 0.0))
    (speaker,) = [o for o in on_node.children if o.type == "SPEAKER"]
    assert (speaker.data.distance_reference, speaker.data.distance_max) == (3.0, 40.0)
    assert speaker["msh_effect_sound"] == "sounds.lib/synth_boom.wav"
    bpy.context.view_layer.objects.active = root
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == data


def test_an_effect_not_found_is_an_empty_that_says_so(blender, tmp_path):
    bpy = blender.bpy
    _walker_folder(tmp_path, with_library=False)
    import_file(bpy, str(tmp_path / "walker.msh"))
    effects = _effects(bpy)
    assert len(effects) == 5 and not any(o["msh_effect_found"] for o in effects.values())
    assert effects["effects.rlb/synth_exp"]["msh_effect_problem"] == "effects.rlb/synth_exp was not found"


def _node_world(bpy, root, node: int, node_mode: str, at=(0.0, 0.0, 0.0)) -> np.ndarray:
    """The world position of ``at`` in the node's own frame (its origin by default)."""
    from mathutils import Quaternion, Vector
    if node_mode == "ARMATURE":   # the node's frame is the bone's turned back by msh_bone_frame
        bone = next(b for b in root.pose.bones if b.bone.get("msh_node_index") == node)
        turn = Quaternion(bone.bone.get("msh_bone_frame", (1.0, 0.0, 0.0, 0.0))).conjugated()
        return np.array(root.matrix_world @ bone.matrix @ (turn @ Vector(at)))
    empty = next(o for o in root.children_recursive if o.get("msh_node_index") == node and o.type == "EMPTY")
    return np.array(empty.matrix_world @ Vector(at))


def test_an_effect_with_words_past_an_int_imports(blender, tmp_path):
    """A time mode with the top bit set (no retail effect has one) is kept as its 32 bits; NaN fields as text."""
    bpy = blender.bpy
    _walker_folder(tmp_path)
    effects = E.effects_archive()
    odd = bytearray(E.every_type_effect())
    odd[4:8] = (0xFFFFFFFF).to_bytes(4, "little")
    odd[8:12] = bytes.fromhex("0100c07f")  # a NaN duration
    effects.replace("synth_exp", bytes(odd))
    (tmp_path / "EFFECTS.RLB").write_bytes(effects.to_bytes())
    import_file(bpy, str(tmp_path / "walker.msh"))
    on_node = _effects(bpy)["effects.rlb/synth_exp"]
    assert on_node["msh_effect_time_mode"] == -1 and json.loads(on_node["msh_effect_params"])["mode"] == 0xFFFFFFFF
