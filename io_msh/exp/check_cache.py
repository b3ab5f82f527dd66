"""What the export checks of a model read and planned, kept for the next check (the panel's Check button and
its live check share it): the F-curves' keys, each mesh object's ``read_mesh``, each node's
authored track and the import's geometry plan. The export itself never uses it: it reads everything fresh.

A part is reused only when it provably did not change:
- F-curves: Blender tags an action on every change to its keys, handles or interpolation, on a bone rename
  (its paths) and when it is assigned (seen through ``depsgraph_update_post``, and through ``frame_change_post``
  too: a script's edit that a ``frame_set`` evaluates reaches no ``depsgraph_update_post``; ``note_updates``).
  The keys of an action tagged since the last check are read again, all of them; its curves whose arrays are
  byte for byte the ones kept are kept as read (with their evaluation reading). The cheap settings of every
  curve (paths, key count, extrapolation, muting, modifiers, group muting) are read at every check. Keys a
  script set with ``foreach_set`` and no ``fcurve.update()`` are tagged by nothing (Blender's viewport misses
  them too): a check with the cache misses them as well.
- Mesh objects without modifiers or shape keys, none of the model's objects in Edit Mode: their ``read_mesh``
  is kept while neither the object's geometry nor its mesh was tagged, the object and mesh are the same
  data-blocks, the mesh as stored is byte for byte the one kept, and its materials are the evaluated copies of
  the object's slots' (these are read at every check). What the stored arrays leave out (face materials and
  shading, face flags, the active UV map) is read from Blender's evaluated mesh, which changes only when the
  mesh is tagged.
- Tracks and the geometry plan are pure functions of what they are keyed on (the exact bytes of the poses, the
  source model), kept from the last check only.
A file load, an undo or a redo forgets everything (``forget``)."""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field

import numpy as np

from ...core.errors import FormatError
from ..com.curves import Curve, curve_settings, node_fcurves, read_curve
from ..com.hierarchy import descendants
from ..com.sliders import slider_drivers
from .meshes import read_mesh, stored_geometry
from .poses import read_evaluation, read_handles


@dataclass
class _Dirty:
    """What Blender tagged since the last check: data-blocks by (type, full name)."""

    everything: bool = True
    ids: set = field(default_factory=set)          # every updated data-block
    geometry: set = field(default_factory=set)     # objects whose geometry was updated


_DIRTY = _Dirty()
_CACHES: dict[str, CheckCache] = {}


def note_updates(depsgraph) -> None:
    """Record the data-blocks a depsgraph update changed (the panel's ``depsgraph_update_post`` handler)."""
    for update in depsgraph.updates:
        key = _id_key(update.id.original)
        _DIRTY.ids.add(key)
        if update.is_updated_geometry:
            _DIRTY.geometry.add(key)


def forget() -> None:
    """Drop everything kept (a file loaded, an undo or redo: Blender's data is replaced)."""
    _CACHES.clear()
    _DIRTY.everything = True


def cache_for(context, root_name: str) -> CheckCache:
    """The cache of the model under ``root_name``, with what changed since the last check taken in. Blender's
    pending changes are evaluated first, so that their tags are seen."""
    context.evaluated_depsgraph_get()
    cache = _CACHES.setdefault(root_name, CheckCache())
    for other in _CACHES.values():
        other.take(_DIRTY)
    _DIRTY.everything, _DIRTY.ids, _DIRTY.geometry = False, set(), set()
    return cache


def kept_counts(root_name: str) -> dict[str, int]:
    """The curves and meshes the last check of the model read again (none kept: nothing)."""
    cache = _CACHES.get(root_name)
    return dict(cache.counts) if cache is not None else {}


def _id_key(id_block) -> tuple[str, str]:
    return type(id_block).__name__, id_block.name_full


def _bytes(*arrays) -> tuple[bytes, ...]:
    return tuple(np.ascontiguousarray(a).tobytes() if a is not None else b"" for a in arrays)


@dataclass
class _KeptCurve:
    where: tuple          # (action pointer, F-curve pointer, node, handle, path, index, key count)
    cheap: tuple          # (settings, group muted)
    keys: tuple           # the bytes of co, handles and interpolation
    curve: Curve


@dataclass
class _KeptMesh:
    blocks: tuple         # (object pointer, mesh pointer, mesh name)
    stored: tuple         # the bytes of the mesh as stored
    read: tuple           # read_mesh's result


