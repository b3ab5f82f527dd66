"""A stateful sweep of the explosion writer through Export Parkan MSH: the walker imported with its controller's
effects, then in any order its explosion Empty edited (kind, damage, radius, placement; now and then a value of
the wrong type), copied, renamed or deleted, each step an undo step (as Blender's operators make them), Ctrl+Z,
weapon.rlb rewritten by another program (an entry added, or the explosion's radius changed), and exports, often
twice (an export makes no undo step: Ctrl+Z after it takes back the edit before it).

The invariant of every export:

- refused: every file is byte for byte as it was, and the scene had a value of the wrong type or two copies
  edited apart;
- finished: weapon.rlb's explosion holds what the scene's Empties say (the fields no Empty edits are as the file
  held them), every other entry of weapon.rlb, including another program's, is as it was, the model is as read.
  An Empty edits a field when it shows another value than the file, while the file holds an explosion an export
  of this process wrote (so an undone edit is written back); else (as imported, or another program changed the
  explosion) when it shows another value than the Empty's own record (imported, or as last exported).

EFFECTS_WRITE_SWEEP_EXAMPLES, EFFECTS_WRITE_SWEEP_STEPS and EFFECTS_WRITE_SWEEP_RANDOM=1 soak it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule, run_state_machine_as_test
from test_effects_blender import _walker_folder

from core.authoring import effects as E
from core.container.nres import Archive
from core.effects.exp import EXP_TYPE_ID, parse_exp

EXAMPLES = int(os.environ.get("EFFECTS_WRITE_SWEEP_EXAMPLES", "8"))
STEPS = int(os.environ.get("EFFECTS_WRITE_SWEEP_STEPS", "12"))
RANDOM = os.environ.get("EFFECTS_WRITE_SWEEP_RANDOM") == "1"
MEMBER = "synth_round.exp"
FIELDS = ("kind", "damage", "radius", "placement")
VALUES = {"kind": st.integers(1, 4), "placement": st.integers(0, 7),
          "damage": st.sampled_from([0.0, 1.0, 250.5, 800_000.0]), "radius": st.sampled_from([1.0, 2.0, 4.5])}


def explosion_sweep(blender, stats: Counter):
    class CarelessExplosionEdits(RuleBasedStateMachine):
        # Blender's modules are looked up at each use, never held by the class (which outlives the scene: 4.2
        # crashes at exit when a class hypothesis keeps holds bpy).
        @property
        def bpy(self):
            return blender.bpy

        @initialize()
        def import_the_walker(self):
            blender.clean_scene()
            self.folder = Path(tempfile.mkdtemp(prefix="effects_write_sweep_"))
            self.model = _walker_folder(self.folder)
            assert self.bpy.ops.import_scene.parkan_msh(filepath=str(self.folder / "walker.msh")) == {"FINISHED"}
            (root,) = [o for o in self.bpy.data.objects if "msh_model" in o]
            self.root_name = root.name
            self.others = 0
            self.ours: set[bytes] = set()   # the explosion's bytes as the finished exports wrote them
            self.steps = 0
            self.push("import")

        def push(self, message: str) -> None:
            with self.window():
                self.bpy.ops.ed.undo_push(message=message)
            self.steps += 1

        def window(self):
            return self.bpy.context.temp_override(window=self.bpy.context.window_manager.windows[0])

        @precondition(lambda self: self.steps > 1)
        @rule()
        def undo(self):
            with self.window():
                assert self.bpy.ops.ed.undo() == {"FINISHED"}
            self.steps -= 1
            stats["undone"] += 1

        def teardown(self):
            blender.clean_scene()
            shutil.rmtree(getattr(self, "folder", ""), ignore_errors=True)

        def _blasts(self) -> list:
            return [o for o in self.bpy.data.objects if o.get("msh_effect_place") == "explode"]

        @rule(which=st.integers(0, 3), field=st.sampled_from(FIELDS), data=st.data(), wrong=st.integers(0, 9))
        def edit(self, which, field, data, wrong):
            blasts = self._blasts()
            if not blasts:
                return
            value = 2.5 if wrong == 0 and field in ("kind", "placement") else data.draw(VALUES[field])
            blasts[which % len(blasts)][f"msh_effect_{field}"] = value
            self.push(f"{field} edited")
            stats[f"edited {field}{' (wrong type)' if value == 2.5 else ''}"] += 1

        @rule(which=st.integers(0, 3), how=st.sampled_from(["copied", "renamed", "deleted"]))
        def careless(self, which, how):
            """The Empty copied, renamed or deleted (one rule, so that edits and exports are drawn as often)."""
            blasts = self._blasts()
            if not blasts:
                return
            blast = blasts[which % len(blasts)]
            if how == "copied":
                self.bpy.context.collection.objects.link(blast.copy())
            elif how == "renamed":
                blast.name = f"renamed {which}"
            else:
                self.bpy.data.objects.remove(blast)
            self.push(how)
            stats[how] += 1

        @rule(the_explosion=st.booleans())
        def another_program_writes(self, the_explosion):
            path = self.folder / "weapon.rlb"
            archive = Archive.parse(path.read_bytes())
            self.others += 1
            if the_explosion:
                explosion = parse_exp(archive.find(MEMBER).data)
                explosion.set("radius", 7.5 + self.others)   # a radius no Empty is given
                archive.replace(MEMBER, explosion.to_bytes())
            else:
                archive.add(f"other_{self.others}.exp", E.sample_explosions()["synth_quiet.exp"], EXP_TYPE_ID)
            path.write_bytes(archive.to_bytes())
            stats[f"another program wrote {'the explosion' if the_explosion else 'an entry'}"] += 1

        @rule(twice=st.booleans(), then_undo=st.booleans(), edit_first=st.none() | st.sampled_from(FIELDS),
              data=st.data())
        def export(self, twice, then_undo, edit_first, data):
            """An export (``edit_first``: right after an edit of the first Empty, the step users take most)."""
            blasts = self._blasts()
            if edit_first is not None and blasts:
                blasts[0][f"msh_effect_{edit_first}"] = data.draw(VALUES[edit_first])
                self.push(f"{edit_first} edited")
                stats[f"edited {edit_first}"] += 1
            for _ in range(2 if twice else 1):
                self._export()
            if then_undo and self.steps > 1:   # Ctrl+Z right after the export: the edit before it taken back
                self.undo()

        def _files(self) -> dict:
            return {p.name: p.read_bytes() for p in sorted(self.folder.iterdir())}

        def _export(self):
            before = self._files()
            member = bytes(Archive.parse(before["weapon.rlb"]).find(MEMBER).data)
            wanted, clash = self._wanted(member)
            if member in self.ours and any(getattr(parse_exp(member), k) != v for k, v in wanted.items()):
                stats["an export's own write edited"] += 1
            self.bpy.context.view_layer.objects.active = self.bpy.data.objects[self.root_name]
            try:
                result = self.bpy.ops.export_scene.parkan_msh(filepath=str(self.folder / "walker.msh"))
            except RuntimeError as exc:
                said = str(exc)
                assert "Traceback" not in said, said
                assert self._files() == before, f"refused ({said}) but the folder changed"
                assert clash, f"refused with nothing wrong: {said}"
                stats["refused"] += 1
                return
            assert result == {"FINISHED"} and not clash, clash
            after = self._files()
            assert set(after) == set(before) and after["walker.msh"] == self.model
            archive, old = Archive.parse(after["weapon.rlb"]), Archive.parse(before["weapon.rlb"])
            assert [e.name_str for e in archive] == [e.name_str for e in old]
            for entry in archive:
                if entry.name_str != MEMBER:
                    assert bytes(entry.data) == bytes(old.find(entry.name_str).data), entry.name_str
            now, then = bytes(archive.find(MEMBER).data), bytes(old.find(MEMBER).data)
            if now != then:
                self.ours.add(now)
            held, was = parse_exp(now), parse_exp(then)
            for field in FIELDS:
                assert getattr(held, field) == wanted.get(field, getattr(was, field)), field
            stats["finished"] += 1

        def _wanted(self, member: bytes) -> tuple[dict, str]:
            """The fields the Empties edit (against the file, when it holds what an export wrote, else against
            what each remembers as imported or written) and why the export must refuse, if it must."""
            wanted: dict = {}
            held = parse_exp(member)
            for blast in self._blasts():
                read = {field: getattr(held, field) for field in FIELDS} if member in self.ours else \
                    json.loads(blast["msh_effect_params"])
                for field in FIELDS:
                    value = blast[f"msh_effect_{field}"]
                    if value == read[field]:
                        continue
                    if field in ("kind", "placement") and not isinstance(value, int):
                        return wanted, "a value of the wrong type"
                    if field in wanted and wanted[field] != value:
                        return wanted, "two copies edited apart"
                    wanted[field] = value
            return wanted, ""

    return CarelessExplosionEdits


def test_every_explosion_export_writes_the_scenes_values_or_is_refused_leaving_every_file(blender):
    stats: Counter = Counter()
    budget = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=not RANDOM, deadline=None,
                      suppress_health_check=list(HealthCheck))
    run_state_machine_as_test(explosion_sweep(blender, stats), settings=budget)
    print("\nexplosion write sweep:", dict(sorted(stats.items())))
    assert stats["finished"] and stats["edited damage"] and stats["undone"] and stats["an export's own write edited"]
