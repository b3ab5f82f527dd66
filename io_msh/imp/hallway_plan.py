"""Import planning of a building's hall way (mesh stream 17, core.interior.hallway), in plain Python: each vertex
placed through its joint node's rest pose into the model root's frame, with its flags, joint and the links'
tail words as read."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.container.nres import Archive
from ...core.errors import FormatError
from ...core.interior.bas import read_bas
from ...core.interior.hallway import PLACES, HallWay, hallway_of
from ...core.unit import objects
from ...core.unit.text import block_name


@dataclass
class HallwayPlan:
    positions: np.ndarray   # (n, 3) in the model root's frame: the joint's rest pose applied
    flags: np.ndarray       # (n,) u32
    joints: np.ndarray      # (n,) u32
    edges: np.ndarray       # (m, 2) vertex numbers
    tails: np.ndarray       # (m, 8) u32, as read
    places: dict[str, np.ndarray]  # a vertex group per named place: the vertices with its flag


def placed(graph: HallWay, rest_world: np.ndarray) -> np.ndarray:
    """Each vertex in the root's frame: ``rest_world[joint] @ position`` (a joint the model lacks: as read)."""
    local = graph.vertices["position"].astype(np.float64)
    joints = graph.vertices["joint"].astype(np.int64)
    known = joints < len(rest_world)
    out = local.copy()
    if known.any():
        m = rest_world[joints[known]]
        out[known] = np.einsum("nij,nj->ni", m[:, :3, :3], local[known]) + m[:, :3, 3]
    return out


def unplaced(points: np.ndarray, joints: np.ndarray, rest_world: np.ndarray) -> np.ndarray:
    """``placed`` undone: root-frame points back into their joints' frames."""
    points = np.asarray(points, np.float64)
    joints = np.asarray(joints, np.int64)
    out = points.copy()
    known = joints < len(rest_world)
    if known.any():
        m = np.linalg.inv(rest_world[joints[known]])
        out[known] = np.einsum("nij,nj->ni", m[:, :3, :3], points[known]) + m[:, :3, 3]
    return out


def plan_hallway(model, rest_world: np.ndarray) -> tuple[HallwayPlan | None, list[str]]:
    """The hall way of ``model`` (None without stream 17, or one that does not read as its counts say) and its
    findings as warnings."""
    graph, findings = hallway_of(model, tolerant=True)
    if graph is None:
        return None, []
    if any(f.is_error for f in findings):  # not shown: an export carries the stream as read
        return None, [f"{f.format()} (the hall way is not shown)" for f in findings]
    flags = graph.vertices["flags"].copy()
    places = {name: np.flatnonzero(flags & bit) for name, bit in PLACES.items()}
    edges = np.stack([graph.links["start"], graph.links["end"]], axis=-1).astype(np.int64) \
        if len(graph.links) else np.zeros((0, 2), np.int64)
    return HallwayPlan(placed(graph, rest_world), flags, graph.vertices["joint"].copy(), edges,
                       graph.links["tail"].copy(), places), [f.format() for f in findings]


@dataclass
class GroundPlanPlan:
    reference: str          # 'archive/member' the building's record names
    inner: np.ndarray       # (n, 3) the inner ring's corners, in the model's frame
    outer: np.ndarray       # (m, 3) the outer ring's corners
    form: str               # core.interior.bas TWO_RINGS, or OTHER (shown as far as it reads; carried)
    archive: str = ""       # the archive's name as the record's slot gives it (below the game folder)
    entry: str = ""         # the archive entry's name
    raw: bytes = b""        # the entry's bytes as read (the export writes the plan back when its corners moved)


def plan_ground_plan(records, record: str, load) -> tuple[GroundPlanPlan | None, list[str]]:
    """The ground plan a building's record names (W75: a FORT record's ``.bas`` slot, redirects followed), read
    through ``load`` (an archive name -> its bytes, None when missing); None with why when it is not there."""
    lookup = objects.lookup(records, record, ".bas")
    slot = lookup.slot
    if slot is None:
        return None, []
    reference = f"{slot.archive}/{slot.member}"
    try:
        data = load(slot.archive)
        archive = None if data is None else Archive.parse(data, slot.archive)
    except FormatError as exc:
        return None, [f"ground plan {reference}: {exc}"]
    entry = None if archive is None else archive.find(block_name(slot.member_raw))
    if entry is None:
        return None, [f"ground plan {reference} was not found: the building is imported without it"]
    plan, findings = read_bas(entry.data, reference)
    warnings = [f.format(reference) for f in findings]
    if not plan.inner or not plan.outer:
        return None, [*warnings, f"ground plan {reference} has no inner and outer ring to show"]
    return GroundPlanPlan(reference, plan.inner[0].corner_points.astype(np.float64),
                          plan.outer[0].corner_points.astype(np.float64), plan.form, slot.archive, entry.name_str,
                          bytes(entry.data)), warnings
