"""Import planning of a unit (``.dat``), in plain Python: each component's part model planned by the model
importer (io_msh.imp.plan, with the dialog's options), and what mounting it needs (core.unit.mount): the
socket it hangs on, its root pose to undo, its control points and damage rows on the nodes they land on.

How the scene shows a unit (docs/manual/units.md): every part is its own model (its own armature or Empties,
so that it exports alone, losslessly, as today); an external part's root object follows its socket's bone or
Empty through a Child Of constraint, and carries the inverse of the part's node-0 pose, so that each node n >= 1
lands on ``socket_world @ local(n)`` (the mounting rule; the root's pose never applies).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...core.animation.pose import pose_matrix
from ...core.animation.sampler import AnimationData, sample
from ...core.cli.unit import folder_loader, game_folder, locate
from ...core.container.nres import Archive, name_bytes
from ...core.disk import read_input
from ...core.errors import FormatError
from ...core.files import open_container
from ...core.unit.dat import parse_dat
from ...core.unit.mount import mounted_damage_rows, mounted_points
from ...core.unit.resolve import Unit, resolve_unit
from ...core.unit.text import block_text
from .hallway_plan import GroundPlanPlan, plan_ground_plan
from .plan import BLENDER_LAST_FRAME, ImportOptions, ModelPlan, plan_model

ROOT_FRAMES = 65_536  # node-0 poses sampled at most (an animated part root is keyed at each of these frames)


@dataclass
class PointPlan:
    name: str
    index: int
    owner: tuple[int, int] | None   # (component, part node) of the node it sits on; None: not on a node
    carrier: tuple[int, int] | None
    position: np.ndarray            # in that node's frame
    vector: np.ndarray              # a direction, or axis x size
    flags: int


@dataclass
class DamagePlan:
    row: int
    flags: int
    hit_points: float
    density: float
    explosion: str                  # 'archive:member'


@dataclass
class PartPlan:
    component: int
    record: str
    display: str
    kind: int
    parent: int | None              # parent component
    attach: int
    external: bool                  # hung on a socket (EXTO); else a controller device (INTO), not mounted
    model: ModelPlan | None
    socket: int | None = None       # the parent part's node it hangs on
    root_frames: np.ndarray | None = None   # frames of ``root_inverse`` (one frame: a static root)
    root_inverse: np.ndarray | None = None  # (frames, 4, 4) inverse of the part's node-0 pose
    damage: dict[int, DamagePlan] = field(default_factory=dict)  # by part node
    ground_plan: GroundPlanPlan | None = None  # a building's .bas (io_msh.imp.hallway)


@dataclass
class UnitPlan:
    name: str
    path: str
    folder: str
    unit: Unit
    parts: list[PartPlan]
    points: list[tuple[int, PointPlan]]  # (component whose .cpt holds it, point)
    warnings: list[str] = field(default_factory=list)
    source: bytes = b""             # the .dat as read


def plan_unit(path: str | Path, options: ImportOptions) -> UnitPlan:
    """Plan a unit: FormatError when the ``.dat`` is no unit tree, its root part cannot be read, or a part
    model is invalid; missing parts and other findings are warnings (the rest is imported)."""
    path = str(path)
    data = read_input(path)
    tree = parse_dat(data, path)
    folder = game_folder(path)
    objects = locate(folder, "objects.rlb")
    if objects is None:
        raise FormatError.single("unit", None, f"no objects.rlb in {folder} or the folders above the unit", path)
    records = Archive.parse(read_input(objects), str(objects))
    unit = resolve_unit(tree, records, folder_loader(folder))
    warnings = [f.format(path) for f in unit.findings]
    if not unit.parts or unit.assembly.parts[0] is None:
        reasons = "; ".join(f.message for f in unit.findings if f.is_error) or "no model"
        raise FormatError.single("unit", 0, f"the root part cannot be read: {reasons}", path)
    options = ImportOptions(**{**options.__dict__, "game_folders": (*options.game_folders, str(folder))})
    containers: dict[str, object] = {}
    planned: dict[tuple[str, str], ModelPlan] = {}  # one plan per part model, shared by the parts using it
    inverses: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # by id of the (shared) core model
    parts = []
    for i, (component, part) in enumerate(zip(tree.components, unit.parts)):
        mounted = unit.assembly.parts[i]
        model = None
        if mounted is not None and part.files.get(".msh") and part.model is not None:
            model = plan_part_model(folder, part.files[".msh"], options, containers, planned)
        plan = PartPlan(i, part.record, block_text(component.display_raw), component.kind, unit.parents[i],
                        component.attach, mounted is not None and mounted.nodes is not None, model)
        if model is not None and mounted is not None and mounted.socket is not None:
            plan.socket = component.attach
            if id(part.model) not in inverses:
                inverses[id(part.model)] = _root_inverse(part.model)
            plan.root_frames, plan.root_inverse = inverses[id(part.model)]
        if mounted is not None and part.damage is not None:
            for unit_node, row in mounted_damage_rows(part.damage, mounted):
                owner = unit.assembly.owner[unit_node]
                if owner[0] == i:
                    record = part.damage.rows[row]
                    plan.damage[owner[1]] = DamagePlan(
                        row, int(record["flags"]), float(record["hit_points"]), float(record["density"]),
                        f"{block_text(bytes(record['archive']))}:{block_text(bytes(record['member']))}")
        if model is not None and part.tag == "FORT":  # a building: its record names its ground plan
            plan.ground_plan, plan_warnings = plan_ground_plan(records, part.record, folder_loader(folder))
            warnings += [f"{path}: {w}" for w in plan_warnings]
        parts.append(plan)
    points = []
    for i, part in enumerate(unit.parts):
        mounted = unit.assembly.parts[i]
        if part.points is None or mounted is None or mounted.nodes is None:
            continue
        nodes, carriers, _findings = mounted_points(part.points, mounted)
        names = part.points.names
        for k, record in enumerate(part.points.points):
            owner = unit.assembly.owner[nodes[k]] if nodes[k] >= 0 else None
            carrier = unit.assembly.owner[carriers[k]] if carriers[k] >= 0 else None
            points.append((i, PointPlan(names[k] if k < len(names) else f"point {k}", k, owner, carrier,
                                        record["pos"].astype(np.float64), record["vector"].astype(np.float64),
                                        int(record["flags"]))))
    for plan in parts:
        if plan.model is not None:
            warnings += plan.model.warnings
        elif unit.assembly.parts[plan.component] is None or plan.external:
            warnings.append(f"{path}: component {plan.component} ({plan.record!r}) is not imported: its model "
                            "is missing or it is not mounted")
    return UnitPlan(Path(path).name, path, str(folder), unit, parts, points, list(dict.fromkeys(warnings)), data)


def plan_part_model(folder: Path, where: tuple[str, str], options: ImportOptions, containers: dict,
                    planned: dict | None = None) -> ModelPlan:
    """The import plan of the model ``where`` (archive, member) names below ``folder``; with ``planned``, planned
    once per (archive, member) and shared (the build only reads it). ``containers`` keeps the archives opened."""
    archive, member = where
    planned = {} if planned is None else planned
    if (archive.lower(), member.lower()) in planned:
        return planned[archive.lower(), member.lower()]
    found = locate(folder, archive)
    if found is None:
        raise FormatError.single("unit", None, f"archive {archive!r} not found below {folder}")
    key = str(found)
    if key not in containers:
        containers[key] = open_container(found)
    container = containers[key]
    wanted = name_bytes(member).lower()
    entry = next((e for e in container.archive.entries if bytes(e.name).lower() == wanted), None)
    if entry is None:
        raise FormatError.single("unit", None, f"no {member!r} in {archive}")
    planned[archive.lower(), member.lower()] = plan_model(container, entry, options)
    return planned[archive.lower(), member.lower()]


def _root_inverse(model) -> tuple[np.ndarray, np.ndarray]:
    """The inverse of node 0's pose (normalised, as Blender shows it) at each frame; one frame when it is
    static."""
    anim = AnimationData.from_model(model)
    count = int(min(max(model.frame_count, 1), ROOT_FRAMES, BLENDER_LAST_FRAME + 1))
    frames = np.arange(count, dtype=np.float32)
    s = sample(anim, frames, [0])
    rot = s.rot[0].astype(np.float64)  # (nodes, times, 4)
    length = np.linalg.norm(rot, axis=-1, keepdims=True)
    rot = np.where(length > 0, rot / np.where(length > 0, length, 1), rot)
    local = pose_matrix(rot, s.pos[0]).astype(np.float64)
    inverse = np.linalg.inv(local)
    if np.abs(inverse - inverse[0]).max(initial=0) <= 1e-7:
        return frames[:1], inverse[:1]
    return frames, inverse