class CheckCache:
    """What the last checks of one model read and planned (see the module's docstring). The Check button and
    the live check share it (both on Blender's main thread; the plan memo also from the live check's worker)."""

    def __init__(self) -> None:
        self.everything = True
        self.ids: set = set()
        self.geometry: set = set()
        self.curves: dict[tuple, _KeptCurve] = {}
        self.meshes: dict[str, _KeptMesh] = {}
        self.memo = PlanMemo()
        self.counts = {"curves read": 0, "meshes read": 0}  # the last read's re-reads (the tests look)

    def take(self, dirty: _Dirty) -> None:
        self.everything |= dirty.everything
        self.ids |= dirty.ids
        self.geometry |= dirty.geometry

    def _changed(self, id_block) -> bool:
        return self.everything or _id_key(id_block) in self.ids

    def start(self) -> None:
        """A new read of the model begins (``counts`` from zero)."""
        self.counts.update({"curves read": 0, "meshes read": 0})

    def curve(self, fcurve, target: int, owner: str, path: str) -> Curve:
        """``read_curve`` of one of ``node_fcurves`` with ``read_evaluation``, kept when it did not change."""
        action = fcurve.id_data
        points = fcurve.keyframe_points
        where = (action.as_pointer(), fcurve.as_pointer(), target, owner, path, fcurve.array_index, len(points))
        cheap = (curve_settings(fcurve.extrapolation, fcurve.mute, len(fcurve.modifiers)),
                 bool(fcurve.group and fcurve.group.mute))
        old = self.curves.get(where[:6])
        same = old is not None and old.where == where and old.cheap == cheap
        if same and self._changed(action):
            same = _keys(points) == old.keys
        if not same:
            curve = read_curve(fcurve, target, owner, path)
            read_evaluation(curve, fcurve)
            old = _KeptCurve(where, cheap, _bytes(curve.co, curve.left, curve.right, curve.interpolation), curve)
            self.curves[where[:6]] = old
            self.counts["curves read"] += 1
        return old.curve

    def read_curves(self, root) -> list[Curve]:
        """``read_curves(root)`` with ``read_evaluation`` of each, reusing what is kept."""
        out = [self.curve(*where) for where in node_fcurves(root)]
        wanted = {id(curve) for curve in out}
        self.curves = {k: v for k, v in self.curves.items() if id(v.curve) in wanted}
        return out

    def mesh(self, obj, depsgraph) -> tuple:
        """``read_mesh(obj, depsgraph)``, kept when it did not change (not for objects with modifiers or shape
        keys: read every time). Raises FormatError as ``read_mesh`` does."""
        if obj.modifiers or obj.data.shape_keys is not None:
            self.meshes.pop(obj.name, None)
            self.counts["meshes read"] += 1
            return read_mesh(obj, depsgraph)
        blocks = (obj.as_pointer(), obj.data.as_pointer(), obj.data.name_full)
        stored = _bytes(*stored_geometry(obj.data))
        # read_mesh's materials are the evaluated copies of the object's slots' (read at every check)
        slots = [s.material.evaluated_get(depsgraph) if s.material is not None else None
                 for s in obj.material_slots]
        old = self.meshes.get(obj.name)
        if (old is None or old.blocks != blocks or old.stored != stored or self._changed(obj.data)
                or self.everything or _id_key(obj) in self.geometry):
            self.meshes.pop(obj.name, None)
            read = read_mesh(obj, depsgraph)
            self.counts["meshes read"] += 1
            if _pointers(read[1]) != _pointers(slots):  # materials not the object's slots: not kept
                return read
            old = self.meshes[obj.name] = _KeptMesh(blocks, stored, read)
        split, _slots, stored_arrays = old.read
        return split, slots, stored_arrays

    def read_meshes(self, context, root) -> dict | None:
        """``read_mesh`` of the root's mesh objects (by name) from the user's depsgraph, reusing what is kept;
        None for a model with slider drivers (the read mutes them, and reads the meshes itself). One that cannot
        be read is left to the check, which refuses it as the export does."""
        if slider_drivers(root):
            self.meshes = {}
            return None
        depsgraph = context.evaluated_depsgraph_get()
        out = {}
        for obj in descendants(root):
            if obj.type == "MESH":
                try:
                    out[obj.name] = self.mesh(obj, depsgraph)
                except FormatError:
                    continue
        self.meshes = {name: kept for name, kept in self.meshes.items() if name in out}
        return out

    def done(self) -> None:
        """A read ended with every part read or checked against what changed before it began: those changes
        are taken into account (later ones wait in the module's record)."""
        self.everything, self.ids, self.geometry = False, set(), set()


def _pointers(blocks: list) -> list[int]:
    return [b.as_pointer() if b is not None else 0 for b in blocks]


def _keys(points) -> tuple[bytes, ...]:
    """The bytes of what ``read_curve`` and ``read_evaluation`` read of the keys (handles only for a curve with
    Bezier keys: the others never read one)."""
    count = len(points)
    co, interpolation = np.empty(2 * count, np.float32), np.empty(count, np.int32)
    points.foreach_get("co", co)
    points.foreach_get("interpolation", interpolation)
    return _bytes(co, *read_handles(points, co, interpolation), interpolation)


class PlanMemo:
    """Pure results of the planning kept from one check to the next, by the exact bytes of their inputs. The
    tracks used by the last two checks are kept (the live check's and the Check button's)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tracks: dict = {}    # key -> [track, the last check that used it]
        self._check = 0
        self._geometry: tuple | None = None

    def tracks(self, rot: np.ndarray, pos: np.ndarray, common: tuple, author) -> list:
        """``author(rot, pos)`` per node (its result is per node: the key reduction of one node does not depend
        on the others'), computed only for the nodes whose poses are not byte for byte kept."""
        keys = [(common, r.tobytes(), p.tobytes()) for r, p in
                zip(np.ascontiguousarray(rot), np.ascontiguousarray(pos))]
        with self._lock:
            found = {i: self._tracks[k][0] for i, k in enumerate(keys) if k in self._tracks}
        missing = [i for i in range(len(keys)) if i not in found]
        if missing:
            found.update(zip(missing, author(rot[missing], pos[missing])))
        with self._lock:
            for i, k in enumerate(keys):
                self._tracks[k] = [found[i], self._check]
        return [copy.deepcopy(found[i]) for i in range(len(keys))]

    def geometry(self, key: tuple, plan):
        """``plan()`` (the import's geometry plan of the source), kept while ``key`` is the same."""
        kept = self._geometry
        if kept is None or kept[0] != key:
            kept = self._geometry = (key, plan())
        return kept[1]

    def next_check(self) -> None:
        """A check ended: keep the tracks it or the one before it used."""
        with self._lock:
            self._check += 1
            self._tracks = {k: v for k, v in self._tracks.items() if v[1] >= self._check - 2}
