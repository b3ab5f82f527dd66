"""Hand-built bytes for tests, packed with struct independently of the core writer."""

from __future__ import annotations

import importlib.util
import struct
import sys
from pathlib import Path

import numpy as np

from core.authoring.build import build_model
from core.authoring.synth import random_model
from core.container.nres import MODEL_TYPE_ID

ROT_IDENTITY = (32767, 0, 0, 0)


def nres(entries, *, magic=b"NRes", version=0x100, count=None, total_size=None, sort_index=None,
         align=8, gaps=None, offsets=None, names_raw=None, sizes=None) -> bytes:
    """An NRes file. ``entries``: (type_id, name, data, attr1, attr2, attr3) tuples.

    ``sort_index`` overrides the table (default: lowercase-fold order);
    ``gaps`` adds extra bytes after an entry's payload; ``offsets`` forces
    data offsets (and ``sizes`` the recorded sizes: records may alias one
    payload); ``names_raw`` gives whole 36-byte name fields.
    """
    body = bytearray(16)
    records = []
    for i, (type_id, name, data, a1, a2, a3) in enumerate(entries):
        offset = len(body)
        body += data
        body += bytes((-len(body)) % align)
        if gaps and i in gaps:
            body += gaps[i]
        raw = names_raw[i] if names_raw else (name if isinstance(name, bytes) else name.encode()).ljust(36, b"\0")
        records.append([type_id, a1, a2, sizes[i] if sizes else len(data), a3, raw,
                        offsets[i] if offsets else offset])
    if sort_index is None:
        sort_index = sorted(range(len(entries)), key=lambda i: records[i][5].split(b"\0")[0].lower())
    for record, s in zip(records, sort_index):
        body += struct.pack("<5I36sII", *record, s)
    n = len(entries) if count is None else count
    struct.pack_into("<4sIiI", body, 0, magic, version, n, len(body) if total_size is None else total_size)
    return bytes(body)


def aliasing_archive(payload: bytes, count: int) -> bytes:
    """An archive of ``count`` directory records that all point at one model payload."""
    return nres([(MODEL_TYPE_ID, f"m{i}.msh", payload if i == 0 else b"", 0, 0, 0) for i in range(count)],
                offsets=[16] * count, sizes=[len(payload)] * count)


def shared_map_model(node_count: int, frame_count: int, dense: bool = False) -> bytes:
    """A valid model whose nodes all read node 0's map block: every node moves at every frame (the
    sampler takes any word below the node's fallback key, section 3.2), with one block of map words.
    ``dense``: node 0 is keyed at every frame with random motion, so every node's pose changes at every
    frame and no key can be left out."""
    spec = random_model(11, node_count=node_count, frame_count=frame_count, animated=0.0)
    if dense:
        from core.authoring.synth import axis_quat, keyed_track

        rng = np.random.default_rng(12)
        keyed = min(frame_count, 65535 - 2 * node_count - 1)  # Res8 indexes at most 65535 keys
        times = np.r_[np.arange(keyed - 1), frame_count - 1].astype(np.float64)
        spec.animation.tracks[0] = keyed_track(times, rng.normal(size=(keyed, 3)),
                                               axis_quat(rng.normal(size=3), rng.uniform(-3, 3, keyed)))
    for track in spec.animation.tracks[1:]:  # two keys each (a map needs a next key), no map of their own
        track.times, track.pos, track.rot = np.array([0, 1], np.float32), track.pos[[0, 0]], track.rot[[0, 0]]
    model = build_model(spec)
    nodes = model.nodes.copy()
    nodes["map_start"] = nodes["map_start"][0]
    model.set_stream(1, nodes.tobytes())
    return model.to_bytes()


def node_records(nodes) -> bytes:
    """Res1 stride 38 from (flags, parent, map_start, fallback, slots) tuples."""
    out = b""
    for flags, parent, map_start, fallback, *slots in nodes:
        slots = (slots[0] if slots else [0xFFFF] * 15)
        out += struct.pack("<4H15H", flags, parent, map_start, fallback, *slots)
    return out


def key_records(keys) -> bytes:
    """Res8 from (x, y, z, time, r0, r1, r2, r3) tuples."""
    return b"".join(struct.pack("<4f4h", *k) for k in keys)


def labels_payload(labels) -> bytes:
    out = b""
    for label in labels:
        out += struct.pack("<I", len(label)) + (label + b"\0" if label else b"")
    return out


