"""A stateful sweep of careless clip edits, for the suite (test_clip_edit_sweep.py, a small fixed
budget) and the soak (scripts/clip_edit_soak.py --examples N): clips shown, bones or Empties renamed, keys
edited and taken back, clips written to the timeline, actions deleted, exports made twice. Every export either
writes what Blender shows on the timeline once every clip edit is written (read back with core, within the key
tolerance), keeps every node no edit touched exactly as the source has it, and names renamed nodes anew, or is
refused leaving the target as it was."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from test_clips_blender import NAMES, RATE, local_poses

from core.animation.pose import pose_matrix
from core.animation.sampler import AnimationData, sample
from core.authoring.build import build_model
from core.authoring.controllers import walker_controller, walker_model
from core.msh.model import Model

FRAMES = np.arange(41, dtype=np.float32)
CLIP_NODES = (0, 3, 4)  # the nodes the walker's clips key (body, legs); the timeline keys every node
SHOWN_TOLERANCE = 2e-3  # the reduced keys' tolerance (1e-4, 0.05 degree) and the i16 rotations, with margin


def walker_folder(folder) -> bytes:
    data = build_model(walker_model()).to_bytes()
    (folder / "walker.msh").write_bytes(data)
    (folder / "walker.ctl").write_bytes(walker_controller().to_bytes())
    return data


def sweep_machine(blender, folder, data: bytes):
    """The machine class, bound to Blender and the walker's files in ``folder``."""
    class CarelessClipEdits(RuleBasedStateMachine):
        stats: Counter = Counter()  # what the sequences did, over all of them (the soak prints it)
        # Blender's modules are looked up at each use, never held by the class (which outlives the scene: 4.2
        # crashes at exit when a class hypothesis keeps holds bpy).
        @property
        def bpy(self):
            return blender.bpy

        @property
        def ext(self):
            return blender.ext.io_msh

        @property
        def clips(self):
            return blender.ext.io_msh.imp.clip_actions

        @initialize(node_mode=st.sampled_from(["ARMATURE", "EMPTIES"]), clips=st.sampled_from(["ACTIONS", "NLA"]))
        def import_model(self, node_mode, clips):
            blender.clean_scene()
            assert self.bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"), node_mode=node_mode,
                                                        clips=clips, frame_rate=RATE) == {"FINISHED"}
            (self.root,) = [o for o in self.bpy.data.objects if "msh_model" in o]
            self.mode = node_mode
            self.shown = None          # the clip shown (None: the timeline)
            self.touched = set()       # nodes a key edit reached
            self.edits = []            # (clip or None, node, index, delta) that can be taken back
            self.names = {}            # node -> its new name
            self.timeline_deleted = False
            self.deleted_clips = set()
            self.target = folder / f"out{id(self)}.msh"
            self.exports = 0

        # ------------------------------------------------------------ helpers
        def holders(self):
            return self.clips.model_holders(self.root)

        def show(self, clip):
            for h in self.holders():
                self.clips.assign(h, self.clips.clip_actions(h, clip) if clip else self.clips.timeline_of(h)[0])
            self.bpy.context.view_layer.update()

        def curve(self, node, index):
            return next((fc for fc, n, _owner, path in self.ext.com.curves.node_fcurves(self.root)
                         if n == node and path.lstrip(".") == "location" and fc.array_index == index), None)

        def move(self, clip, node, index, delta) -> bool:
            """Add ``delta`` to every key of node ``node``'s location[index] in ``clip`` (None: the timeline),
            shown meanwhile; False when that action or curve is gone."""
            if (clip is None and self.timeline_deleted) or clip in self.deleted_clips:
                return False
            before = self.shown
            self.show(clip)
            fcurve = self.curve(node, index)
            if fcurve is not None:
                co = np.zeros(2 * len(fcurve.keyframe_points), np.float32)
                fcurve.keyframe_points.foreach_get("co", co)
                co[1::2] += np.float32(delta)
                fcurve.keyframe_points.foreach_set("co", co)
                fcurve.update()
            self.show(before if before not in self.deleted_clips else None)
            return fcurve is not None

        # ------------------------------------------------------------ rules
        @rule(clip=st.sampled_from([None, *NAMES]))
        def assign_clip(self, clip):
            if clip in self.deleted_clips or (clip is None and self.timeline_deleted):
                return
            self.show(clip)
            self.shown = clip

        @rule(node=st.integers(0, 4), name=st.sampled_from(["a", "b", "leg_l", "leg_r", "body", 'x "y"']),
              update=st.booleans())
        def rename(self, node, name, update):
            """Renamed in the interface (an update follows at once) or by a script (the next rule's update
            follows it, maybe after another action was assigned)."""
            if self.mode == "ARMATURE":
                item = next(b for b in self.root.data.bones if b["msh_node_index"] == node)
            else:
                item = next(o for o in self.holders() if o["msh_node_index"] == node)
            item.name = name
            if update:
                self.bpy.context.view_layer.update()
            self.names[node] = item.name     # Blender adds .001 where the name is taken
            self.stats["renames"] += 1

        @rule(clip=st.sampled_from([None, *NAMES]), node=st.sampled_from(CLIP_NODES), index=st.integers(0, 2),
              delta=st.sampled_from([0.05, -0.1, 0.2]))
        def edit_key(self, clip, node, index, delta):
            if self.move(clip, node, index, delta):
                self.stats["clip key edits" if clip else "timeline key edits"] += 1
                self.touched.add(node)
                self.edits.append((clip, node, index, delta))

        @precondition(lambda self: self.edits)
        @rule()
        def take_back(self):
            clip, node, index, delta = self.edits.pop()
            self.move(clip, node, index, -delta)

        @rule(clip=st.sampled_from(NAMES))
        def write_clip(self, clip):
            self.bpy.context.view_layer.objects.active = self.root
            try:
                self.bpy.ops.object.parkan_clip_to_timeline(clip=clip)
            except RuntimeError as exc:
                assert clip in self.deleted_clips or self.timeline_deleted, exc
                return
            # A written clip counts as unedited from now on: its edits cannot be taken back by moving its keys.
            self.edits = [e for e in self.edits if e[0] != clip]

        @rule(which=st.sampled_from([*NAMES, *NAMES, None]))
        def delete_action(self, which):
            if which is None:
                if self.timeline_deleted:
                    return
                for action in {self.clips.timeline_of(h)[0] for h in self.holders()} - {None}:
                    self.bpy.data.actions.remove(action)
                self.timeline_deleted = True
            else:
                if which in self.deleted_clips:
                    return
                for action in {self.clips.clip_actions(h, which) for h in self.holders()} - {None}:
                    self.bpy.data.actions.remove(action)
                self.deleted_clips.add(which)
                if self.shown == which:
                    self.shown = None
            self.edits = [e for e in self.edits if e[0] != which]

        @rule(check=st.booleans(), order=st.permutations(NAMES))
        def export(self, check, order):
            before = self.target.read_bytes() if self.target.exists() else None
            self.bpy.context.view_layer.objects.active = self.root
            try:
                self.bpy.ops.export_scene.parkan_msh(filepath=str(self.target))
            except RuntimeError as exc:
                assert self.timeline_deleted and "no action animates" in str(exc), exc
                assert (self.target.read_bytes() if self.target.exists() else None) == before
                self.stats["exports refused"] += 1
                return
            assert not self.timeline_deleted
            first = self.target.read_bytes()
            if check:
                for clip in [c for c in order if c not in self.deleted_clips]:  # as the export wrote them, any order
                    self.bpy.ops.object.parkan_clip_to_timeline(clip=clip)
                self.edits = []
            assert self.bpy.ops.export_scene.parkan_msh(filepath=str(self.target)) == {"FINISHED"}
            assert self.target.read_bytes() == first  # twice, or after writing the clips: the same bytes
            self.stats["exports written"] += 1
            if check:
                self.check_file(first)
                self.stats["exports checked against Blender"] += 1

        def check_file(self, written: bytes):
            model = Model.parse(written)
            new, old = (sample(AnimationData.from_model(m), FRAMES) for m in (model, Model.parse(data)))
            kept = [n for n in range(5) if n not in self.touched]
            assert np.array_equal(new.pos[kept], old.pos[kept]) and np.array_equal(new.rot[kept], old.rot[kept])
            source = Model.parse(data)
            for node in range(5):
                assert model.node_name(node) == self.names.get(node, source.node_name(node)), node
            shown = self.shown
            self.show(None)
            with self.ext.com.sliders.sliders_muted(self.root):  # the channel sliders are not the model's animation
                for frame in range(0, 41, 4):
                    blender.evaluated_frame(frame)
                    poses = local_poses(self.bpy, self.root)
                    for node in range(5):
                        q = new.rot[node, frame] / np.linalg.norm(new.rot[node, frame])
                        game = pose_matrix(q, new.pos[node, frame]).astype(np.float64)
                        assert np.abs(game - poses[node]).max() < SHOWN_TOLERANCE, (node, frame)
            self.show(shown)

        def teardown(self):
            # No reference to Blender data may outlive the scene (4.2 crashes at exit freeing one).
            self.__dict__.pop("root", None)
            blender.clean_scene()

        @invariant()
        def scene_has_its_model(self):
            if hasattr(self, "root"):
                assert "msh_model" in self.root

    return CarelessClipEdits
