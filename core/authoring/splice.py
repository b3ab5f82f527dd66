"""Replacing some slots of a model's geometry and keeping every other one as the source has it.

An edit of one part must not touch the rest: every slot record that is still used (or was never used) keeps
its triangles, batches, indices, vertices and every per-vertex stream byte for byte (only the offsets that
place it in the streams move, and they move only when an earlier slot changed size); the slot records of
the parts given are built as ``core.authoring.build`` builds them. The Res2 header is kept unless a new part reaches
outside its hull or sphere. msh-core.md 8.3 lists what an edit of each kind has to update.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..animation.tracks import Animation
from ..errors import FormatError
from ..msh import streams as S
from ..msh.model import Model
from .build import SLOT_VOLUME, Part, geometry_streams, model_header, rest_world

VERTEX_STREAMS = tuple(t for t, spec in S.SPECS.items() if spec.per_vertex)  # 3, 4, 5, 15, 16, 18
EXTRA_VERTEX_STREAMS = (15, 16, 18)  # Blender does not hold them: a new part takes them from ``NewPart``


@dataclass
class NewPart:
    """A part that replaces (or adds) the slot at ``part.node``, ``part.slot``. ``vertex_streams``: records of
    the per-vertex streams the scene does not hold (Res15, Res16, Res18), one per vertex of the part, when the
    part's vertices are still the source's; ``label`` names it in errors."""

    part: Part
    vertex_streams: dict[int, np.ndarray] | None = None
    label: str = ""
    # The slot record's unk30..unk40 to keep (those of the slot it replaces), but for the volume at +0x34,
    # which is computed from the new geometry; None: a new slot (area 0, see core.authoring.build).
    unknown: np.ndarray | None = None


@dataclass
class _Streams:
    slots: list
    triangles: list
    batches: list
    indices: list
    vertices: dict[int, list]
    tri_base: int = 0
    batch_base: int = 0
    index_base: int = 0
    vertex_base: int = 0


def splice_slots(source: Model, new_parts: list[NewPart], removed: Iterable[tuple[int, int]] = (),
                 animation: Animation | None = None) -> Model:
    """A copy of ``source`` whose node slots given by ``new_parts`` (node, slot position) hold the new parts,
    whose slots in ``removed`` are empty, and whose other slots are the source's, byte for byte.

    ``animation`` gives the rest pose for the Res2 header, needed only when a new part reaches outside it.
    Raises FormatError when the result cannot be written (a per-vertex stream the new part cannot fill, a
    16-bit range exceeded).
    """
    removed = set(removed)
    model = Model.parse(source.to_bytes(), source.name)
    nodes = model.nodes.copy()
    if source.is_legacy:
        raise FormatError.single("Res1", None, "the node table is not the 38-byte layout: its slots cannot be "
                                               "edited", source.name)
    old_slots, vertex_count = source.slots, source.vertex_count
    present = [t for t in VERTEX_STREAMS if source.stream(t) is not None]
    for type_id in present:
        count = len(source.data(type_id)) // S.SPECS[type_id].dtype.itemsize
        if count != vertex_count or len(source.data(type_id)) % S.SPECS[type_id].dtype.itemsize:
            raise FormatError.single(S.label(type_id), None, f"{count} records for {vertex_count} vertices: the "
                                                             "vertices of the parts cannot be told apart, so no "
                                                             "part can be edited alone", source.name)
    replaced = {(p.part.node, p.part.slot): p for p in new_parts}
    for node, position in [*replaced, *removed]:
        if not 0 <= node < len(nodes) or not 0 <= position < 15:
            raise FormatError.single("Res1", node, f"node {node}, slot position {position}: no such slot",
                                     source.name)
    still_used = {int(nodes[n]["slots"][p]) for n in range(len(nodes)) for p in range(15)
                  if (n, p) not in replaced and (n, p) not in removed} - {S.NO_INDEX}
    ever_used = {int(s) for s in nodes["slots"].reshape(-1)} - {S.NO_INDEX}
    # A new part takes the place of the record it replaces, when no other node slot still uses that record.
    in_place = {}
    for key, new in replaced.items():
        old = int(nodes[key[0]]["slots"][key[1]])
        if old != S.NO_INDEX and old not in still_used and old not in in_place and old < len(old_slots):
            in_place[old] = new
    out = _Streams([], [], [], [], {t: [] for t in present})
    new_index: dict[int, int] = {}   # source record -> output record
    # source triangle -> output triangle (for neighbour links); the last element maps NO_INDEX and links to
    # triangles that are not kept
    tri_map = np.full(max(len(source.triangles), S.NO_INDEX) + 1, S.NO_INDEX, np.int64)
    pending_links = []
    placed: dict[tuple[int, int], int] = {}
    for record in range(len(old_slots)):
        if record in in_place:
            new = in_place[record]
            placed[(new.part.node, new.part.slot)] = len(out.slots)
            _add_new(out, new, present, nodes, source.name)
        elif record in still_used or record not in ever_used:
            new_index[record] = len(out.slots)
            pending_links.append(_copy_record(out, source, old_slots[record], present, tri_map))
    for key, new in replaced.items():
        if key not in placed:
            placed[key] = len(out.slots)
            _add_new(out, new, present, nodes, source.name)
    triangles = np.concatenate(out.triangles) if out.triangles else np.zeros(0, S.TRIANGLE)
    for start, links in pending_links:  # links of copied triangles: to the same triangles where they now are
        triangles["links"][start:start + len(links)] = tri_map[links.astype(np.int64)]
    for n in range(len(nodes)):
        for p in range(15):
            old = int(nodes[n]["slots"][p])
            if (n, p) in placed:
                nodes[n]["slots"][p] = placed[(n, p)]
            elif (n, p) in removed or old == S.NO_INDEX:
                nodes[n]["slots"][p] = S.NO_INDEX
            else:
                nodes[n]["slots"][p] = new_index.get(old, S.NO_INDEX)
    if out.tri_base > 0xFFFF or out.batch_base > 0xFFFF:
        raise FormatError.single("Res7", None, f"{out.tri_base} triangles in {out.batch_base} batches exceed "
                                               "16-bit ranges", source.name)
    slots = np.concatenate(out.slots) if out.slots else np.zeros(0, S.SLOT)
    header = _kept_header(source, model, nodes, slots, out, present, [n.part for n in new_parts], animation)
    _set(model, 1, nodes.tobytes())
    _set(model, 2, header + slots.tobytes(), count=len(slots))
    _set(model, 7, triangles.tobytes(), stride=16, only_if_present=True)
    _set(model, 13, _joined(out.batches, S.BATCH).tobytes(), stride=20)
    _set(model, 6, _joined(out.indices, S.INDEX).tobytes(), stride=2)
    for type_id in present:
        _set(model, type_id, b"".join(np.ascontiguousarray(a).tobytes() for a in out.vertices[type_id]),
             stride=S.SPECS[type_id].dtype.itemsize)
    return model


def _joined(arrays: list, dtype: np.dtype) -> np.ndarray:
    return np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype)


def _set(model: Model, type_id: int, data: bytes, count: int | None = None, stride: int = 0,
         only_if_present: bool = False) -> None:
    entry = model.stream(type_id)
    if entry is None and only_if_present:
        return
    if entry is not None and bytes(entry.data) == data:
        return
    model.set_stream(type_id, data, attr1=count if count is not None else len(data) // stride if stride else None)


def _copy_record(out: _Streams, source: Model, slot: np.void, present: list[int], tri_map: np.ndarray) -> tuple:
    """Append one slot record of the source with its triangles, batches, indices and vertices, bytes as
    they are; returns where its triangles' neighbour links are to be mapped."""
    batches = source.batches[int(slot["batch_start"]):int(slot["batch_start"]) + int(slot["batch_count"])].copy()
    indices = source.indices
    first = [int(b["index_start"]) for b in batches]
    ends = [int(b["index_start"]) + int(b["index_count"]) for b in batches]
    index_low, index_high = (min(first), max(ends)) if len(batches) else (0, 0)
    chunk_indices = indices[index_low:index_high].copy()
    used = [indices[a:e].astype(np.int64) + int(b["base_vertex"]) for a, e, b in zip(first, ends, batches)]
    used = [u for u in used if len(u)]
    vertex_low = min(int(u.min()) for u in used) if used else 0
    vertex_high = max(int(u.max()) for u in used) + 1 if used else 0
    shift = vertex_low - out.vertex_base
    if any(int(b["base_vertex"]) < shift for b in batches):
        # A base vertex would fall below 0 (indices counted from an earlier vertex): each batch gets its own
        # copy of its indices, lowered by that much (they all stay >= 0), and base vertex 0.
        pieces = []
        for batch, a, e in zip(batches, first, ends):
            lowered = min(0, int(batch["base_vertex"]) - shift)
            pieces.append((indices[a:e].astype(np.int64) + lowered).astype(np.uint16))
            batch["base_vertex"] = int(batch["base_vertex"]) - shift - lowered
            batch["index_start"] = out.index_base + sum(len(p) for p in pieces[:-1])
        chunk_indices = np.concatenate(pieces) if pieces else np.zeros(0, np.uint16)
    else:
        for batch in batches:
            batch["base_vertex"] = int(batch["base_vertex"]) - shift
            batch["index_start"] = int(batch["index_start"]) - index_low + out.index_base
    for type_id in present:
        records = S.records(source.data(type_id), S.SPECS[type_id].dtype)
        out.vertices[type_id].append(records[vertex_low:vertex_high])
    start, count = int(slot["tri_start"]), int(slot["tri_count"])
    triangles = source.triangles[start:start + count].copy()
    first_copy = tri_map[start:start + len(triangles)] == S.NO_INDEX
    tri_map[start:start + len(triangles)][first_copy] = (out.tri_base + np.arange(len(triangles)))[first_copy]
    record = np.array([slot], S.SLOT)
    record["tri_start"], record["batch_start"] = out.tri_base, out.batch_base
    where = (out.tri_base, triangles["links"].copy())
    out.slots.append(record)
    out.triangles.append(triangles)
    out.batches.append(batches)
    out.indices.append(chunk_indices)
    out.tri_base += len(triangles)
    out.batch_base += len(batches)
    out.index_base += len(chunk_indices)
    out.vertex_base += vertex_high - vertex_low
    return where


