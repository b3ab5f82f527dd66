"""``python -m core unit``: a unit's tree with each component resolved to its files, and the unit files
(``.dat``, ``.cpt``, ``.ndp``, ``objects.rlb``) for ``validate`` and ``roundtrip``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from ..container.nres import Archive
from ..disk import names_in, read_input
from ..errors import ERROR, Finding, FormatError, printable
from ..files import read_container, validate_container
from ..unit import dat, objects
from ..unit.cpt import parse_cpt, validate_cpt
from ..unit.dat import parse_dat, validate_dat
from ..unit.mount import mounted_damage_rows, mounted_points
from ..unit.ndp import parse_ndp, validate_ndp
from ..unit.resolve import Unit, resolve_unit
from .kinds import OBJECTS
from .output import EXIT_BAD_DATA, EXIT_OK, emit, out
from .roundtrip import rewritten

INDENT_LEVELS = 16  # the text indents a component by its depth up to here (the largest retail trees named hold 18
#                     components: retail-envelope 15); deeper lines say their depth (a chain
#                     of thousands of parts would print lines growing with it: output quadratic in the file)


# --------------------------------------------------------------------- the game folder
def locate(folder: str | Path, name: str) -> Path | None:
    """The file a slot's name (``a\\b.rlb`` or ``a/b.rlb``, any case) names below ``folder``; None when there is
    no such file."""
    place = Path(folder)
    for part in [p for p in name.replace("\\", "/").split("/") if p and p != "."]:
        if part == ".." or not place.is_dir():
            return None
        found = names_in(place).get(part.lower())
        if found is None:
            return None
        place = place / found
    return place if place.is_file() else None


def folder_loader(folder: str | Path) -> Callable[[str], bytes | None]:
    """A loader for core.unit.resolve: a name as a slot gives it -> the file's bytes below ``folder`` (see
    ``locate``), None when there is no such file."""
    def load(name: str) -> bytes | None:
        place = locate(folder, name)
        return read_input(place) if place is not None else None
    return load


def game_folder(dat_path: str) -> Path:
    """The nearest folder at or above the unit's that holds an objects.rlb (any case), else the unit's own."""
    start = Path(os.path.abspath(dat_path)).parent
    for folder in (start, *start.parents):
        try:
            if OBJECTS in names_in(folder):
                return folder
        except OSError:
            continue
    return start


# --------------------------------------------------------------------- validate / roundtrip
def validate_file(path: str) -> list[Finding]:
    """The findings of a unit file (OSError when it cannot be read)."""
    data = read_input(path)
    suffix = Path(path).suffix.lower()
    if suffix == ".dat":
        return validate_dat(data)
    if suffix == ".cpt":
        return validate_cpt(data)
    if suffix == ".ndp":
        return validate_ndp(data)
    try:
        container = read_container(data, path)
    except FormatError as exc:
        return exc.findings
    return validate_container(container) + objects.validate_objects(container.archive)


def rewritten_file(path: str, data: bytes) -> bytes:
    """The file as its codec writes it back; FormatError when it does not decode."""
    suffix = Path(path).suffix.lower()
    if suffix == ".dat":
        return parse_dat(data, path).to_bytes()
    if suffix == ".cpt":
        return parse_cpt(data, path).to_bytes()
    if suffix == ".ndp":
        return parse_ndp(data, path).to_bytes()
    archive = Archive.parse(rewritten(read_container(data, path)), path)
    for entry in archive.entries:
        try:
            entry.data = objects.parse_record(entry).to_bytes()
        except FormatError:
            continue  # validate names it; the payload stays as read
    return archive.to_bytes()


# --------------------------------------------------------------------- unit
def describe(unit: Unit, path: str, folder: Path) -> dict:
    tree = unit.tree
    depth = tree_depth(unit.parents)
    components = []
    for i, (component, part) in enumerate(zip(tree.components, unit.parts)):
        mounted = unit.assembly.parts[i]
        item = {
            "index": i, "parent": unit.parents[i], "depth": depth[i], "record": component.record,
            "class": component.kind, "class_name": component.class_name, "display": component.display,
            "flags": component.flags, "attach": component.attach, "tag": part.tag, "records": part.chain,
            "files": {ext[1:]: None if where is None else list(where) for ext, where in part.files.items()},
            "model": None if part.model is None else {"name": part.model.name, "nodes": part.model.node_count},
            "materials": part.materials,
            "controller": None if part.controller_size is None else {"size": part.controller_size},
            "points": None, "damage": None, "socket": None, "device": None, "unit_nodes": None,
            "missing": part.missing,
        }
        if mounted is not None:
            item["device"] = mounted.device
            if mounted.nodes is not None:
                item["unit_nodes"] = [int(n) for n in (mounted.nodes if mounted.socket is None else mounted.nodes[1:])]
            if mounted.socket is not None:
                item["socket"] = _socket(unit, i, mounted.socket)
        if part.points is not None:
            points = part.points.summary()
            if mounted is not None and mounted.nodes is not None:
                nodes, carriers, _ = mounted_points(part.points, mounted)
                for point, node, carrier in zip(points, nodes, carriers):
                    point["unit_node"], point["unit_carrier"] = int(node), int(carrier)
            item["points"] = points
        if part.damage is not None:
            rows = [part.damage.row(r) for r in range(len(part.damage))]
            if mounted is not None:
                for node, r in mounted_damage_rows(part.damage, mounted):
                    rows[r]["unit_node"] = node
            item["damage"] = rows
        components.append(item)
    nodes = [{"index": n, "component": c, "part_node": k, "name": _node_name(unit, c, k),
              "parent": None if p == 0xFFFF else int(p)}
             for n, ((c, k), p) in enumerate(zip(unit.assembly.owner, unit.assembly.parents))]
    return {"path": path, "game": str(folder), "type": tree.type_word, "type_name": dat.type_name(tree.type_word),
            "components": components, "nodes": nodes, "findings": [f.as_dict() for f in unit.findings]}


def tree_depth(parents: list[int | None]) -> list[int]:
    out: list[int] = []
    for p in parents:
        out.append(0 if p is None or p >= len(out) else out[p] + 1)
    return out


def _node_name(unit: Unit, component: int, node: int) -> str | None:
    model = unit.parts[component].model
    return None if model is None else model.node_name(node)


def _socket(unit: Unit, component: int, socket: int) -> dict:
    host, node = unit.assembly.owner[socket]
    label = None
    model = unit.parts[host].model
    try:
        labels = model.labels if model is not None else []
        raw = labels[node] if node < len(labels) else None
        label = None if raw is None else raw.decode("cp1251", "replace")
    except FormatError:
        label = None
    return {"component": host, "node": node, "name": _node_name(unit, host, node), "label": label,
            "unit_node": socket, "attach": unit.tree.components[component].attach}


def _lines(payload: dict) -> list[str]:
    lines = [f"{payload['path']}: {payload['type_name']} (type {payload['type']:#010x}), "
             f"{len(payload['components'])} components, {len(payload['nodes'])} unit nodes; game folder "
             f"{payload['game']}"]
    for c in payload["components"]:
        pad = "  " * (min(c["depth"], INDENT_LEVELS) + 1)
        deeper = f"(depth {c['depth']}) " if c["depth"] > INDENT_LEVELS else ""
        tag = c["tag"] or "no record"
        where = ""
        if c["socket"] is not None:
            s = c["socket"]
            where = f" on node {s['node']} {s['name'] or ''}" + (f" ({s['label']})" if s["label"] else "") + \
                f" of component {s['component']}"
        elif c["device"] is not None:
            where = f" as controller device {c['device']} of component {c['parent']}"
        lines.append(f"{pad}{deeper}[{c['index']}] {c['class_name']} {c['record']} [{tag}] {c['display']!r}{where}")
        files = c["files"]
        detail = []
        if c["model"] is not None:
            detail.append(f"model {':'.join(files['msh'])} ({c['model']['nodes']} nodes)")
        if c["materials"] is not None:
            detail.append(f"materials {', '.join(c['materials'])}")
        if c["controller"] is not None:
            detail.append(f"controller {':'.join(files['ctl'])} ({c['controller']['size']} bytes)")
        if c["points"] is not None:
            detail.append(f"points {', '.join(p['name'] for p in c['points']) or '-'}")
        if c["damage"] is not None:
            kept = c["damage"] if c["unit_nodes"] is None else [r for r in c["damage"] if "unit_node" in r]
            hp = ", ".join(f"{r['hit_points']:g}" for r in kept) or "-"
            detail.append(f"damage {len(c['damage'])} rows (hit points {hp})")
        if c["unit_nodes"]:
            detail.append(f"unit nodes {c['unit_nodes'][0]}..{c['unit_nodes'][-1]}")
        if c["records"] and len(c["records"]) > 1:
            detail.append(f"records {' -> '.join(c['records'])}")
        for text in detail:
            lines.append(f"{pad}    {text}")
        if c["missing"]:
            lines.append(f"{pad}    MISSING: {', '.join(c['missing'])}")
    return lines


def cmd_unit(args: argparse.Namespace) -> int:
    data = read_input(args.file)
    tree = parse_dat(data, args.file)
    folder = Path(args.game) if args.game else game_folder(args.file)
    if args.game and not folder.is_dir():
        raise NotADirectoryError(2, "no such folder", args.game)
    load = folder_loader(folder)
    findings = validate_dat(data)
    records_data = load(OBJECTS)
    records = None
    if records_data is None:
        findings.append(Finding(ERROR, "unit", None, f"no objects.rlb in {printable(str(folder))}"))
    else:
        try:
            records = Archive.parse(records_data, OBJECTS)
        except FormatError as exc:
            findings += [f.located(OBJECTS) for f in exc.findings]
    unit = resolve_unit(tree, records, load)
    known = set(unit.findings)
    unit.findings[:0] = [f for f in findings if f not in known]
    payload = describe(unit, args.file, folder)
    out(args, payload, _lines(payload))
    if not args.json:
        for f in unit.findings:
            emit(f.format(args.file), file=sys.stderr if f.is_error else sys.stdout)
    refused = refusal(unit.findings, getattr(args, "strict", False))
    if refused:
        emit(f"{printable(args.file)}: {refused}", file=sys.stderr)
    return EXIT_BAD_DATA if refused else EXIT_OK


def refusal(findings: list[Finding], strict: bool) -> str | None:
    """Why the unit is refused, naming the profile that refused it; None when it is not. The default (retail)
    profile refuses errors only: a check whose rule the retail files break is a warning
    (docs/refusing-checks.md); the strict profile refuses warnings too."""
    errors = sum(f.is_error for f in findings)
    warnings = len(findings) - errors
    if errors:
        return f"refused by the retail profile: {errors} errors"
    if strict and warnings:
        return f"refused by the strict profile: {warnings} warnings (without --strict they do not fail)"
    return None


def info_file(args: argparse.Namespace) -> int:
    """``info`` of a unit file: a unit's tree (as ``unit`` prints it), a ``.cpt``'s points or a ``.ndp``'s rows;
    ``objects.rlb`` is an archive (``info`` shows its entries)."""
    suffix = Path(args.file).suffix.lower()
    if suffix == ".dat":
        return cmd_unit(argparse.Namespace(**{**vars(args), "game": None}))
    data = read_input(args.file)
    if suffix == ".cpt":
        points = parse_cpt(data, args.file).summary()
        payload = {"path": args.file, "kind": "control points", "points": points}
        lines = [f"{args.file}: control points, {len(points)}"] + [
            f"  {i:3}  {p['name']}  node {p['node']}, carried by {p['carrier']}, flags {p['flags']:#x}"
            for i, p in enumerate(points)]
    else:
        table = parse_ndp(data, args.file)
        rows = [table.row(r) for r in range(len(table))]
        payload = {"path": args.file, "kind": "damage table", "rows": rows}
        lines = [f"{args.file}: damage table, {len(rows)} rows"] + [
            f"  {r['row']:3}  hit points {r['hit_points']:g}, density {r['density']:g}, flags {r['flags']:#x}, "
            f"explosion {':'.join(r['explosion'])}" for r in rows]
    out(args, payload, lines)
    return EXIT_OK
