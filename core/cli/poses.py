"""``python -m core`` on poses and keys: ``sample`` (the runtime's pose at given times), ``blend`` (a blended
matrix) and ``rewrite`` (keys and maps written again)."""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

from ..animation.sampler import BRANCHES, AnimationData, blend, sample
from ..animation.tracks import read_animation, write_animation
from ..disk import read_with_state
from ..files import open_container, read_container
from ..msh import streams as S
from ..msh.model import Model
from ..write_path import UNREAD, Target, write
from .output import EXIT_OK, UsageError, emit, json_safe, out

FLOAT32_MAX = float(np.finfo(np.float32).max)  # times are float32 in the runtime: larger ones become infinity
MAX_TIMES = 1_000_000  # sample: the most times one call takes
SAMPLE_CHUNK = 4096    # sample: times sampled and printed at once


def _f32(value) -> float:
    return float(np.float32(value))


def _parse_list(value: str | None, kind, what: str) -> list:
    if value is None:
        return []
    try:
        return [kind(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"bad {what} list: {value!r}") from None


def _times(args: argparse.Namespace) -> np.ndarray:
    if args.times is not None:
        times = _parse_list(args.times, float, "--times")
        if not np.all(np.isfinite(np.asarray(times, np.float32))):
            raise UsageError(f"--times {args.times!r}: every time must be a finite number (float32: "
                             f"magnitude below {FLOAT32_MAX:.6g})")
        return np.asarray(times, np.float32)
    parts = args.frames.split(":")
    try:
        start, stop = float(parts[0]), float(parts[1])
        step = float(parts[2]) if len(parts) > 2 else 1.0
    except (ValueError, IndexError):
        raise UsageError(f"--frames takes A:B[:STEP], got {args.frames!r}") from None
    if len(parts) > 3 or not np.all(np.isfinite([start, stop, step])):
        raise UsageError(f"--frames {args.frames!r}: A, B and STEP must be finite numbers")
    if step <= 0 or (stop - start) / step > MAX_TIMES:
        raise UsageError(f"--frames {args.frames!r}: step must be positive and give at most {MAX_TIMES} times")
    count = max(0, int(np.ceil((stop - start) / step - 1e-9)))
    times = (start + step * np.arange(count)).astype(np.float32)
    if not np.all(np.isfinite(times)):
        raise UsageError(f"--frames {args.frames!r}: every time must be finite in float32 "
                         f"(magnitude below {FLOAT32_MAX:.6g})")
    return times


def selected_nodes(args: argparse.Namespace, model: Model) -> list[int]:
    nodes = _parse_list(args.nodes, int, "--nodes") if args.nodes else list(range(model.node_count))
    bad = [n for n in nodes if not 0 <= n < model.node_count]
    if bad:
        raise UsageError(f"node {bad[0]} does not exist ({model.node_count} nodes)")
    return nodes


def cmd_sample(args: argparse.Namespace) -> int:
    """Streams: one node at a time, SAMPLE_CHUNK times at a time, so memory does not grow with the output."""
    model = open_container(args.file, tolerant=True).open_model(args.entry)
    data = AnimationData.from_model(model)
    times = _times(args)
    nodes = selected_nodes(args, model)
    if args.json:
        sys.stdout.write(f'{{"frame_count": {model.frame_count}, "nodes": [')
    else:
        emit(f"frame_count {model.frame_count}")
    for position, n in enumerate(nodes):
        parent = int(data.parents[n])
        if args.json:
            head = json.dumps({"index": n, "name": model.node_name(n), "parent": None if parent == S.NO_INDEX
                               else parent}, ensure_ascii=False)[:-1]
            sys.stdout.write(("," if position else "") + f'\n{head}, "samples": [')
        else:
            emit(f"node {n} {model.node_name(n) or ''}")
        for start in range(0, len(times), SAMPLE_CHUNK):
            chunk = times[start:start + SAMPLE_CHUNK]
            result = sample(data, chunk, [n])
            separator = ("," if start else "") + "\n" if args.json else ""
            sys.stdout.write(separator + _sample_lines(chunk, result, args.json))
        if args.json:
            sys.stdout.write("]}")
    if args.json:
        sys.stdout.write("]}\n")
    return EXIT_OK


def _sample_lines(times: np.ndarray, result, as_json: bool) -> str:
    """One chunk of ``sample`` output, formatted from whole arrays (floats shown as their float32 values)."""
    columns = (times.astype(np.float32).astype(np.float64).tolist(), result.key[0].tolist(),
               [BRANCHES[b] for b in result.branch[0].tolist()], result.rot[0].astype(np.float64).tolist(),
               result.pos[0].astype(np.float64).tolist())
    if not as_json:
        return "".join(f"  t={t:<10g} key={k:<5} {b:8} rot={r} pos={p}\n" for t, k, b, r, p in zip(*columns))
    rows = zip(*columns)
    finite = all(np.isfinite(a).all() for a in (times, result.rot, result.pos))
    if not finite:  # JSON has no NaN or Infinity (see _json_safe)
        return ",\n".join(json.dumps(json_safe({"t": t, "key": k, "branch": b, "rot": r, "pos": p}),
                                      allow_nan=False) for t, k, b, r, p in rows)
    return ",\n".join(f'{{"t": {t!r}, "key": {k}, "branch": "{b}", "rot": {r}, "pos": {p}}}'
                       for t, k, b, r, p in rows)


def cmd_blend(args: argparse.Namespace) -> int:
    for option in ("ta", "tb", "weight"):
        if not np.isfinite(np.float32(getattr(args, option))):
            raise UsageError(f"--{option} {getattr(args, option)!r} is not a finite float32 number")
    if not 0.0 <= args.weight <= 1.0:
        raise UsageError(f"--weight {args.weight!r} is outside 0 to 1 (the second pose's share)")
    model = open_container(args.file, tolerant=True).open_model(args.entry)
    if not 0 <= args.node < model.node_count:
        raise UsageError(f"node {args.node} does not exist ({model.node_count} nodes)")
    matrix = blend(AnimationData.from_model(model), args.node, args.ta, args.tb, args.weight)
    values = None if matrix is None else [_f32(v) for v in matrix.reshape(-1)]
    lines = ["no pose (neither sample is taken)"] if values is None else [
        " ".join(f"{v:12.6g}" for v in values[r * 4:r * 4 + 4]) for r in range(4)]
    out(args, {"matrix": values}, lines)
    return EXIT_OK


def cmd_rewrite(args: argparse.Namespace) -> int:
    data, state = read_with_state(args.input)
    container = read_container(data, args.input)
    if container.is_model:
        models = [(None, container.open_model())]
    elif args.entry:
        models = [(container.model_entry(args.entry), None)]
    else:
        models = [(e, None) for e in container.distinct_model_entries()]
    for entry, model in models:
        model = model or container.open_entry(entry)
        anim = read_animation(model)
        if args.canonical:
            anim.canonicalize()
        write_animation(model, anim)
        if entry is not None:
            entry.data = model.to_bytes()
    # Rewritten in place: refused when another program replaced the file since it was read (core.write_path)
    same = os.path.realpath(args.output) == os.path.realpath(args.input)
    done = write([Target(args.output, container.to_bytes(), read=state if same else UNREAD, owned=True,
                         spliced=True)], force=args.force)
    if not done.written:  # it already held these bytes (or, in place, the rewrite changes nothing)
        emit(f"{args.input}: {args.output} unchanged: it already holds the rewritten file")
        return EXIT_OK
    emit(f"{args.input}: wrote {args.output}{' (canonical maps)' if args.canonical else ''}")
    return EXIT_OK
