"""Where effects play on a model: the controller's section-5 records that create effects (action 3 on a mesh
node, 4 on three control points, 5 at a building's construction sphere; 27 explodes a node with an ``.exp``),
the records that time them (10 start in a mode, 14 take the time from a node), and the damage table's
explosion per node (dragonee/openparkan docs/13-control.md "The section-5 record", docs/11-effects.md).

A record's nine words: +0 flags, +4 condition mask, +8 inversion mask, +0x0C action, +0x10 v4..v7, +0x20
unread; then the (archive, member) names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import FormatError
from ..msh.streams import NO_INDEX
from ..unit.cpt import ControlPoints
from ..unit.ndp import DamageTable
from ..unit.text import block_name, block_text

ON_NODE, ON_POINTS, ON_SPHERE, EXPLODE_NODE = 3, 4, 5, 27
START, TIME_FROM_NODE = 10, 14
PLACES = {ON_NODE: "node", ON_POINTS: "points", ON_SPHERE: "sphere", EXPLODE_NODE: "explode"}


@dataclass(frozen=True)
class Attachment:
    """One record that names an effect (or, action 27, an explosion), with what the group's other records say
    about the same effect id."""

    group: int
    record: int
    action: int
    archive: str
    member: str
    node: int | None = None               # action 3 (in the part's own node numbering) and 27
    points: tuple[int, int, int] | None = None  # action 4: control point indices (depth, width, height)
    effect_id: int | None = None          # actions 3, 4, 5: the id later records name the instance by
    start_mode: int | None = None         # the time mode an action-10 record starts it in
    time_node: int | None = None          # action 14: the node whose animation value is its time (mode 4)

    @property
    def place(self) -> str:
        return PLACES[self.action]

    def summary(self) -> dict:
        out = {"group": self.group, "record": self.record, "action": self.action, "place": self.place,
               "archive": self.archive, "member": self.member}
        for key in ("node", "points", "effect_id", "start_mode", "time_node"):
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if isinstance(value, tuple) else value
        return out


def attachments_of(groups: list[np.ndarray]) -> list[Attachment]:
    """Every effect and explosion a controller's groups (core.animation.controller Controller.groups) create."""
    out: list[Attachment] = []
    for g, group in enumerate(groups):
        starts: dict[int, int] = {}
        timing: dict[int, int] = {}
        for record in group:
            action, v = int(record["values"][3]), [int(x) for x in record["values"][4:8]]
            if action == START:
                starts.setdefault(v[0], v[1])
            elif action == TIME_FROM_NODE:
                timing.setdefault(v[0], v[1])
        for r, record in enumerate(group):
            action, v = int(record["values"][3]), [int(x) for x in record["values"][4:8]]
            if action not in PLACES:
                continue
            names = block_text(bytes(record["archive"])), block_text(bytes(record["member"]))
            if action == EXPLODE_NODE:
                out.append(Attachment(g, r, action, *names, node=v[0]))
                continue
            out.append(Attachment(g, r, action, *names, node=v[0] if action == ON_NODE else None,
                                  points=tuple(v[:3]) if action == ON_POINTS else None, effect_id=v[3],
                                  start_mode=starts.get(v[3]), time_node=timing.get(v[3])))
    return out


def node_explosions(table: DamageTable) -> dict[int, tuple[str, str]]:
    """Node -> the (archive, member) of the ``.exp`` it plays as it steps up a damage stage (named rows only)."""
    out = {}
    for i, row in enumerate(table.rows):
        if block_name(bytes(row["member"])):
            out[i] = block_text(bytes(row["archive"])), block_text(bytes(row["member"]))
    return out


def points_frame(points: ControlPoints, indices: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """An action-4 frame in the points' own node frame: origin = the centroid of the three positions, rows =
    their vectors with their lengths (depth, width, height). FormatError for an index the list lacks."""
    for i in indices:
        if not 0 <= i < len(points):
            raise FormatError.single("cpt", i, f"control point {i} is not in the list ({len(points)} points)")
    rows = points.points[list(indices)]
    return rows["pos"].astype(float).mean(axis=0), rows["vector"].astype(float)



def node_spheres(model) -> dict[int, tuple[tuple[float, float, float], float]]:
    """Node -> its bounding sphere (centre in the node's own frame, radius), where an explosion on the node plays
    (dragonee/openparkan docs/11-effects.md "What an explosion plays"): the sphere of the node's intact, nearest
    slot (stage 0, LOD 0), or of the first slot it names when that one is empty. Nodes with no slot (and a
    legacy node table, which has none) are left out; a slot index past the slot table is skipped."""
    if model.is_legacy:
        return {}
    nodes, slots = model.nodes, model.slots
    out = {}
    for node, row in enumerate(nodes["slots"]):
        index = next((int(s) for s in row if s != NO_INDEX and s < len(slots)), None)
        if index is not None:
            slot = slots[index]
            out[node] = tuple(float(v) for v in slot["sphere_center"]), float(slot["sphere_radius"])
    return out
