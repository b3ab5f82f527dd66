"""Validation of a model: msh-core.md section 7 and msh-animation.md section 9.

Checks the runtime needs are errors; the "canonical" recommendations are
warnings. Each check reads only whole records, so any bytes validate
without an exception; findings carry the stream label and record index.
"""

from __future__ import annotations

import numpy as np

from ..errors import Finding, error, warning
from . import streams as S
from .labels import LabelError, decode_labels, inner_nul_labels
from .model import Model

NONE = S.NO_INDEX
# Per-vertex streams whose record count is the vertex count on every retail model: Res4, Res5 (all 435) and
# Res18 (all 21 lightmapped ones; spec/retail-envelope.md 4.5, 4.6). Res15's content and count are unmeasured.
PER_VERTEX_MEASURED = (4, 5, 18)


def validate_model(model: Model) -> list[Finding]:
    findings = list(model.archive.findings)
    findings += _check_directory(model)
    findings += _check_strides(model)
    findings += _check_header_and_slots(model)
    findings += _check_geometry(model)
    findings += _check_names(model)
    if model.is_legacy:
        findings.append(warning("Res1", None, "legacy 24-byte node table: kept as data, "
                                              "nodes and animation not interpreted"))
    elif model.stream(1) is not None and model.node_stride == S.NODE.itemsize:
        findings += _check_nodes(model)
        findings += check_animation(model)
    return findings


# --------------------------------------------------------------------- directory
def _check_directory(model: Model) -> list[Finding]:
    out = []
    seen: set[int] = set()
    for i, entry in enumerate(model.archive.entries):
        if entry.type_id in seen:
            out.append(warning(S.label(entry.type_id), None,
                               f"duplicate stream (entry {i}); the runtime uses the first"))
        seen.add(entry.type_id)
        if entry.type_id not in S.SPECS:
            out.append(warning(S.label(entry.type_id), None, f"unknown stream type {entry.type_id}, kept raw"))
    for spec in S.SPECS.values():
        if spec.required and spec.type_id not in seen:
            out.append(error(S.label(spec.type_id), None, f"required stream ({spec.label}) is missing"))
    return out


def _check_strides(model: Model) -> list[Finding]:
    out = []
    for type_id, spec in S.SPECS.items():
        entry = model.stream(type_id)
        if entry is None:
            continue
        name = S.label(type_id)
        if type_id == 1:
            if entry.attr3 not in S.NODE_STRIDES:
                out.append(error(name, None, f"node stride (attr3) {entry.attr3} is neither 38 nor 24"))
                continue
            stride = entry.attr3
            if entry.size % stride:
                out.append(error(name, None, f"size {entry.size} is not a multiple of the node stride {stride}"))
            if entry.attr1 != entry.size // stride:
                out.append(warning(name, None,
                                   f"attr1 {entry.attr1} differs from the node count {entry.size // stride}"))
            continue
        if spec.dtype is None:
            continue
        stride = spec.dtype.itemsize
        if entry.size % stride:
            out.append(error(name, None, f"size {entry.size} is not a multiple of the record size {stride}"))
        if spec.attr3 is not None and entry.attr3 != spec.attr3:
            out.append(error(name, None, f"attr3 {entry.attr3}, expected {spec.attr3}"))
        if type_id != 9 and entry.attr1 != entry.size // stride:
            out.append(warning(name, None, f"attr1 {entry.attr1} differs from the record count {entry.size // stride}"))
        if type_id in (8, 3, 4, 5, 6, 7, 13, 15, 16, 18) and entry.attr2 != 0:
            out.append(warning(name, None, f"attr2 {entry.attr2}, expected 0"))
    return out


# --------------------------------------------------------------------- Res2
def _check_header_and_slots(model: Model) -> list[Finding]:
    entry = model.stream(2)
    if entry is None:
        return []
    out = []
    if entry.size < S.HEADER_SIZE:
        return [error("Res2", None, f"size {entry.size} is smaller than the {S.HEADER_SIZE}-byte model header")]
    tail = (entry.size - S.HEADER_SIZE) % S.SLOT.itemsize
    if tail:
        out.append(error("Res2", None, f"slot table size {entry.size - S.HEADER_SIZE} is not a multiple of 68"))
    slots = model.slots
    if entry.attr1 != len(slots):
        out.append(error("Res2", None, f"attr1 {entry.attr1} differs from the slot count {len(slots)}"))
    if entry.attr3 != S.SLOT.itemsize:
        out.append(error("Res2", None, f"attr3 {entry.attr3}, expected 68"))
    batch_count, tri_count = len(model.batches), len(model.triangles)
    ends = slots["batch_start"].astype(np.int64) + slots["batch_count"]
    for i in np.flatnonzero(ends > batch_count):
        out.append(error("Res2", int(i), f"slot batches [{slots['batch_start'][i]}, {ends[i]}) "
                                         f"exceed the batch count {batch_count}"))
    ends = slots["tri_start"].astype(np.int64) + slots["tri_count"]
    for i in np.flatnonzero(ends > tri_count):
        out.append(error("Res2", int(i), f"slot triangles [{slots['tri_start'][i]}, {ends[i]}) "
                                         f"exceed the triangle count {tri_count}"))
    return out


