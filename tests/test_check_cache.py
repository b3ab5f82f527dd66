"""The Check button keeps what the last check of the model read and planned
(io_msh.exp.check_cache) and reuses it only where nothing changed. After any sequence of careless edits (no
view layer update in between, 1-ulp moves, values set back as an undo would, another action assigned, an object
deleted) a check with the cache lists what a check from scratch lists and would write the same bytes, in both
node modes; and the export itself never uses what the check kept."""

import random

import numpy as np
import pytest
from test_import import import_file, write
from test_live_check import curves_of, settle
from test_panel import _panel, _select_only, export_dialog_defaults  # noqa: F401  (an autouse fixture)

from core.authoring.build import build_model
from core.authoring.synth import random_model


def _cache(blender):
    return blender.ext.io_msh.exp.check_cache


def checked_alike(bpy, panel, root) -> None:
    """The Check button's (cached) check and a check from scratch agree: lines and the model's bytes."""
    cached = panel.run_check(bpy.context, root)
    fresh = panel.check_export(bpy.context, panel.last_export_options(bpy.context))
    assert [(x.level, x.message) for x in cached.lines] == [(x.level, x.message) for x in fresh.lines]
    assert (cached.model is None) == (fresh.model is None)
    if fresh.model is not None:
        assert cached.model.to_bytes() == fresh.model.to_bytes()


class Edits:
    """Careless edits of an imported model; each returns how to set it back (an undo)."""

    def __init__(self, bpy, root, rng: random.Random) -> None:
        self.bpy, self.root, self.rng = bpy, root, rng
        self.armature = root.type == "ARMATURE"
        self.undo: list = []

    def holders(self):
        if self.armature:
            return [self.root]
        return [o for o in self.root.children_recursive
                if o.type == "EMPTY" and o.animation_data and o.animation_data.action]

    def curve(self):
        holder = self.rng.choice(self.holders())
        curves = [c for c in curves_of(holder.animation_data.action) if len(c.keyframe_points) > 2]
        return self.rng.choice(curves)

    def meshes(self):
        return [o for o in self.root.children_recursive if o.type == "MESH"]

    def key(self):
        curve = self.curve()
        point = curve.keyframe_points[self.rng.randrange(1, len(curve.keyframe_points))]
        before = point.co[1]
        point.co[1] = float(np.nextafter(np.float32(before), np.float32(np.inf))) if self.rng.random() < 0.5 \
            else before + 0.3

        def back():
            point.co[1] = before
        return back

    def handle(self):
        curve = self.curve()
        point = curve.keyframe_points[self.rng.randrange(len(curve.keyframe_points))]
        point.handle_right_type = "FREE"
        before = tuple(point.handle_right)
        point.handle_right[1] += 0.2

        def back():
            point.handle_right = before
        return back

    def interpolation(self):
        curve = self.curve()
        point = curve.keyframe_points[self.rng.randrange(len(curve.keyframe_points) - 1)]
        before = point.interpolation
        point.interpolation = self.rng.choice([i for i in ("CONSTANT", "LINEAR", "BEZIER") if i != before])

        def back():
            point.interpolation = before
        return back

    def vertex(self):
        mesh = self.rng.choice(self.meshes()).data
        vertex = mesh.vertices[self.rng.randrange(len(mesh.vertices))]
        before = tuple(vertex.co)
        vertex.co.x = float(np.nextafter(np.float32(before[0]), np.float32(np.inf))) if self.rng.random() < 0.5 \
            else before[0] + 0.25

        def back():
            vertex.co = before
        return back

    def rename(self):
        if self.armature:
            item = self.rng.choice(list(self.root.data.bones))
        else:
            item = self.rng.choice([o for o in self.root.children_recursive if o.type == "EMPTY"])
        before = item.name
        item.name = before + "_r"

        def back():
            item.name = before
        return back

    def action(self):
        holder = self.rng.choice(self.holders())
        before = holder.animation_data.action
        other = before.copy()
        holder.animation_data.action = other
        for curve in curves_of(other)[:1]:
            curve.keyframe_points[-1].co[1] += 0.5

        def back():
            holder.animation_data.action = before
        return back

    def delete(self):
        meshes = self.meshes()
        if len(meshes) > 1:
            self.bpy.data.objects.remove(self.rng.choice(meshes))
        return None

    def set_back(self):
        if self.undo:
            self.undo.pop()()
        return None

    KINDS = ("key", "handle", "interpolation", "vertex", "rename", "action", "delete", "set_back", "set_back")

    def apply(self, kind: str) -> str:
        back = getattr(self, kind)()
        if back is not None:
            self.undo.append(back)
        return kind

    def random_edit(self) -> str:
        return self.apply(self.rng.choice(self.KINDS))


