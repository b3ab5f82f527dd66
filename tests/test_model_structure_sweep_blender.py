"""A stateful sweep of careless edit sequences on a plain model (no unit, no clips) through the real operators
(File > Import / Export > Parkan MSH), in both node modes and in the KEYS and FAITHFUL animation modes.

The model (``tank_bytes``) has six nodes in a chain of three, Res10 labels (one node named by its label only, one
label holding 0x98), node flags with named and unnamed bits, a 31-byte name Blender shortens, animated and still
nodes, parts on four nodes with two WEAR rows and face flags (the ``lods`` kind also in a LOD and a damage slot,
the ``streams`` kind with a Res15 stream Blender does not hold, the ``non-canonical`` kind with every frame map
non-canonical) and three streams the export does not know (Res17, Res20, Res99); it comes as a .msh with its .wea
beside it or inside an .rlb with a foreign entry, imported with every slot or the chosen one. Drawn after the
import, in any order: a node renamed (bone or Empty, also in Edit Mode), copied (Shift+D, or a script's
Object.copy), deleted, added (an Empty parented into the model, a bone made in Edit Mode), re-parented (an Empty
also keeping its place), the armature left in Edit Mode, a key of a node moved in value and time (or a still or
new node keyed), a mesh part deleted or copied, a node flag switched, Ctrl+Z, another program writing the file
imported from, and exports to the file imported from, to a fresh file, to the same fresh file twice. The
invariant of every export:

- refused: the target is byte for byte as it was, no file appeared or went away beside it (no ``*.tmp``, no
  ``.NAME.io_msh-lock`` folder), the armature is in the mode it was, the message is no traceback, and the refusal
  is one the export documents (io_msh/exp/node_decisions.py: a changed node structure when slots were not imported or a
  Res15/16/18 stream would be lost; a name the file cannot hold; a part left on a deleted bone; two parts on one
  node and slot; an animated model no action animates any more);
- onto a source whose model another program wrote since the import: refused ("changed on disk after the
  import"), or finished with the file kept as that program wrote it (nothing of the scene changes the model);
  a change of the archive's other entry is kept by every export;
- written: the file parses and validates without errors and holds the scene: one node per bone or Empty, with
  its name (the imported one where Blender shortened it) and parent, its node flags and its Res10 label (an
  imported node keeps its own; a node named by its label takes its new name there; a new node has none), every
  part on its node's slot with its vertices, face materials, face flags and UVs, and a local pose at every
  integer frame that is what Blender shows (within 2e-3) or, for an imported node nothing moved (its own curves
  and first frame the import's, under its source parent), its exact source keys and game pose, rebuilt or not;
  with the imported node structure also every stream no edit is about (Res17, Res20, Res99 always) byte for
  byte the source's, and with nothing edited the source's bytes; beside it only the material list, as read; the
  same export twice writes the same bytes; a rebuild says it drops what it does not know.

The suite runs a small fixed budget; MODEL_SWEEP_EXAMPLES, MODEL_SWEEP_STEPS and
MODEL_SWEEP_RANDOM=1 (a new seed each run) soak it, MODEL_SWEEP_TRACE=FILE appends every step to FILE as it starts
(Blender 4.2 now and then crashes in an undo, which ends the process before hypothesis reports the sequence):

    MODEL_SWEEP_EXAMPLES=500 MODEL_SWEEP_RANDOM=1 .venv/bin/python -m pytest -q -s \
        tests/test_model_structure_sweep_blender.py -k careless
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from fixtures import non_canonical
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from test_export_keeps import slot_content

from core.animation.sampler import AnimationData, world_matrices_at
from core.animation.tracks import Animation, Track, read_animation
from core.appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID
from core.authoring.build import ModelDef, NodeDef, Part, build_model
from core.authoring.synth import WEAR_TEXT, box, box_uvs
from core.container.nres import MODEL_TYPE_ID, Archive, game_bytes
from core.msh import streams as S
from core.msh.model import Model
from core.msh.validate import validate_model

EXAMPLES = int(os.environ.get("MODEL_SWEEP_EXAMPLES", "40"))
STEPS = int(os.environ.get("MODEL_SWEEP_STEPS", "12"))
RANDOM = os.environ.get("MODEL_SWEEP_RANDOM") == "1"
TRACE = os.environ.get("MODEL_SWEEP_TRACE")  # a file each step is appended to as it starts (a crash's sequence)

FRAME_COUNT = 12
MODEL_ENTRY = "tank.msh"
# 31 bytes in code page 1251, 79 in UTF-8: Blender shortens the bone or Empty's name (the import keeps it in msh_name);
# 0x98, which cp1251 does not define, is read as U+0098.
LONG_NAME = "ант\x98" + "№" * 24 + "ена"
SHOWN_TOLERANCE = 2e-3    # the reduced keys' tolerance (0.1 mm, 0.05 degree) down a chain of three, with margin
NAME_BYTES = 31           # Res9
UNKNOWN_STREAMS = (17, 20, 99)
GEOMETRY_STREAMS = (2, 3, 4, 5, 6, 7, 13, 15, 16, 18)
# Names: free ones, another node's, 31 bytes in code page 1251 (62 in UTF-8), and two a Res9 name cannot hold.
NAMES = ("barrel", "hatch", "башня", "turret", "gun", "hull", "б" * 31, "barrel", "hatch",
         "a_name_that_is_longer_than_31_bytes", "sensor ☃")
DELTAS = (0.25, -0.4, 0.6)
SHIFTS = (0.0, 0.0, 0.0, 0.5, -1.0, 3.0)  # frames a key is moved by


# ------------------------------------------------------------------------------------------------ the model
def _turn(axis: int, angle: float) -> np.ndarray:
    q = np.zeros(4)
    q[0], q[1 + axis] = np.cos(angle / 2), np.sin(angle / 2)
    return q


def _track(times, positions, axis, angles) -> Track:
    return Track.from_keys(np.asarray(times, float), np.asarray(positions, float),
                           S.encode_rotations(np.array([_turn(axis, a) for a in angles])))


def tank_bytes(kind: str = "plain") -> bytes:
    """Six nodes (hull > turret > gun, LONG_NAME; hull > central_lc, wheel), labels, flags, parts, and streams the
    export does not know. ``lods``: parts in more slots too; ``streams``: a Res15 stream as well;
    ``non-canonical``: every frame map made non-canonical (tests/fixtures.py: a Keys import shows the keys, the
    game another pose)."""
    nodes = [NodeDef("hull", None, label="e_hull"), NodeDef("turret", 0, label="e_tur_mt", flags=0x0100),
             NodeDef("gun", 1, flags=0x0020), NodeDef(b"", 0, label="central_lc"),
             NodeDef("wheel", 0, flags=0x4001), NodeDef(LONG_NAME, 1, label=b"ant\x98lbl")]
    tracks = [_track([0, 4, 7, 11], [[0, 0, 0], [0.5, 0, 0], [1.0, 0.2, 0], [1.5, 0, 0]], 2, [0, 0.2, 0.1, 0]),
              _track([0, 4, 7, 11], [[0, 0, 1.0]] * 4, 2, [0, 0.3, 0.6, 0.8]),
              _track([0, 5, 11], [[0.8, 0, 0.1], [0.9, 0, 0.1], [0.8, 0, 0.1]], 0, [0, -0.3, 0]),
              Track.static((0.0, 1.0, 0.5), S.encode_rotations(_turn(2, 0.3))),
              _track([0, 6, 11], [[1, -1, 0]] * 3, 0, [0, 0.5, 1.0]),
              Track.static((0.2, 0.3, 0.4), S.encode_rotations(_turn(0, 0.5)))]
    pos, tris = box((0.3, 0.4, 0.5), (0.1, 0.0, 0.2))
    rows = np.arange(len(tris)) % 2                                  # WEAR rows 0 and 1
    flags = np.array([0x02, 0, 0x20, 0x104, 0, 0x10] * (len(tris) // 6))  # walkable, glass, door, unnamed bits
    parts = [Part(i, pos * (1 + 0.1 * i), tris, uvs=box_uvs() * (1 + i), face_materials=np.roll(rows, i),
                  face_flags=np.roll(flags, i)) for i in (0, 1, 2, 4)]
    if kind == "lods":
        parts += [Part(0, pos * 0.5, tris, uvs=box_uvs(), slot=1), Part(1, pos * 0.7, tris, uvs=box_uvs(), slot=5)]
    extra = [(17, b"graph", 1, 0, 0), (20, b"\x01\x02\x03", 3, 0, 0), (99, b"unknown", 7, 8, 9)]
    model = build_model(ModelDef(nodes, parts, Animation(FRAME_COUNT, tracks), extra_streams=extra,
                                 stream_name="tank.msh"))
    if kind == "streams":
        count = model.vertex_count
        model.set_stream(15, (np.arange(count * 8) % 251).astype(np.uint8).tobytes(), attr1=count, attr3=8)
    return non_canonical(model.to_bytes()) if kind == "non-canonical" else model.to_bytes()


def game_locals(model: Model, frames: np.ndarray) -> np.ndarray:
    """(nodes, frames, 4, 4) each node's pose relative to its parent as the game samples it (a frame past the
    model's last: its last)."""
    times = np.minimum(frames, model.frame_count - 1).astype(np.float64)
    world = world_matrices_at(AnimationData.from_model(model), times, normalize=True)
    local = world.copy()
    for i, parent in enumerate(model.nodes["parent"]):
        if parent != S.NO_INDEX:
            local[i] = np.linalg.inv(world[int(parent)]) @ world[i]
    return local


