"""Import planning and the MSH-to-Blender value mapping, without Blender (no bpy imported here)."""

import importlib
import math

import numpy as np
import pytest
from fixtures import generated, load_extension

from core.animation.sampler import AnimationData, sample
from core.container.nres import MODEL_TYPE_ID
from core.files import read_container
from core.msh.model import Model

load_extension()
plan = importlib.import_module("io_msh_ext.io_msh.imp.plan")
C = importlib.import_module("io_msh_ext.io_msh.com.conversion")


def model_plan(data, **options):
    return plan.plan_model(read_container(data, "m.msh"), None, plan.ImportOptions(**options))


def test_planning_needs_no_blender():
    import subprocess
    import sys

    code = ("import sys; sys.path[:0] = ['.', 'tests']; from fixtures import load_extension; load_extension(); "
            "import importlib; importlib.import_module('io_msh_ext.io_msh.imp.plan'); print('bpy' in sys.modules)")
    root = __import__("pathlib").Path(__file__).resolve().parent.parent
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
    assert result.stdout.strip() == "False", result.stderr


def test_decision_1_rotation_mapping():
    q = np.array([0.1, 0.2, 0.3, 0.4])
    assert C.blender_quaternions(q).tolist() == pytest.approx([0.1, -0.2, -0.3, -0.4])
    assert C.file_quaternions(C.blender_quaternions(q)).tolist() == pytest.approx(q.tolist())
    # The engine's matrix (msh-animation.md 4.4) equals Blender's matrix of the mapped quaternion.
    from core.animation.pose import quat_to_matrix

    half = math.radians(30)
    file_q = np.array([math.cos(half), 0.3 * math.sin(half), 0.4 * math.sin(half), math.sqrt(0.75) * math.sin(half)])
    engine = quat_to_matrix(file_q)[:3, :3]
    blender = C.matrices(C.blender_quaternions(file_q), np.zeros(3))[:3, :3]
    np.testing.assert_allclose(engine, blender, atol=1e-6)


def test_uv_flip_and_continuity():
    assert C.blender_uvs(np.array([[0.25, 0.2]])).tolist() == [[0.25, 0.8]]
    q = np.array([[1, 0, 0, 0], [-1, 0, 0, 0], [-0.9, -0.1, 0, 0], [0.9, 0.1, 0, 0]], float)
    out = C.continuous(q)
    assert (np.einsum("ij,ij->i", out[1:], out[:-1]) > 0).all()


def test_unique_names_respect_the_byte_limit_and_deduplicate():
    names = plan.unique_names(["a", "a", "a", "é" * 40, "é" * 40], 63)
    assert names[:3] == ["a", "a.001", "a.002"]
    assert len(names[3].encode()) <= 63 and names[3] != names[4] and len(names[4].encode()) <= 63
    assert all(n.encode().decode() == n for n in names)  # never split a character


def test_nodes_meshes_and_materials(sample_msh):
    p = model_plan(sample_msh)
    assert [n.name for n in p.nodes] == ["body", "turret", "gun", "antenna", "leg_l", "leg_r"]
    assert [n.parent for n in p.nodes] == [None, 0, 1, 1, 0, 0]
    assert len(p.meshes) == 6 and all(len(m.positions) == 8 and len(m.triangles) == 12 for m in p.meshes)
    assert {w: (look.wear_index, look.name) for w, look in p.looks.items()} == {
        0xFF00: (0, "material_0"), 0xFF01: (1, "material_1")}
    assert {(m.node, tuple(m.materials)) for m in p.meshes} >= {(0, (0xFF00,)), (2, (0xFF01,))}  # batch words
    uvs = np.concatenate([m.uvs for m in p.meshes])
    assert uvs.min() >= 0 and uvs.max() <= 1