def triangle_model(nodes, keys, words, frame_count, *, extra=(), node_stride=38, labels=None) -> bytes:
    """A minimal valid model: one slot with one triangle on node 0, plus the given animation.

    ``nodes`` are (flags, parent, map_start, fallback) tuples; node 0 gets slot 0.
    ``extra`` adds (type_id, data, a1, a2, a3) streams at the end of the directory.
    """
    node_bytes = node_records([(*n[:4], [0] + [0xFFFF] * 14) if i == 0 else n for i, n in enumerate(nodes)]) \
        if node_stride == 38 else nodes
    header = struct.pack("<35f", *([0.0] * 35))
    slot = struct.pack("<4H10f5I", 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0.5, 0.5, 0, 0.8, 0, 0, 0, 0, 0)
    positions = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
    normals = bytes([0, 0, 127, 0] * 3)
    uvs = struct.pack("<6h", 0, 0, 1024, 0, 0, 1024)
    batch = struct.pack("<5HIHI", 0, 0, 0xFF00, 0, 3, 0, 0, 0)
    indices = struct.pack("<3H", 0, 1, 2)
    triangle = struct.pack("<4H3hH", 0, 0xFFFF, 0xFFFF, 0xFFFF, 0, 0, 32767, 0x3F)
    key_bytes = key_records(keys)
    word_bytes = struct.pack(f"<{len(words)}H", *words)
    count = len(node_bytes) // node_stride
    label_bytes = labels_payload(labels if labels is not None else [b""] * count)
    streams = [
        (1, "m", node_bytes, count, 0, node_stride),
        (2, "m", header + slot, 1, 0, 68),
        (3, "m", positions, 3, 0, 12),
        (4, "m", normals, 3, 0, 4),
        (5, "m", uvs, 3, 0, 4),
        (13, "m", batch, 1, 0, 20),
        (6, "m", indices, 3, 0, 2),
        (7, "m", triangle, 1, 0, 16),
        (8, "m", key_bytes, len(keys), 0, 4),
        (19, "m", word_bytes, len(words), frame_count, 2),
        (10, "m", label_bytes, count, 0, 0),
    ]
    streams += [(t, "m", d, a1, a2, a3) for t, d, a1, a2, a3 in extra]
    return nres(streams)


def static_model(node_count: int = 1) -> bytes:
    """Every node static: one key each, no map, an empty Res19 with frame count 1."""
    nodes = [(0, 0xFFFF if i == 0 else i - 1, 0xFFFF, i) for i in range(node_count)]
    keys = [(float(i), 0, 0, 0, *ROT_IDENTITY) for i in range(node_count)]
    return triangle_model(nodes, keys, [], 1)


def generated(seed: int = 1, **kw) -> bytes:
    """A generated model (core.authoring.synth) written by the project's writer."""
    return build_model(random_model(seed, **kw)).to_bytes()


def as_array(data: bytes, dtype) -> np.ndarray:
    return np.frombuffer(data, dtype)


def non_canonical(data: bytes) -> bytes:
    """The model with every map made non-canonical but valid: fallback frames hold words above the
    fallback key, and every third mapped frame points one key back within the node's own track."""
    from core.msh.model import Model

    model = Model.parse(data)
    words = model.map_words.copy()
    start = 0
    for node in model.nodes:
        fallback, map_start = int(node["fallback_key"]), int(node["map_start"])
        if map_start != 0xFFFF:
            block = words[map_start:map_start + model.frame_count]
            block[block == fallback] = np.minimum(0xFFFF, fallback + 1 + np.arange((block == fallback).sum()))
            back = (np.arange(len(block)) % 3 == 1) & (block > start) & (block < fallback)
            block[back] -= 1
        start = fallback + 1
    model.set_stream(19, words.tobytes())
    return model.to_bytes()


EXTENSION_PACKAGE = "io_msh_ext"


def load_extension():
    """The repository root loaded as the extension package (as Blender loads it), without importing bpy."""
    if EXTENSION_PACKAGE in sys.modules:
        return sys.modules[EXTENSION_PACKAGE]
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location(EXTENSION_PACKAGE, root / "__init__.py",
                                                  submodule_search_locations=[str(root)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[EXTENSION_PACKAGE] = module
    spec.loader.exec_module(module)
    return module


def run_cli(capsys, *args):
    """``python -m core ARGS`` in this process: (exit code, stdout, stderr), never a traceback."""
    from core.cli import main as cli

    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err