def part_vertices(model: Model, node: int, slot: int) -> np.ndarray:
    """The positions of the vertices a node's slot draws (none when the slot is empty)."""
    record = int(model.nodes["slots"][node][slot])
    if record == S.NO_INDEX:
        return np.zeros((0, 3))
    start, count = int(model.slots[record]["batch_start"]), int(model.slots[record]["batch_count"])
    used = [model.indices[int(b["index_start"]):int(b["index_start"]) + int(b["index_count"])].astype(np.int64)
            + int(b["base_vertex"]) for b in model.batches[start:start + count]]
    return model.positions[np.unique(np.concatenate(used))].astype(np.float64) if used else np.zeros((0, 3))


def tank_archive(model: bytes) -> bytes:
    """An .rlb holding the model, its material list and an entry no model reads."""
    archive = Archive()
    archive.add("notes.txt", b"not a model", 0x54584554, 1, 2, 3)
    archive.add(MODEL_ENTRY, model, MODEL_TYPE_ID)
    archive.add("tank.wea", WEAR_TEXT, WEAR_TYPE_ID, **WEAR_ATTRS)
    return archive.to_bytes()


def same_points(a: np.ndarray, b: np.ndarray, tolerance: float) -> bool:
    """Whether every point of ``a`` is within ``tolerance`` of one of ``b`` and the other way round."""
    if not len(a) or not len(b):
        return len(a) == len(b)
    near = np.abs(a[:, None, :] - b[None, :, :]).max(axis=2)
    return bool(near.min(axis=1).max() < tolerance and near.min(axis=0).max() < tolerance)


