"""The export's fast path: an import's animation left as it was is recognised without stepping
through frames, and every change that moves a node sends the export back to evaluating every frame."""

import numpy as np
import pytest
from fixtures import generated, non_canonical
from test_export import export_file, import_file, write

from core.animation.tracks import read_animation
from core.msh.model import Model

NODE_MODES = ["ARMATURE", "EMPTIES"]


def scene_read(blender, root):
    bpy = blender.bpy
    readback = blender.ext.io_msh.exp.readback
    scene = bpy.context.scene
    frames = np.arange(scene.frame_start, scene.frame_end + 1, dtype=np.float64)
    return readback.read_scene(bpy.context, root, frames)


def node_handle(root, index):
    if root.type == "ARMATURE":
        return next(b.name for b in root.data.bones if b["msh_node_index"] == index)
    return next(o for o in root.children_recursive if o.get("msh_node_index") == index and o.type == "EMPTY")


def animated_node(root, data):
    """The index of a node whose track has a map."""
    return next(i for i, t in enumerate(read_animation(Model.parse(data)).tracks) if t.has_map and i > 0)


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("animation", ["FAITHFUL", "KEYS"])
def test_an_unedited_import_is_recognised_and_written_back_byte_for_byte(blender, tmp_path, node_mode, animation):
    bpy = blender.bpy
    data = generated(50, node_count=8, frame_count=30, animated=0.8)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode, animation=animation)
    scene = scene_read(blender, root)
    assert scene.as_imported and len(scene.frames) == 1
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    assert out.read_bytes() == data


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_a_keys_import_of_a_non_canonical_map_writes_back_byte_for_byte(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = non_canonical(generated(21, node_count=9, frame_count=25, animated=0.8, fractional=True))
    import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode, animation="KEYS")
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    assert out.read_bytes() == data  # before the fast path: KEYS curves differ from the runtime, tracks re-authored


def _edit_key(bpy, root, node):
    fcurves = blender_fcurves(bpy, root, node)
    curve = next(c for c in fcurves if c.data_path.endswith("location") and len(c.keyframe_points) > 1)
    curve.keyframe_points[1].co.y += 0.25
    curve.update()


def blender_fcurves(bpy, root, node):
    import blender_env

    compat = blender_env.ext.io_msh.com.compat
    if root.type == "ARMATURE":
        name = node_handle(root, node)
        return [c for c in compat.assigned_fcurves(root) if f'["{name}"]' in c.data_path]
    return compat.assigned_fcurves(node_handle(root, node))


def _owner(root, node):
    return root.pose.bones[node_handle(root, node)] if root.type == "ARMATURE" else node_handle(root, node)


def _add_constraint(bpy, root, node):
    _owner(root, node).constraints.new("LIMIT_ROTATION").use_limit_x = True


def _pose_unkeyed(bpy, root, node):
    """Turn a node that has no curves (a static one)."""
    static = next(i for i in range(8) if not blender_fcurves(bpy, root, i))
    owner = _owner(root, static)
    owner.rotation_quaternion = (0.9, 0.1, 0.3, 0.0)


def _nla_track(bpy, root, node):
    holder = root if root.type == "ARMATURE" else node_handle(root, node)
    holder.animation_data.nla_tracks.new()


def _influence(bpy, root, node):
    holder = root if root.type == "ARMATURE" else node_handle(root, node)
    holder.animation_data.action_influence = 0.5


def _inherit_rotation(bpy, root, node):
    if root.type == "ARMATURE":
        root.data.bones[node_handle(root, node)].use_inherit_rotation = False
    else:
        node_handle(root, node).rotation_mode = "XYZ"


EDITS = {"key": _edit_key, "constraint": _add_constraint, "unkeyed pose": _pose_unkeyed, "NLA": _nla_track,
         "influence": _influence, "inheritance or rotation mode": _inherit_rotation}


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_anything_that_moves_a_node_steps_through_every_frame(blender, tmp_path, node_mode, edit):
    bpy = blender.bpy
    data = generated(52, node_count=8, frame_count=30, animated=0.5)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    EDITS[edit](bpy, root, animated_node(root, data))
    scene = scene_read(blender, root)
    assert not scene.as_imported and len(scene.frames) == bpy.context.scene.frame_end + 1


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_the_first_frame_is_read_the_same_from_the_users_scene_or_a_temporary_one(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = generated(52, node_count=8, frame_count=30, animated=0.5)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    mesh = next(o for o in root.children_recursive if o.type == "MESH")
    mesh.location.z += 0.3  # a geometry edit, read at the first frame
    _edit_key(bpy, root, animated_node(root, data))
    outputs = []
    for current in (0, 7):  # at frame 0 the user's depsgraph is read; elsewhere a temporary scene's
        bpy.context.scene.frame_set(current)
        outputs.append(tmp_path / f"at_{current}.msh")
        export_file(bpy, outputs[-1])
    assert outputs[0].read_bytes() == outputs[1].read_bytes() != data


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("animation", ["FAITHFUL", "EDITING", "KEYS", "NONE"])
def test_the_fingerprint_stored_at_import_is_the_one_read_back_from_the_curves(blender, tmp_path, node_mode,
                                                                              animation):
    """The import computes its curves' fingerprints from what it wrote (no read-back): they must equal what
    reading the curves back gives, or an unedited export would take the slow path."""
    bpy = blender.bpy
    data = generated(23, node_count=6, frame_count=40, fractional=True)
    (root,) = import_file(bpy, write(tmp_path, "m.msh", data), node_mode=node_mode, animation=animation)
    assert root["msh_curves"] == blender.ext.io_msh.com.curves.curves_fingerprint(root)


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("stored", ["each node's", "whole and each node's", "whole alone"])
def test_fingerprints_stored_by_earlier_versions_still_tell_an_unedited_import(blender, tmp_path, node_mode, stored):
    """A .blend saved by an earlier version holds the fingerprint of all curves beside each node's, or before
    per-node fingerprints that one alone (a text): its unedited import still writes back byte for byte, and an edit
    still reaches the file."""
    import json

    bpy = blender.bpy
    curves = blender.ext.io_msh.com.curves
    data = generated(50, node_count=8, frame_count=30, animated=0.8)
    (root,) = import_file(bpy, write(tmp_path, "in.msh", data), node_mode=node_mode)
    whole = curves.fingerprint(curves.read_curves(root))
    nodes = json.loads(root["msh_curves"])["nodes"]
    root["msh_curves"] = {"each node's": json.dumps({"nodes": nodes}),
                          "whole and each node's": json.dumps({"all": whole, "nodes": nodes}),
                          "whole alone": whole}[stored]
    assert scene_read(blender, root).as_imported
    out = tmp_path / "out.msh"
    export_file(bpy, out)
    assert out.read_bytes() == data
    _edit_key(bpy, root, animated_node(root, data))
    assert not scene_read(blender, root).as_imported
    export_file(bpy, out)
    assert out.read_bytes() != data