def imported(bpy, tmp_path, seed: int, node_count: int = 6, frame_count: int = 30, node_mode: str = "ARMATURE"):
    """A random model keyed at every frame, imported; its root."""
    data = build_model(random_model(seed, node_count=node_count, frame_count=frame_count, animated=1.0,
                                    every_frame=True)).to_bytes()
    (root,) = import_file(bpy, write(tmp_path, f"model{seed}.msh", data), node_mode=node_mode)
    return root


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_check_with_the_cache_is_a_check_from_scratch(blender, tmp_path, node_mode, seed):
    bpy = blender.bpy
    panel = _panel(blender)
    root = imported(bpy, tmp_path, seed, node_mode=node_mode)
    _select_only(bpy, [root])
    checked_alike(bpy, panel, root)
    edits = Edits(bpy, root, random.Random(seed))
    done = []
    for _ in range(12):
        done.append(edits.random_edit())  # no view layer update: the check must see the edit all the same
        checked_alike(bpy, panel, root)
    assert len(set(done)) > 4, done


def test_what_did_not_change_is_not_read_again(blender, tmp_path):
    bpy = blender.bpy
    panel = _panel(blender)
    root = imported(bpy, tmp_path, 3)
    _select_only(bpy, [root])
    panel.run_check(bpy.context, root)
    counts = _cache(blender)._CACHES[root.name].counts
    assert counts["curves read"] > 0 and counts["meshes read"] > 0
    panel.run_check(bpy.context, root)
    assert counts == {"curves read": 0, "meshes read": 0}
    mesh = next(o for o in root.children_recursive if o.type == "MESH")
    mesh.data.vertices[0].co.x += 0.25
    panel.run_check(bpy.context, root)
    assert counts == {"curves read": 0, "meshes read": 1}
    curve = next(c for c in curves_of(root.animation_data.action) if c.data_path.endswith("location"))
    curve.keyframe_points[2].co[1] += 0.5
    panel.run_check(bpy.context, root)
    assert counts == {"curves read": 1, "meshes read": 0}
    _cache(blender).forget()  # a file load, an undo
    panel.run_check(bpy.context, root)
    counts = _cache(blender)._CACHES[root.name].counts
    assert counts["meshes read"] == len([o for o in root.children_recursive if o.type == "MESH"])


def test_the_export_reads_fresh_whatever_the_check_kept(blender, tmp_path):
    bpy = blender.bpy
    panel = _panel(blender)
    root = imported(bpy, tmp_path, 4)
    _select_only(bpy, [root])
    curve = next(c for c in curves_of(root.animation_data.action) if c.data_path.endswith("location"))
    curve.keyframe_points[2].co[1] += 0.5
    panel.run_check(bpy.context, root)
    kept = _cache(blender)._CACHES[root.name]
    for entry in kept.curves.values():  # what the check kept, spoiled: the export must not see it
        entry.curve.co = entry.curve.co + 1
    fresh = panel.check_export(bpy.context, panel.last_export_options(bpy.context))
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == fresh.model.to_bytes()


def test_a_check_in_edit_mode_reads_the_edit(blender, tmp_path):
    bpy = blender.bpy
    import bmesh
    panel = _panel(blender)
    root = imported(bpy, tmp_path, 5, node_count=4, frame_count=20)
    mesh = next(o for o in root.children_recursive if o.type == "MESH")
    _select_only(bpy, [root])
    panel.run_check(bpy.context, root)
    _select_only(bpy, [mesh])
    bpy.ops.object.mode_set(mode="EDIT")
    edit = bmesh.from_edit_mesh(mesh.data)
    edit.verts.ensure_lookup_table()
    edit.verts[0].co.x += 0.5
    bmesh.update_edit_mesh(mesh.data)
    cached = panel.run_check(bpy.context, root)
    assert any("geometry changed" in x.message for x in cached.lines)
    bpy.ops.object.mode_set(mode="OBJECT")
    fresh = panel.check_export(bpy.context, panel.last_export_options(bpy.context))
    assert [(x.level, x.message) for x in cached.lines] == [(x.level, x.message) for x in fresh.lines]
    assert cached.model.to_bytes() == fresh.model.to_bytes()


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_the_check_after_the_live_check_reads_nothing_again_and_is_the_same(blender, tmp_path, node_mode):
    bpy = blender.bpy
    panel = _panel(blender)
    root = imported(bpy, tmp_path, 7, node_mode=node_mode)
    _select_only(bpy, [root])
    edits = Edits(bpy, root, random.Random(7))
    for kind in ("key", "vertex", "rename", "handle", "set_back", "interpolation"):
        edits.apply(kind)
        panel.CHECKS.generation += 1  # as the depsgraph handler counts a change
        settle(bpy, panel)
        checked_alike(bpy, panel, root)
        assert _cache(blender).kept_counts(root.name) == {"curves read": 0, "meshes read": 0}, kind