def _add_new(out: _Streams, new: NewPart, present: list[int], nodes: np.ndarray, model_name: str) -> None:
    part = new.part
    template = np.zeros(len(nodes), S.NODE)
    template["slots"] = S.NO_INDEX
    built = geometry_streams([part], template)
    vertices = len(built["positions"])
    for type_id in present:
        records = {3: built["positions"], 4: built["normals"], 5: built["uvs"]}.get(type_id)
        if records is None:
            records = (new.vertex_streams or {}).get(type_id)
            if records is None or len(records) != vertices:
                raise FormatError.single(S.label(type_id), None, f"{new.label or 'a new part'}: its faces or "
                                                                 "vertex count changed, but the model's "
                                                                 f"{S.SPECS[type_id].label} ({S.label(type_id)}) "
                                                                 "holds a value for each imported vertex, which "
                                                                 "Blender does not show and cannot make for new "
                                                                 "ones; move vertices only, without adding or "
                                                                 "removing any", model_name)
        dtype = S.SPECS[type_id].dtype
        out.vertices[type_id].append(np.asarray(records, dtype.base).reshape(vertices, *dtype.shape))
    triangles = built["triangles"]
    links = triangles["links"]
    triangles["links"] = np.where(links == S.NO_INDEX, links, links + out.tri_base)
    batches = built["batches"]
    batches["index_start"] += out.index_base
    batches["base_vertex"] += out.vertex_base
    slot = built["slots"]
    slot["tri_start"], slot["batch_start"] = out.tri_base, out.batch_base
    if new.unknown is not None:
        volume = slot["unknown"][0, SLOT_VOLUME]
        slot["unknown"] = new.unknown
        slot["unknown"][0, SLOT_VOLUME] = volume
    out.slots.append(slot)
    out.triangles.append(triangles)
    out.batches.append(batches)
    out.indices.append(built["indices"])
    out.tri_base += len(triangles)
    out.batch_base += len(batches)
    out.index_base += len(built["indices"])
    out.vertex_base += vertices


