"""Import planning of a building's hall way (mesh stream 17, core.interior.hallway), in plain Python: each vertex
placed through its joint node's rest pose into the model root's frame, with its flags, joint and the links'
tail words as read."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.interior.hallway import PLACES, HallWay, hallway_of


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
    """The hall way of ``model`` (None without stream 17) and its findings as warnings (the model's validation
    already refused the errors)."""
    graph, findings = hallway_of(model, tolerant=True)
    if graph is None:
        return None, []
    flags = graph.vertices["flags"].copy()
    places = {name: np.flatnonzero(flags & bit) for name, bit in PLACES.items()}
    edges = np.stack([graph.links["start"], graph.links["end"]], axis=-1).astype(np.int64) \
        if len(graph.links) else np.zeros((0, 2), np.int64)
    return HallwayPlan(placed(graph, rest_world), flags, graph.vertices["joint"].copy(), edges,
                       graph.links["tail"].copy(), places), [f.format() for f in findings]
