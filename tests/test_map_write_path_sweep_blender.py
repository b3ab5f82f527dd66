"""A stateful sweep of careless edit sequences on an imported mission through the real operators (File > Import /
Export > Parkan Map), on the synthetic game folder (core.authoring.map_game): the ground's heights raised or put
back (one vertex, or with its twins, the same point stored for another cell; also in Edit Mode, where the user
stays), placements moved, turned, scaled, copied with Shift+D, deleted, renamed, moved to another clan's
collection, shown as another kind of their sort, new instances of a kind placed, Ctrl+Z, another program writing
one of the map's files, and exports (to the files imported from; twice; with Replace Changed Files).

The invariant of every export:

- refused: every file is byte for byte as it was, nothing appeared beside them, the message is no traceback and
  names a reason the scene holds: twins raised to different heights, or a file the export had to change that
  another program wrote since the import (and this process did not write since);
- written: Land.msh holds the heights the scene shows (each moved vertex's twins at its height), validates
  without errors, and data.tma holds the scene's objects (kind, clan, position, turns, scale) with unique logical
  ids; an object nothing changed keeps its record byte for byte; a file another program wrote meanwhile that
  nothing of the scene changes keeps that program's bytes; Land.map and the .wea files are as they were; the same
  export again writes nothing.

The suite runs a small fixed budget; MAP_SWEEP_EXAMPLES, MAP_SWEEP_STEPS and MAP_SWEEP_RANDOM=1 (a new seed each
run) soak it (``-s`` prints what the sequences did):

    MAP_SWEEP_EXAMPLES=300 MAP_SWEEP_RANDOM=1 .venv/bin/python -m pytest -q -s \
        tests/test_map_write_path_sweep_blender.py
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule, run_state_machine_as_test

from core.authoring.map_game import mission_game_files
from core.map import landmsh as L
from core.map.edit import object_bytes, twin_groups
from core.map.landmsh import LandMesh
from core.map.tma import parse_tma, signed, text
from core.map.validate import validate_land, validate_mission

EXAMPLES = int(os.environ.get("MAP_SWEEP_EXAMPLES", "6"))
STEPS = int(os.environ.get("MAP_SWEEP_STEPS", "10"))
RANDOM = os.environ.get("MAP_SWEEP_RANDOM") == "1"

MISSION = "MISSIONS/SAMPLE/data.tma"
MAP = "DATA/MAPS/SAMPLE/"
LAND = MAP + "Land.msh"
OTHERS = [MAP + "Land.map", MAP + "Land1.wea", MAP + "Land2.wea"]
FILES = mission_game_files()
SOURCE = LandMesh.parse(FILES[LAND])
SOURCE_MISSION = parse_tma(FILES[MISSION])
GROUPS = twin_groups(SOURCE.positions)
_WATER = np.unique(SOURCE.faces["verts"][(SOURCE.faces["surface"] & L.SURFACE_WATER) != 0])
DRY = [int(v) for v in range(len(SOURCE.positions)) if not np.isin(GROUPS[_WATER], GROUPS[v]).any()]
NAMES = ("scout", "obj_1", "башня", "aaa", "zzz copy")
CHANGED = "changed on disk after"
APART = "different heights"


def _bits(values) -> np.ndarray:
    return np.ascontiguousarray(values, "<f4").view("<u4")


def foreign_bytes(name: str, current: bytes) -> bytes:
    """What another program writes: the same kind of file, one value changed (never the bytes it holds)."""
    if name == LAND:
        mesh = LandMesh.parse(current)
        mesh.streams[L.NORMALS][0, 3] ^= 1  # a pad byte
        return mesh.to_bytes()
    if name == MISSION:
        mission = parse_tma(current)
        mission.description = (mission.description or b"") + b"!"
        return mission.to_bytes()
    if name.endswith(".wea"):
        return current + b"\r\n"
    data = bytearray(current)
    data[-1] ^= 1   # Land.map: the last lookup index, still an NRes archive
    return bytes(data)


def map_sweep(blender, base: Path):
    class CarelessMapEdits(RuleBasedStateMachine):
        stats: Counter = Counter()

        @property
        def bpy(self):
            return blender.bpy

        @initialize()
        def import_mission(self):
            blender.clean_scene()
            self.root = Path(tempfile.mkdtemp(prefix="map_sweep_", dir=base))
            for name, data in FILES.items():
                path = self.root / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            assert self.bpy.ops.import_scene.parkan_map(filepath=str(self.root / MISSION)) == {"FINISHED"}
            self.ours: dict[str, set[bytes]] = {LAND: set(), MISSION: set()}   # what the exports wrote
            self.history: list[str] = []
            self.pending = False
            self.push("import")

        def teardown(self):
            try:
                if hasattr(self, "root"):
                    self._export("source")
            finally:
                blender.clean_scene()
                shutil.rmtree(getattr(self, "root", ""), ignore_errors=True)

        # ---------------------------------------------------------------- the scene, looked up at every use
        def window(self):
            return self.bpy.context.temp_override(window=self.bpy.context.window_manager.windows[0])

        def push(self, message: str) -> None:
            with self.window():
                self.bpy.ops.ed.undo_push(message=message)

        def top(self):
            return next(c for c in self.bpy.data.collections if "msh_map" in c)

        def ground(self):
            return self.top()["msh_map_ground"]["0"]

        def placed(self) -> list:
            top = self.top()
            return sorted((o for o in top.all_objects
                           if "msh_map_record" in o or any("msh_map_clan" in c for c in o.users_collection)),
                          key=lambda o: o.name)

        def clans(self) -> dict:
            return {int(c["msh_map_clan"]): c for c in self.top().children_recursive if "msh_map_clan" in c}

        def kinds(self) -> dict:
            return {str(c["msh_map_kind"]): c for c in self.top().children_recursive if "msh_map_kind" in c}

        def pick(self, items, which: int):
            return items[which % len(items)] if items else None

        def editing(self) -> bool:
            return self.ground().mode == "EDIT"

        def leave_edit_mode(self) -> None:
            if self.editing():
                with self.window():
                    self.bpy.ops.object.mode_set(mode="OBJECT")
                if self.pending:
                    self.history.append("Toggle Edit Mode")
                    self.push("Toggle Edit Mode")
            self.pending = False

        def edited(self, message: str) -> None:
            self.stats[message] += 1
            self.history.append(message)
            self.push(message)

        # ---------------------------------------------------------------- the ground
        @rule(which=st.integers(0, 500), delta=st.sampled_from([2.5, -1.25, 4.0]),
              how=st.sampled_from(["one", "twins", "one", "apart"]),
              edit_mode=st.sampled_from([False, False, True]))
        def raise_a_vertex(self, which, delta, how, edit_mode):
            vertex = DRY[which % len(DRY)]
            twins = [int(v) for v in np.flatnonzero(GROUPS[vertex] == GROUPS)]
            moved = {vertex: delta}
            if how == "twins":
                moved = dict.fromkeys(twins, delta)
            elif how == "apart" and len(twins) > 1:
                moved = {twins[0]: delta, twins[1]: delta + 1.0}
            if edit_mode:
                import bmesh

                obj = self.ground()
                if not self.editing():
                    with self.window():
                        for o in self.bpy.context.view_layer.objects:
                            o.select_set(o == obj)
                        self.bpy.context.view_layer.objects.active = obj
                        self.bpy.ops.object.mode_set(mode="EDIT")
                bm = bmesh.from_edit_mesh(obj.data)
                bm.verts.ensure_lookup_table()
                for v, d in moved.items():
                    bm.verts[v].co.z += d
                bmesh.update_edit_mesh(obj.data)
                self.pending = True
                self.stats[f"heights raised ({how}) in Edit Mode"] += 1
                return
            self.leave_edit_mode()
            for v, d in moved.items():
                self.ground().data.vertices[v].co.z += d
            self.edited(f"heights raised ({how})")

        @rule(which=st.integers(0, 500))
        def put_a_vertex_back(self, which):
            self.leave_edit_mode()
            vertex = DRY[which % len(DRY)]
            for v in np.flatnonzero(GROUPS[vertex] == GROUPS):
                self.ground().data.vertices[int(v)].co.z = float(SOURCE.positions[v, 2])
            self.edited("heights put back")

        # ---------------------------------------------------------------- placements
        @rule(which=st.integers(0, 40), dx=st.sampled_from([0.0, 5.0, -12.5]), dz=st.sampled_from([0.0, 1.5]))
        def move_an_object(self, which, dx, dz):
            self.leave_edit_mode()
            obj = self.pick(self.placed(), which)
            if obj is None:
                return
            obj.location.x += dx
            obj.location.z += dz
            self.edited("object moved")

        @rule(which=st.integers(0, 40), angle=st.sampled_from([0.5, -1.0, 3.0]))
        def turn_an_object(self, which, angle):
            self.leave_edit_mode()
            obj = self.pick(self.placed(), which)
            if obj is None:
                return
            obj.rotation_euler.z += angle
            self.edited("object turned")

        @rule(which=st.integers(0, 40), factor=st.sampled_from([1.5, 0.5]))
        def scale_a_tree_or_rock(self, which, factor):
            self.leave_edit_mode()
            scenery = [o for o in self.placed() if "msh_map_record" in o and self._stored(o).is_scenery]
            obj = self.pick(scenery, which)
            if obj is None:
                return
            obj.scale = [s * factor for s in obj.scale]
            self.edited("tree or rock scaled")

        @rule(which=st.integers(0, 40), dx=st.sampled_from([10.0, -20.0]))
        def copy_an_object(self, which, dx):
            self.leave_edit_mode()
            obj = self.pick(self.placed(), which)
            if obj is None:
                return
            with self.window():
                for o in self.bpy.context.view_layer.objects:
                    o.select_set(o == obj)
                self.bpy.context.view_layer.objects.active = obj
                assert self.bpy.ops.object.duplicate() == {"FINISHED"}
                copy = self.bpy.context.view_layer.objects.active
            copy.location.x += dx
            self.edited("object copied (Shift+D)")

        @rule(which=st.integers(0, 40))
        def delete_an_object(self, which):
            self.leave_edit_mode()
            obj = self.pick(self.placed(), which)
            if obj is None:
                return
            self.bpy.data.objects.remove(obj)
            self.edited("object deleted")

        @rule(which=st.integers(0, 40), name=st.sampled_from(NAMES))
        def rename_an_object(self, which, name):
            self.leave_edit_mode()
            obj = self.pick(self.placed(), which)
            if obj is None:
                return
            obj.name = name
            self.edited("object renamed")

        @rule(which=st.integers(0, 40), clan=st.sampled_from([0, 1, 2]))
        def move_to_another_clan(self, which, clan):
            self.leave_edit_mode()
            obj = self.pick(self.placed(), which)
            if obj is None:
                return
            for c in list(obj.users_collection):
                c.objects.unlink(obj)
            self.clans()[clan].objects.link(obj)
            self.edited("object moved to another clan")

        @rule(which=st.integers(0, 40), other=st.integers(0, 40))
        def show_another_kind_of_its_sort(self, which, other):
            self.leave_edit_mode()
            obj = self.pick([o for o in self.placed() if "msh_map_record" in o], which)
            if obj is None:
                return
            sort = self._stored(obj).kind
            keys = sorted(k for k in self.kinds() if self._kind_of(k) == sort)
            obj.instance_collection = self.kinds()[self.pick(keys, other)]
            self.edited("object shown as another kind")

        @rule(kind=st.integers(0, 7), clan=st.sampled_from([1, 2]), x=st.sampled_from([60.0, 250.0]))
        def place_a_new_instance(self, kind, clan, x):
            self.leave_edit_mode()
            key = self.pick(sorted(self.kinds()), kind)
            new = self.bpy.data.objects.new("new object", None)
            new.instance_type, new.instance_collection = "COLLECTION", self.kinds()[key]
            self.clans()[clan].objects.link(new)
            new.location, new.rotation_euler = (x, 140.0, 22.0), (0.0, 0.0, 0.75)
            self.edited("new instance placed")

        @precondition(lambda self: self.history or self.pending)
        @rule()
        def undo(self):
            self.leave_edit_mode()
            with self.window():
                assert self.bpy.ops.ed.undo() == {"FINISHED"}
            self.history.pop()
            self.stats["undo"] += 1

        # ---------------------------------------------------------------- another program, exports
        @rule(name=st.sampled_from([LAND, MISSION, *OTHERS]))
        def another_program_writes(self, name):
            path = self.root / name
            path.write_bytes(foreign_bytes(name, path.read_bytes()))
            self.stats[f"another program wrote {name.rsplit('/', 1)[-1]}"] += 1

        @rule(how=st.sampled_from(["source", "source", "twice", "replace changed"]))
        def export(self, how):
            self._export(how)

        # ---------------------------------------------------------------- the invariant
        def _stored(self, obj):
            from core.map.edit import parse_object

            return parse_object(bytes(obj["msh_map_record"]), SOURCE_MISSION.object_version)

        def _kind_of(self, key: str) -> int:
            return next(o.kind for o in SOURCE_MISSION.objects if text(o.path).upper() == key)

        def _snapshot(self) -> dict[str, bytes]:
            return {str(p.relative_to(self.root)): p.read_bytes() for p in sorted(self.root.rglob("*"))
                    if p.is_file()}

        def _heights(self) -> tuple[np.ndarray, bool]:
            """The positions the file must hold (each moved vertex's twins at its height), and whether twins
            were moved apart."""
            co = np.zeros(3 * len(SOURCE.positions), np.float32)
            self.ground().data.vertices.foreach_get("co", co)
            shown = co.reshape(-1, 3)
            expected = SOURCE.positions.copy()
            moved = np.flatnonzero(_bits(shown[:, 2]) != _bits(SOURCE.positions[:, 2]))
            apart = False
            for group in np.unique(GROUPS[moved]):
                heights = {int(b) for b in _bits(shown[moved[GROUPS[moved] == group], 2])}
                apart |= len(heights) > 1
                expected[group == GROUPS, 2] = shown[moved[GROUPS[moved] == group][0], 2]
            return expected, apart

        def _objects(self) -> list[tuple]:
            """(path, clan, position, turns, scale or None) of every object the scene shows, by path and place."""
            out = []
            for obj in self.placed():
                clan = next(int(c["msh_map_clan"]) for c in obj.users_collection if "msh_map_clan" in c)
                key = str(obj.instance_collection["msh_map_kind"])
                seat = float(obj.get("msh_map_seat", 0.0))
                position = np.array(obj.location, np.float64) - [0.0, 0.0, seat]
                scenery = self._kind_of(key) in (2, 3)
                out.append((key, clan, position, np.array(obj.rotation_euler), np.array(obj.scale) if scenery
                            else None))
            return sorted(out, key=lambda o: (o[0], o[1], round(float(o[2][0]), 1), round(float(o[2][1]), 1)))

        def _unchanged_originals(self) -> dict[int, bytes]:
            """Logical id -> record of each imported object nothing changed (same place, clan and kind)."""
            out = {}
            placed = self.top()["msh_map_placed"]
            for obj in placed.values():
                if obj is None or obj.name not in self.top().all_objects:
                    continue
                stored = self._stored(obj)
                imported = np.array(list(obj["msh_map_matrix"])).reshape(4, 4)
                clan = next((int(c["msh_map_clan"]) for c in obj.users_collection if "msh_map_clan" in c), None)
                same = np.abs(np.array(obj.matrix_basis) - imported).max() == 0 and clan == stored.clan and \
                    str(obj.instance_collection["msh_map_kind"]) == text(stored.path).upper()
                if same:
                    out[int(stored.logical_id)] = bytes(obj["msh_map_record"])
            return out

        def _export(self, how: str) -> None:
            before = self._snapshot()
            # the files another program changed: neither as imported nor as an export of this process wrote them
            foreign = {n for n in (LAND, MISSION) if before[n] != FILES[n] and before[n] not in self.ours[n]}
            editing = self.editing()
            options = {"replace_changed": True} if how == "replace changed" else {}
            try:
                result = self.bpy.ops.export_scene.parkan_map(filepath=str(self.root / MISSION), **options)
                said = None
            except RuntimeError as exc:
                result, said = None, str(exc)
            assert self.editing() == editing, "the export did not leave the ground in the mode it was in"
            self.leave_edit_mode()
            after = self._snapshot()
            heights, apart = self._heights()
            objects = self._objects()
            imported_objects = self._imported_objects()
            edits = {LAND: not np.array_equal(_bits(heights), _bits(SOURCE.positions)),
                     MISSION: not self._same_objects(objects, imported_objects)}
            if said is not None:
                assert "Traceback" not in said, said
                assert after == before, f"refused ({said.strip()}) but the files changed"
                if APART in said:
                    assert apart, said
                elif CHANGED in said:
                    assert how != "replace changed", said
                    assert any(str(self.root / n) in said and n in foreign and edits[n] for n in edits), \
                        (said, foreign, edits)
                else:
                    raise AssertionError(f"refused: {said.strip()}")
                self.stats["exports refused: " + (APART if APART in said else CHANGED)] += 1
                return
            assert result == {"FINISHED"}
            assert not apart, "twins apart written"
            assert set(after) == set(before), sorted(set(after) ^ set(before))
            for name in OTHERS:
                assert after[name] == before[name], name
            for name in (LAND, MISSION):
                if after[name] != before[name]:
                    self.ours[name].add(after[name])
                if name in foreign and (not edits[name] or how != "replace changed"):
                    # nothing of the scene changes it (or the export would have refused): another program's kept
                    assert not edits[name] or how == "replace changed", (name, "written over a changed file")
                    assert after[name] == before[name], f"{name}: another program's change was lost"
                    continue
                if name == LAND:
                    written = LandMesh.parse(after[LAND])
                    assert np.array_equal(_bits(written.positions), _bits(heights)), "heights not as shown"
                    assert not [f for f in validate_land(written) if f.is_error]
                    if not edits[LAND]:
                        assert after[LAND] == FILES[LAND]
                else:
                    self._check_mission(parse_tma(after[MISSION]), objects)
                    if not edits[MISSION]:
                        assert after[MISSION] == FILES[MISSION]
            if how == "twice":
                assert self.bpy.ops.export_scene.parkan_map(filepath=str(self.root / MISSION)) == {"FINISHED"}
                assert self._snapshot() == after, "the same export twice wrote other bytes"
            self.stats["exports written" + (" in Edit Mode" if editing else "")
                       + (" (heights)" if edits[LAND] else "") + (" (objects)" if edits[MISSION] else "")] += 1

        def _imported_objects(self) -> list[tuple]:
            out = []
            for obj in SOURCE_MISSION.objects:
                scenery = obj.is_scenery
                out.append((text(obj.path).upper(), int(obj.clan), obj.position.astype(np.float64),
                            obj.turns.astype(np.float64), obj.scale.astype(np.float64) if scenery else None))
            return sorted(out, key=lambda o: (o[0], o[1], round(float(o[2][0]), 1), round(float(o[2][1]), 1)))

        @staticmethod
        def _same_objects(a: list[tuple], b: list[tuple]) -> bool:
            if len(a) != len(b):
                return False
            for x, y in zip(a, b, strict=True):
                if x[:2] != y[:2] or np.abs(x[2] - y[2]).max() > 1e-4 or np.abs(x[3] - y[3]).max() > 1e-6:
                    return False
                if (x[4] is None) != (y[4] is None) or (x[4] is not None and np.abs(x[4] - y[4]).max() > 1e-6):
                    return False
            return True

        def _check_mission(self, mission, objects: list[tuple]) -> None:
            assert not [f for f in validate_mission(mission) if f.is_error]
            shown = [(text(o.path).upper(), int(o.clan), o.position.astype(np.float64), o.turns.astype(np.float64),
                      o.scale.astype(np.float64) if o.is_scenery else None) for o in mission.objects]
            shown.sort(key=lambda o: (o[0], o[1], round(float(o[2][0]), 1), round(float(o[2][1]), 1)))
            assert self._same_objects(shown, objects), (shown, objects)
            ids = [int(o.logical_id) for o in mission.objects]
            assert len(set(ids)) == len(ids), ids
            for o in mission.objects:
                for prop in o.properties or []:
                    name = prop.name.split(b"\0", 1)[0]
                    if name == b"LogicalID":
                        assert signed(int(prop.words["value"])) == o.logical_id
                    elif name == b"ClanID":
                        assert signed(int(prop.words["value"])) == o.clan
            by_id = {int(o.logical_id): o for o in mission.objects}
            for logical_id, record in self._unchanged_originals().items():
                assert object_bytes(by_id[logical_id], mission.object_version) == record, logical_id

    return CarelessMapEdits


def test_careless_map_edits_are_written_or_refused(blender, tmp_path):
    machine = map_sweep(blender, tmp_path)
    run_state_machine_as_test(machine, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=not RANDOM, database=None, deadline=None,
        suppress_health_check=list(HealthCheck)))
    print(dict(machine.stats))
