"""A stateful sweep of careless sequences on a unit through the real operators (Import Unit, Export Unit, Ctrl+Z),
in both node modes: a part's vertex or key moved, a part moved to another socket of its parent, a part copied with
Shift+D, renamed, deleted, a damage row's explosion edited (its Empty's damage), an undo step taken back, Export
Unit into the source .dat (often twice), and another program writing the parts archive (an entry a part uses, or
one none does) or the .dat meanwhile.

The invariant of every export, read back with core:

- refused: every file is byte for byte as it was, the message is no traceback, and something unusual was pending
  (a Shift+D copy in the scene, an edit of an entry or a socket move over a .dat another program changed since
  it was last in step, twin parts showing two different models);
- finished: every entry a part uses holds the scene's state of that part (the bytes the model export makes of
  it now), unless nothing of the scene changed it and another program did (that change is kept); twin parts'
  entry holds one of their states; the .dat holds the sockets the scene shows (the same rule: a .dat another
  program changed is kept when no socket moved); the explosion holds the damage its Empty shows (which only this
  process writes); nothing else of any file changes.

"In step": the bytes the file (or entry) held when the import read it or a finished export left it. Ctrl+Z takes
back scene edits, never files: what was in step stays in step.

The suite runs a small fixed budget; UNIT_WRITE_SWEEP_EXAMPLES, UNIT_WRITE_SWEEP_STEPS and UNIT_WRITE_SWEEP_RANDOM=1
(a new seed each run) soak it:

    UNIT_WRITE_SWEEP_EXAMPLES=300 UNIT_WRITE_SWEEP_RANDOM=1 .venv/bin/python -m pytest -q -s \\
        tests/test_unit_write_path_sweep_blender.py
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule, run_state_machine_as_test
from unit_fixtures import write_game

from core.authoring import effects as E
from core.authoring import units
from core.container.nres import Archive
from core.effects.exp import EXP_TYPE_ID, parse_exp
from core.unit.dat import parse_dat
from core.unit.edit import with_attach

EXAMPLES = int(os.environ.get("UNIT_WRITE_SWEEP_EXAMPLES", "10"))
STEPS = int(os.environ.get("UNIT_WRITE_SWEEP_STEPS", "12"))
RANDOM = os.environ.get("UNIT_WRITE_SWEEP_RANDOM") == "1"

DISPLAYS = ["Шасси (sh01)", "Двигатель (en01)", "Turret L (tl01)", "Gun LL (gl01)", "Gun LL (gl02)",
            "Turret M (tm01)", "Gun MC (gm01)", "Clip (cl01)"]
TWINS = ("Gun LL (gl01)", "Gun LL (gl02)")       # one entry, e_gun_ll_01.msh
VISIBLE = [d for i, d in enumerate(DISPLAYS) if i not in (1, 7)]  # the internal parts are hidden
HOSTS = {"Gun LL (gl01)": "Turret L (tl01)", "Gun LL (gl02)": "Turret L (tl01)", "Gun MC (gm01)": "Turret M (tm01)"}
SOCKETS = {"Turret L (tl01)": (2, 3), "Turret M (tm01)": (1, 2, 3)}  # nodes a gun may hang on
EXTERNAL = {2, 3, 4, 5, 6}
FOREIGN = ("synth_round.wea", "synth_weapon.ndp", "synth_round.cpt")  # entries no part reads
STEPS_Z = (0.25, -0.5, 0.75)  # exact in float32
EXPLOSION = "synth_chassis_1.exp"  # the chassis's damage row names it (node 1): an Empty the scene edits
DAMAGES = (250.0, 800_000.0, 1.5)  # 800,000: the value imported
COPY = "unit_write_sweep_copy"  # on a root the sweep copied with Shift+D


def _window(bpy):
    return bpy.context.temp_override(window=bpy.context.window_manager.windows[0])


def unit_write_sweep(blender, stats: Counter):
    bpy = blender.bpy
    ext = blender.ext.io_msh

    class CarelessUnitWrites(RuleBasedStateMachine):
        @initialize(node_mode=st.sampled_from(["ARMATURE", "EMPTIES"]))
        def import_the_unit(self, node_mode):
            blender.clean_scene()
            self.mode = node_mode
            self.folder = Path(tempfile.mkdtemp(prefix="unit_write_sweep_"))
            files = units.unit_files()
            parts = Archive.parse(files[units.PARTS])
            parts.add(EXPLOSION, E.sample_explosions()["synth_blast_b.exp"], EXP_TYPE_ID)
            write_game(self.folder, {**files, units.PARTS: parts.to_bytes()})
            self.dat, self.parts = self.folder / units.UNIT_DAT, self.folder / units.PARTS
            assert bpy.ops.import_scene.parkan_unit(filepath=str(self.dat), node_mode=node_mode) == {"FINISHED"}
            self.imported_tree = parse_dat(self.dat.read_bytes())
            self.entry = {str(o["msh_unit_display"]): str(o["msh_model"]) for o in self._roots()}
            archive = Archive.parse(self.parts.read_bytes())
            self.in_step = {name: bytes(archive.find(name).data) for name in set(self.entry.values())}
            self.dat_in_step = self.dat.read_bytes()
            self.ever_differed = False  # the twins showed two different models at an export
            self.history = 0
            self._push("import")
            stats[f"imports {node_mode}"] += 1

        def teardown(self):
            try:
                if hasattr(self, "folder"):
                    self._export()  # every sequence ends with an export
            finally:
                blender.clean_scene()
                shutil.rmtree(getattr(self, "folder", ""), ignore_errors=True)

        # ---------------------------------------------------------------- the scene, looked up at every use
        def _roots(self, display: str | None = None) -> list:
            return [o for o in bpy.data.objects if "msh_model" in o and "msh_unit_display" in o
                    and (display is None or str(o["msh_unit_display"]) == display)]

        def _root(self, display: str):
            """The part's root (of a part copied with Shift+D: the original, while it is in the scene)."""
            found = sorted(self._roots(display), key=lambda o: (COPY in o, o.name))
            return found[0] if found else None

        def _push(self, message: str) -> None:
            with _window(bpy):
                bpy.ops.ed.undo_push(message=message)
            self.history += 1

        def _mesh(self, root):
            meshes = sorted((o for o in root.children_recursive if o.type == "MESH"), key=lambda o: o.name)
            return meshes[0] if meshes else None

        def _handles(self, root) -> dict:
            return ext.imp.unit.node_handles(root)

        # ---------------------------------------------------------------- careless edits
        @rule(display=st.sampled_from(DISPLAYS), dz=st.sampled_from(STEPS_Z), then_export=st.booleans())
        def move_a_vertex(self, display, dz, then_export):
            root = self._root(display)
            mesh = self._mesh(root) if root is not None else None
            if mesh is not None:
                mesh.data.vertices[0].co.z += dz
                self._push("move a vertex")
                stats["vertex moved"] += 1
            if then_export:
                self._export()

        @rule(damage=st.sampled_from(DAMAGES), then_export=st.booleans())
        def edit_the_explosion(self, damage, then_export):
            blast = self._explosion()
            if blast is not None:
                blast["msh_effect_damage"] = damage
                self._push("edit the explosion")
                stats["explosion edited"] += 1
            if then_export:
                self._export()

        def _explosion(self):
            found = [o for o in bpy.data.objects if o.get("msh_effect_place") == "damage"]
            assert len(found) <= 1
            return found[0] if found else None

        @rule(display=st.sampled_from(DISPLAYS), dv=st.sampled_from(STEPS_Z), then_export=st.booleans())
        def move_a_key(self, display, dv, then_export):
            self._move_a_key(display, dv)
            if then_export:
                self._export()

        def _move_a_key(self, display, dv):
            root = self._root(display)
            if root is None:
                return
            holders = [o for o in [root, *root.children_recursive]
                       if o.animation_data is not None and o.animation_data.action is not None]
            for holder in sorted(holders, key=lambda o: o.name):
                fcurves = [f for f in ext.com.compat.action_fcurves(holder.animation_data.action)
                           if len(f.keyframe_points) and "location" in f.data_path]
                if fcurves:
                    point = fcurves[0].keyframe_points[len(fcurves[0].keyframe_points) // 2]
                    point.co.y += dv
                    point.handle_left.y += dv
                    point.handle_right.y += dv
                    fcurves[0].update()
                    self._push("move a key")
                    stats["key moved"] += 1
                    return

        @rule(display=st.sampled_from(sorted(HOSTS)), which=st.integers(0, 2), then_export=st.booleans())
        def move_to_another_socket(self, display, which, then_export):
            self._move_to_another_socket(display, which)
            if then_export:
                self._export()

        def _move_to_another_socket(self, display, which):
            root, host = self._root(display), self._root(HOSTS[display])
            if root is None or host is None or root.parent is None:
                return
            sockets = SOCKETS[HOSTS[display]]
            handle = self._handles(host).get(sockets[which % len(sockets)])
            constraint = root.parent.constraints.get("Mount")
            if handle is None or constraint is None:
                return
            if host.type == "ARMATURE":
                constraint.target, constraint.subtarget = host, handle.name
            else:
                constraint.target = handle
            self._push("move to another socket")
            stats["socket moved"] += 1

        @precondition(lambda self: not self._copies())  # one at a time: a copy in the scene refuses every export
        @rule(display=st.sampled_from(VISIBLE))
        def copy_with_shift_d(self, display):
            root = self._root(display)
            if root is None:
                return
            layer = bpy.context.view_layer
            for obj in layer.objects:
                obj.select_set(obj == root)
            layer.objects.active = root
            assert bpy.ops.object.duplicate() == {"FINISHED"}
            layer.objects.active[COPY] = True  # the sweep's mark (undone with the copy)
            self._push("duplicate")
            stats["copied"] += 1

        def _copies(self) -> list:
            return [o for o in self._roots() if COPY in o]

        @rule()
        def delete_the_copies(self):
            copies = self._copies()
            if copies:
                for obj in copies:
                    bpy.data.objects.remove(obj)
                self._push("delete the copies")

        @rule(display=st.sampled_from(DISPLAYS[1:]))
        def delete_a_part(self, display):
            root = self._root(display)
            if root is None or any(self._hangs_on(other, root) for other in self._roots() if other != root):
                return
            for obj in [*root.children_recursive, root]:
                bpy.data.objects.remove(obj)
            self._push("delete a part")
            stats["deleted"] += 1

        @rule(display=st.sampled_from(DISPLAYS), suffix=st.sampled_from([" renamed", ".copy", "_x"]))
        def rename_a_part(self, display, suffix):
            root = self._root(display)
            if root is not None:
                root.name = root.name[:40] + suffix
                self._push("rename")

        @precondition(lambda self: self.history > 1)
        @rule(times=st.sampled_from([1, 1, 2]), then_export=st.sampled_from([True, True, False]))
        def undo(self, times, then_export):
            for _ in range(min(times, self.history - 1)):
                with _window(bpy):
                    assert bpy.ops.ed.undo() == {"FINISHED"}
                self.history -= 1
                stats["undo"] += 1
            if then_export:
                self._export()

        @rule(what=st.sampled_from(["foreign entry", "unit entry", "dat"]), which=st.integers(0, 3),
              then_export=st.booleans())
        def another_program_writes(self, what, which, then_export):
            if what == "dat":
                tree = parse_dat(self.dat.read_bytes())
                gun = next(i for i, c in enumerate(tree.components) if c.display == "Gun MC (gm01)")
                socket = SOCKETS["Turret M (tm01)"][which % 3]
                if tree.components[gun].attach == socket:
                    return
                moved, _order = with_attach(tree, {gun: socket}, EXTERNAL)
                self.dat.write_bytes(moved.to_bytes())
            else:
                archive = Archive.parse(self.parts.read_bytes())
                if what == "foreign entry":
                    entry = archive.find(FOREIGN[which % len(FOREIGN)])
                    entry.data = bytes(entry.data) + b"\0"
                else:
                    name = sorted(set(self.entry.values()))[which]
                    archive.find(name).data = bytes(archive.find("synth_round.msh").data)
                self.parts.write_bytes(archive.to_bytes())
            stats[f"another program wrote a {what}"] += 1
            if then_export:
                self._export()

        @rule(times=st.sampled_from([1, 2]))
        def export_unit(self, times):
            for _ in range(times):
                self._export()

        # ---------------------------------------------------------------- the invariant
        def _states(self) -> dict[str, bytes | None]:
            """Each part's model as the scene shows it (None: deleted, or it cannot be exported)."""
            states = {}
            for display in DISPLAYS:
                root = self._root(display)
                try:
                    states[display] = ext.exp.export.model_of(bpy.context, root, ext.exp.plan.ExportOptions()) \
                        .model.to_bytes() if root is not None else None
                except Exception:  # the export says why, refused
                    states[display] = None
            return states

        def _scene_trees(self) -> set[bytes]:
            """The .dat with the sockets the scene shows, made from the tree as imported: a part deleted from the
            scene stays on its socket as imported, or as the file in step has it (whether the tree the scene
            describes is the one imported or the one an export wrote depends on what Ctrl+Z took back)."""
            in_step = {c.display: c.attach for c in parse_dat(self.dat_in_step).components}
            return {self._scene_tree(deleted) for deleted in ({}, in_step)}

        def _scene_tree(self, deleted: dict) -> bytes:
            moved = {}
            for display, host_display in HOSTS.items():
                root, host = self._root(display), self._root(host_display)
                component = DISPLAYS.index(display)
                if root is None and display in deleted and host is not None:
                    if deleted[display] != self.imported_tree.components[component].attach:
                        moved[component] = deleted[display]
                    continue
                if root is None or host is None or root.parent is None:
                    continue
                constraint = root.parent.constraints["Mount"]
                handles = self._handles(host)
                node = next(n for n, h in handles.items() if (h.name == constraint.subtarget if host.type ==
                                                              "ARMATURE" else h == constraint.target))
                if node != self.imported_tree.components[component].attach:
                    moved[component] = node
            if not moved:
                return self.imported_tree.to_bytes()
            return with_attach(self.imported_tree, moved, EXTERNAL)[0].to_bytes()

        def _files(self) -> dict:
            return {p: p.read_bytes() for p in sorted(self.folder.rglob("*")) if p.is_file()}

        def _export(self):
            states, trees = self._states(), self._scene_trees()
            blast = self._explosion()
            shown_damage = None if blast is None else float(blast["msh_effect_damage"])
            before = self._files()
            old = Archive.parse(before[self.parts])
            copies = bool(self._copies())  # a copy in the scene, its original there or deleted
            twins = {states[d] for d in TWINS if states[d] is not None}
            self.ever_differed |= len(twins) > 1
            clash = {name for display, name in self.entry.items() if states[display] is not None and
                     states[display] != self.in_step[name] and bytes(old.find(name).data) != self.in_step[name]}
            dat_clash = self.dat_in_step not in trees and before[self.dat] != self.dat_in_step
            try:
                bpy.ops.export_scene.parkan_unit(filepath=str(self.dat))
            except RuntimeError as exc:
                said = str(exc).strip()
                assert "Traceback" not in said, said
                assert self._files() == before, f"refused ({said}) but files changed"
                usual = not copies and not clash and not dat_clash and len(twins) <= 1 and not self.ever_differed
                assert not usual, f"refused with nothing unusual pending: {said}"
                stats["refused"] += 1
                return
            assert not any(len(self._roots(d)) > 1 for d in DISPLAYS), "finished with two roots of one part"
            after = self._files()
            assert set(after) == set(before)
            for path in before:
                if path not in (self.parts, self.dat):
                    assert after[path] == before[path], f"{path} changed"
            new = Archive.parse(after[self.parts])
            assert [e.name_str for e in old.entries] == [e.name_str for e in new.entries]
            used = {}
            for display, name in self.entry.items():
                used.setdefault(name, []).append(display)
            was_damage = parse_exp(old.find(EXPLOSION).data).damage
            assert parse_exp(new.find(EXPLOSION).data).damage == (was_damage if shown_damage is None
                                                                  else shown_damage), "the explosion's edit"
            for a, b in zip(old.entries, new.entries):
                if a.name_str == EXPLOSION:  # its damage (above) and nothing else
                    expected = parse_exp(a.data)
                    expected.set("damage", parse_exp(b.data).damage)
                    assert expected.to_bytes() == bytes(b.data), f"{a.name_str}: more than its damage changed"
                    continue
                if a.name_str not in used and not a.name_str.endswith(".wea"):
                    assert bytes(a.data) == bytes(b.data), f"{a.name_str} changed, and no part uses it"
            for name, displays in used.items():
                was, now = bytes(old.find(name).data), bytes(new.find(name).data)
                shown = [states[d] for d in displays if states[d] is not None]
                if not shown:
                    assert now == was, f"{name} changed, and its part is gone"
                elif len(displays) > 1 and self.ever_differed:  # the twins showed two models: either is right
                    assert now == was or now in shown, f"{name} holds neither its twins' state nor its own"
                elif len(displays) > 1 and was != self.in_step[name]:
                    assert now == was, f"{name}: another program's change was not kept"
                    assert all(x in (was, self.in_step[name]) for x in shown), f"{name}: an edit was dropped"
                elif len(displays) > 1:
                    assert now in shown, f"{name} does not hold the scene's state of its parts"
                elif was != self.in_step[name]:  # another program's change
                    assert now == was, f"{name}: another program's change was not kept"
                    assert shown[0] == self.in_step[name] or now == shown[0], f"{name}: an edit was dropped"
                else:
                    assert now == shown[0], f"{name} does not hold the scene's state of its part"
                if now != was or was == self.in_step[name]:
                    self.in_step[name] = now  # written, or as it was and in step
            dat_now = after[self.dat]
            parse_dat(dat_now)
            if before[self.dat] != self.dat_in_step:
                assert dat_now == before[self.dat], "another program's .dat was not kept"
                assert trees & {self.dat_in_step, dat_now}, "a socket move was dropped"
            else:
                assert dat_now in trees, "the .dat does not hold the sockets the scene shows"
            if dat_now in trees:  # the scene describes the file (the export keeps that tree as the scene's)
                self.dat_in_step = dat_now
            stats["finished"] += 1

        def _hangs_on(self, child, host) -> bool:
            mount = child.parent
            constraint = mount.constraints.get("Mount") if mount is not None else None
            return constraint is not None and constraint.target is not None and (
                constraint.target == host or constraint.target in host.children_recursive)

    return CarelessUnitWrites


def test_every_unit_export_writes_the_scene_or_is_refused_leaving_every_file(blender):
    stats: Counter = Counter()
    budget = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=not RANDOM, deadline=None,
                      suppress_health_check=list(HealthCheck))
    run_state_machine_as_test(unit_write_sweep(blender, stats), settings=budget)
    print("\nunit write sweep:", dict(sorted(stats.items())))
    assert stats["finished"] and stats["imports ARMATURE"] + stats["imports EMPTIES"] >= min(EXAMPLES, 2)