# --------------------------------------------------------------------- geometry
def _check_geometry(model: Model) -> list[Finding]:
    out = []
    vertex_count = model.vertex_count
    for type_id, spec in S.SPECS.items():
        if spec.per_vertex and type_id != 3 and model.stream(type_id) is not None:
            count = len(model.records(type_id, spec.dtype))
            if count < vertex_count and type_id in PER_VERTEX_MEASURED:
                out.append(error(S.label(type_id), None, f"{count} records for {vertex_count} vertices"))
            elif count < vertex_count:
                out.append(warning(S.label(type_id), None, f"{count} records for {vertex_count} vertices "
                                                           "(kept as read; no source measured its count)"))
            elif count > vertex_count:
                out.append(warning(S.label(type_id), None, f"{count} records for {vertex_count} vertices"))
    indices = model.indices
    batches = model.batches
    index_ends = batches["index_start"].astype(np.int64) + batches["index_count"]
    for i, batch in enumerate(batches):
        start, end = int(batch["index_start"]), int(index_ends[i])
        if end > len(indices):
            out.append(error("Res13", i, f"indices [{start}, {end}) exceed the index count {len(indices)}"))
            continue
        if end > start:
            top = int(batch["base_vertex"]) + int(indices[start:end].max())
            if top >= vertex_count:
                out.append(error("Res13", i, f"vertex {top} (base_vertex {batch['base_vertex']} + index) "
                                             f"is out of range ({vertex_count} vertices)"))
    triangles = model.triangles
    links = triangles["links"]
    bad = np.flatnonzero(((links != NONE) & (links >= len(triangles))).any(axis=1))
    for i in bad:
        out.append(error("Res7", int(i),
                         f"triangle links {links[i].tolist()} out of range ({len(triangles)} triangles)"))
    return out


# --------------------------------------------------------------------- names
def _check_names(model: Model) -> list[Finding]:
    out = []
    node_count = model.node_count
    entry = model.stream(10)
    if entry is not None:
        try:
            labels = decode_labels(entry.data)
        except LabelError as exc:
            out.append(error("Res10", exc.index, str(exc)))
        else:
            if len(labels) != node_count and model.stream(1) is not None:
                out.append(error("Res10", None, f"{len(labels)} records for {node_count} nodes"))
            for index in inner_nul_labels(labels):  # unmeasured on retail: kept as stored, shown up to the NUL
                out.append(warning("Res10", index, "text holds a NUL before its stated length (kept)"))
        if entry.attr1 != node_count:
            out.append(warning("Res10", None, f"attr1 {entry.attr1} differs from the node count {node_count}"))
        if entry.attr3 != 0:
            out.append(warning("Res10", None, f"attr3 {entry.attr3}, expected 0"))
    if model.stream(9) is not None and len(model.node_names_raw) != node_count:
        out.append(warning("Res9", None, f"{len(model.node_names_raw)} names for {node_count} nodes"))
    return out


# --------------------------------------------------------------------- Res1
def _check_nodes(model: Model) -> list[Finding]:
    out = []
    nodes = model.nodes
    count = len(nodes)
    slot_count = len(model.slots)
    for i, node in enumerate(nodes):
        parent = int(node["parent"])
        if parent != NONE and parent >= count:
            out.append(error("Res1", i, f"parent {parent} is out of range ({count} nodes)"))
        elif parent != NONE and parent >= i:
            out.append(warning("Res1", i, f"parent {parent} does not precede the node"))
        slots = node["slots"]
        bad = slots[(slots != NONE) & (slots >= slot_count)]
        if len(bad):
            out.append(error("Res1", i, f"slot index {int(bad[0])} is out of range ({slot_count} slots)"))
    for i in nodes_in_cycles(nodes["parent"]):
        out.append(error("Res1", i, "node is its own ancestor (parent cycle)"))
    return out


def nodes_in_cycles(parents: np.ndarray) -> list[int]:
    """Indices of nodes whose parent chain loops back to themselves."""
    count = len(parents)
    state = [0] * count  # 0 unknown, 1 in progress, 2 settled
    cyclic = set()
    for start in range(count):
        path = []
        node = start
        while 0 <= node < count and state[node] == 0:
            state[node] = 1
            path.append(node)
            node = int(parents[node])
        if 0 <= node < count and state[node] == 1:
            cyclic.update(path[path.index(node):])
        for n in path:
            state[n] = 2
    return sorted(cyclic)


