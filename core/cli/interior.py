"""``info`` and ``roundtrip`` for building interiors: a model's hall way (stream 17) and the ground plans
(``.bas``, NRes type BASE) of an archive such as fortif.rlb. ``validate`` checks them through core.files."""

from __future__ import annotations

from ..container.nres import Archive, Entry
from ..disk import read_input
from ..errors import FormatError
from ..interior.bas import BAS_TYPE_ID, read_bas, validate_bas
from ..interior.hallway import TYPE_ID as HALLWAY_TYPE_ID
from ..interior.hallway import hallway_of
from ..msh.model import Model


def hallway_lines(name: str, s: dict) -> list[str]:
    places = ", ".join(f"{count} {place}" for place, count in s["places"].items() if count) or "no places"
    gates = ", ".join(f"{count} {gate}" for gate, count in s["gates"].items() if count) or "no links"
    return [f"{name}: hall way, {s['vertices']} vertices on nodes {s['joints']}, {s['links']} links ({gates}), "
            f"{places}, attr3 {s['attr3']}" + (f", {s['extra_bytes']} bytes after the links" if s["extra_bytes"]
                                               else "")]


def plan_lines(name: str, s: dict) -> list[str]:
    rings = [f"{side} {r['corners']} corners{'' if r['anticlockwise'] else ' clockwise'}"
             for side in ("inner", "outer") for r in s[side]]
    return [f"{name}: ground plan, {s['form']}{' (carried as read)' if s['form'] != 'two rings' else ''}, "
            f"{s['bytes']} bytes: {', '.join(rings) or 'no contours'}"]


def interiors(archive: Archive, models: list[Model]) -> tuple[list[dict], list[str]]:
    """Each model's hall way and each ground plan entry, summarised (one that does not read: its error)."""
    payload, lines = [], []
    for model in models:
        try:
            graph, _ = hallway_of(model, tolerant=True)
        except FormatError as exc:
            payload.append({"name": model.name, "findings": [f.as_dict() for f in exc.findings]})
            continue
        if graph is not None:
            summary = graph.summary()
            payload.append({"name": model.name, "kind": "hall way", **summary})
            lines += hallway_lines(model.name, summary)
    for entry in archive:
        if entry.type_id != BAS_TYPE_ID or entry.unreadable is not None:
            continue
        summary = read_bas(entry.data, entry.name_str)[0].summary()
        payload.append({"name": entry.name_str, "kind": "ground plan", **summary})
        lines += plan_lines(entry.name_str, summary)
    return payload, lines


def rewritten_plan(entry: Entry) -> bytes:
    """A ground plan's bytes decoded and written again (the two-ring form from its rings; others as read)."""
    return read_bas(entry.data, entry.name_str)[0].to_bytes()


def with_hallway_rewritten(model: Model) -> Model:
    """The model with its stream 17 decoded and written again (the entry's attributes kept as read)."""
    graph, _ = hallway_of(model, tolerant=True)
    if graph is not None:
        model.set_stream(HALLWAY_TYPE_ID, graph.to_bytes())
    return model


def info_file(args, out) -> int:
    """A bare ``.bas``: its form and rings (any bytes read: a form not understood is carried)."""
    plan, findings = read_bas(read_input(args.file), args.file)
    summary = plan.summary()
    payload = {"path": args.file, "kind": "ground plan", **summary, "findings": [f.as_dict() for f in findings]}
    out(args, payload, plan_lines(args.file, summary) + [f.format(args.file) for f in findings])
    return 0


def validate_file(path: str) -> list:
    return validate_bas(read_input(path))


def rewritten_file(path: str, data: bytes) -> bytes:
    return read_bas(data, path)[0].to_bytes()