def _kept_header(source: Model, model: Model, nodes: np.ndarray, slots: np.ndarray, out: _Streams,
                 present: list[int], parts: list[Part], animation: Animation | None) -> bytes:
    """The source's Res2 header, unless a new part's rest-pose points lie outside its hull box or sphere: then
    one around every slot's points, as core.authoring.build makes it."""
    data = source.data(2)
    kept = bytes(data[:S.HEADER_SIZE]) if len(data) >= S.HEADER_SIZE else bytes(S.HEADER_SIZE)
    if not parts or animation is None:
        return kept
    rest = rest_world(animation, nodes["parent"])
    header = np.frombuffer(kept, S.MODEL_HEADER, count=1)[0]
    hull = header["hull"].astype(np.float64)
    low, high = hull.min(axis=0), hull.max(axis=0)
    center, radius = header["sphere"][:3].astype(np.float64), float(header["sphere"][3])
    points = np.concatenate([_world(rest, p.node, np.asarray(p.positions, np.float64).reshape(-1, 3))
                             for p in parts])
    tolerance = 1e-5 * max(1.0, float(np.abs(hull).max(initial=0)))
    inside = (points >= low - tolerance).all() and (points <= high + tolerance).all() and \
        (np.linalg.norm(points - center, axis=1) <= radius + tolerance).all()
    if inside:
        return kept
    positions = np.concatenate(out.vertices[3]) if 3 in present and out.vertices[3] else np.zeros((0, 3))
    batches, indices = _joined(out.batches, S.BATCH), _joined(out.indices, S.INDEX)
    every = []
    for n in range(len(nodes)):
        for record in {int(s) for s in nodes[n]["slots"]} - {S.NO_INDEX}:
            slot = slots[record]
            for b in batches[int(slot["batch_start"]):int(slot["batch_start"]) + int(slot["batch_count"])]:
                used = indices[int(b["index_start"]):int(b["index_start"]) + int(b["index_count"])].astype(np.int64)
                every.append(Part(n, positions[used + int(b["base_vertex"])], np.zeros((0, 3), np.int64)))
    return model_header(every, rest).tobytes()


def _world(rest: np.ndarray, node: int, points: np.ndarray) -> np.ndarray:
    return points @ rest[node][:3, :3].T + rest[node][:3, 3]
