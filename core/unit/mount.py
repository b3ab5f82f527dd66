"""How the engine mounts a unit's parts: one node tree for the whole unit, and its pose at any time.

The rule, as the public sources describe it (dragonee/openparkan docs/28-chassis.md, docs/30-turrets.md):

- Parts load in the ``.dat`` pre-order; the chassis (the root component) keeps all its nodes
  (dragonee/openparkan docs/28-chassis.md).
- An external part (objects.rlb tag EXTO: turrets, guns) is merged into the unit's model without its node 0.
  A node whose parent was 0 hangs on the socket: the node ``attach`` names in the parent part's own mesh,
  a geometry-less ``Base_*`` node. The other nodes keep their hierarchy, renumbered: source parent 0 ->
  socket, p > 0 -> first_new + p - 1, 0xFFFF -> none (dragonee/openparkan docs/07-objects.md, AniMesh
  0x1000a460; the remap as sampletext32/ParkanPlayground MshLib/docs/CAniMesh.md gives it).
- So a part node n >= 1 has ``world = socket_world @ local(n)`` down its own chain, and the root's own pose
  never applies (docs/28-chassis.md). Placing the whole part model as one object, the same rule reads
  ``part_place = socket_world @ inv(root_local)`` (dragonee/openparkan openparkan/assembly.py).
- With it, the part's ``.cpt`` node 0 means the socket and its other nodes shift into the merged numbering,
  and the part's ``.ndp`` row 0 (its dropped root) is skipped (docs/28-chassis.md, docs/13-control.md).
- An internal part (tag INTO: engine, armour, radar, clip ...) is a device of the parent's controller:
  ``attach`` is a component index there, the part keeps that device's node and adds no nodes of its own
  (docs/28-chassis.md). It is listed, not merged.

Decisions the sources leave to us (docs/formats/units.md): a part whose tag is neither EXTO nor
INTO is external when its class is turret (1) or gun (4); the chassis root's translation is kept as the
model animates it (the runtime's root-motion clearing belongs to the moving body, not to the assembly).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..animation.pose import pose_matrix, world_matrices
from ..animation.sampler import AnimationData, sample
from ..errors import Finding, error, warning
from .cpt import CONSEQUENCE, ControlPoints
from .ndp import DamageTable

NONE = 0xFFFF
STREAM = "unit"


@dataclass
class PartNodes:
    """What mounting needs of one component's part: its model's node parents, and how it is attached."""

    parents: np.ndarray              # the part model's Res1 parents (0xFFFF: none)
    external: bool                   # hung on a socket node (EXTO) rather than fitted as a device (INTO)
    names: list[str | None] = field(default_factory=list)


@dataclass
class MountedPart:
    component: int
    nodes: np.ndarray | None   # unit node of each part node; [0] is the socket for a mounted part; None: not merged
    socket: int | None = None  # unit node the part hangs on (None for the chassis and internal parts)
    device: int | None = None  # controller component index of an internal part


@dataclass
class Assembly:
    parents: np.ndarray                       # unit node parents (0xFFFF: none)
    owner: list[tuple[int, int]]              # (component, part node) of each unit node
    parts: list[MountedPart | None]           # by component; None when the part could not be mounted
    findings: list[Finding] = field(default_factory=list)

    @property
    def node_count(self) -> int:
        return len(self.parents)


def assemble(tree_parents: list[int | None], attach: list[int], parts: list[PartNodes | None]) -> Assembly:
    """The unit's node tree: the root part's nodes, then each external part's nodes 1.. in ``.dat`` order.

    ``tree_parents`` and ``attach`` are per component (``UnitTree.parents()`` and each component's attach);
    ``parts[i]`` is None where component i's model is missing. Problems are findings, never exceptions.
    """
    merged: list[int] = []
    owner: list[tuple[int, int]] = []
    mounted: list[MountedPart | None] = [None] * len(parts)
    findings: list[Finding] = []
    for i, part in enumerate(parts):
        parent = tree_parents[i]
        if part is None:
            continue
        parents = np.asarray(part.parents, np.int64)
        count = len(parents)
        if parent is None:
            if i:
                continue
            mounted[i] = MountedPart(i, np.arange(count) + len(merged))
            merged += [int(p) if p == NONE or 0 <= p < count else NONE for p in parents]
            owner += [(i, k) for k in range(count)]
            findings += [error(STREAM, i, f"node {k}: parent {int(p)} is not a node of the part")
                         for k, p in enumerate(parents) if p != NONE and not 0 <= p < count][:10]
            continue
        host = mounted[parent]
        if host is None or (host.nodes is None and part.external):
            findings.append(warning(STREAM, i, f"not mounted: its parent component {parent} is not mounted"
                                               if host is None else
                                               f"not mounted: its parent component {parent} adds no nodes"))
            continue
        if not part.external:
            mounted[i] = MountedPart(i, None, device=attach[i])
            continue
        host_count = len(host.nodes)
        if not 0 <= attach[i] < host_count:
            findings.append(error(STREAM, i, f"attach {attach[i]} is not a node of the parent part "
                                             f"({host_count} nodes)"))
            continue
        socket = int(host.nodes[attach[i]])
        first = len(merged)
        nodes = np.concatenate([[socket], first + np.arange(count - 1)]).astype(np.int64) if count else \
            np.zeros(0, np.int64)
        for k in range(1, count):
            p = int(parents[k])
            if p == NONE:
                merged.append(NONE)
            elif p == 0:
                merged.append(socket)
            elif 0 < p < count:
                merged.append(first + p - 1)
            else:
                findings.append(error(STREAM, i, f"node {k}: parent {p} is not a node of the part"))
                merged.append(NONE)
            owner.append((i, k))
        mounted[i] = MountedPart(i, nodes, socket)
    return Assembly(np.asarray(merged, np.int64).astype(np.uint16), owner, mounted, findings)


def unit_local_matrices(assembly: Assembly, animations: list[AnimationData | None], times,
                        normalize: bool = False) -> np.ndarray:
    """Each unit node's local matrix at each time, (nodes, times, 4, 4): the owning part's own sampled pose.

    A mounted part's root (node 0) has no unit node: its pose never applies. ``normalize`` builds each
    matrix from the unit quaternion, as a viewer that normalises (Blender) shows it.
    """
    t = np.asarray(times, np.float32).reshape(-1)
    local = np.tile(np.eye(4, dtype=np.float32), (assembly.node_count, len(t), 1, 1))
    for mounted in assembly.parts:
        if mounted is None or mounted.nodes is None or animations[mounted.component] is None:
            continue
        s = sample(animations[mounted.component], t)
        rot = s.rot
        if normalize:
            length = np.linalg.norm(rot.astype(np.float64), axis=-1, keepdims=True)
            rot = np.where(length > 0, rot / np.where(length > 0, length, 1), rot)
        matrices = pose_matrix(rot, s.pos)
        if mounted.socket is None:
            local[mounted.nodes] = matrices
        else:
            local[mounted.nodes[1:]] = matrices[1:]
    return local


def unit_world_matrices(assembly: Assembly, animations: list[AnimationData | None], times,
                        normalize: bool = False) -> np.ndarray:
    """Every unit node's model-space matrix at each time, (nodes, times, 4, 4) in float64.

    ``animations[i]`` samples component i's model (core.animation.sampler). FormatError where a part's
    animation reads outside its streams (as the sampler does) or the unit's parents run in a cycle.
    """
    return world_matrices(unit_local_matrices(assembly, animations, times, normalize), assembly.parents)


def part_placement(socket_world: np.ndarray, root_local: np.ndarray) -> np.ndarray:
    """Where the whole part model goes so that its nodes land where the unit's do: socket @ inv(root).

    Holds for a root pose the runtime can invert; a degenerate root (scale 0) has no placement (NaN).
    """
    with np.errstate(all="ignore"):
        try:
            inverse = np.linalg.inv(np.asarray(root_local, np.float64))
        except np.linalg.LinAlgError:
            return np.full((4, 4), np.nan)
    return np.asarray(socket_world, np.float64) @ inverse


def mounted_points(points: ControlPoints, mounted: MountedPart) -> tuple[np.ndarray, np.ndarray, list[Finding]]:
    """The unit nodes of each point's ``node`` and ``carrier``: node 0 is the socket, others shifted.

    -1 where the point names a node the part does not have, with a warning: retail chassis points name a
    carrier of -1 or past the mesh, and one names a node outside it (spec/retail-envelope.md 8.3). A point
    without a carrier stays on its node; one without a node is not placed.
    """
    if mounted.nodes is None:
        return np.full(len(points), -1), np.full(len(points), -1), []
    nodes = mounted.nodes
    findings = []
    out = []
    for what in ("node", "carrier"):
        index = points.points[what].astype(np.int64)
        ok = (index >= 0) & (index < len(nodes))
        for bad in np.flatnonzero(~ok)[:10]:
            findings.append(warning("cpt", int(bad), f"component {mounted.component}: {what} {int(index[bad])} is "
                                                     f"not a node of the part ({len(nodes)} nodes): "
                                                     f"{CONSEQUENCE[what]}"))
        out.append(np.where(ok, nodes[np.where(ok, index, 0)], -1) if len(nodes) else np.full(len(index), -1))
    return out[0], out[1], findings


def mounted_damage_rows(table: DamageTable, mounted: MountedPart) -> list[tuple[int, int]]:
    """(unit node, row) pairs: every row of the chassis; a mounted part's rows from 1 (row 0 is its root)."""
    if mounted.nodes is None:
        return []
    first = 0 if mounted.socket is None else 1
    return [(int(mounted.nodes[r]), r) for r in range(first, min(len(table), len(mounted.nodes)))]
