"""``python -m core clips``, ``sample --clip N --step S``, and ``.ctl`` files in ``validate`` and ``roundtrip``.

``core.cli.commands`` adds the parsers; ``archive`` reaches the ``.ctl`` files through ``validate_ctl`` and
``rewritten_ctl``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..animation.controller import (
    Controller,
    clips_of,
    read_controller,
    step_at,
)
from ..animation.controller.clips import poses_at_steps, shadowed_channels, steps_at
from ..animation.controller.codec import ANCHOR, BY_VELOCITY, FIXED_STEP, JITTER
from ..animation.sampler import AnimationData
from ..disk import read_input
from ..errors import Finding, FormatError, SelectionError, printable
from ..files import open_container
from ..model_controller import locate_controller, read_for_model, where_looked
from ..msh.model import Model
from .kinds import is_controller
from .output import EXIT_OK, UsageError, emit, out
from .poses import selected_nodes


def validate_ctl(path: str) -> list[Finding]:
    """Every finding of a ``.ctl`` file (a layout that does not fit gives its one error)."""
    try:
        return read_controller(read_input(path), str(path))[1]
    except FormatError as exc:
        return exc.findings


def rewritten_ctl(data: bytes, path: str) -> bytes:
    """A ``.ctl`` file's bytes as the codec writes them back after reading."""
    return read_controller(data, str(path))[0].to_bytes()


# -------------------------------------------------------------- finding inputs
def _load(args: argparse.Namespace, path: str) -> tuple[Controller, str, Model | None, list[Finding]]:
    """The controller (from --ctl, a .ctl given as the file, or the model's own as the Blender import finds it:
    ``locate_controller``), where it came from, the model when there is one, and the controller's warnings. It
    is checked against the model as the import checks it (``read_for_model``): errors are a FormatError."""
    model = None
    if is_controller(path):
        if args.ctl:
            raise UsageError("--ctl names a controller, but the file given is one already")
        data, source = read_input(path), path
    else:
        container = open_container(path)
        entry = None if container.is_model else container.model_entry(args.entry)
        model = container.open_model(args.entry) if entry is None else container.open_entry(entry)
        if args.ctl:
            data, source = read_input(args.ctl), args.ctl
        else:
            found = locate_controller(container, entry)
            if found is None:
                raise UsageError(f"{printable(path)}: no controller found ({where_looked(container)}); "
                                        "give one with --ctl FILE")
            data, source = found.data, found.source
    controller, findings = read_for_model(data, source, model)
    return controller, source, model, findings


def _warn(findings: list[Finding], source: str) -> None:
    """The controller's warnings on stderr, worded as the Blender import reports them."""
    for finding in findings:
        emit(finding.format(source), file=sys.stderr)


# ----------------------------------------------------------------- clips
def _mode_words(mode: int) -> list[str]:
    names = [(ANCHOR, "anchor"), (BY_VELOCITY, "velocity"), (FIXED_STEP, "fixed"), (JITTER, "jitter")]
    return [name for bit, name in names if mode & bit]


def _floats(values) -> list[float]:
    return [float(np.float32(v)) for v in values]


def _state_rows(controller: Controller) -> list[dict]:
    rows = []
    for i, s in enumerate(controller.states):
        rows.append({"index": i, "mode": int(s["mode"]), "flags": _mode_words(int(s["mode"])),
                     "pair_a": _floats(s["pair_a"]), "pair_b": _floats(s["pair_b"]), "blend": float(s["blend"]),
                     "length_ms": float(s["length_ms"]), "boxes": int(s["boxes"]),
                     "velocity_min": _floats(s["velocity_min"]), "velocity_max": _floats(s["velocity_max"])})
    return rows


def _clip_rows(controller: Controller, data: AnimationData | None, speed: float | None) -> list[dict]:
    rows = []
    for clip in clips_of(controller, data, speed):
        steps = [{"state": st.state, "pair_a": _floats(controller.states[st.state]["pair_a"]),
                  "pair_b": _floats(controller.states[st.state]["pair_b"]), "q": st.q,
                  "duration_ms": st.duration_ms, "stride": st.stride} for st in clip.steps]
        rows.append({"index": clip.index, "anchor": clip.anchor, "states": clip.states, "speed": clip.speed,
                     "duration_ms": clip.duration_ms, "stride": clip.stride, "steps": steps})
    return rows


def _number(value: float | None, unit: str = "") -> str:
    return "?" if value is None else f"{value:g}{unit}"


