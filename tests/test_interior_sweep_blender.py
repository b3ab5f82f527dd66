"""A stateful sweep of careless hall-way edits through the real operators (File > Import / Export > Parkan MSH):
vertices moved (in Object Mode or left in Edit Mode), flags set, links added, deleted, their tail words set, the
hall-way object itself moved, the root moved, and exports to a fresh file, to the same file twice and onto the
file imported from. The invariant of every export: the file validates; its hall way is what the scene shows
(each vertex, placed through its joint, where the scene shows it; an unmoved one with its bytes; the flags; the
links as unordered pairs with their tail words, a new one with eight 0xFFFFFFFF); attr3 is carried; every other
stream is the source's byte for byte; the same export twice writes the same bytes. A second sweep edits a
building's ground plan (its .bas) through Import Unit and Export Unit. INTERIOR_SWEEP_EXAMPLES and
INTERIOR_SWEEP_STEPS soak both."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from core.authoring import interiors as I
from core.files import model_findings
from core.interior import hallway as H
from core.msh.model import Model

EXAMPLES = int(os.environ.get("INTERIOR_SWEEP_EXAMPLES", "12"))
STEPS = int(os.environ.get("INTERIOR_SWEEP_STEPS", "10"))


def sweep_settings(examples: int, steps: int) -> settings:
    """The sweeps' settings. No explain phase: once a step fails, Hypothesis would trace every line of every
    later run (to explain the failure), and a run of imports and exports traced takes many times as long, so a
    failing soak would shrink for hours instead of reporting within minutes."""
    return settings(max_examples=examples, stateful_step_count=steps, derandomize=True, database=None,
                    deadline=None, phases=[Phase.explicit, Phase.generate, Phase.shrink],
                    suppress_health_check=list(HealthCheck))


def hallway_sweep(blender, tmp_path):
    bpy = blender.bpy
    import bmesh

    graph = I.hallway()
    graph.attr3 = 5
    graph.links["tail"][0][6] = 0xCAFE0001
    source = I.building_model(graph).to_bytes()
    source_stream = bytes(Model.parse(source).stream(17).data)
    counter = [0]
    exported = blender_exports = []  # one entry per export checked, for the test to see the sweep wrote

    class CarelessHallwayEdits(RuleBasedStateMachine):
        @initialize(node_mode=st.sampled_from(["EMPTIES", "ARMATURE"]))
        def start(self, node_mode):
            blender.clean_scene()
            counter[0] += 1
            self.folder = tmp_path / f"run{counter[0]}"
            self.folder.mkdir()
            (self.folder / "synth_hall.msh").write_bytes(source)
            (self.folder / "synth_hall.wea").write_bytes(I.WEAR)
            assert bpy.ops.import_scene.parkan_msh(filepath=str(self.folder / "synth_hall.msh"),
                                                   node_mode=node_mode) == {"FINISHED"}
            (self.root,) = [o for o in bpy.data.objects if "msh_model" in o]
            (self.obj,) = [o for o in bpy.data.objects if "msh_hallway" in o and o.type == "MESH"]
            self.moved: set[int] = set()
            self.flags = graph.vertices["flags"].copy()
            self.links = {frozenset((int(a), int(b))): tuple(int(w) for w in t)
                          for a, b, t in zip(graph.links["start"], graph.links["end"], graph.links["tail"])}
            self.shown_tails = dict(self.links)  # the edge attributes as the scene holds them (u32)
            self.exports = 0

        def _object_mode(self):
            if self.obj.mode == "EDIT":
                bpy.context.view_layer.objects.active = self.obj
                bpy.ops.object.mode_set(mode="OBJECT")

        def _edit(self, change):
            """``change(bm)`` on the hall way's mesh through bmesh, in Object Mode."""
            self._object_mode()
            mesh = bmesh.new()
            mesh.from_mesh(self.obj.data)
            mesh.verts.ensure_lookup_table()
            mesh.edges.ensure_lookup_table()
            change(mesh)
            mesh.to_mesh(self.obj.data)
            mesh.free()
            self.obj.data.update()

        @rule(vertex=st.integers(0, 7), delta=st.sampled_from([(0.5, 0, 0), (0, -1.25, 0.5), (1e-3, 0, 0)]))
        def move_vertex(self, vertex, delta):
            self._object_mode()
            v = self.obj.data.vertices[vertex]
            v.co = (np.array(v.co) + np.array(delta)).tolist()
            self.moved.add(vertex)

        @rule(vertex=st.integers(0, 7), word=st.sampled_from([0, H.ANY_SIZE | H.LOADING, 0x80000040]))
        def set_flags(self, vertex, word):
            self._object_mode()
            self.obj.data.attributes["flags"].data[vertex].value = int(np.uint32(word).view(np.int32))
            self.flags[vertex] = word

        @rule(a=st.integers(0, 7), b=st.integers(0, 7))
        def add_link(self, a, b):
            key = frozenset((a, b))
            if a == b or key in self.links:
                return
            self._edit(lambda m: m.edges.new((m.verts[a], m.verts[b])))
            self.links[key] = (H.NO_WORD,) * 8
            self.shown_tails[key] = (0,) * 8  # Blender fills a new edge's attributes with 0

        @rule(data=st.data())
        def delete_link(self, data):
            if len(self.links) < 2:
                return
            self._object_mode()
            index = data.draw(st.integers(0, len(self.obj.data.edges) - 1))
            key = frozenset(self.obj.data.edges[index].vertices)
            self._edit(lambda m: m.edges.remove(m.edges[index]))
            del self.links[key], self.shown_tails[key]

        @rule(data=st.data(), word=st.sampled_from([1, 0, 7]), value=st.sampled_from([0, 1, 0x7FFFFFFF]))
        def set_tail_word(self, data, word, value):
            self._object_mode()
            index = data.draw(st.integers(0, len(self.obj.data.edges) - 1))
            self.obj.data.attributes[f"tail_{word}"].data[index].value = value
            key = frozenset(self.obj.data.edges[index].vertices)
            tail = list(self.shown_tails[key])  # what the scene shows, not what the last export wrote: a new
            tail[word] = value                  # link keeps showing 0 after an export gave it the default
            self.shown_tails[key] = tuple(tail)
            # a tail left all 0 reads as a new link's: the export gives it the default
            self.links[key] = tuple(tail) if any(tail) else (H.NO_WORD,) * 8

        @rule(vertex=st.integers(0, 7))
        def move_in_edit_mode(self, vertex):
            self._object_mode()
            for other in bpy.context.selected_objects:
                other.select_set(False)
            layer = next(lc for lc in bpy.context.view_layer.layer_collection.children
                         if lc.collection in self.obj.users_collection)
            layer.hide_viewport = False
            bpy.context.view_layer.objects.active = self.obj
            bpy.ops.object.mode_set(mode="EDIT")
            mesh = bmesh.from_edit_mesh(self.obj.data)
            mesh.verts.ensure_lookup_table()
            mesh.verts[vertex].co.z += 0.75
            bmesh.update_edit_mesh(self.obj.data)
            self.moved.add(vertex)

        @rule(shift=st.sampled_from([(3.0, 0, 0), (0, 0, -2.0)]))
        def move_root(self, shift):
            self.root.location = (np.array(self.root.location) + np.array(shift)).tolist()

        def _shown_in_root(self) -> np.ndarray:
            if self.obj.mode == "EDIT":
                self.obj.update_from_editmode()
                mesh = bmesh.from_edit_mesh(self.obj.data)
                co = np.array([v.co[:] for v in mesh.verts], np.float64)
            else:
                co = np.array([v.co[:] for v in self.obj.data.vertices], np.float64)
            bpy.context.view_layer.update()
            to_root = np.array(self.root.matrix_world.inverted() @ self.obj.matrix_world)
            return co @ to_root[:3, :3].T + to_root[:3, 3]

        def _export(self, path) -> bytes:
            bpy.context.view_layer.objects.active = self.root
            self.root.select_set(True)
            assert bpy.ops.export_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
            self.exports += 1
            blender_exports.append(path.name)
            return path.read_bytes()

        def _check(self, data: bytes) -> None:
            model = Model.parse(data)
            assert not [f for f in model_findings(model) if f.is_error]
            written, _ = H.hallway_of(model)
            entry = model.stream(17)
            assert entry.attr3 == 5 and (entry.attr1, entry.attr2) == (8, len(self.links))
            worlds = blender.ext.io_msh.exp.hallway_edit.rest_worlds(Model.parse(source))
            placed = blender.ext.io_msh.imp.hallway_plan.placed(written, worlds)
            assert np.allclose(placed, self._shown_in_root(), atol=1e-4)
            for v in set(range(8)) - self.moved:
                assert bytes(entry.data)[20 * v:20 * v + 12] == source_stream[20 * v:20 * v + 12], v
            assert written.vertices["flags"].tolist() == self.flags.tolist()
            got = {frozenset((int(a), int(b))): tuple(int(w) for w in t)
                   for a, b, t in zip(written.links["start"], written.links["end"], written.links["tail"])}
            assert got == self.links
            rest = Model.parse(data)
            rest.set_stream(17, source_stream, attr1=8, attr2=10)
            assert rest.to_bytes() == source

        @rule(twice=st.booleans())
        def export_fresh(self, twice):
            path = self.folder / f"out{self.exports}.msh"
            data = self._export(path)
            self._check(data)
            if twice:
                assert self._export(path) == data

        @rule()
        def export_onto_source(self):
            self._check(self._export(self.folder / "synth_hall.msh"))

        @invariant()
        def hall_way_is_no_part(self):
            if hasattr(self, "obj"):
                assert self.obj.parent is None and "msh_hallway" in self.obj

        def teardown(self):
            if hasattr(self, "obj") and self.obj.name in bpy.data.objects and self.obj.mode == "EDIT":
                self._object_mode()

    CarelessHallwayEdits.exported = exported
    return CarelessHallwayEdits


