"""The hall way as the scene shows it, written back into the exported model's stream 17 (plain Python, no
Blender): vertices moved (back through their joint nodes' rest poses), flags and joints changed, links added or
removed. A vertex the scene does not move keeps its bytes, so do its words; a link keeps its tail words as the
edge attributes hold them, and a new link (its tail words all 0, as Blender fills a new edge) gets the retail
default, eight 0xFFFFFFFF; attr3 and the bytes after the links are carried (world digest W70, W77). A building's
ground plan (its ``.bas``) is written back the same way when its corners moved (``shown_ground_plan``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.errors import FormatError
from ...core.interior.bas import STREAM, read_bas
from ...core.interior.hallway import LINK, NO_WORD, HallWay, hallway_of, write_hallway
from ...core.msh.model import Model
from ..imp.hallway_plan import placed, unplaced
from ..imp.plan import ImportOptions, plan_nodes


@dataclass
class SceneHallway:
    name: str                     # the hall-way object's
    positions: np.ndarray         # (n, 3) in the model root's frame
    flags: np.ndarray | None      # (n,) u32 from the ``flags`` attribute (None: the attribute was removed)
    joints: np.ndarray | None     # (n,) u32 from ``joint``
    edges: np.ndarray             # (m, 2)
    tails: np.ndarray | None      # (m, 8) u32 from ``tail_0`` .. ``tail_7`` (None: one was removed)


def rest_worlds(model: Model) -> np.ndarray:
    """Each node's rest pose relative to the root, as the import placed the hall way with."""
    return np.array([n.rest_world for n in plan_nodes(model, ImportOptions())]).reshape(-1, 4, 4)


def shown_hallway(model: Model, shown: SceneHallway) -> HallWay | None:
    """The model's hall way edited as ``shown``; None when the model has none. FormatError (naming the object)
    for what stream 17 cannot hold: a vertex count changed, a joint past the nodes, an edge on a vertex twice."""
    graph, _ = hallway_of(model, tolerant=True)
    if graph is None:
        return None
    where = f"hall way {shown.name!r}"
    count = len(graph.vertices)
    if len(shown.positions) != count:
        raise FormatError.single("scene", None, f"{where} has {len(shown.positions)} vertices, the model's "
                                                f"stream 17 {count}: vertices can be moved, not added or deleted")
    worlds = rest_worlds(model)
    joints = graph.vertices["joint"] if shown.joints is None else shown.joints.astype(np.uint32)
    bad = np.flatnonzero((joints >= len(worlds)) & (joints != graph.vertices["joint"]))
    if len(bad):
        raise FormatError.single("scene", int(bad[0]), f"{where}: vertex {int(bad[0])} hangs on node "
                                                       f"{int(joints[bad[0]])}; the model has {len(worlds)} nodes")
    vertices = graph.vertices.copy()
    was = placed(graph, worlds).astype(np.float32)
    now = np.asarray(shown.positions, np.float32)
    moved = np.any(now != was, axis=1) | (joints != graph.vertices["joint"])
    if moved.any():
        local = unplaced(shown.positions[moved], joints[moved], worlds).astype(np.float32)
        vertices["position"][moved] = local
        vertices["joint"][moved] = joints[moved]
    if shown.flags is not None:
        vertices["flags"] = shown.flags.astype(np.uint32)
    links = _links(graph, shown, where)
    return HallWay(vertices, links, graph.attr3, graph.extra)


def _links(graph: HallWay, shown: SceneHallway, where: str) -> np.ndarray:
    edges = np.asarray(shown.edges, np.int64).reshape(-1, 2)
    same_ends = len(edges) == len(graph.links) and np.array_equal(
        np.sort(edges, axis=1), np.sort(np.stack([graph.links["start"], graph.links["end"]], axis=1), axis=1))
    links = np.zeros(len(edges), LINK)
    if same_ends:  # Blender may store an edge either way round: the file's direction is kept
        links["start"], links["end"] = graph.links["start"], graph.links["end"]
    else:
        links["start"], links["end"] = edges[:, 0], edges[:, 1]
    if shown.tails is not None:
        tails = shown.tails.astype(np.uint32)
        tails[~tails.any(axis=1)] = NO_WORD  # a new edge: Blender fills its attributes with 0
        links["tail"] = tails
    elif same_ends:
        links["tail"] = graph.links["tail"]
    else:
        links["tail"] = NO_WORD
    if not len(edges) and len(graph.links):
        raise FormatError.single("scene", None, f"{where} has no edges left; the model's stream 17 has "
                                                f"{len(graph.links)} links")
    return links


def write_shown_hallway(model: Model, shown: SceneHallway | None) -> bool:
    """Write ``shown`` into ``model``'s stream 17 when it differs from it (True); nothing changes otherwise."""
    if shown is None:
        return False
    graph = shown_hallway(model, shown)
    return graph is not None and write_hallway(model, graph)


def shown_ground_plan(raw: bytes, where: str, points: np.ndarray, ring: np.ndarray | None,
                      source: str = "") -> bytes:
    """The ground plan ``raw`` (a ``.bas`` as read) with its corners where the scene shows them: ``points``
    (k x 3, the model's frame), ``ring`` 0 for an inner corner, 1 for an outer one, in the order the import made
    them (None: the attribute was removed, the counts as read split them). ``raw`` itself when no corner moved
    (the file keeps its bytes); else the two-ring form rewritten, every other word carried. FormatError naming
    ``where`` and ``source`` for a corner added or deleted, or an edit of a plan of another form."""
    plan, _ = read_bas(raw, where)
    counts = (plan.inner[0].count if plan.inner else 0, plan.outer[0].count if plan.outer else 0)
    points = np.asarray(points, np.float32).reshape(-1, 3)
    if ring is None:
        ring = np.r_[np.zeros(counts[0], np.int64), np.ones(max(len(points) - counts[0], 0), np.int64)]
    ring = np.asarray(ring, np.int64).reshape(-1)
    shown = (int(np.count_nonzero(ring == 0)), int(np.count_nonzero(ring == 1)))
    if shown != counts or len(points) != sum(counts) or len(ring) != len(points):
        raise FormatError.single(STREAM, None, f"ground plan {where} shows {shown[0]} inner and {shown[1]} outer "
                                               f"corners, the file {counts[0]} and {counts[1]}: corners can be "
                                               "moved, not added or deleted", source)
    inner, outer = points[ring == 0], points[ring == 1]
    was = (plan.inner[0].corner_points, plan.outer[0].corner_points)
    if inner.tobytes() == np.ascontiguousarray(was[0], np.float32).tobytes() and \
            outer.tobytes() == np.ascontiguousarray(was[1], np.float32).tobytes():
        return raw
    if not plan.editable:
        raise FormatError.single(STREAM, None, f"ground plan {where} is not in the two-ring form every retail plan "
                                               "has, so it is carried as read: its corners cannot be moved (move "
                                               "them back, or undo)", source)
    return plan.moved(inner, outer).to_bytes()