def cmd_clips(args: argparse.Namespace) -> int:
    controller, source, model, warnings = _load(args, args.file)
    _warn(warnings, source)
    data = AnimationData.from_model(model) if model is not None else None
    states, clips = _state_rows(controller), _clip_rows(controller, data, args.speed)
    channels = [{"index": i, "node": int(c["node"]), "first": float(c["first"]), "last": float(c["last"]),
                 "initial": float(c["initial"]), "flags": int(c["flags"])} for i, c in enumerate(controller.channels)]
    payload = {"path": args.file, "controller": source, "model": None if model is None else model.name,
               "counts": list(controller.counts), "states": states, "clips": clips, "channels": channels,
               "warnings": [f.as_dict() for f in warnings]}
    a, b, c, d, e = controller.counts
    lines = [f"{source}: {a} states ({len(controller.anchors)} anchors), {b} contacts, {c} channels, "
             f"{d} components, {e} groups" + ("" if model is not None else "; no model: strides unknown")]
    for s in states:
        lines.append(f"state {s['index']:3} {','.join(s['flags']) or '-':22} A {s['pair_a'][0]:g}..{s['pair_a'][1]:g}"
                     f"  B {s['pair_b'][0]:g}..{s['pair_b'][1]:g}  blend {s['blend']:g}  step {s['length_ms']:g} ms")
    for clip in clips:
        lines.append(f"clip {clip['index']}: anchor {clip['anchor']}, states {clip['states']}, "
                     f"speed {clip['speed']:g} m/s, {_number(clip['duration_ms'], ' ms')}, "
                     f"stride {_number(clip['stride'])}")
        for n, st in enumerate(clip["steps"]):
            lines.append(f"  step {n}: state {st['state']}  A {st['pair_a'][0]:g}..{st['pair_a'][1]:g}  "
                         f"B {st['pair_b'][0]:g}..{st['pair_b'][1]:g}  q {st['q']:g}  "
                         f"{_number(st['duration_ms'], ' ms')}  stride {_number(st['stride'])}")
    for ch in channels:
        lines.append(f"channel {ch['index']}: node {ch['node']}, frames {ch['first']:g}..{ch['last']:g}, "
                     f"initial {ch['initial']:g}, flags {ch['flags']:#x}")
    out(args, payload, lines)
    return EXIT_OK


# ------------------------------------------------------- sample --clip --step
def cmd_sample_clip(args: argparse.Namespace) -> int:
    if args.step is None:
        raise UsageError("--clip needs --step S (the integer part picks the step, the fraction is its phase)")
    if not np.isfinite(args.step):
        raise UsageError(f"--step {args.step}: must be a finite number")
    controller, source, model, warnings = _load(args, args.file)
    if model is None:
        raise UsageError("sampling a clip needs the model: give the model and --ctl FILE")
    _warn(warnings, source)
    data = AnimationData.from_model(model)
    clips = clips_of(controller, data, args.speed)
    if not 0 <= args.clip < len(clips):
        raise SelectionError.single("clip", args.clip, f"the controller has {len(clips)} clips", args.file)
    step = step_at(controller, clips[args.clip], args.step)
    nodes = selected_nodes(args, model)
    # The pose before its matrix, as ``sample --times`` prints it: the file-order quaternion as the blend gives it
    # (not normalised) and the position (node 0's cleared, as the game draws it)
    rot, pos, shown = poses_at_steps(data, controller, steps_at(controller, clips[args.clip], [args.step]), nodes)
    rows = [{"index": n, "name": model.node_name(n),
             "rot": [float(v) for v in rot[i, 0]] if shown[i, 0] else None,
             "pos": [float(v) for v in pos[i, 0]] if shown[i, 0] else None} for i, n in enumerate(nodes)]
    notes = [f"channels {posing} and {other} both animate node {node}: the first one poses it"
             for node, posing, other in shadowed_channels(controller) if node in nodes]
    payload = {"clip": args.clip, "step": args.step, "position": step.position, "state": step.state,
               "phase": float(step.phase), "frame_a": float(step.frame_a), "frame_b": float(step.frame_b),
               "weight": float(step.weight), "nodes": rows, "notes": notes}
    lines = [f"clip {args.clip} step {args.step:g}: state {step.state} (step {step.position} of the cycle), "
             f"phase {float(step.phase):g}, frames A {float(step.frame_a):g} B {float(step.frame_b):g}, "
             f"weight {float(step.weight):g}"]
    for row in rows:
        lines.append(f"node {row['index']} {row['name'] or ''}")
        lines.append("  no pose (neither frame is taken)" if row["rot"] is None
                     else f"  rot={row['rot']} pos={row['pos']}")
    out(args, payload, lines + notes)
    return EXIT_OK