def test_careless_hall_way_edits_are_written_as_shown(blender, tmp_path, capfd):
    machine = hallway_sweep(blender, tmp_path)
    run_state_machine_as_test(machine, settings=sweep_settings(EXAMPLES, STEPS))
    assert len(machine.exported) >= EXAMPLES  # the sweep wrote, not only edited
    with capfd.disabled():
        print(f"hall-way sweep: {len(machine.exported)} exports checked")


def ground_plan_sweep(blender, tmp_path):
    """Careless edits of a building's ground plan through Import Unit and Export Unit: corners moved in Object or
    Edit Mode, the loops' object moved, a corner added (refused, then deleted again), exports once or twice. The
    invariant of every export: the ``.bas`` holds the corners as the scene shows them (an unmoved corner its
    bytes, the closing point the first corner, the back-references as read), the archive's other entries, the
    records and the tree keep their bytes, and an export of an unmoved plan writes nothing."""
    bpy = blender.bpy
    import bmesh
    from unit_fixtures import write_game

    from core.container.nres import Archive
    from core.interior import bas as B

    files = I.interior_files()
    source_plan, _ = B.read_bas(Archive.parse(files[I.FORTIF]).find(f"{I.BUILDING}.bas").data)
    total = source_plan.inner[0].count + source_plan.outer[0].count
    counter = [0]
    exported: list[int] = []

    def plan_of(data: bytes) -> bytes:
        return bytes(Archive.parse(data).find(f"{I.BUILDING}.bas").data)

    class CarelessPlanEdits(RuleBasedStateMachine):
        @initialize()
        def start(self):
            blender.clean_scene()
            counter[0] += 1
            self.folder = tmp_path / f"plan{counter[0]}"
            write_game(self.folder, files)
            assert bpy.ops.import_scene.parkan_unit(filepath=str(self.folder / I.HALL_DAT)) == {"FINISHED"}
            (self.obj,) = [o for o in bpy.data.objects if "msh_ground_plan" in o]
            self.root = self.obj["msh_hallway"]
            self.moved: set[int] = set()
            self.last = {name: (self.folder / name).read_bytes() for name in (I.FORTIF, I.OBJECTS, I.HALL_DAT)}

        def _object_mode(self):
            if self.obj.mode == "EDIT":
                bpy.context.view_layer.objects.active = self.obj
                bpy.ops.object.mode_set(mode="OBJECT")

        @rule(vertex=st.integers(0, total - 1), delta=st.sampled_from([(0.5, 0, 0), (0, -1.25, 0.5), (1e-3, 0, 0)]))
        def move_corner(self, vertex, delta):
            self._object_mode()
            v = self.obj.data.vertices[vertex]
            v.co = (np.array(v.co) + np.array(delta)).tolist()
            self.moved.add(vertex)

        @rule(vertex=st.integers(0, total - 1))
        def move_in_edit_mode(self, vertex):
            self._object_mode()
            for other in bpy.context.selected_objects:
                other.select_set(False)
            blender.ext.io_msh.com.hierarchy.layer_collection(bpy.context,
                                                              self.obj.users_collection[0]).hide_viewport = False
            bpy.context.view_layer.objects.active = self.obj
            bpy.ops.object.mode_set(mode="EDIT")
            mesh = bmesh.from_edit_mesh(self.obj.data)
            mesh.verts.ensure_lookup_table()
            mesh.verts[vertex].co.y -= 0.75
            bmesh.update_edit_mesh(self.obj.data)
            self.moved.add(vertex)

        @rule(shift=st.sampled_from([(2.0, 0, 0), (0, 0, -0.5)]))
        def move_object(self, shift):
            self.obj.location = (np.array(self.obj.location) + np.array(shift)).tolist()
            self.moved.update(range(len(self.obj.data.vertices)))

        @rule()
        def add_corner_refused(self):
            self._object_mode()
            self.obj.data.vertices.add(1)
            with pytest.raises(RuntimeError, match="moved, not added or deleted"):
                bpy.ops.export_scene.parkan_unit(filepath=str(self.folder / I.HALL_DAT))
            assert self._files() == self.last
            mesh = bmesh.new()
            mesh.from_mesh(self.obj.data)
            mesh.verts.ensure_lookup_table()
            mesh.verts.remove(mesh.verts[-1])
            mesh.to_mesh(self.obj.data)
            mesh.free()

        def _files(self) -> dict[str, bytes]:
            return {name: (self.folder / name).read_bytes() for name in (I.FORTIF, I.OBJECTS, I.HALL_DAT)}

        def _shown(self) -> np.ndarray:
            if self.obj.mode == "EDIT":
                self.obj.update_from_editmode()
            co = np.array([v.co[:] for v in self.obj.data.vertices], np.float64)
            bpy.context.view_layer.update()
            to_root = np.array(self.root.matrix_world.inverted() @ self.obj.matrix_world)
            return co @ to_root[:3, :3].T + to_root[:3, 3]

        @rule(twice=st.booleans())
        def export(self, twice):
            before = self._files()
            assert bpy.ops.export_scene.parkan_unit(filepath=str(self.folder / I.HALL_DAT)) == {"FINISHED"}
            exported.append(counter[0])
            after = self._files()
            assert after[I.OBJECTS] == files[I.OBJECTS] and after[I.HALL_DAT] == files[I.HALL_DAT]
            old, new = Archive.parse(files[I.FORTIF]), Archive.parse(after[I.FORTIF])
            for a, b in zip(old.entries, new.entries, strict=True):
                assert (a.name, a.type_id, a.attr1, a.attr2, a.attr3) == (b.name, b.type_id, b.attr1, b.attr2,
                                                                          b.attr3)
                if not a.name_str.endswith(".bas"):
                    assert bytes(a.data) == bytes(b.data)
            plan, findings = B.read_bas(plan_of(after[I.FORTIF]))
            assert plan.form == B.TWO_RINGS and not [f for f in findings if f.is_error]
            corners = np.concatenate([plan.inner[0].corner_points, plan.outer[0].corner_points])
            assert np.allclose(corners, self._shown(), atol=1e-4)
            was = np.concatenate([source_plan.inner[0].corner_points, source_plan.outer[0].corner_points])
            for v in set(range(len(was))) - self.moved:
                assert corners[v].tobytes() == was[v].tobytes(), v
            for ring in (plan.inner[0], plan.outer[0]):
                assert ring.points[-1].tobytes() == ring.points[0].tobytes()
            assert plan.inner[0].triangles.tobytes() == source_plan.inner[0].triangles.tobytes()
            assert plan.inner[0].corners.tobytes() == source_plan.inner[0].corners.tobytes()
            if not self.moved:
                assert after == before
            self.last = after
            if twice:
                assert bpy.ops.export_scene.parkan_unit(filepath=str(self.folder / I.HALL_DAT)) == {"FINISHED"}
                assert self._files() == after

        def teardown(self):
            if hasattr(self, "obj") and self.obj.name in bpy.data.objects:
                self._object_mode()

    CarelessPlanEdits.exported = exported
    return CarelessPlanEdits


def test_careless_ground_plan_edits_are_written_as_shown(blender, tmp_path, capfd):
    machine = ground_plan_sweep(blender, tmp_path)
    run_state_machine_as_test(machine, settings=sweep_settings(EXAMPLES, STEPS))
    assert len(machine.exported) >= EXAMPLES
    with capfd.disabled():
        print(f"ground-plan sweep: {len(machine.exported)} exports checked")