def part_faces(model: Model, node: int, slot: int) -> tuple[list, list, np.ndarray]:
    """A node's slot as its faces: the sorted batch material words and face flag words, and its UVs."""
    record = int(model.nodes["slots"][node][slot])
    part = model.slots[record]
    start, count = int(part["batch_start"]), int(part["batch_count"])
    words = sorted(int(b["material"]) for b in model.batches[start:start + count]
                   for _ in range(int(b["index_count"]) // 3))
    first = int(part["tri_start"])
    flags = sorted(int(f) for f in model.triangles["flags"][first:first + int(part["tri_count"])])
    used = [model.indices[int(b["index_start"]):int(b["index_start"]) + int(b["index_count"])].astype(np.int64)
            + int(b["base_vertex"]) for b in model.batches[start:start + count]]
    return words, flags, S.decode_uvs(model.uvs_raw[np.unique(np.concatenate(used))]).astype(np.float64)


def node_flags(item) -> int:
    """The Res1 flag word a bone or Empty asks for: its msh_node_flags word with its named bits as its boolean
    properties say (docs/formats/msh.md, "MSH fields the game reads"); 0 for a node made in Blender."""
    word = int(item.get("msh_node_flags", 0)) & 0xFFFF
    for name, bit in (("msh_interior", 0x0001), ("msh_cockpit", 0x0020)):
        if name in item:
            word = word | bit if item[name] else word & ~bit
    return word


def storable(name: str, limit: int | None) -> bool:
    try:
        raw = game_bytes(name)
    except UnicodeEncodeError:
        return False
    return limit is None or len(raw) <= limit


def streams_of(model: Model) -> list[tuple]:
    return [(e.type_id, e.attr1, e.attr2, e.attr3, bytes(e.data)) for e in model.archive.entries]


def same_keys(a: Track, b: Track) -> bool:
    return a.times.tobytes() == b.times.tobytes() and a.rot.tobytes() == b.rot.tobytes() \
        and a.pos.tobytes() == b.pos.tobytes()


def same_track(a: Track, b: Track) -> bool:
    return (a.has_map == b.has_map and a.times.tobytes() == b.times.tobytes() and a.rot.tobytes() == b.rot.tobytes()
            and a.pos.tobytes() == b.pos.tobytes())


# ------------------------------------------------------------------------------------------------ Blender
def _untwist(turn) -> np.ndarray:
    """A bone turned from its node (msh_bone_frame, a Blender quaternion) as the matrix taking it back."""
    w, x, y, z = (float(v) for v in turn)
    m = np.eye(4)
    m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                 [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                 [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return m


class Scene:
    """The model as the scene holds it, looked up by name at every use (an undo loads every datablock anew)."""

    def __init__(self, blender, root_name: str, mode: str):
        self.blender, self.root_name, self.mode = blender, root_name, mode

    @property
    def bpy(self):
        return self.blender.bpy

    @property
    def root(self):
        return self.bpy.data.objects[self.root_name]

    def empties(self) -> list:
        return self.blender.ext.io_msh.com.hierarchy.node_empties(self.root)

    def items(self) -> list:
        """Every node's bone (its edit bone in Edit Mode) or Empty."""
        if self.mode == "EMPTIES":
            return self.empties()
        return list(self.root.data.edit_bones if self.editing else self.root.data.bones)

    def parent_of(self, item) -> str | None:
        if self.mode == "ARMATURE":
            return item.parent.name if item.parent else None
        names = {o.name for o in self.empties()}
        parent = item.parent
        while parent is not None and parent.name not in names:
            parent = parent.parent
        return parent.name if parent is not None else None

    def descendants_of(self, name: str) -> set[str]:
        out, changed = {name}, True
        items = self.items()
        while changed:
            changed = False
            for item in items:
                if item.name not in out and self.parent_of(item) in out:
                    out.add(item.name)
                    changed = True
        return out - {name}

    def meshes(self) -> list:
        return [o for o in self.root.children_recursive if o.type == "MESH"]

    def worlds(self) -> dict[str, np.ndarray]:
        """Each node's matrix relative to the root as Blender shows it now (a bone: its node's, untwisted)."""
        root = self.root
        if self.mode == "ARMATURE":
            return {pb.name: np.array(pb.matrix) @ _untwist(root.data.bones[pb.name].get(
                "msh_bone_frame", (1.0, 0.0, 0.0, 0.0))) for pb in root.pose.bones}
        inverse = np.linalg.inv(np.array(root.matrix_world))
        return {o.name: inverse @ np.array(o.matrix_world) for o in self.empties()}

    def item(self, name: str):
        return self.root.data.bones[name] if self.mode == "ARMATURE" else self.bpy.data.objects[name]

    def own_curves(self) -> dict[str, tuple]:
        """Each bone's or Empty's F-curves (by the name they animate now: a bone renamed after a deleted one takes
        the curves the deleted one left in the action), as (path, index, keys)."""
        out: dict[str, list] = {}
        for fcurve, _node, owner, path in self.blender.ext.io_msh.com.curves.node_fcurves(self.root):
            co = np.empty(2 * len(fcurve.keyframe_points), np.float32)
            fcurve.keyframe_points.foreach_get("co", co)
            out.setdefault(owner, []).append((path.lstrip("."), fcurve.array_index, co.tobytes()))
        return {owner: tuple(sorted(curves)) for owner, curves in out.items() if owner}

    def first_locals(self) -> dict[str, np.ndarray]:
        """Each bone's or Empty's matrix relative to its parent node's at frame 0."""
        self.blender.evaluated_frame(0)
        worlds = self.worlds()
        parents = {i.name: self.parent_of(i) for i in self.items()}
        return {name: world if parents[name] is None else np.linalg.inv(worlds[parents[name]]) @ world
                for name, world in worlds.items()}

    def select_only(self, objects) -> None:
        layer = self.bpy.context.view_layer
        names = {o.name for o in objects}
        for obj in layer.objects:
            obj.select_set(obj.name in names)
        if objects:
            layer.objects.active = objects[0]

    def relations_rebuilt(self) -> None:
        """The depsgraph's relations built anew: a part left on a deleted bone, then taken by a bone renamed after
        it, is shown in three places by Blender (before a frame change, after one, after the relations are
        rebuilt); the export and the check must see one scene."""
        for mesh in self.meshes():
            inverse = mesh.matrix_parent_inverse.copy()
            mesh.parent_bone = mesh.parent_bone  # tags the relations (and resets the parent inverse: put back)
            mesh.matrix_parent_inverse = inverse
        self.bpy.context.view_layer.update()

    def delete_objects(self, objects) -> None:
        """Deleted as X does in the viewport; those in a hidden collection (other slots) as the Outliner does."""
        shown = [o for o in objects if o.visible_get()]
        hidden = [o.name for o in objects if not o.visible_get()]
        if shown:
            self.select_only(shown)
            assert self.bpy.ops.object.delete() == {"FINISHED"}
        for name in hidden:
            self.bpy.data.objects.remove(self.bpy.data.objects[name])
        self.bpy.context.view_layer.update()

    @property
    def editing(self) -> bool:
        return self.root.mode == "EDIT"

    def edit_bones(self):
        """The armature's edit bones, in Edit Mode (entered when it is not)."""
        if not self.editing:
            self.select_only([self.root])
            self.bpy.ops.object.mode_set(mode="EDIT")
        return self.root.data.edit_bones

    def leave_edit_mode(self) -> bool:
        """Object Mode; whether Edit Mode was left."""
        if not self.editing:
            return False
        self.select_only([self.root])
        self.bpy.ops.object.mode_set(mode="OBJECT")
        return True

    def in_window(self):
        return self.bpy.context.temp_override(window=self.bpy.context.window_manager.windows[0])

    def push_undo(self, message: str) -> None:
        with self.in_window():
            self.bpy.ops.ed.undo_push(message=message)

    def undo(self) -> None:
        with self.in_window():
            assert self.bpy.ops.ed.undo() == {"FINISHED"}


# ------------------------------------------------------------------------------------------------ the machine
def traced(step):
    """A rule that appends itself to the file MODEL_SWEEP_TRACE names as it starts (Blender 4.2 can crash in an
    undo, which ends the process before hypothesis reports the sequence)."""
    @functools.wraps(step)
    def run(self, **arguments):
        if TRACE:
            with open(TRACE, "a", encoding="utf-8") as trace:
                trace.write(f"{step.__name__}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})\n")
        return step(self, **arguments)
    return run


def model_sweep(blender, base: Path, capfd=None):
    """The state machine class, bound to the Blender fixture, a folder for the examples' files and pytest's capfd
    (the operator's reports; None: not checked)."""

    class CarelessModelEdits(RuleBasedStateMachine):
        stats: Counter = Counter()

        @property
        def bpy(self):
            return blender.bpy

        @initialize(node_mode=st.sampled_from(["EMPTIES", "ARMATURE"]),
                    animation=st.sampled_from(["KEYS", "FAITHFUL"]),
                    kind=st.sampled_from(["plain", "plain", "lods", "streams", "non-canonical"]),
                    slots=st.sampled_from(["ALL", "CHOSEN"]), container=st.sampled_from(["msh", "rlb"]))
        @traced
        def import_model(self, node_mode, animation, kind, slots, container):
            blender.clean_scene()
            self.folder = Path(tempfile.mkdtemp(prefix="model_sweep_", dir=base))
            self.data = tank_bytes(kind)
            self.source = Model.parse(self.data)
            self.ext = container
            self.path = self.folder / f"tank.{container}"
            self.path.write_bytes(self.data if container == "msh" else tank_archive(self.data))
            if container == "msh":  # its material list beside it
                (self.folder / "tank.wea").write_bytes(WEAR_TEXT)
            self.kind, self.slots, self.mode, self.animation = kind, slots, node_mode, animation
            assert self.bpy.ops.import_scene.parkan_msh(filepath=str(self.path), node_mode=node_mode,
                                                        animation=animation, slots=slots) == {"FINISHED"}
            (root,) = [o for o in self.bpy.data.objects if "msh_model" in o]
            self.scene = Scene(blender, root.name, node_mode)
            self.history: list[str] = []       # the undo steps pushed since the import
            self.pending = False               # edits made in Edit Mode, their undo step pushed when it is left
            self.fresh = 0
            self.imported_curves = {self.scene.item(name).get("msh_node_index"): keys
                                    for name, keys in self.scene.own_curves().items()}
            self.imported_first = {self.scene.item(name).get("msh_node_index"): local
                                   for name, local in self.scene.first_locals().items()}
            self.scene.push_undo("import")
            self.stats[f"imports {node_mode} {animation}"] += 1
            self.stats[f"imports {kind} {slots} {container}"] += 1

        def teardown(self):
            try:
                if hasattr(self, "scene"):
                    self._export(self.folder / f"last.{self.ext}")  # every sequence ends with an export
            finally:
                self.__dict__.pop("scene", None)
                blender.clean_scene()
                shutil.rmtree(getattr(self, "folder", ""), ignore_errors=True)

        # ---------------------------------------------------------------- undo steps
        def _begin(self, in_edit_mode: bool = False) -> None:
            """Before an edit: Object Mode unless the edit is made in Edit Mode (Tab pressed, an undo step)."""
            if not in_edit_mode:
                self._leave_edit_mode()

        def _edited(self, message: str, stay: bool = False) -> None:
            """An undo step after an edit, as the interface makes one; an edit of bones in Edit Mode that ``stay``s
            there gets it when Edit Mode is left."""
            self.stats[message + (" (staying in Edit Mode)" if stay else "")] += 1
            if stay and self.scene.editing:
                self.pending = True
                return
            self.scene.leave_edit_mode()
            self.pending = False
            self.history.append(message)
            self.scene.push_undo(message)

        def _leave_edit_mode(self) -> None:
            if self.scene.leave_edit_mode() and self.pending:
                self.history.append("Toggle Edit Mode")
                self.scene.push_undo("Toggle Edit Mode")
            self.pending = False

        def _pick(self, items, which: int):
            return items[which % len(items)] if items else None

        # ---------------------------------------------------------------- careless edits
        @rule(which=st.integers(0, 20), name=st.sampled_from(NAMES))
        @traced
        def rename_a_node(self, which, name):
            """A bone or Empty renamed (a bone in Edit Mode stays so)."""
            self._begin(in_edit_mode=True)
            item = self._pick(self.scene.items(), which)
            if item is None:
                return
            item.name = name
            self._edited("rename", stay=True)

        @rule(what=st.sampled_from(["copy", "delete", "add", "reparent"]), which=st.integers(0, 20),
              other=st.integers(-1, 20), flag=st.booleans(), stay=st.booleans())
        @traced
        def change_the_structure(self, what, which, other, flag, stay):
            """A node copied (an Empty with Shift+D, with its children and parts: ``flag``, or by a script's
            Object.copy: ``stay``), deleted (with its parts: ``flag``), added under node ``other`` (-1: the root) or
            re-parented to it (an Empty keeping its place, as Ctrl+P does: ``flag``); bones in Edit Mode, which the
            armature may ``stay`` in (then the export leaves it).
            One rule for the four, so that the sequences also reach exports of the imported structure."""
            if what == "copy":
                self._copy_a_node(which, flag, stay)
            elif what == "delete":
                self._delete_a_node(which, flag, stay)
            elif what == "add":
                self._add_a_node(other, [(0.1, 0.2, 0.3), (0.0, -0.5, 0.0)][flag], stay)
            else:
                self._reparent_a_node(which, other, flag, stay)

        def _copy_a_node(self, which, with_children, stay):
            self._begin(in_edit_mode=self.mode == "ARMATURE")
            item = self._pick(self.scene.items(), which)
            if item is None:
                return
            if self.mode == "ARMATURE":
                name = item.name
                bones = self.scene.edit_bones()
                for bone in bones:
                    bone.select = bone.select_head = bone.select_tail = bone.name == name
                bones.active = bones[name]
                assert self.bpy.ops.armature.duplicate() == {"FINISHED"}
            elif stay:  # by a script: Object.copy (its action shared, not copied), linked beside it
                copy = item.copy()
                for collection in item.users_collection:
                    collection.objects.link(copy)
            else:
                self.scene.select_only([item, *(item.children_recursive if with_children else [])])
                assert self.bpy.ops.object.duplicate() == {"FINISHED"}
            self._edited("copy", stay)

        def _delete_a_node(self, which, with_children, stay):
            self._begin(in_edit_mode=self.mode == "ARMATURE" and not with_children)
            item = self._pick(self.scene.items(), which)
            if item is None:
                return
            if self.mode == "ARMATURE":
                name = item.name
                if with_children:  # its parts first (the bones below it take its parent)
                    self.scene.delete_objects([o for o in self.scene.meshes() if o.parent_bone == name])
                bones = self.scene.edit_bones()
                for bone in bones:
                    bone.select = bone.select_head = bone.select_tail = bone.name == name
                assert self.bpy.ops.armature.delete() == {"FINISHED"}
            else:
                self.scene.delete_objects([item, *(item.children_recursive if with_children else [])])
            self._edited("delete node", stay)

        def _add_a_node(self, parent, offset, stay):
            self._begin(in_edit_mode=self.mode == "ARMATURE")
            items = self.scene.items()
            under = None if parent < 0 or not items else items[parent % len(items)].name
            if self.mode == "ARMATURE":
                bones = self.scene.edit_bones()
                bone = bones.new("added")
                bone.head = offset
                bone.tail = (offset[0], offset[1], offset[2] + 0.5)
                bone.parent = bones[under] if under else None
            else:
                empty = self.bpy.data.objects.new("added", None)
                self.bpy.context.scene.collection.objects.link(empty)
                empty.parent = self.bpy.data.objects[under] if under else self.scene.root
                empty.location = offset
            self._edited("add node", stay)

        def _reparent_a_node(self, which, parent, keep, stay):
            self._begin(in_edit_mode=self.mode == "ARMATURE")
            items = self.scene.items()
            item = self._pick(items, which)
            if item is None:
                return
            name = item.name
            allowed = [i.name for i in items if i.name not in self.scene.descendants_of(name) | {name}]
            under = None if parent < 0 or not allowed else allowed[parent % len(allowed)]
            if under == self.scene.parent_of(item):
                return
            if self.mode == "ARMATURE":
                bones = self.scene.edit_bones()
                bones[name].parent = bones[under] if under else None
            else:
                obj = self.bpy.data.objects[name]
                target = self.bpy.data.objects[under] if under else self.scene.root
                world = obj.matrix_world.copy()
                obj.parent = target
                if keep:  # Ctrl+P (Object): it stays where it is
                    obj.matrix_parent_inverse = target.matrix_world.inverted() @ world @ obj.matrix_basis.inverted()
            self._edited("reparent", stay)

        @rule(which=st.integers(0, 20), channel=st.sampled_from(["location", "rotation_quaternion"]),
              component=st.integers(0, 3), key=st.integers(0, 3), delta=st.sampled_from(DELTAS),
              shift=st.sampled_from(SHIFTS))
        @traced
        def move_a_key(self, which, channel, component, key, delta, shift):
            """A key of a node moved (its value by ``delta``, its frame by ``shift``, as G in the Graph Editor);
            a node without keys there keyed at two frames."""
            self._begin()
            item = self._pick(self.scene.items(), which)
            if item is None:
                return
            component = component % (3 if channel == "location" else 4)
            root = self.scene.root
            curves = [fc for fc, _node, owner, path in blender.ext.io_msh.com.curves.node_fcurves(root)
                      if owner == item.name and path.lstrip(".") == channel and fc.array_index == component]
            if curves and len(curves[0].keyframe_points):
                point = curves[0].keyframe_points[key % len(curves[0].keyframe_points)]
                for co in (point.co, point.handle_left, point.handle_right):
                    co[0] += shift
                    co[1] += delta
                curves[0].update()
                what = "move key" + (" in time" if shift else "")
            else:
                holder = root.pose.bones[item.name] if self.mode == "ARMATURE" else self.bpy.data.objects[item.name]
                if channel != "location" and holder.rotation_mode != "QUATERNION":  # a node made in Blender: Euler
                    channel, component = "rotation_euler", component % 3
                holder.keyframe_insert(channel, index=component, frame=0)
                getattr(holder, channel)[component] += delta
                holder.keyframe_insert(channel, index=component, frame=3 + 2 * key)
                getattr(holder, channel)[component] -= delta
                what = "key a still node"
            self._edited(what)

        @rule(which=st.integers(0, 20), copy=st.sampled_from([False, False, False, True]))
        @traced
        def delete_a_part(self, which, copy):
            """A mesh part deleted, or copied with Shift+D (two parts on one node and slot: refused)."""
            self._begin()
            mesh = self._pick(sorted(self.scene.meshes(), key=lambda o: o.name), which)
            if mesh is None:
                return
            if not copy:
                self.scene.delete_objects([mesh])
            elif mesh.visible_get():
                self.scene.select_only([mesh])
                assert self.bpy.ops.object.duplicate() == {"FINISHED"}
            else:
                return
            self._edited("copy part" if copy else "delete part")

        @rule(which=st.integers(0, 20), flag=st.sampled_from(["msh_cockpit", "msh_interior"]))
        @traced
        def toggle_a_node_flag(self, which, flag):
            """A node's named flag (its bone's or Empty's custom property) switched."""
            self._begin()
            item = self._pick(self.scene.items(), which)
            if item is None:
                return
            item[flag] = not item.get(flag, False)
            self._edited("toggle flag")

        @precondition(lambda self: self.history or self.pending)
        @rule()
        @traced
        def undo(self):
            self._leave_edit_mode()
            self.scene.undo()
            self.history.pop()
            self.stats["undo"] += 1

        @rule(what=st.sampled_from(["foreign entry", "model"]))
        @traced
        def another_program_writes(self, what):
            """Another program writes the file imported from: the archive's entry no model reads (an .rlb), or
            the model itself (another model's bytes). An export must keep the first; of the second, it keeps it
            when the scene does not change the model and refuses to write an edit over it."""
            if what == "foreign entry" and self.ext == "rlb":
                archive = Archive.parse(self.path.read_bytes())
                notes = archive.find("notes.txt")
                notes.data = bytes(notes.data) + b" (edited)"
                self.path.write_bytes(archive.to_bytes())
            elif what == "model":
                other = tank_bytes("plain" if self.kind != "plain" else "lods")
                if self.ext == "msh":
                    self.path.write_bytes(other)
                else:
                    archive = Archive.parse(self.path.read_bytes())
                    archive.find(MODEL_ENTRY).data = other
                    self.path.write_bytes(archive.to_bytes())
                self.foreign = True
            self.stats[f"another program wrote the {what}"] += 1

        @rule(where=st.sampled_from(["source", "fresh", "fresh twice"]))
        @traced
        def export(self, where):
            if where == "source":
                self._export(self.path)
            else:
                self.fresh += 1
                path = self.folder / f"fresh{self.fresh}.{self.ext}"
                self._export(path)
                if where == "fresh twice":
                    self._export(path, again=True)

        # ---------------------------------------------------------------- the invariant
        def _files(self) -> dict:
            return {p.name: (p.read_bytes() if p.is_file() else None) for p in self.folder.iterdir()}

        def _export(self, target: Path, again: bool = False) -> None:
            """Export the model as the scene is (maybe in Edit Mode, whatever is selected) and check the result."""
            before = self._files()
            editing = self.scene.editing
            self.scene.relations_rebuilt()
            if capfd is not None:
                capfd.readouterr()
            try:
                result, said = self.bpy.ops.export_scene.parkan_msh(filepath=str(target)), None
            except RuntimeError as exc:
                result, said = None, str(exc)
            reported = capfd.readouterr().out if capfd is not None else None
            assert self.scene.editing == editing, "the export did not give the armature its Edit Mode back"
            self._leave_edit_mode()
            if getattr(self, "foreign", False) and target == self.path:  # its model is another program's now
                assert self._files() == before, f"{said or result}: the other program's model was replaced"
                assert said is None or "changed on disk after the import" in said, said
                self.stats["exports onto another program's model: " + ("refused" if said else "kept")] += 1
                return
            expect = self._expected()
            if said is not None:
                assert "Traceback" not in said, said
                assert self._files() == before, f"refused ({said.strip()}) but the folder changed"
                assert expect["refusal"], f"refused: {said.strip()}; nothing pending that the export refuses"
                assert not expect["nodes"] or any(part in said for part in expect["refusal"]), \
                    (said, expect["refusal"])
                self.stats["exports refused: " + next((p for p in expect["refusal"] if p in said), "?")[:30]] += 1
                return
            assert result == {"FINISHED"}
            after = self._files()
            # A model file gets its material list beside it, as read; nothing else is written.
            wear = {target.with_suffix(".wea").name} if self.ext == "msh" else set()
            assert set(after) == set(before) | {target.name} | wear, sorted(set(after) ^ set(before))
            assert all(after[n] == before[n] for n in before if n not in {target.name} | wear)
            assert all(after[n] == WEAR_TEXT for n in wear), "the material list was not written as read"
            written = after[target.name]
            if again:
                assert written == before[target.name], "the same export twice wrote other bytes"
            assert not expect["refusal"] or expect["may_finish"], f"written, but expected a refusal: {expect}"
            if reported is not None and not expect["same_structure"]:  # the streams it does not know are dropped
                assert "the model is rebuilt from the scene" in reported, reported
            data = written if self.ext == "msh" else self._entry(written, before.get(target.name))
            self._check(Model.parse(data), data, expect)
            self.stats["exports written" + (" (imported structure)" if expect["same_structure"] else "")
                       + (" with keys edited" if expect["touched"] else "") + (" in Edit Mode" if editing else "")] += 1

        def _entry(self, written: bytes, old: bytes | None) -> bytes:
            """The model entry of an archive written; every other entry is as it was (a new archive: the model's
            material list only)."""
            archive = Archive.parse(written)
            others = [(e.name_str, e.type_id, e.attr1, e.attr2, e.attr3, bytes(e.data))
                      for e in archive.entries if e.name_str != MODEL_ENTRY]
            if old is None:
                assert others == [("tank.wea", WEAR_TYPE_ID, *WEAR_ATTRS.values(), WEAR_TEXT)], others
            else:
                was = Archive.parse(old)
                assert [e.name_str for e in archive.entries] == [e.name_str for e in was.entries]
                assert others == [(e.name_str, e.type_id, e.attr1, e.attr2, e.attr3, bytes(e.data))
                                  for e in was.entries if e.name_str != MODEL_ENTRY]
            (model,) = [e for e in archive.entries if e.name_str == MODEL_ENTRY]
            return bytes(model.data)

        def _expected(self) -> dict:
            """What the scene holds now, and what an export of it must (or may) do."""
            scene, source = self.scene, self.source
            items = scene.items()
            # The name the file should hold: the new one of a renamed node, else the one imported (msh_name where
            # Blender had to shorten it).
            named = {i.name: i.name if i.name != i.get("msh_imported_name", i.name) else i.get("msh_name", i.name)
                     for i in items}
            curves, first = scene.own_curves(), scene.first_locals()
            nodes = []
            for item in items:
                index = item.get("msh_node_index")
                parent = scene.parent_of(item)
                # Nothing moved it: no edit reached it, and its own curves are the ones the import wrote.
                # Nothing moved it: its own curves and its pose at frame 0 relative to its parent (a parent inverse
                # Ctrl+P set, a bone under another) are the ones the import made.
                kept = isinstance(index, int) and curves.get(item.name, ()) == self.imported_curves.get(index, ()) \
                    and np.abs(first[item.name] - self.imported_first[index]).max() < 1e-5
                nodes.append({"name": named[item.name], "item": item.name, "parent": named.get(parent),
                              "parent_item": parent,
                              "index": index if isinstance(index, int) else None, "kept": kept,
                              "renamed": item.name != item.get("msh_imported_name", item.name),
                              "flags": node_flags(item)})
            indices = [n["index"] for n in nodes]
            by_name = {n["name"]: n for n in nodes}
            parents = [None if p == S.NO_INDEX else int(p) for p in source.nodes["parent"]]
            same_structure = sorted(i for i in indices if i is not None) == list(range(source.node_count)) \
                and None not in indices and all(
                    (by_name[n["parent"]]["index"] if n["parent"] else None) == parents[n["index"]] for n in nodes)
            labelled = [not bytes(source.node_names_raw[i]).rstrip(b"\0") for i in range(source.node_count)]
            refusal, may_finish = [], True
            if not nodes:
                refusal.append("has no nodes")
                may_finish = False
            if self.mode == "EMPTIES" and not any(o.animation_data and o.animation_data.action
                                                  for o in scene.empties()):
                # Every animated Empty deleted (their children left the model with them): the Action frame range
                # is frame 0 alone while the imported tracks play 12 frames (the deleted timeline's refusal).
                refusal.append("no action animates")
                may_finish = False
            for n in nodes:
                by_label = same_structure and n["index"] is not None and labelled[n["index"]] and n["renamed"]
                if same_structure and not n["renamed"]:
                    continue  # its name is the source's, not written again
                if not storable(n["name"], None):
                    refusal.append(f"the name {n['name']!r} cannot be stored in code page 1251")
                    may_finish = False
                elif not by_label and not storable(n["name"], NAME_BYTES):  # a copy of a long name gets .001
                    refusal.append(f"the name {n['name']!r} is {len(game_bytes(n['name']))} bytes; MSH node names "
                                   f"hold at most {NAME_BYTES}")
                    may_finish = False
            if not same_structure:
                if self.kind == "streams":
                    refusal.append("cannot be: Blender does not hold them")
                    may_finish = False
                if self.kind == "lods" and self.slots == "CHOSEN":
                    refusal.append("import it with Geometry: All Slots")
                    may_finish = False
            placed: dict[tuple, str] = {}
            for mesh in sorted(scene.meshes(), key=lambda o: o.name):
                node = mesh.parent_bone if self.mode == "ARMATURE" else scene.parent_of(mesh)
                if node not in by_name:  # a part left on a deleted bone
                    refusal.append(f"mesh {mesh.name!r} is not attached to a node")
                    may_finish = False
                elif (node, mesh.get("msh_slot", 0)) in placed:  # a bone named as a deleted one takes its part
                    refusal.append("are on the same node and slot")
                    may_finish = False
                placed[(node, mesh.get("msh_slot", 0))] = mesh.name
            imported_parts = {(o["msh_node_index"], o.get("msh_slot", 0)) for o in scene.meshes()}
            flagged = any(n["index"] is not None and n["flags"] != int(source.nodes["flags"][n["index"]])
                          for n in nodes)
            return {"nodes": nodes, "same_structure": same_structure, "flagged": flagged, "refusal": refusal,
                    "may_finish": may_finish, "renamed": any(n["renamed"] for n in nodes),
                    "touched": {n["index"] for n in nodes if n["index"] is not None and not n["kept"]},
                    "parts": imported_parts, "labelled": labelled}

        def _check(self, model: Model, written: bytes, expect: dict) -> None:
            self.scene.relations_rebuilt()
            findings = [f for f in validate_model(model) if f.is_error]
            assert not findings, findings
            nodes = expect["nodes"]
            names = [model.node_name(i) for i in range(model.node_count)]
            assert sorted(names) == sorted(n["name"] for n in nodes), (names, [n["name"] for n in nodes])
            position = {name: i for i, name in enumerate(names)}
            at = {n["item"]: position[n["name"]] for n in nodes}  # bone or Empty -> node in the file
            labels = model.labels + [None] * (model.node_count - len(model.labels))
            source_labels = self.source.labels
            for n in nodes:
                i = position[n["name"]]
                parent = int(model.nodes["parent"][i])
                assert (None if parent == S.NO_INDEX else names[parent]) == n["parent"], n
                assert int(model.nodes["flags"][i]) == n["flags"], (n, int(model.nodes["flags"][i]))
                if n["index"] is None:
                    wanted = [None]
                elif n["renamed"] and expect["labelled"][n["index"]]:
                    wanted = [game_bytes(n["name"])]
                else:
                    wanted = [source_labels[n["index"]]]
                assert labels[i] in wanted, (n, labels[i], wanted)
            keeps = self._keeping(expect)
            self._check_poses(model, at, expect, keeps)
            self._check_parts(model, at, expect)
            old, new = read_animation(self.source).tracks, read_animation(model).tracks
            for n in nodes:
                if n["item"] in keeps:
                    was, now = old[n["index"]], new[position[n["name"]]]
                    assert (was.times.tobytes(), was.rot.tobytes(), was.pos.tobytes()) == \
                        (now.times.tobytes(), now.rot.tobytes(), now.pos.tobytes()), f"untouched {n} re-keyed"
                    if expect["same_structure"]:
                        assert same_track(was, now), f"untouched {n} lost its track"
            if not expect["same_structure"]:
                return
            kept = set(UNKNOWN_STREAMS)
            if not expect["renamed"]:
                kept |= {9, 10}
            if not expect["touched"]:
                kept |= {8, 19}
            full = {(int(i), s) for i in range(self.source.node_count) for s in range(15)
                    if self.source.nodes["slots"][i][s] != S.NO_INDEX}
            shown = full if self.slots == "ALL" else {(i, s) for i, s in full if s == 0}
            if expect["parts"] >= shown:
                kept |= set(GEOMETRY_STREAMS)
                if not expect["touched"] and not expect["flagged"]:
                    kept.add(1)
            old_streams = {s[0]: s for s in streams_of(self.source)}
            new_streams = {s[0]: s for s in streams_of(model)}
            for type_id in kept & set(old_streams):
                assert new_streams.get(type_id) == old_streams[type_id], f"Res{type_id} changed"
            if kept >= set(old_streams):
                assert written == self.data, "nothing edited, yet the file is not the source's bytes"
                self.stats["exports written unedited"] += 1

        def _keeping(self, expect: dict) -> set[str]:
            """The bones or Empties whose nodes keep their source tracks: each imported node nothing moved (no edit
            reached it, its own curves the import's: a copy made with Shift+D too, with its curves) under the node
            its source parent is; in a model rebuilt for a changed structure too (docs/manual/export.md;
            io_msh/exp/node_decisions.py _kept_tracks)."""
            nodes = expect["nodes"]
            if expect["same_structure"]:
                return {n["item"] for n in nodes if n["kept"]}
            if self.mode == "EMPTIES" and any(o.rotation_mode != "QUATERNION" and o.animation_data is not None
                                              for o in self.scene.empties()):
                self.stats["tracks kept not expected: a keyed Euler Empty (test_a_keyed_new_empty...)"] += 1
                return set()
            index_of = {n["item"]: n["index"] for n in nodes}
            parents = [None if p == S.NO_INDEX else int(p) for p in self.source.nodes["parent"]]
            keeps = set()
            for n in nodes:
                i = n["index"]
                if n["kept"]:
                    parent = index_of[n["parent_item"]] if n["parent_item"] is not None else None
                    if parent == parents[i] and (n["parent_item"] is None or parent is not None):
                        keeps.add(n["item"])
            return keeps

        def _check_parts(self, model: Model, at: dict[str, int], expect: dict) -> None:
            """Each mesh is a part on its node's slot with its vertices (in its node's space, at frame 0); slots the
            import did not make meshes for are kept with the imported structure; no other slot holds a part."""
            blender.evaluated_frame(0)
            worlds = self.scene.worlds()
            root_inverse = np.linalg.inv(np.array(self.scene.root.matrix_world))
            expected = {}
            for mesh in self.scene.meshes():
                node = mesh.parent_bone if self.mode == "ARMATURE" else self.scene.parent_of(mesh)
                co = np.array([[*v.co, 1.0] for v in mesh.data.vertices])
                to_node = np.linalg.inv(worlds[node]) @ root_inverse @ np.array(mesh.matrix_world)
                expected[(at[node], int(mesh.get("msh_slot", 0)))] = (co @ to_node.T)[:, :3]
            if expect["same_structure"] and self.slots == "CHOSEN":
                for i in range(self.source.node_count):
                    for slot in range(1, 15):
                        if self.source.nodes["slots"][i][slot] != S.NO_INDEX:
                            item = next(n["item"] for n in expect["nodes"] if n["index"] == i)
                            expected[(at[item], slot)] = part_vertices(self.source, i, slot)
            written = {(i, slot): part_vertices(model, i, slot) for i in range(model.node_count)
                       for slot in range(15) if model.nodes["slots"][i][slot] != S.NO_INDEX}
            written = {k: v for k, v in written.items() if len(v)}
            assert sorted(written) == sorted(expected), (sorted(written), sorted(expected))
            for key, want in expected.items():
                assert same_points(written[key], want, 1e-4), (key, "vertices")
            # Every imported part (or its copy) keeps its faces' materials, flags and UVs.
            for mesh in self.scene.meshes():
                node = mesh.parent_bone if self.mode == "ARMATURE" else self.scene.parent_of(mesh)
                slot = int(mesh.get("msh_slot", 0))
                got, was = part_faces(model, at[node], slot), part_faces(self.source, mesh["msh_node_index"], slot)
                assert got[:2] == was[:2], (mesh.name, "face materials and flags", got[:2], was[:2])
                assert same_points(got[2], was[2], 1e-3), (mesh.name, "UVs")
            if expect["same_structure"]:  # a part that sits on its node as imported: its slot byte for byte
                for mesh in self.scene.meshes():
                    node = mesh.parent_bone if self.mode == "ARMATURE" else self.scene.parent_of(mesh)
                    index, slot = mesh["msh_node_index"], int(mesh.get("msh_slot", 0))
                    if same_points(expected[(at[node], slot)], part_vertices(self.source, index, slot), 1e-6):
                        assert slot_content(model, index, slot) == slot_content(self.source, index, slot), mesh.name

        def _check_poses(self, model: Model, at: dict[str, int], expect: dict, kept: set[str]) -> None:
            """Every node's local pose (relative to its parent) at every integer frame of the source's (after the
            file's last frame: its last, which Blender must show then too): a node that keeps its track shows the
            source's game pose, every other one what Blender shows."""
            frames = np.arange(max(model.frame_count, FRAME_COUNT))
            game = game_locals(model, frames)
            source = game_locals(self.source, frames)
            parent_item = {n["item"]: n["parent_item"] for n in expect["nodes"]}
            index = {n["item"]: n["index"] for n in expect["nodes"]}
            worst = (0.0, None)
            for f in frames:
                blender.evaluated_frame(f)
                worlds = self.scene.worlds()
                for name, world in worlds.items():
                    parent = parent_item[name]
                    shown = world if parent is None else np.linalg.inv(worlds[parent]) @ world
                    if name in kept:
                        assert np.abs(game[at[name], f] - source[index[name], f]).max() < 1e-5, (name, f)
                        continue
                    error = float(np.abs(game[at[name], f] - shown).max())
                    worst = max(worst, (error, (name, int(f))), key=lambda w: w[0])
            assert worst[0] < SHOWN_TOLERANCE, f"node {worst[1][0]!r} at frame {worst[1][1]} is off by {worst[0]:.2e}"

        @invariant()
        def the_model_is_there(self):
            if hasattr(self, "scene"):
                assert "msh_model" in self.scene.root

    return CarelessModelEdits


def test_careless_model_edits_are_written_or_refused(blender, tmp_path, capfd):
    machine = model_sweep(blender, tmp_path, capfd)
    run_state_machine_as_test(machine, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=not RANDOM, database=None, deadline=None,
        suppress_health_check=list(HealthCheck)))
    with capfd.disabled():
        print(dict(machine.stats))


# ------------------------------------------------------------------------------------------------ regressions
# Found by the sweep and fixed meanwhile: a node's name written through archive-entry escapes (a typed c:\x42
# became c:B; a rebuild turned untouched gun\x41 into gunA) and a rebuild for a new node re-authoring untouched
# nodes from a Keys import's curves (their game pose changed), both facaa17/4bb3121; a bone copied with Shift+D
# written with its original's animation (a regression of facaa17, fixed in 9be2d7b); an untouched node's
# non-canonical frame map laid out canonically when a node before it got new keys; a keyed new Empty (Euler
# mode) sending every node to be keyed again from Blender.
BACKSLASH_NAMES = ["body", "gun\\x41", "a\\\\b"]  # as the file and Blender hold them: a backslash is a character


def backslash_model() -> bytes:
    """Three nodes whose names hold backslashes followed by what an archive entry name's escape looks like."""
    pos, tris = box()
    nodes = [NodeDef(game_bytes(BACKSLASH_NAMES[0])), *(NodeDef(game_bytes(n), 0) for n in BACKSLASH_NAMES[1:])]
    return build_model(ModelDef(nodes, [Part(0, pos, tris, uvs=box_uvs())], stream_name="slash.msh")).to_bytes()


def _imported(bpy, tmp_path, node_mode):
    path = tmp_path / "slash.msh"
    path.write_bytes(backslash_model())
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode) == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    items = list(root.data.bones) if root.type == "ARMATURE" else \
        [o for o in root.children_recursive if o.type == "EMPTY"]
    assert sorted(i.name for i in items) == sorted(BACKSLASH_NAMES)  # the import shows them as they are
    return root, {i.name: i for i in items}


def _written_names(bpy, tmp_path) -> list[str]:
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    model = Model.parse(out.read_bytes())
    return [model.node_name(i) for i in range(model.node_count)]


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_node_renamed_with_a_backslash_is_written_as_typed(blender, tmp_path, node_mode):
    _root, items = _imported(blender.bpy, tmp_path, node_mode)
    items["body"].name = "c:\\x42"
    assert _written_names(blender.bpy, tmp_path)[0] == "c:\\x42"


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_rebuilt_model_keeps_the_names_of_the_nodes_not_renamed(blender, tmp_path, node_mode):
    bpy = blender.bpy
    root, _items = _imported(bpy, tmp_path, node_mode)
    if node_mode == "ARMATURE":
        bpy.context.view_layer.objects.active = root
        bpy.ops.object.mode_set(mode="EDIT")
        bone = root.data.edit_bones.new("added")
        bone.head, bone.tail = (0, 0, 0), (0, 0, 1)
        bpy.ops.object.mode_set(mode="OBJECT")
    else:
        added = bpy.data.objects.new("added", None)
        bpy.context.scene.collection.objects.link(added)
        added.parent = root
    assert _written_names(bpy, tmp_path) == [*BACKSLASH_NAMES, "added"]


def turning_model(canonical: bool) -> bytes:
    """A body and a turret that turns 120 degrees between two keys (then back), with a part on each; the map
    made non-canonical (every third frame one key back, as tests/fixtures.py does) unless ``canonical``."""
    tracks = [Track.static(), _track([0, 6, 11], [[1.0, 0, 0]] * 3, 2, [0, 2.1, 0.3])]
    pos, tris = box()
    parts = [Part(0, pos, tris, uvs=box_uvs()), Part(1, pos * 0.5, tris, uvs=box_uvs())]
    data = build_model(ModelDef([NodeDef("body"), NodeDef("turret", 0)], parts, Animation(FRAME_COUNT, tracks),
                                stream_name="turning.msh")).to_bytes()
    return data if canonical else non_canonical(data)


@pytest.mark.parametrize("canonical", [True, False], ids=["canonical", "non-canonical"])
@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_new_node_keeps_the_game_pose_of_an_untouched_node_imported_with_keys(blender, tmp_path, node_mode,
                                                                                canonical):
    bpy = blender.bpy
    data = turning_model(canonical)
    path = tmp_path / "turning.msh"
    path.write_bytes(data)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode, animation="KEYS") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    scene = Scene(blender, root.name, node_mode)
    if node_mode == "ARMATURE":
        bone = scene.edit_bones().new("added")
        bone.head, bone.tail = (0, 0, 0), (0, 0, 1)
        scene.leave_edit_mode()
    else:
        added = bpy.data.objects.new("added", None)
        bpy.context.scene.collection.objects.link(added)
        added.parent = root
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    frames = np.arange(FRAME_COUNT, dtype=np.float64)
    was = world_matrices_at(AnimationData.from_model(Model.parse(data)), frames, normalize=True)
    now = world_matrices_at(AnimationData.from_model(Model.parse(out.read_bytes())), frames, normalize=True)
    assert np.abs(now[:2] - was).max() < SHOWN_TOLERANCE  # body and turret, as the game shows them


def copy_bone(scene: Scene, name: str) -> str:
    """Shift+D of one bone in Edit Mode; the copy's name."""
    bones = scene.edit_bones()
    for bone in bones:
        bone.select = bone.select_head = bone.select_tail = bone.name == name
    bones.active = bones[name]
    assert scene.bpy.ops.armature.duplicate() == {"FINISHED"}
    copy = bones.active.name
    scene.leave_edit_mode()
    return copy


@pytest.mark.parametrize("animation", ["KEYS", "FAITHFUL"])
def test_a_bone_copied_with_shift_d_is_written_as_blender_shows_it(blender, tmp_path, animation):
    bpy = blender.bpy
    path = tmp_path / "turning.msh"
    path.write_bytes(turning_model(canonical=True))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode="ARMATURE", animation=animation) == \
        {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    scene = Scene(blender, root.name, "ARMATURE")
    copy = copy_bone(scene, "turret")
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    model = Model.parse(out.read_bytes())
    index = [model.node_name(i) for i in range(model.node_count)].index(copy)
    game = world_matrices_at(AnimationData.from_model(model), np.arange(FRAME_COUNT, dtype=np.float64),
                             normalize=True)[index]
    worst = 0.0
    for frame in range(FRAME_COUNT):
        blender.evaluated_frame(frame)
        worst = max(worst, float(np.abs(game[frame] - scene.worlds()[copy]).max()))
    assert worst < SHOWN_TOLERANCE  # Blender shows the copy still, at the turret's rest


def test_a_keyed_new_empty_keeps_the_exact_keys_of_the_untouched_nodes(blender, tmp_path):
    bpy = blender.bpy
    data = turning_model(canonical=True)
    path = tmp_path / "turning.msh"
    path.write_bytes(data)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode="EMPTIES", animation="KEYS") == \
        {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    added = bpy.data.objects.new("added", None)  # rotation mode XYZ Euler, as every new Empty
    bpy.context.scene.collection.objects.link(added)
    added.parent = root
    for frame, x in ((0, 0.0), (6, 0.5)):
        added.location.x = x
        added.keyframe_insert("location", index=0, frame=frame)
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    model = Model.parse(out.read_bytes())
    assert [model.node_name(i) for i in range(3)] == ["body", "turret", "added"]
    was, now = read_animation(Model.parse(data)).tracks[1], read_animation(model).tracks[1]
    assert (was.times.tobytes(), was.rot.tobytes(), was.pos.tobytes()) == \
        (now.times.tobytes(), now.rot.tobytes(), now.pos.tobytes())  # the turret's exact keys (docs/manual/export.md)


@pytest.mark.parametrize("node_mode", ["EMPTIES", "ARMATURE"])
def test_a_key_moved_keeps_the_frame_maps_of_the_untouched_nodes(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = tank_bytes("non-canonical")
    path = tmp_path / "tank.msh"
    path.write_bytes(data)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode, animation="FAITHFUL") == \
        {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    scene = Scene(blender, root.name, node_mode)
    (fcurve,) = [fc for fc, node, _owner, path in blender.ext.io_msh.com.curves.node_fcurves(root)
                 if node == 4 and path.lstrip(".") == "location" and fc.array_index == 2]  # the wheel, node 4
    for point in fcurve.keyframe_points:
        point.co[1] += 0.25
    fcurve.update()
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    source, model = Model.parse(data), Model.parse(out.read_bytes())
    frames = np.arange(FRAME_COUNT)
    assert scene.item("wheel")  # the node edited; nodes 0 to 2 come before it and are untouched
    assert np.abs(game_locals(model, frames)[:3] - game_locals(source, frames)[:3]).max() < 1e-6