def test_a_model_files_material_list_is_found_beside_it_whatever_its_case(tmp_path, sample_msh):
    (tmp_path / "Tank.msh").write_bytes(sample_msh)
    assert plan.plan_file(tmp_path / "Tank.msh", plan.ImportOptions())[0].wear is None
    (tmp_path / "TANK.WEA").write_bytes(b"2\r\n0 HULL\r\n1 TRACKS\r\n")  # added after the folder was listed
    p = plan.plan_file(tmp_path / "Tank.msh", plan.ImportOptions())[0]
    assert p.wear == b"2\r\n0 HULL\r\n1 TRACKS\r\n"
    assert [look.name for look in p.looks.values()] == ["HULL", "TRACKS"]


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_faithful_channels_are_the_runtime_samples(node_mode):
    data = generated(3, node_count=5, frame_count=11, animated=1.0)
    p = model_plan(data, node_mode=node_mode)
    model = Model.parse(data)
    s = sample(AnimationData.from_model(model), np.arange(model.frame_count + 2))
    for channel in p.channels:
        node = p.nodes[channel.node]
        frames = channel.frames.astype(int)
        assert frames[0] == 0 and frames[-1] <= model.frame_count + 1
        expected_q = C.blender_quaternions(s.rot[channel.node, frames])
        expected_p = s.pos[channel.node, frames]
        if node_mode == "ARMATURE":  # bones hold the pose relative to their rest
            rest = C.matrices(node.rest_rotation, node.rest_location)
            got = rest @ C.matrices(channel.rotation, channel.location)
        else:
            got = C.matrices(channel.rotation, channel.location)
        np.testing.assert_allclose(got, C.matrices(expected_q, expected_p), atol=1e-6)


def test_keys_mode_uses_the_msh_keys():
    data = generated(4, node_count=4, frame_count=20, fractional=True)
    p = model_plan(data, animation="KEYS", node_mode="EMPTIES")
    from core.animation.tracks import read_animation

    tracks = read_animation(Model.parse(data)).tracks
    assert [c.node for c in p.channels] == [i for i, t in enumerate(tracks) if t.has_map]
    for c in p.channels:
        assert c.frames.tolist() == tracks[c.node].times.astype(float).tolist()


def chosen_names(container, **options):
    entries, aliases = plan._chosen(container, plan.ImportOptions(**options), "s.rlb")
    return [e.name_str for e in entries], aliases


def test_archive_filter_patterns(sample_rlb):
    container = read_container(sample_rlb, "s.rlb")
    assert chosen_names(container) == (["sample.msh"], [])
    assert chosen_names(container, entry_filter="SAM*") == (["sample.msh"], [])
    with pytest.raises(Exception, match="no model matches"):
        chosen_names(container, entry_filter="tank*")


def test_equal_folded_names_are_told_apart_by_index(sample_msh):
    from fixtures import nres

    other = generated(5, node_count=3)
    data = nres([(MODEL_TYPE_ID, name, payload, 0, 0, 0) for name, payload in
                 (("a.msh", sample_msh), ("A.msh", other), ("a.MSH", sample_msh), ("tank;b.msh", other))])
    container = read_container(data, "s.rlb")
    assert [e.name_str for e in container.model_entries()] == ["a.msh", "A.msh", "a.MSH", "tank;b.msh"]
    assert chosen_names(container, entry_indices=(1, 3)) == (["A.msh", "tank;b.msh"], [])
    (entry,) = plan._chosen(container, plan.ImportOptions(entry_indices=(1,)), "s.rlb")[0]
    assert len(plan.plan_model(container, entry, plan.ImportOptions()).nodes) == 3  # not a.msh's six
    with pytest.raises(Exception, match="not all models"):
        chosen_names(container, entry_indices=(7,))


def test_entries_aliasing_one_payload_are_imported_once(sample_msh):
    from fixtures import nres

    data = nres([(MODEL_TYPE_ID, f"m{i}.msh", sample_msh if i == 0 else b"", 0, 0, 0) for i in range(3)],
                offsets=[16, 16, 16], sizes=[len(sample_msh)] * 3)
    container = read_container(data, "s.rlb")
    assert len(container.model_entries()) == 3
    names, aliases = chosen_names(container)
    assert names == ["m0.msh"] and len(aliases) == 2 and "holds the same bytes as 'm0.msh'" in aliases[0]
