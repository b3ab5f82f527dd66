"""A stateful sweep of careless edit sequences on a unit, shared by the suite
(tests/test_unit_sweep.py, a small fixed budget) and the soak (scripts/unit_edit_sweep.py --examples N).

Import Unit of the synthetic unit (core.authoring.units) in either node mode, then any sequence of: a part's
vertex moved (and moved back, as Ctrl+Z would), a part copied with Shift+D (bpy.ops.object.duplicate) and the
copy deleted, a part deleted, a part renamed, the parts archive rewritten by another tool, and Export Unit into
the source .dat (often twice in a row). The invariant, checked on the bytes with the core reader:

- a refused export leaves every file byte-identical and says why (no traceback);
- a finished export writes every edit made since the last finished one (or the import) into its part's entry,
  as the scene shows it (positions read back with core.msh.model), and nothing else: every other entry and
  every other file is as it was just before the export;
- an export with nothing unusual pending (no copy in the scene, no unit entry changed by another tool, not
  both twins of one entry edited) finishes.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from unit_fixtures import write_game

from core.authoring import units
from core.container.nres import Archive
from core.msh.model import Model

PARTS = list(range(8))                 # the synthetic unit's components, each a part with a mesh
TWINS = (3, 4)                         # Gun LL gl01 and gl02: one entry, e_gun_ll_01.msh
STEPS = (0.25, -0.25, 0.5)             # vertex moves, exact in float32
FOREIGN = ("synth_round.wea", "synth_weapon.ndp", "synth_fort.bas", "synth_round.cpt")  # no part reads them


def unit_sweep(bpy, clean_scene):
    """The state machine class, bound to a Blender module and its scene cleaner."""

    class UnitEditCycle(RuleBasedStateMachine):
        @initialize(node_mode=st.sampled_from(["ARMATURE", "EMPTIES"]))
        def import_the_unit(self, node_mode):
            clean_scene()
            self.folder = Path(tempfile.mkdtemp(prefix="unit_sweep_"))
            write_game(self.folder)
            self.dat, self.parts = self.folder / units.UNIT_DAT, self.folder / units.PARTS
            assert bpy.ops.import_scene.parkan_unit(filepath=str(self.dat), node_mode=node_mode) == {"FINISHED"}
            self.roots = {o["msh_unit_component"]: o for o in bpy.data.objects
                          if "msh_model" in o and "msh_unit_component" in o}
            self.entry = {c: str(r["msh_model"]) for c, r in self.roots.items()}
            source = Archive.parse(self.parts.read_bytes())
            self.original = {c: Model.parse(bytes(source.find(name).data)).positions.astype(np.float64)
                             for c, name in self.entry.items()}
            self.shown = dict.fromkeys(self.roots, 0.0)    # vertex 0's lift per part, as the scene shows it
            self.exported = dict(self.shown)               # ... as the last finished export (or import) had it
            self.ever_edited: set[int] = set()
            self.copies: list = []
            self.unit_entry_changed = False                 # another tool wrote an entry a part uses
            self.finished = self.refusals = 0

        def teardown(self):
            try:
                if hasattr(self, "roots"):
                    self._export_once()  # every sequence ends with an export
            finally:
                clean_scene()
                shutil.rmtree(getattr(self, "folder", ""), ignore_errors=True)

        # ---------------------------------------------------------------- careless edits
        @rule(part=st.sampled_from(PARTS), step=st.sampled_from(STEPS), then_export=st.booleans())
        def move_a_vertex(self, part, step, then_export):
            if part in self.roots:
                self._mesh(part).data.vertices[0].co.z += step
                self.shown[part] += step
                self.ever_edited.add(part)
            if then_export:
                self._export_once()

        @rule(part=st.sampled_from(PARTS), then_export=st.booleans())
        def take_the_edit_back(self, part, then_export):
            if part in self.roots and self.shown[part] != self.exported[part]:
                self._mesh(part).data.vertices[0].co.z -= self.shown[part] - self.exported[part]
                self.shown[part] = self.exported[part]
            if then_export:
                self._export_once()

        @rule(part=st.sampled_from(PARTS))
        def copy_with_shift_d(self, part):
            if part not in self.roots or not self.roots[part].visible_get():  # internal parts are hidden
                return
            layer = bpy.context.view_layer
            for obj in layer.objects:
                obj.select_set(obj == self.roots[part])
            layer.objects.active = self.roots[part]
            assert bpy.ops.object.duplicate() == {"FINISHED"}
            self.copies.append(layer.objects.active)

        @precondition(lambda self: self.copies)
        @rule()
        def delete_the_copies(self):
            for copy in self.copies:
                bpy.data.objects.remove(copy)
            self.copies = []

        @rule(part=st.sampled_from(PARTS[1:]))  # the root part stays: every other hangs on it
        def delete_a_part(self, part):
            if part not in self.roots or any(self.roots[c].parent is not None and c != part and
                                             self._hangs_on(c, part) for c in self.roots):
                return
            root = self.roots.pop(part)
            for obj in [*root.children_recursive, root]:
                bpy.data.objects.remove(obj)
            del self.shown[part], self.exported[part]

        @rule(part=st.sampled_from(PARTS), suffix=st.sampled_from([" renamed", ".copy", "_x"]))
        def rename_a_part(self, part, suffix):
            if part in self.roots:
                self.roots[part].name = self.roots[part].name[:40] + suffix

        @rule(what=st.sampled_from(["remove", "replace", "unit_entry"]), which=st.sampled_from(range(4)),
              then_export=st.booleans())
        def another_tool_rewrites_the_parts_archive(self, what, which, then_export):
            self._rewrite_parts(what, which)
            if then_export:
                self._export_once()

        def _rewrite_parts(self, what, which):
            archive = Archive.parse(self.parts.read_bytes())
            if what == "remove":
                name = FOREIGN[which]
                if archive.find(name) is None:
                    return
                archive.remove(name)
            elif what == "replace":
                archive.find("synth_weapon.msh").data = bytes(archive.find("synth_round.msh").data)
            else:
                name = ("e_tur_lt_01.msh", "e_tur_mt_01.msh", "e_gun_mc_01.msh", "e_gun_ll_01.msh")[which]
                archive.find(name).data = bytes(archive.find("synth_round.msh").data)
                self.unit_entry_changed = True
            self.parts.write_bytes(archive.to_bytes())

        @rule(times=st.sampled_from([1, 2]))
        def export_unit(self, times):
            for _ in range(times):
                self._export_once()

        # ---------------------------------------------------------------- the invariant
        def _export_once(self):
            before = self._files()
            edits = {c for c in self.roots if self.shown[c] != self.exported[c]}
            try:
                bpy.ops.export_scene.parkan_unit(filepath=str(self.dat))
            except RuntimeError as exc:
                said = str(exc)
                assert "Traceback" not in said, said
                assert self._files() == before, f"refused ({said.strip()}) but files changed"
                self.refusals += 1
                usual = not self.copies and not self.unit_entry_changed and not set(TWINS) <= self.ever_edited
                assert not usual, f"refused with nothing unusual pending: {said.strip()}"
                return
            self.finished += 1
            after = self._files()
            assert set(after) == set(before)
            for path in before:
                if path != self.parts:
                    assert after[path] == before[path], f"{path} changed"
            old, new = Archive.parse(before[self.parts]), Archive.parse(after[self.parts])
            assert [e.name_str for e in old.entries] == [e.name_str for e in new.entries]
            allowed = {self.entry[c] for c in edits}
            for a, b in zip(old.entries, new.entries):
                if bytes(a.data) != bytes(b.data):
                    assert a.name_str in allowed, f"{a.name_str} was written, but no edit of it was pending"
            for c in edits:
                got = Model.parse(bytes(new.find(self.entry[c]).data)).positions.astype(np.float64)
                assert _lifted(self.original[c], got, self.shown[c]), f"the edit of part {c} is not in its entry"
            self.exported = dict(self.shown)

        @invariant()
        def scene_and_shadow_agree(self):
            if hasattr(self, "roots"):
                assert all(r.name in bpy.data.objects for r in self.roots.values())

        # ---------------------------------------------------------------- helpers
        def _mesh(self, part):
            return min((o for o in self.roots[part].children_recursive if o.type == "MESH"), key=lambda o: o.name)

        def _hangs_on(self, child, part) -> bool:
            mount = self.roots[child].parent
            constraint = mount.constraints.get("Mount") if mount is not None else None
            return constraint is not None and (constraint.target == self.roots[part] or (
                constraint.target is not None and constraint.target in self.roots[part].children_recursive))

        def _files(self) -> dict:
            return {p: p.read_bytes() for p in sorted(self.folder.rglob("*")) if p.is_file()}

    return UnitEditCycle


def _lifted(original: np.ndarray, written: np.ndarray, dz: float) -> bool:
    """``written`` holds ``original``'s vertices, some lifted by ``dz`` (the Blender vertex moved: the model may
    hold it several times, and in another order) and the rest where they were."""
    near = np.abs(written[:, None, :] - original[None, :, :]).max(axis=2)
    kept = near.min(axis=1) < 1e-5
    lift = np.abs(written[:, None, :] - (original[None, :, :] + [0.0, 0.0, dz])).max(axis=2).min(axis=1) < 1e-5
    return bool(lift.any() and (lift | kept).all())