# --------------------------------------------------------------------- animation
def check_animation(model: Model) -> list[Finding]:
    """msh-animation.md section 9: required checks as errors, canonical ones as warnings."""
    out = []
    nodes = model.nodes
    keys = model.keys
    words = model.map_words
    key_count, word_count = len(keys), len(words)
    res19 = model.stream(19)
    frame_count = model.frame_count
    if res19 is not None:
        if frame_count <= 0:  # unmeasured on retail (spec/retail-envelope.md 17): every frame reads the fallback
            out.append(warning("Res19", None, "frame count (attr2) is 0: every node shows its fallback key "
                                              "(a writer makes at least 1)"))
        if res19.size == 0 and frame_count != 1:
            out.append(warning("Res19", None, f"empty map with frame count {frame_count}; canonical is 1"))
    times = keys["time"]
    previous_fallback = -1
    max_end_time = None
    blocks = []
    for i, node in enumerate(nodes):
        fallback, map_start = int(node["fallback_key"]), int(node["map_start"])
        start = previous_fallback + 1
        if fallback >= key_count:
            out.append(error("Res1", i, f"fallback key {fallback} is out of range ({key_count} keys)"))
            if map_start != NONE:
                out += _check_map(i, map_start, fallback, start, words, key_count, frame_count, res19 is not None)
            previous_fallback = max(previous_fallback, fallback)
            continue
        if fallback < start:
            out.append(warning("Res1", i, f"fallback key {fallback} does not follow the previous node's {start - 1}"))
        track = times[start:fallback + 1]
        if not bool(np.all(np.isfinite(track))):  # every retail key time is finite (retail-envelope 4.8)
            first = int(np.flatnonzero(~np.isfinite(track))[0]) + start
            out.append(error("Res8", first, f"key time of node {i} is not finite ({float(times[first])!r})"))
        elif len(track) > 1 and not bool(np.all(track[1:] > track[:-1])):  # implied on retail, never stated
            first = int(np.flatnonzero(~(track[1:] > track[:-1]))[0]) + start + 1
            out.append(warning("Res8", first, f"key times of node {i} do not strictly increase "
                                              f"({float(times[first - 1])!r} then {float(times[first])!r})"))
        elif len(track):
            if track[0] != 0:
                out.append(warning("Res8", start, f"track of node {i} starts at time {float(track[0])!r}, not 0"))
            if not bool(np.all(track == np.floor(track))):
                out.append(warning("Res8", start, f"track of node {i} has fractional key times"))
            end_time = float(track[-1])
            max_end_time = end_time if max_end_time is None else max(max_end_time, end_time)
        if map_start == NONE:
            if fallback >= start and fallback - start + 1 != 1:
                out.append(warning("Res1", i, f"node without a map has {fallback - start + 1} keys; canonical is 1"))
        else:
            out += _check_map(i, map_start, fallback, start, words, key_count, frame_count, res19 is not None)
            if fallback - start + 1 < 2:  # unmeasured on retail: the map can only name the fallback key
                out.append(warning("Res1", i, "node with a map has fewer than 2 keys"))
            blocks.append((map_start, i))
        previous_fallback = max(previous_fallback, fallback)
    if key_count > previous_fallback + 1 and len(nodes):
        out.append(warning("Res8", previous_fallback + 1,
                           f"{key_count - previous_fallback - 1} keys after the last track"))
    if res19 is not None and max_end_time is not None and frame_count != max_end_time + 1 and frame_count > 0:
        out.append(warning("Res19", None,
                           f"frame count {frame_count} differs from the last key time + 1 ({max_end_time + 1:g})"))
    expected = 0
    for map_start, i in blocks:
        if map_start != expected:
            out.append(warning("Res1", i, f"map block starts at word {map_start}; canonical is {expected}"))
        expected = map_start + frame_count
    if blocks and word_count != expected:
        out.append(warning("Res19", None, f"{word_count} words; canonical blocks need {expected}"))
    if res19 is not None and not blocks and word_count:
        out.append(warning("Res19", None, f"{word_count} words but no node has a map"))
    return out


def _check_map(node: int, map_start: int, fallback: int, start: int, words: np.ndarray,
               key_count: int, frame_count: int, has_res19: bool) -> list[Finding]:
    if not has_res19:
        return [error("Res1", node, f"map start {map_start} but the model has no Res19")]
    if map_start + frame_count > len(words):
        return [error("Res1", node, f"map block [{map_start}, {map_start + frame_count}) "
                                    f"exceeds the {len(words)} map words")]
    out = []
    block = words[map_start:map_start + frame_count].astype(np.int64)
    used = block < fallback
    bad = np.flatnonzero(used & (block + 1 >= key_count))
    if len(bad):
        f = int(bad[0])
        out.append(error("Res19", map_start + f, f"node {node} frame {f}: key {block[f]} has no next key "
                                                 f"({key_count} keys)"))
    above = np.flatnonzero(block > fallback)
    if len(above):
        f = int(above[0])
        out.append(warning("Res19", map_start + f, f"node {node}: {len(above)} frames hold words above the "
                                                   f"fallback key {fallback} (read as fallback; canonical is =)"))
    outside = np.flatnonzero(used & (block < start))
    if len(outside):
        f = int(outside[0])
        out.append(warning("Res19", map_start + f, f"node {node}: {len(outside)} frames point at keys "
                                                   f"before the node's own track"))
    return out
